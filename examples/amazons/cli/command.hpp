// The `amazons` command: shared pieces of its subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "amazons/rules/position.hpp"
#include "gsearch/arena/record.hpp"
#include "gsearch/core/file.hpp"

namespace amazons::cli {

// Exit codes: 0 success, 1 a failure while running (e.g. a file that cannot be written),
// 2 bad input (options, FEN, moves, files to read).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// Bad input found after option parsing: main() prints the message on one line, exits 2.
class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Shortest text of a number, for messages ("1e+09", "0.5", "18446744073709551615").
template <class T>
std::string number_text(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

// The one check of every numeric option: the whole text must be a number of T's kind — a
// whole number without a sign for unsigned T ("-1" is not silently 2^64 - 1), a whole number
// for integral T ("1.5" is not silently 1), a finite real for floating T (no nan, no inf) —
// within [lo, hi]. The message quotes the text cut short: "--ms: \"-1\" is not a real number
// in [0, 1e+09]".
template <class T>
CLI::Validator number_in(T lo, T hi) {
  std::string kind = std::is_floating_point_v<T> ? "a real number" : "a whole number";
  std::string range = "[" + number_text(lo) + ", " + number_text(hi) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        T v{};
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v);
        bool ok = ec == std::errc() && ptr == end && v >= lo && v <= hi;
        if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(v);
        if (ok) return {};
        const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
        return "\"" + shown + "\" is not " + kind + " in " + range;
      },
      (std::is_floating_point_v<T> ? "REAL in " : "INT in ") + range);
}

// Adds a numeric option checked by number_in(lo, hi).
template <class T>
CLI::Option* add_number(CLI::App& cmd, const std::string& name, T& value,
                        const std::string& description, std::type_identity_t<T> lo,
                        std::type_identity_t<T> hi) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  return cmd.add_option(name, value, description)->check(number_in(lo, hi));
}

// Seeds: any whole number in [0, 2^64 - 1].
inline CLI::Option* add_seed(CLI::App& cmd, const std::string& name, std::uint64_t& value,
                             const std::string& description) {
  return add_number(cmd, name, value, description, std::uint64_t{0},
                    std::numeric_limits<std::uint64_t>::max());
}

// Reads one line from `in` into `line` ('\n' not included). A line longer than `max` bytes is
// read to its end but not kept: the result is then kTooLong and `line` is empty. kEnd at the
// end of input with nothing read. Memory stays bounded whatever arrives (e.g. /dev/zero).
enum class LineRead : std::uint8_t { kLine, kTooLong, kEnd };
inline LineRead read_line(std::istream& in, std::string& line, std::size_t max) {
  line.clear();
  bool any = false, too_long = false;
  for (;;) {
    const int c = in.get();
    if (c == std::char_traits<char>::eof()) break;
    any = true;
    if (c == '\n') break;
    if (line.size() < max)
      line += static_cast<char>(c);
    else
      too_long = true;
  }
  if (!any) return LineRead::kEnd;
  if (too_long) {
    line.clear();
    return LineRead::kTooLong;
  }
  return LineRead::kLine;
}

// The longest line the interactive commands (play, engine) read: a FEN with its moves fits
// many times over.
inline constexpr std::size_t kMaxInputLine = std::size_t{1} << 16;

// A command stopped by SIGINT or SIGTERM after it saved what it had: it has already said so on
// stderr; main() exits with 128 + the signal's number, as a shell does for a killed program.
class Interrupted : public std::exception {
 public:
  explicit Interrupted(int signal) : signal_(signal) {}
  [[nodiscard]] int exit_code() const noexcept { return 128 + signal_; }
  [[nodiscard]] const char* what() const noexcept override { return "interrupted"; }

 private:
  int signal_;
};

// An output directory checked (and created) before any work: a bad one is bad input (exit 2).
inline void check_output_directory(const std::string& dir) {
  try {
    gsearch::check_directory_writable(dir);
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
}

// An output file checked before any work: a bad one is bad input (exit 2). "" is no file.
inline void check_output_file(const std::string& path) {
  if (path.empty()) return;
  try {
    gsearch::check_writable(path);
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
}

// An opening book (`amazons book` writes one): one opening per line, a FEN (its first field
// has a '/' between every two ranks) or moves played from `start` ("d1-d6/g9 a7a5,a5b5"); blank
// lines and lines starting with '#' are skipped. Throws BadInput naming file:line.
inline std::vector<Position> read_book(const std::string& path, const Position& start) {
  std::vector<Position> book;
  std::string line;
  try {
    gsearch::LineReader in(path, std::size_t{1} << 16);
    while (in.next(line)) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      const std::string where = path + ":" + std::to_string(in.line_number()) + ": ";
      try {
        const std::string token = line.substr(first, line.find_first_of(" \t", first) - first);
        if (std::count(token.begin(), token.end(), '/') >= 2) {  // ranks: a FEN
          book.push_back(Position::from_fen(line));
        } else {
          Position pos = start;
          std::istringstream moves(line);
          for (std::string m; moves >> m;) {
            if (pos.is_terminal()) throw NotationError("move " + m + " comes after the end");
            pos.apply(pos.parse_move(m));
          }
          book.push_back(pos);
        }
      } catch (const NotationError& e) {
        throw BadInput(where + e.what());
      }
      if (book.back().is_terminal()) throw BadInput(where + "the game is already over");
    }
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
  if (book.empty()) throw BadInput(path + ": no openings (an empty book?)");
  return book;
}

// --fen and --moves, shared by the subcommands that start from a position.
struct PositionOptions {
  std::string fen{Position::kStartFen};
  std::vector<std::string> moves;

  void add_to(CLI::App& cmd) {
    cmd.add_option("--fen", fen, "Start position in FEN (default: the 10x10 start)");
    cmd.add_option("--moves", moves, "Moves to play first, e.g. d1-d6/g9 a7a5,a5b5");
  }
  // The position after the moves; NotationError names the FEN or the move that is wrong.
  [[nodiscard]] Position resolve() const {
    Position pos = Position::from_fen(fen);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (pos.is_terminal())
        throw NotationError("move " + std::to_string(i + 1) + " \"" + moves[i] +
                            "\": the game is already over");
      try {
        pos.apply(pos.parse_move(moves[i]));
      } catch (const NotationError& e) {
        throw NotationError("move " + std::to_string(i + 1) + ": " + e.what());
      }
    }
    return pos;
  }
};

// Subcommand registration: each adds its subcommands with their callbacks.
// MPI (cli/parallel.cpp). Under mpirun, in a build with MPI, `match` and `tournament` spread
// their games over the ranks (gsearch/arena/mpi.hpp): rank 0 hands games out and writes every
// output, the other ranks play. Elsewhere there is one rank.
class MpiSession {  // MPI_Init when launched by mpirun, MPI_Finalize at the end
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};
int world_rank();  // 0 without MPI
int world_size();  // 1 without MPI
// After an error on any rank: ends the whole job with `code` (MPI_Abort), so that no rank waits
// for one that has stopped. Does nothing with one rank.
void end_mpi_job(int code);
// Rank 0's bytes to every rank (the same size everywhere).
void broadcast_from_root(std::vector<char>& bytes);

// Checks one line of a records file (amazons match --records): a JSON game record whose moves
// are legal from its start and whose result is the one they give. Returns the record, parsed;
// throws BadInput naming path:line_no. (match_commands.cpp; replay, tournament, serve and tune
// use it.)
nlohmann::json check_record(const std::string& path, std::size_t line_no, const std::string& line);

// A game as a records file keeps it: one JSON object, the moves in notation from `start`
// (match_commands.cpp; match, tournament and spsa write them). "*" is an unfinished game's result.
std::string result_text(const gsearch::arena::GameRecord<Move>& r);
nlohmann::json record_json(const gsearch::arena::GameRecord<Move>& r, const Position& start);

void add_serve_commands(CLI::App& app);                         // serve
void add_rules_commands(CLI::App& app);                         // perft, show, legal
void add_match_commands(CLI::App& app);                         // agents, match, replay
void add_play_commands(CLI::App& app);                          // play, analyze, engine
void add_paper_commands(CLI::App& app, int argc, char** argv);  // train, reproduce
void add_label_commands(CLI::App& app);                         // label, teacher-serve
void add_solve_commands(CLI::App& app);                         // solve
void add_bench_commands(CLI::App& app);                         // bench
void add_book_commands(CLI::App& app);                          // book
void add_tune_commands(CLI::App& app);                          // tune

}  // namespace amazons::cli
