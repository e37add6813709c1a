#include "gsearch/core/file.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

// A fresh empty directory under the system temp directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("gsearch-file-test-" + std::to_string(::getpid()) + "-" + std::to_string(++count()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  static int& count() {
    static int n = 0;
    return n;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const gsearch::FileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("write_file_atomically: writes, replaces, and leaves no temporary behind") {
  TempDir dir;
  const fs::path p = dir.path / "out.json";
  gsearch::write_file_atomically(p, "first\n");
  CHECK(read(p) == "first\n");
  gsearch::write_file_atomically(p, "second, longer\n");
  CHECK(read(p) == "second, longer\n");
  gsearch::write_file_atomically(p, "");
  CHECK(read(p).empty());
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("write_file_atomically: an existing file keeps its permission bits") {
  TempDir dir;
  const fs::path p = dir.path / "keep-mode.txt";
  gsearch::write_file_atomically(p, "a");
  REQUIRE(::chmod(p.c_str(), 0640) == 0);
  gsearch::write_file_atomically(p, "b");
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE(
    "write_file_atomically and check_writable: bad paths are one-line errors, nothing changes") {
  TempDir dir;
  const fs::path missing = dir.path / "no-such-dir" / "out.json";
  CHECK(error_of([&] { gsearch::write_file_atomically(missing, "x"); }) ==
        "cannot write " + missing.string() + ": its directory " + missing.parent_path().string() +
            " does not exist");
  CHECK(error_of([&] { gsearch::check_writable(missing); }).find("does not exist") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(missing.parent_path()));

  CHECK(error_of([&] { gsearch::check_writable(dir.path); }) ==
        "cannot write " + dir.path.string() + ": it is a directory");

  const fs::path file = dir.path / "plain";
  gsearch::write_file_atomically(file, "keep me");
  CHECK(error_of([&] { gsearch::check_writable(file / "below"); }) ==
        "cannot write " + (file / "below").string() + ": " + file.string() + " is not a directory");
  CHECK(error_of([&] { gsearch::check_directory_writable(file); }) ==
        "cannot write into " + file.string() + ": it is not a directory");
  CHECK(read(file) == "keep me");

  gsearch::check_writable(dir.path / "fine.json");  // no throw, nothing left behind
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("check_writable: a directory without write permission is refused before any work") {
  if (::geteuid() == 0) {
    MESSAGE("running as root, which may write anywhere: the permission case is not testable");
    return;
  }
  TempDir dir;
  const fs::path ro = dir.path / "read-only";
  fs::create_directories(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  CHECK(error_of([&] { gsearch::check_writable(ro / "x.json"); }) ==
        "cannot write " + (ro / "x.json").string() + ": Permission denied");
}

TEST_CASE("check_directory_writable: creates a missing output directory and its parents") {
  TempDir dir;
  const fs::path out = dir.path / "a" / "b";
  gsearch::check_directory_writable(out);
  CHECK(fs::is_directory(out));
  CHECK(entries(out) == 0);
}

TEST_CASE("read_file: the whole file, with a cap; /dev/zero and directories are one-line errors") {
  TempDir dir;
  const fs::path p = dir.path / "in.txt";
  gsearch::write_file_atomically(p, "abc\ndef");
  CHECK(gsearch::read_file(p, 7) == "abc\ndef");
  CHECK(error_of([&] { (void)gsearch::read_file(p, 6); }) ==
        "cannot read " + p.string() + ": longer than 6 bytes");
  CHECK(error_of([&] { (void)gsearch::read_file("/dev/zero", 1 << 20); }) ==
        "cannot read /dev/zero: longer than 1048576 bytes");
  CHECK(error_of([&] { (void)gsearch::read_file(dir.path, 100); }) ==
        "cannot read " + dir.path.string() + ": it is a directory");
  CHECK(error_of([&] { (void)gsearch::read_file(dir.path / "none", 100); }) ==
        "cannot read " + (dir.path / "none").string() + ": No such file or directory");
  CHECK(gsearch::read_file("/dev/null", 10).empty());
}

TEST_CASE("LineReader: lines with a cap on their length, numbered from 1") {
  TempDir dir;
  const fs::path p = dir.path / "lines.txt";
  // Lines across the reader's 64 KiB buffer, an empty line, and a last line without '\n'.
  const std::string long_line(100000, 'x');
  gsearch::write_file_atomically(p, "one\n\n" + long_line + "\nlast");
  {
    gsearch::LineReader in(p, 100000);
    std::string line;
    REQUIRE(in.next(line));
    CHECK(line == "one");
    REQUIRE(in.next(line));
    CHECK(line.empty());
    REQUIRE(in.next(line));
    CHECK(line == long_line);
    CHECK(in.line_number() == 3);
    REQUIRE(in.next(line));
    CHECK(line == "last");
    CHECK_FALSE(in.next(line));
    CHECK(in.line_number() == 4);
  }
  {
    gsearch::LineReader in(p, 99999);
    std::string line;
    CHECK(in.next(line));
    CHECK(in.next(line));
    CHECK(error_of([&] { (void)in.next(line); }) ==
          "cannot read " + p.string() + ": line 3 is longer than 99999 bytes");
  }
  CHECK(error_of([&] {
          gsearch::LineReader zero("/dev/zero", 4096);
          std::string line;
          (void)zero.next(line);
        }) == "cannot read /dev/zero: line 1 is longer than 4096 bytes");
  CHECK(error_of([&] { gsearch::LineReader d(dir.path, 10); }) ==
        "cannot read " + dir.path.string() + ": it is a directory");
}
