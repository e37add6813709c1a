// The label store: lines, resume without loss or repetition, a torn last line, a damaged line,
// one writer at a time, a write that fails half-way.
#include "amazons/paper/label_store.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gsearch/core/rng.hpp"

using namespace amazons;

namespace {

// A fresh file name in a directory of its own, removed at the end of the test.
struct TempFile {
  TempFile() {
    char tmpl[] = "/tmp/gsearch-labels-XXXXXX";
    dir = ::mkdtemp(tmpl);
    path = dir + "/labels.jsonl";
  }
  ~TempFile() { std::filesystem::remove_all(dir); }
  [[nodiscard]] std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& data) const { std::ofstream(path, std::ios::binary) << data; }
  std::string dir, path;
};

// Labels of the first moves at the start, model "t", prompt "table1-after".
Label label(int i) {
  static const std::vector<Move> moves = [] {
    gsearch::MoveListOf<Position> list;
    Position{}.legal_moves(list);
    return std::vector<Move>(list.begin(), list.end());
  }();
  const Position start;
  return {.fen = start.fen(),
          .move = start.move_to_string(moves[static_cast<std::size_t>(i)]),
          .move_score = i / 100.0,
          .place_score = 1 - i / 100.0,
          .model = "t",
          .attempts = 1 + i % 3,
          .ms = 1.5,
          .prompt = "table1-after",
          .endpoint = "http://h:1/v1/chat/completions"};
}

}  // namespace

TEST_CASE("a label is one JSON line, read back exactly") {
  const std::string line = label_line(label(7));
  CHECK(line.back() == '\n');
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  CHECK(line.rfind("{\"fen\":\"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1\",\"move\":\"", 0) ==
        0);
  const Label l = parse_label_line(line.substr(0, line.size() - 1));
  CHECK(l.fen == label(7).fen);
  CHECK(l.move == label(7).move);
  CHECK(l.move_score == label(7).move_score);
  CHECK(l.place_score == label(7).place_score);
  CHECK(l.model == "t");
  CHECK(l.prompt == "table1-after");
  CHECK(l.endpoint == "http://h:1/v1/chat/completions");
  CHECK(line.find(
            R"("model":"t","prompt":"table1-after","endpoint":"http://h:1/v1/chat/completions")") !=
        std::string::npos);
  CHECK(l.attempts == 2);
  CHECK(l.ms == 1.5);
}

TEST_CASE("resume: a reopened store skips what it holds; nothing lost, nothing repeated") {
  TempFile f;
  {
    LabelStore store(f.path);
    CHECK(store.size() == 0);
    for (int i = 0; i < 10; ++i) CHECK(store.append(label(i)));
    CHECK(!store.append(label(3)));
    CHECK(store.size() == 10);
  }
  {
    LabelStore store(f.path, {.sync_every = 0});
    CHECK(store.loaded() == 10);
    CHECK(store.torn_bytes() == 0);
    for (int i = 0; i < 10; ++i)
      CHECK(store.contains({"t", "table1-after"}, label(i).fen, label(i).move));
    CHECK(!store.contains({"other", "table1-after"}, label(0).fen, label(0).move));
    CHECK(!store.contains({"t", "table1-before"}, label(0).fen, label(0).move));
    for (int i = 5; i < 15; ++i) CHECK(store.append(label(i)) == (i >= 10));
    CHECK(store.size() == 15);
  }
  const auto labels = read_labels(f.path);
  REQUIRE(labels.size() == 15);
  for (int i = 0; i < 15; ++i) CHECK(labels[static_cast<std::size_t>(i)].move == label(i).move);
}

TEST_CASE("a torn last line is reported and cut off; what came before is kept") {
  TempFile f;
  {
    LabelStore store(f.path);
    for (int i = 0; i < 3; ++i) store.append(label(i));
  }
  const std::string whole = f.read();
  const std::string torn = label_line(label(3)).substr(0, 40);
  f.write(whole + torn);
  std::size_t torn_bytes = 0;
  CHECK(read_labels(f.path, &torn_bytes).size() == 3);  // reading changes nothing
  CHECK(torn_bytes == 40);
  CHECK(f.read() == whole + torn);
  {
    LabelStore store(f.path);
    CHECK(store.torn_bytes() == 40);
    CHECK(store.loaded() == 3);
    CHECK(f.read() == whole);
    CHECK(store.append(label(3)));
  }
  CHECK(f.read() == whole + label_line(label(3)));
  // A torn line of NUL bytes (what a power loss can leave) is cut off the same way.
  f.write(whole + std::string(100, '\0'));
  LabelStore store(f.path);
  CHECK(store.torn_bytes() == 100);
  CHECK(store.loaded() == 3);
}

TEST_CASE("a last line that is not a label cut short is never cut: the file is left alone") {
  TempFile f;
  // Another program's file: one JSON line without a line end (a config file, say).
  const std::string config = R"({"threads": 4, "model": "gpt-4o-mini"})";
  f.write(config);
  CHECK_THROWS_WITH_AS(LabelStore(f.path), doctest::Contains(":1: the last line has no line end"),
                       StoreError);
  CHECK(f.read() == config);
  CHECK_THROWS_AS((void)read_labels(f.path), StoreError);
  // Random bytes after whole labels.
  const std::string whole = label_line(label(0)) + label_line(label(1));
  gsearch::Rng rng(9);
  std::string noise(4974, '\0');
  for (char& c : noise) c = static_cast<char>(rng.below(256));
  for (char& c : noise)
    if (c == '\n') c = 'x';
  f.write(whole + noise);
  CHECK_THROWS_WITH_AS(LabelStore(f.path), doctest::Contains(":3: the last line"), StoreError);
  CHECK(f.read() == whole + noise);
  // A label cut short and then NUL bytes (a power loss) is still an interrupted append.
  f.write(whole + label_line(label(2)).substr(0, 25) + std::string(300, '\0'));
  {
    LabelStore store(f.path);
    CHECK(store.torn_bytes() == 325);
    CHECK(store.loaded() == 2);
  }
  CHECK(f.read() == whole);
  // Text, then NUL bytes, then text again: not this writer's.
  f.write(whole + "{\"fen\"" + std::string(3, '\0') + "abc");
  CHECK_THROWS_AS(LabelStore(f.path), StoreError);
  // A torn line longer than any label line could be.
  f.write(whole + "{\"fen\":\"" + std::string(detail::kMaxTornBytes, 'a'));
  CHECK_THROWS_AS(LabelStore(f.path), StoreError);
}

TEST_CASE("a damaged whole line is an error naming the file and line; the file is left alone") {
  TempFile f;
  const std::string a = label_line(label(0)), b = label_line(label(1));
  const auto error = [&](const std::string& data) {
    f.write(data);
    try {
      LabelStore store(f.path);
    } catch (const StoreError& e) {
      CHECK(f.read() == data);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error(a + "{\"fen\": tr\n" + b) == f.path + ":2: not a label (not JSON)");
  CHECK(error(a + b + "[1, 2]\n") == f.path + ":3: not a label (not a JSON object)");
  std::string bad_score = b;
  bad_score.replace(bad_score.find("\"move_score\":0.01"), 17, "\"move_score\":1.5");
  CHECK(error(a + bad_score) == f.path + ":2: not a label (move_score is not in [0, 1])");
  std::string bad_move = b;
  bad_move.replace(bad_move.find(label(1).move), label(1).move.size(), "d1-d10/d9");
  CHECK(error(bad_move) ==
        f.path + ":1: not a label (illegal move \"d1-d10/d9\": the queen on d1 cannot reach d10)");
  std::string no_model = a;
  no_model.replace(no_model.find("\"model\""), 7, "\"modl\"");
  CHECK(error(no_model) == f.path + ":1: not a label (no \"model\" string)");
  std::string no_prompt = a;
  no_prompt.replace(no_prompt.find("\"prompt\""), 8, "\"prmpt\"");
  CHECK(error(no_prompt) == f.path + ":1: not a label (no \"prompt\" string)");
  CHECK(error(a + "\n  \n" + b) == "no error");  // blank lines are skipped
  std::size_t torn = 0;
  CHECK_THROWS_WITH_AS(read_labels(f.path + ".missing", &torn), doctest::Contains("cannot read"),
                       std::runtime_error);
}

TEST_CASE("a line or a file too long for a label file is refused, read with bounded memory") {
  TempFile f;
  const std::string a = label_line(label(0));
  // A last line longer than the cap, without a line end, and a whole one: both refused, with
  // the line's number, and the file left alone.
  for (const std::string& tail : {std::string(detail::kMaxLineBytes + 1, 'x'),
                                  std::string(detail::kMaxLineBytes + 1, ' ') + "\n"}) {
    f.write(a + tail);
    CHECK_THROWS_WITH_AS(LabelStore(f.path),
                         (f.path + ":2: a line longer than 1048576 bytes; "
                                   "not a label file: nothing was changed")
                             .c_str(),
                         StoreError);
    CHECK(f.read() == a + tail);
  }
  // An endless file without line ends: an error after at most one line's worth of memory.
  CHECK_THROWS_WITH_AS(read_labels("/dev/zero"),
                       "/dev/zero:1: a line longer than 1048576 bytes; not a label file: "
                       "nothing was changed",
                       StoreError);
}

TEST_CASE("one writer at a time") {
  TempFile f;
  LabelStore first(f.path);
  CHECK_THROWS_WITH_AS(LabelStore second(f.path), doctest::Contains("is open in another labeler"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(LabelStore(f.dir + "/no/such/dir/labels.jsonl"),
                       doctest::Contains("cannot open"), std::runtime_error);
}

TEST_CASE("a write that fails half-way leaves the file as it was") {
  TempFile f;
  LabelStore store(f.path);
  store.append(label(0));
  const std::string before = f.read();
  // Cap the size of files this process writes just past the first line; the next line then
  // stops half-way (EFBIG), as on a full disk.
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  const auto previous = ::signal(SIGXFSZ, SIG_IGN);
  rlimit cap = old;
  cap.rlim_cur = before.size() + 30;
  ::setrlimit(RLIMIT_FSIZE, &cap);
  std::string what;
  try {
    store.append(label(1));
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, previous);
  CHECK(what.find("cannot write to " + f.path) != std::string::npos);
  CHECK(what.find("the labels written before are kept") != std::string::npos);
  CHECK(f.read() == before);
  CHECK(store.append(label(1)));  // and the store goes on once there is room
  CHECK(read_labels(f.path).size() == 2);
}

TEST_CASE("old files: \"teacher\":\"model@url\" read as the model, the run's prompt version") {
  TempFile f;
  const Label a = label(0), b = label(1), c = label(2);
  const auto old_line = [](const Label& l, const std::string& url) {
    return "{\"fen\":\"" + l.fen + "\",\"move\":\"" + l.move +
           "\",\"move_score\":0.5,\"place_score\":0.25,\"teacher\":\"t@" + url +
           "\",\"attempts\":1,\"ms\":2.5}\n";
  };
  // The same teacher at two ports and as localhost: one label per (FEN, move) in the end.
  const std::string old = old_line(a, "http://127.0.0.1:8080/v1/chat/completions") +
                          old_line(b, "http://127.0.0.1:8080/v1/chat/completions") +
                          old_line(a, "http://127.0.0.1:9090/v1/chat/completions") +
                          old_line(b, "http://localhost:8080/v1/chat/completions");
  f.write(old);
  const Label l = parse_label_line(old.substr(0, old.find('\n')));
  CHECK(l.model == "t");
  CHECK(l.prompt == "table1-after");
  CHECK(l.endpoint == "http://127.0.0.1:8080/v1/chat/completions");
  CHECK(parse_label_line(old.substr(0, old.find('\n')), "table1-before").prompt == "table1-before");
  CHECK(parse_label_line(R"({"fen":")" + a.fen + R"(","move":")" + a.move +
                         R"(","move_score":0,"place_score":1,"teacher":"gpt@4o@http://h:1/x"})")
            .model == "gpt@4o");
  std::size_t duplicates = 0;
  const auto labels = read_labels(f.path, nullptr, &duplicates);
  CHECK(labels.size() == 2);
  CHECK(duplicates == 2);
  {
    LabelStore store(f.path);
    CHECK(store.loaded() == 2);
    CHECK(store.duplicates() == 2);
    CHECK(store.contains({"t", "table1-after"}, a.fen, a.move));
    CHECK(!store.append(a));  // written in the new format: still the same label
    CHECK(store.append(c));
  }
  CHECK(f.read() == old + label_line(c));
  {
    // A run with the other board reading takes the old lines as its own.
    LabelStore store(f.path, {.legacy_prompt = "table1-before"});
    CHECK(store.contains({"t", "table1-before"}, b.fen, b.move));
    CHECK(!store.contains({"t", "table1-before"}, c.fen, c.move));  // c says table1-after
  }
}
