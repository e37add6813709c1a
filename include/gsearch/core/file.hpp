// gsearch/core/file.hpp — files written whole or not at all, and read with caps.
//
// write_file_atomically(path, text) is the one writer of result files (weights, match
// records and summaries, reports): the text goes to a temporary file in the same directory
// (".NAME.tmp-PID-N", created exclusively), which is written, flushed and fsync'ed, renamed
// over `path`, and then the directory itself is fsync'ed so that the rename is on disk too.
// After a crash or a power loss `path` holds either its old contents or the new ones, never a
// mix; on any failure the temporary is removed and `path` is left as it was. A file that
// already exists keeps its permission bits; a new one gets 0666 less the umask.
//
// check_writable(path) throws the same FileError that writing would, before any work is done
// (a directory, a missing parent, a parent that is not a directory, no permission), by creating
// and removing a temporary file next to `path`: commands call it on their output paths first,
// so that a long run does not fail at its last step. check_directory_writable(dir) does the
// same for an output directory, creating it (and its parents) when it does not exist.
//
// read_file(path, max_bytes) and LineReader(path, max_line) read what commands take as input
// with a cap, so that /dev/zero, a directory or a huge file is a one-line error rather than
// memory that grows without bound: "cannot read /dev/zero: longer than 1048576 bytes".
//
// Messages are one line: "cannot write out/match.json: No such file or directory".
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace gsearch {

// "cannot write PATH: REASON"; reason() is REASON alone.
class FileError : public std::runtime_error {
 public:
  FileError(const std::string& message, std::string reason)
      : std::runtime_error(message), reason_(std::move(reason)) {}
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string reason_;
};

namespace detail {

[[noreturn]] inline void throw_file_error(const std::filesystem::path& path, std::string_view what,
                                          int err) {
  std::string reason = what.empty() ? std::strerror(err) : std::string(what);
  throw FileError("cannot write " + path.string() + ": " + reason, reason);
}

// The directory a file at `path` lives in ("." for a bare name).
inline std::filesystem::path parent_of(const std::filesystem::path& path) {
  const auto parent = path.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

// Creates a new temporary file next to `path`; returns its descriptor and sets `tmp`.
inline int create_temporary(const std::filesystem::path& path, std::filesystem::path& tmp) {
  static std::atomic<unsigned long> counter{0};
  const std::filesystem::path dir = parent_of(path);
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec))
    throw_file_error(path, "its directory " + dir.string() + " does not exist", 0);
  if (!std::filesystem::is_directory(dir, ec))
    throw_file_error(path, dir.string() + " is not a directory", 0);
  if (std::filesystem::is_directory(path, ec)) throw_file_error(path, "it is a directory", 0);
  for (int attempt = 0;; ++attempt) {
    // (Appended piece by piece: GCC 12 warns -Wrestrict on "." + string at -O3, bug 105329.)
    std::string name = ".";
    name += path.filename().string();
    name += ".tmp-";
    name += std::to_string(::getpid());
    name += '-';
    name += std::to_string(counter.fetch_add(1));
    tmp = dir / name;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt > 100) throw_file_error(path, "", errno);
  }
}

inline void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename happened; a directory that cannot be opened is not an error
  ::fsync(fd);
  ::close(fd);
}

}  // namespace detail

// Replaces `path` by `text`, durably and atomically (see the top of this file). Throws
// FileError.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::path tmp;
  const int fd = detail::create_temporary(path, tmp);
  const auto fail = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    detail::throw_file_error(path, "", err);
  };
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0 && ::fchmod(fd, old.st_mode & 07777) != 0) fail(errno);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    detail::throw_file_error(path, "", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    detail::throw_file_error(path, "", err);
  }
  detail::sync_directory(detail::parent_of(path));
}

// Throws FileError if `path` could not be written by write_file_atomically() (see the top
// of this file). Leaves nothing behind.
inline void check_writable(const std::filesystem::path& path) {
  std::filesystem::path tmp;
  const int fd = detail::create_temporary(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

// Creates `dir` (and its parents) if needed and checks that files can be written in it.
// Throws FileError.
inline void check_directory_writable(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw FileError("cannot write into " + dir.string() + ": it is not a directory",
                    "it is not a directory");
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw FileError("cannot create the directory " + dir.string() + ": " + ec.message(),
                    ec.message());
  check_writable(dir / ".gsearch-write-check");
}

namespace detail {

[[noreturn]] inline void throw_read_error(const std::filesystem::path& path, std::string reason) {
  throw FileError("cannot read " + path.string() + ": " + reason, reason);
}

inline int open_for_reading(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_read_error(path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw_read_error(path, "it is a directory");
  }
  return fd;
}

// Reads up to `size` bytes into `buffer`; 0 at the end. Throws FileError.
inline std::size_t read_some(int fd, const std::filesystem::path& path, char* buffer,
                             std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw_read_error(path, std::strerror(errno));
  }
}

}  // namespace detail

// The whole of `path`, at most `max_bytes` of it. Throws FileError ("cannot read PATH: ...")
// when the file cannot be opened or read, is a directory, or is longer than max_bytes.
inline std::string read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  const int fd = detail::open_for_reading(path);
  std::string data;
  try {
    char chunk[1 << 16];
    while (const std::size_t n = detail::read_some(fd, path, chunk, sizeof chunk)) {
      if (data.size() + n > max_bytes)
        detail::throw_read_error(path, "longer than " + std::to_string(max_bytes) + " bytes");
      data.append(chunk, n);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return data;
}

// Reads `path` one line at a time ('\n' ends a line and is not part of it; a last line
// without one counts), no line longer than max_line bytes.
class LineReader {
 public:
  // Throws FileError when the file cannot be opened or is a directory.
  LineReader(std::filesystem::path path, std::size_t max_line)
      : path_(std::move(path)), max_line_(max_line), fd_(detail::open_for_reading(path_)) {}
  ~LineReader() { ::close(fd_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line into `line`; false at the end of the file. Throws FileError on a read
  // error and on a line longer than max_line ("cannot read PATH: line 3 is longer than ...").
  bool next(std::string& line) {
    line.clear();
    for (;;) {
      if (pos_ == end_) {
        end_ = detail::read_some(fd_, path_, buffer_, sizeof buffer_);
        pos_ = 0;
        if (end_ == 0) {
          if (line.empty()) return false;
          ++line_number_;
          return true;
        }
      }
      const char* start = buffer_ + pos_;
      const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
      const std::size_t take = newline ? static_cast<std::size_t>(newline - start) : end_ - pos_;
      if (line.size() + take > max_line_)
        detail::throw_read_error(path_, "line " + std::to_string(line_number_ + 1) +
                                            " is longer than " + std::to_string(max_line_) +
                                            " bytes");
      line.append(start, take);
      pos_ += take + (newline ? 1 : 0);
      if (newline) {
        ++line_number_;
        return true;
      }
    }
  }
  // The number of the line last returned by next(), from 1.
  [[nodiscard]] std::size_t line_number() const noexcept { return line_number_; }

 private:
  std::filesystem::path path_;
  std::size_t max_line_;
  int fd_;
  char buffer_[1 << 16];
  std::size_t pos_ = 0, end_ = 0, line_number_ = 0;
};

}  // namespace gsearch
