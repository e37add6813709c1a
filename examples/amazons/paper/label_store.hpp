// amazons/paper/label_store.hpp — labels in an append-only JSON-lines file that a kill -9 at any
// moment leaves readable, and that a rerun resumes without losing or repeating a label.
//
// One label per line (docs/labeler.md has every field):
//   {"fen":"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1","move":"d1-d6/g9",
//    "move_score":0.62,"place_score":0.41,"model":"gpt-4o-mini","prompt":"table1-after",
//    "endpoint":"http://127.0.0.1:8080/v1/chat/completions","attempts":1,"ms":3.1}
// A label is keyed by what determines it: (FEN, move, model, prompt version). The endpoint is
// information only, so the same teacher on another port, or as localhost instead of
// 127.0.0.1, finds its labels. Lines of the older format carry "teacher":"model@url" instead
// of model, prompt and endpoint: the model is the part before "@", the endpoint the part
// after, and the prompt version the one the reader is given (a store: its run's; read_labels:
// the default reading's), as that format had none.
//
// Why a crash cannot damage it:
//   - the file is opened with O_APPEND and each label is one line, written by one write(2),
//     so a process killed at any moment leaves every earlier line whole and at most the last
//     one cut short — a torn line, recognisable because it lacks its final '\n' (JSON text
//     never holds a raw line break);
//   - on open, a torn last line is reported and cut off (ftruncate) before anything is
//     appended — only when it is plausibly one (the start of a label line, maybe followed by
//     NUL bytes; detail::plausible_torn_line). A line that ends in '\n' but is not a label, or
//     a last line that is not a label cut short, is damage no crash of this writer makes (or
//     another file): it is an error naming the file and line, and nothing is changed;
//   - a write that stops short (disk full) is completed, or else the partial line is cut off
//     again, so the file never keeps a partial line while the writer lives;
//   - fdatasync after every `sync_every` labels carries the lines through an OS crash or a
//     power loss as well (kill -9 needs no sync: the kernel holds the bytes once write
//     returns); a power loss between syncs loses at most the labels since the last one;
//   - one writer at a time: the file is locked (flock) while open.
// Resuming: the labels present are indexed by (model, prompt version, FEN, move) and append()
// skips a label already there; repeated lines count once.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "amazons/paper/teacher_protocol.hpp"
#include "amazons/rules/position.hpp"

namespace amazons {

struct Label {
  std::string fen{};       // the position before the move, as Position::fen() writes it
  std::string move{};      // the move, "d1-d6/g9"
  double move_score = 0;   // the teacher's move_score, in [0, 1]
  double place_score = 0;  // the teacher's place_score, in [0, 1]
  std::string model{};     // the model asked, e.g. "gpt-4o-mini"
  int attempts = 1;        // replies asked for before one was accepted
  double ms = 0;           // wall time of the label, milliseconds
  std::string prompt{};    // the prompt version, e.g. "table1-after" (prompt_version())
  std::string endpoint{};  // the URL asked, without its query (information, not a key)
};

// Who wrote a label, as far as it matters: the model and the prompt version.
struct TeacherId {
  std::string model{};
  std::string prompt{};
};

// The prompt version given to lines of the older format by default: the default reading's.
inline const std::string kDefaultLegacyPrompt = prompt_version();

// A label file that is not a label file: "<path>:<line>: <what is wrong>". Bad input.
class StoreError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The line of `label`, '\n' included.
inline std::string label_line(const Label& label) {
  nlohmann::ordered_json j = {{"fen", label.fen},
                              {"move", label.move},
                              {"move_score", label.move_score},
                              {"place_score", label.place_score},
                              {"model", label.model},
                              {"prompt", label.prompt},
                              {"endpoint", label.endpoint},
                              {"attempts", label.attempts},
                              {"ms", std::round(label.ms * 1000) / 1000}};
  return j.dump() + "\n";
}

// Reads one line (without its '\n'); a line of the older format ("teacher":"model@url", no
// prompt version) gets `legacy_prompt`. Throws std::invalid_argument saying what is wrong:
// not JSON, a missing or mistyped field, a score outside [0, 1], a FEN or move that does not
// parse, an illegal move.
inline Label parse_label_line(std::string_view line,
                              std::string_view legacy_prompt = kDefaultLegacyPrompt) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw std::invalid_argument("not JSON");
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string() || j[key].get_ref<const std::string&>().empty())
      throw std::invalid_argument(std::string("no \"") + key + "\" string");
    return j[key].get<std::string>();
  };
  const auto score = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number())
      throw std::invalid_argument(std::string("no \"") + key + "\" number");
    const double v = j[key].get<double>();
    if (!(v >= 0 && v <= 1)) throw std::invalid_argument(std::string(key) + " is not in [0, 1]");
    return v;
  };
  Label l;
  l.fen = text("fen");
  l.move = text("move");
  if (j.contains("model") || !j.contains("teacher")) {
    l.model = text("model");
    l.prompt = text("prompt");
    if (j.contains("endpoint") && j["endpoint"].is_string())
      l.endpoint = j["endpoint"].get<std::string>();
  } else {  // the older format: "teacher":"model@http://host:port/path"
    const std::string teacher = text("teacher");
    auto at = teacher.rfind("@http");
    if (at == std::string::npos) at = teacher.rfind('@');
    l.model = teacher.substr(0, at);
    if (l.model.empty()) throw std::invalid_argument("no model before '@' in \"teacher\"");
    if (at != std::string::npos) l.endpoint = teacher.substr(at + 1);
    l.prompt = std::string(legacy_prompt);
  }
  l.move_score = score("move_score");
  l.place_score = score("place_score");
  if (j.contains("attempts") && j["attempts"].is_number_integer())
    l.attempts = j["attempts"].get<int>();
  if (j.contains("ms") && j["ms"].is_number()) l.ms = j["ms"].get<double>();
  const Position pos = Position::from_fen(l.fen);  // NotationError is an invalid_argument
  (void)pos.parse_move(l.move);
  return l;
}

struct LabelStoreParams {
  // fdatasync after this many appended labels: 1 after each, N after every N-th, 0 only when
  // the store is closed. kill -9 is safe with any value; the value bounds what an OS crash
  // or power loss can take (docs/labeler.md has the cost of each).
  std::size_t sync_every = 1;
  // The prompt version of lines in the older format, which recorded none: give the run's
  // (prompt_version of its PromptParams), so that resuming such a file continues it.
  std::string legacy_prompt = kDefaultLegacyPrompt;
};

namespace detail {

// The key of a label: (model, prompt version, FEN, move), joined by line breaks (which none
// of them holds: a label line is one line of JSON, and FENs and moves have none).
inline std::string store_key(std::string_view model, std::string_view prompt, std::string_view fen,
                             std::string_view move) {
  std::string k;
  k.reserve(model.size() + prompt.size() + fen.size() + move.size() + 3);
  k.append(model).append(1, '\n').append(prompt).append(1, '\n').append(fen).append(1, '\n');
  k.append(move);
  return k;
}
inline std::string store_key(const Label& l) { return store_key(l.model, l.prompt, l.fen, l.move); }

// The longest line a label file may hold (a label line is well under 1 KiB), and the
// longest file: reading stops there, so that memory stays bounded whatever the path is
// (e.g. /dev/zero or a large file given by mistake).
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxFileBytes = std::size_t{1} << 30;

// The whole file `fd` refers to. Throws std::runtime_error naming `path` when it cannot be
// read, and StoreError when a line is longer than kMaxLineBytes or the file longer than
// kMaxFileBytes (then it is not a label file, and nothing of it was changed).
inline std::string read_all(int fd, const std::string& path) {
  std::string data;
  char chunk[1 << 16];
  std::size_t line_start = 0, lines = 0;
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      const std::size_t old = data.size();
      if (old + static_cast<std::size_t>(n) > kMaxFileBytes)
        throw StoreError(path + ": longer than " + std::to_string(kMaxFileBytes) +
                         " bytes; not a label file: nothing was changed");
      data.append(chunk, static_cast<std::size_t>(n));
      const auto too_long = [&] {
        return StoreError(path + ":" + std::to_string(lines + 1) + ": a line longer than " +
                          std::to_string(kMaxLineBytes) +
                          " bytes; not a label file: nothing was changed");
      };
      for (std::size_t i = old; i < data.size(); ++i) {
        if (data[i] != '\n') continue;
        if (i - line_start > kMaxLineBytes) throw too_long();
        line_start = i + 1;
        ++lines;
      }
      if (data.size() - line_start > kMaxLineBytes) throw too_long();
    } else if (n == 0) {
      return data;
    } else if (errno != EINTR) {
      throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    }
  }
}

// The longest torn last line taken for an interrupted append (a label line is well under
// 1 KiB; a power loss can leave a few KiB of NUL bytes).
inline constexpr std::size_t kMaxTornBytes = std::size_t{1} << 16;

// Whether `tail`, the bytes after the last '\n', is what an interrupted append of this writer
// leaves: the start of a label line ({"fen":"…, printable bytes only, cut short anywhere),
// possibly followed by NUL bytes (what a power loss can leave), at most kMaxTornBytes long.
// Anything else — another file's text, random bytes — was not written by this store.
inline bool plausible_torn_line(std::string_view tail) {
  if (tail.size() > kMaxTornBytes) return false;
  const auto nul = tail.find('\0');
  if (nul != std::string_view::npos && tail.find_first_not_of('\0', nul) != std::string_view::npos)
    return false;
  const std::string_view text = tail.substr(0, nul);
  constexpr std::string_view kStart = R"({"fen":")";
  const std::size_t n = std::min(text.size(), kStart.size());
  if (text.substr(0, n) != kStart.substr(0, n)) return false;
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// Calls f(label, line number) for every whole line of `data`; returns the length of the
// whole lines (the rest, if any, is a torn last line). Throws StoreError at a damaged line,
// and at a last line without '\n' that is not a plausible torn label line (then nothing of
// the file may be cut: it is not this store's).
template <class F>
std::size_t for_each_label(std::string_view data, const std::string& path,
                           std::string_view legacy_prompt, F&& f) {
  std::size_t pos = 0, line_no = 0;
  for (;;) {
    const auto nl = data.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (!plausible_torn_line(data.substr(pos)))
        throw StoreError(path + ":" + std::to_string(line_no + 1) +
                         ": the last line has no line end and is not a label cut short (" +
                         std::to_string(data.size() - pos) +
                         " bytes); not a label file, or damaged: nothing was changed");
      return pos;
    }
    ++line_no;
    const std::string_view line = data.substr(pos, nl - pos);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      try {
        f(parse_label_line(line, legacy_prompt), line_no);
      } catch (const std::invalid_argument& e) {
        throw StoreError(path + ":" + std::to_string(line_no) + ": not a label (" + e.what() + ")");
      }
    }
    pos = nl + 1;
  }
}

}  // namespace detail

// Every label of the file at `path`, without changing it: a torn last line is left out (its
// length stored in *torn_bytes), and a line that repeats an earlier one's (model, prompt,
// FEN, move) too (their number stored in *duplicates). Lines of the older format get
// `legacy_prompt`. Throws StoreError naming a damaged line, and std::runtime_error when the
// file cannot be read.
inline std::vector<Label> read_labels(const std::string& path, std::size_t* torn_bytes = nullptr,
                                      std::size_t* duplicates = nullptr,
                                      std::string_view legacy_prompt = kDefaultLegacyPrompt) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::string data;
  try {
    data = detail::read_all(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  std::vector<Label> labels;
  std::unordered_set<std::string> keys;
  std::size_t repeated = 0;
  const std::size_t whole =
      detail::for_each_label(data, path, legacy_prompt, [&](Label l, std::size_t) {
        if (keys.insert(detail::store_key(l)).second)
          labels.push_back(std::move(l));
        else
          ++repeated;
      });
  if (torn_bytes) *torn_bytes = data.size() - whole;
  if (duplicates) *duplicates = repeated;
  return labels;
}

class LabelStore {
 public:
  // Opens the store at `path`, creating it if need be, and locks it. Reads every label (to
  // skip them later) and cuts off a torn last line (torn_bytes() tells how long it was).
  // Throws StoreError naming the first damaged line (the file is left as it was), and
  // std::runtime_error when the file cannot be opened, read or locked.
  explicit LabelStore(std::string path, LabelStoreParams params = {})
      : path_(std::move(path)), params_(params) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
    try {
      if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
        throw std::runtime_error(errno == EWOULDBLOCK
                                     ? path_ + " is open in another labeler (it is locked)"
                                     : "cannot lock " + path_ + ": " + std::strerror(errno));
      const std::string data = detail::read_all(fd_, path_);
      bytes_ = detail::for_each_label(data, path_, params_.legacy_prompt,
                                      [&](const Label& l, std::size_t) {
                                        if (keys_.insert(detail::store_key(l)).second)
                                          ++loaded_;
                                        else
                                          ++duplicates_;
                                      });
      torn_bytes_ = data.size() - bytes_;
      if (torn_bytes_ && (::ftruncate(fd_, static_cast<off_t>(bytes_)) != 0 || ::fsync(fd_) != 0))
        throw std::runtime_error("cannot cut the torn last line of " + path_ + ": " +
                                 std::strerror(errno));
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }

  // Syncs and closes (errors are ignored here: call sync() to see them).
  ~LabelStore() {
    if (unsynced_) ::fdatasync(fd_);
    ::close(fd_);
  }
  LabelStore(const LabelStore&) = delete;
  LabelStore& operator=(const LabelStore&) = delete;

  // True when the file holds a label of `teacher` for `move` in `fen`.
  [[nodiscard]] bool contains(const TeacherId& teacher, std::string_view fen,
                              std::string_view move) const {
    std::lock_guard lock(mutex_);
    return keys_.count(detail::store_key(teacher.model, teacher.prompt, fen, move)) != 0;
  }

  // Appends `label` unless the file already holds one for its (model, prompt, FEN, move);
  // returns whether it was appended. Throws std::runtime_error when the line cannot be
  // written or synced; the file then holds exactly the labels it held before.
  bool append(const Label& label) {
    const std::string line = label_line(label);
    std::lock_guard lock(mutex_);
    std::string key = detail::store_key(label);
    if (keys_.count(key)) return false;
    for (std::size_t done = 0; done < line.size();) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      const int err = n < 0 ? errno : ENOSPC;
      const bool cut = ::ftruncate(fd_, static_cast<off_t>(bytes_)) == 0;
      throw std::runtime_error("cannot write to " + path_ + ": " + std::strerror(err) +
                               (cut ? " (the labels written before are kept)"
                                    : " (and a partial line is left; the next open cuts it)"));
    }
    bytes_ += line.size();
    keys_.insert(std::move(key));
    ++appended_;
    if (params_.sync_every && ++unsynced_ >= params_.sync_every) sync_locked();
    return true;
  }

  // Makes every appended label durable (fdatasync). Throws std::runtime_error.
  void sync() {
    std::lock_guard lock(mutex_);
    sync_locked();
  }

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  // Labels in the file: found on open plus appended.
  [[nodiscard]] std::size_t size() const {
    std::lock_guard lock(mutex_);
    return loaded_ + appended_;
  }
  [[nodiscard]] std::size_t loaded() const noexcept { return loaded_; }          // found on open
  [[nodiscard]] std::size_t torn_bytes() const noexcept { return torn_bytes_; }  // cut on open
  // Labels found on open that repeat an earlier line's (model, prompt, FEN, move); they stay
  // in the file and count once.
  [[nodiscard]] std::size_t duplicates() const noexcept { return duplicates_; }

 private:
  void sync_locked() {
    if (::fdatasync(fd_) != 0)
      throw std::runtime_error("cannot sync " + path_ + ": " + std::strerror(errno));
    unsynced_ = 0;
  }

  std::string path_;
  LabelStoreParams params_;
  int fd_ = -1;
  mutable std::mutex mutex_;  // guards the members below
  std::unordered_set<std::string> keys_;
  std::size_t bytes_ = 0;  // length of the file: whole lines only
  std::size_t loaded_ = 0, appended_ = 0, duplicates_ = 0, torn_bytes_ = 0, unsynced_ = 0;
};

}  // namespace amazons
