// gomoku — the command-line front end of the Gomoku example of gsearch.
//
//   gomoku show    [BOARD] [--ascii]
//   gomoku legal   [BOARD] [--restrict R] [--records FILE [--topk K]]
//   gomoku perft   [BOARD] --depth D [--divide]
//   gomoku agents
//   gomoku match A B [--board WxH] [--k K] [--games G] [--threads T] [--seed S]
//                    [--opening-plies N] [--json FILE] [--records FILE]
//   gomoku replay FILE
//   gomoku play    [BOARD] [--agent SPEC] [--colour black|white]
//   gomoku analyze [BOARD] [--agent SPEC]
//   gomoku engine  [--board WxH] [--k K] [--agent SPEC]
//   gomoku train   --out DIR [--board WxH] [--k K] [--restrict R] [--minutes M] [--batches N] ...
//   gomoku selfplay --weights FILE --records FILE [--board WxH] [--k K] [--games G] ...
// BOARD is [--board WxH] [--k K] [--position TEXT] [--moves M...]: the empty board (15x15,
// k = 5 by default) or a position in the text format of docs/gomoku.md, then moves played.
//
// Errors are one line on stderr, "gomoku: error: ...". Exit codes: 0 success, 1 failure,
// 2 bad input.
#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "cli/engine_session.hpp"
#include "gomoku/learn/train.hpp"
#include "gomoku/players/agents.hpp"
#include "gomoku/players/candidates.hpp"
#include "gomoku/rules/position.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/arena/sprt.hpp"
#include "gsearch/core/clock.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/testing/perft.hpp"

namespace {

using gomoku::Move;
using gomoku::Position;
using json = nlohmann::json;
using Record = gsearch::arena::GameRecord<Move>;

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

// Bad input found after option parsing: main() prints the message on one line, exits 2.
class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A match stopped by SIGINT or SIGTERM after writing what it had: exit 128 + signal.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal) : std::runtime_error("interrupted"), signal_(signal) {}
  [[nodiscard]] int exit_code() const noexcept { return 128 + signal_; }

 private:
  int signal_;
};

// Messages are one printable line whatever they quote: control bytes become spaces or \xNN.
std::string one_line(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
    if (out.size() > 500) return out + "... (cut short)";
  }
  return out;
}

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "gomoku: error: %s\n", one_line(message).c_str());
  return code;
}

// A numeric option: the whole text a number of T's kind in [lo, hi].
template <class T>
CLI::Option* add_number(CLI::App& cmd, const std::string& name, T& value, const std::string& what,
                        std::type_identity_t<T> lo, std::type_identity_t<T> hi) {
  const auto text = [](T v) {
    char buf[64];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  };
  const std::string range = "[" + text(lo) + ", " + text(hi) + "]";
  return cmd.add_option(name, value, what)
      ->check(CLI::Validator(
          [=](std::string& s) -> std::string {
            T v{};
            const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec == std::errc() && ptr == s.data() + s.size() && v >= lo && v <= hi) return {};
            return "\"" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) +
                   "\" is not a whole number in " + range;
          },
          "INT in " + range));
}

// The position options every verb that looks at one shares.
struct BoardOpts {
  std::string board = "15x15";
  int k = 5;
  std::string position;
  std::vector<std::string> moves;
};

void add_board_options(CLI::App& cmd, BoardOpts& o, bool with_position = true) {
  cmd.add_option("--board", o.board, "Board size WxH, each in [3, 15] (default 15x15)");
  add_number(cmd, "--k", o.k, "Stones in a row that win (default 5)", 2, 15);
  if (!with_position) return;
  cmd.add_option("--position", o.position, "A position in the text format (docs/gomoku.md)");
  cmd.add_option("--moves", o.moves, "Moves played from the position, e.g. h8 h9")->expected(0, -1);
}

// The empty board of --board and --k.
Position empty_board(const BoardOpts& o) {
  int w = 0, h = 0;
  const auto x = o.board.find('x');
  const auto parse = [](std::string_view s, int& v) {
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && ptr == s.data() + s.size() && !s.empty();
  };
  if (x == std::string::npos || !parse(std::string_view(o.board).substr(0, x), w) ||
      !parse(std::string_view(o.board).substr(x + 1), h))
    throw BadInput("--board \"" + o.board.substr(0, 40) + "\" is not WxH, e.g. 8x8");
  return Position::empty(w, h, o.k);
}

// The position of BOARD: --position or the empty board, then --moves.
Position board_position(const BoardOpts& o) {
  Position p = o.position.empty() ? empty_board(o) : Position::from_text(o.position);
  for (std::size_t i = 0; i < o.moves.size(); ++i) {
    try {
      p.apply(p.parse_move(o.moves[i]));
    } catch (const gomoku::NotationError& e) {
      throw BadInput("--moves: move " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return p;
}

// The board as text: rank numbers on the left, file letters below, the last move in brackets.
std::string render(const Position& p) {
  std::string out;
  const auto last = p.last_move();
  for (int r = p.height() - 1; r >= 0; --r) {
    char label[16];  // room for any int, as GCC checks at -O0
    std::snprintf(label, sizeof label, "%2d ", r + 1);
    out += label;
    for (int c = 0; c < p.width(); ++c) {
      const int cell = gomoku::cell_at(r, c);
      const char ch = p.stones(gomoku::kBlack).test(cell)   ? 'x'
                      : p.stones(gomoku::kWhite).test(cell) ? 'o'
                                                            : '.';
      const bool mark = last && last->cell == cell;
      const bool after = last && c > 0 && last->cell == gomoku::cell_at(r, c - 1);
      out += mark ? '[' : after ? ']' : ' ';
      out += ch;
    }
    out += last && last->cell == gomoku::cell_at(r, p.width() - 1) ? "]\n" : "\n";
  }
  out += "   ";
  for (int c = 0; c < p.width(); ++c) {
    out += ' ';
    out += static_cast<char>('a' + c);
  }
  out += '\n';
  if (p.winner() >= 0)
    out += std::string(p.winner() == gomoku::kBlack ? "x (Black)" : "o (White)") + " has won\n";
  else if (p.is_terminal())
    out += "the board is full: a draw\n";
  else
    out += std::string(p.to_move() == gomoku::kBlack ? "x (Black)" : "o (White)") + " to move, " +
           std::to_string(p.k()) + " in a row wins\n";
  return out;
}

std::string result_text(const Record& r) {
  if (!r.finished) return "*";
  return r.result > 0 ? "1-0" : r.result < 0 ? "0-1" : "1/2-1/2";
}

std::string format_elo(double v) {
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.0f", std::abs(v) < 0.5 ? 0.0 : v);
  return buf;
}

json record_json(const Record& r, const Position& start) {
  json moves = json::array();
  Position pos = start;
  for (const Move& m : r.moves) {
    moves.push_back(pos.move_to_string(m));
    pos.apply(m);
  }
  return {{"game", r.index},
          {"black", r.players[0]},
          {"white", r.players[1]},
          {"a_first", r.a_first},
          {"seed", r.seed},
          {"opening_seed", r.opening_seed},
          {"opening_plies", r.opening_plies},
          {"start", start.text()},
          {"result", result_text(r)},
          {"plies", r.moves.size()},
          {"seconds", {r.seconds[0], r.seconds[1]}},
          {"moves", moves}};
}

// One line of a records file checked: JSON, a start position, legal moves, the result they
// give. Returns the positions the moves were played in. Throws BadInput naming file:line.
std::vector<Position> check_record(const std::string& where, const std::string& line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    throw BadInput(where + "not JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("start") || !j.contains("moves") || !j.contains("result") ||
      !j["start"].is_string() || !j["moves"].is_array() || !j["result"].is_string())
    throw BadInput(where + "not a game record (needs start, moves, result)");
  Position pos;
  std::vector<Position> played;
  try {
    pos = Position::from_text(j["start"].get<std::string>());
    for (std::size_t k = 0; k < j["moves"].size(); ++k) {
      if (!j["moves"][k].is_string())
        throw BadInput(where + "move " + std::to_string(k + 1) + " is not a string");
      played.push_back(pos);
      pos.apply(pos.parse_move(j["moves"][k].get<std::string>()));
    }
  } catch (const gomoku::NotationError& e) {
    throw BadInput(where + e.what());
  }
  const std::string actual = !pos.is_terminal()  ? "*"
                             : pos.winner() == 0 ? "1-0"
                             : pos.winner() == 1 ? "0-1"
                                                 : "1/2-1/2";
  const std::string result = j["result"].get<std::string>();
  if (result != actual)
    throw BadInput(where + "recorded result \"" + result.substr(0, 20) + "\" but the moves give " +
                   actual);
  return played;
}

// Every game of a records file, checked: the positions its moves were played in.
std::vector<std::vector<Position>> read_records(const std::string& path) {
  std::vector<std::vector<Position>> games;
  std::string line;
  try {
    gsearch::LineReader in(path, std::size_t{1} << 20);
    while (in.next(line)) {
      if (line.empty()) continue;
      games.push_back(check_record(path + ":" + std::to_string(in.line_number()) + ": ", line));
    }
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
  if (games.empty()) throw BadInput(path + ": no game records (an empty file?)");
  return games;
}

void check_output_file(const std::string& path) {
  if (path.empty()) return;
  try {
    gsearch::check_writable(path);
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
}

// SIGINT and SIGTERM during a match: the games in progress are abandoned, the games played are
// written and summarised.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  g_stop.store(true, std::memory_order_relaxed);
  std::signal(sig, SIG_DFL);  // a second signal ends the program at once
}

// While alive, SIGINT and SIGTERM set g_stop instead of ending the program.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop = false;
    g_signal = 0;
    old_int_ = std::signal(SIGINT, on_stop_signal);
    old_term_ = std::signal(SIGTERM, on_stop_signal);
  }
  ~StopOnSignal() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void (*old_int_)(int) = SIG_DFL;
  void (*old_term_)(int) = SIG_DFL;
};

void add_rules_commands(CLI::App& app) {
  {
    auto o = std::make_shared<BoardOpts>();
    auto* cmd = app.add_subcommand("show", "Print a position: the board and its text");
    add_board_options(*cmd, *o);
    cmd->callback([o] {
      const Position p = board_position(*o);
      std::printf("%s%s\n", render(p).c_str(), p.text().c_str());
    });
  }
  {
    auto o = std::make_shared<BoardOpts>();
    auto restrict_text = std::make_shared<std::string>("none");
    auto* cmd =
        app.add_subcommand("legal", "List the legal moves, or the candidate set of --restrict");
    add_board_options(*cmd, *o);
    cmd->add_option("--restrict", *restrict_text,
                    "Candidate restriction, e.g. window=6,threats (default none)");
    auto records = std::make_shared<std::string>();
    cmd->add_option("--records", *records,
                    "Instead of one position: the mean candidate count over every position of "
                    "these games (gomoku match --records)");
    auto top_k = std::make_shared<std::size_t>(0);
    add_number(*cmd, "--topk", *top_k,
               "With --records: count at most K candidates a position, as a search's policy top-k "
               "keeps (default 0: all)",
               std::size_t{0}, std::size_t{225});
    cmd->callback([o, restrict_text, records, top_k] {
      const gomoku::Restriction r = gomoku::parse_restriction(*restrict_text);
      if (*top_k && records->empty())
        throw BadInput("--topk counts candidates over --records only");
      if (!records->empty()) {
        double kept = 0, legal = 0;
        std::size_t positions = 0;
        for (const auto& game : read_records(*records))
          for (const Position& p : game) {
            gsearch::MoveListOf<Position> moves;
            p.legal_moves(moves);
            legal += static_cast<double>(moves.size());
            gomoku::CandidateFilter{r}(p, moves);
            kept += static_cast<double>(*top_k ? std::min(*top_k, moves.size()) : moves.size());
            ++positions;
          }
        const std::string what =
            gomoku::to_string(r) + (*top_k ? ",top" + std::to_string(*top_k) : std::string());
        std::printf(
            "%zu positions: %.1f of %.1f legal moves kept on average, a reduction of %.1f%% (%s)\n",
            positions, kept / static_cast<double>(positions),
            legal / static_cast<double>(positions), 100.0 * (1.0 - kept / legal), what.c_str());
        return;
      }
      const Position p = board_position(*o);
      gsearch::MoveListOf<Position> moves;
      p.legal_moves(moves);
      const std::size_t all = moves.size();
      gomoku::CandidateFilter{r}(p, moves);
      std::string line;
      for (const Move& m : moves) line += (line.empty() ? "" : " ") + p.move_to_string(m);
      std::printf("%s\n%zu of %zu legal moves\n", line.c_str(), moves.size(), all);
    });
  }
  {
    auto o = std::make_shared<BoardOpts>();
    auto depth = std::make_shared<int>(1);
    auto divide = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("perft", "Count the move sequences of a given length");
    add_board_options(*cmd, *o);
    add_number(*cmd, "--depth", *depth, "Plies", 0, 20)->required();
    cmd->add_flag("--divide", *divide, "One count per first move");
    cmd->callback([o, depth, divide] {
      const Position p = board_position(*o);
      gsearch::Stopwatch watch;
      std::uint64_t total = 0;
      if (*divide) {
        for (const auto& [m, n] : gsearch::testing::perft_divide(p, *depth)) {
          std::printf("%s %llu\n", p.move_to_string(m).c_str(), static_cast<unsigned long long>(n));
          total += n;
        }
      } else {
        total = gsearch::testing::perft(p, *depth);
      }
      std::printf("perft %d: %llu (%.3f s)\n", *depth, static_cast<unsigned long long>(total),
                  watch.seconds());
    });
  }
}

void add_match_commands(CLI::App& app) {
  app.add_subcommand("agents", "List the agents and their parameters")->callback([] {
    std::fputs(gomoku::describe_agents().c_str(), stdout);
  });
  {
    struct Opts {
      std::string a, b, json_path, records_path;
      BoardOpts board;
      std::size_t games = 100, opening_plies = 2;
      unsigned threads = 1;
      std::uint64_t seed = 1;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("match", "Play a match between two agents");
    cmd->add_option("a", o->a, "Agent A's spec (gomoku agents lists them)")->required();
    cmd->add_option("b", o->b, "Agent B's spec")->required();
    add_board_options(*cmd, o->board, false);
    add_number(*cmd, "--games,-g", o->games, "Games, in pairs that swap colours (default 100)",
               std::size_t{1}, std::size_t{1'000'000});
    add_number(*cmd, "--threads,-t", o->threads, "Games played at once (default 1)", 1u, 256u);
    add_number(*cmd, "--seed", o->seed, "Match seed (default 1)", std::uint64_t{0},
               std::numeric_limits<std::uint64_t>::max());
    add_number(*cmd, "--opening-plies", o->opening_plies,
               "Random moves opening each pair of games (default 2)", std::size_t{0},
               std::size_t{225});
    cmd->add_option("--json", o->json_path, "Write the summary as JSON to this file");
    cmd->add_option("--records", o->records_path, "Write every game as one JSON line to this file");
    cmd->callback([o] {
      const Position start = empty_board(o->board);
      const std::string name_a = gomoku::make_agent(o->a)->name(),
                        name_b = gomoku::make_agent(o->b)->name();
      check_output_file(o->json_path);
      check_output_file(o->records_path);
      std::optional<StopOnSignal> on_signal(std::in_place);
      const gsearch::arena::MatchParams params{.games = o->games,
                                               .threads = o->threads,
                                               .seed = o->seed,
                                               .opening_plies = o->opening_plies,
                                               .stop = &g_stop};
      std::vector<Record> games;
      {
        games = gsearch::arena::play_match(
            start, [&] { return gomoku::AgentHandle(gomoku::make_agent(o->a)); },
            [&] { return gomoku::AgentHandle(gomoku::make_agent(o->b)); }, params);
      }
      on_signal.reset();
      if (games.empty()) {
        std::fprintf(stderr, "gomoku: match: interrupted before any game ended; nothing written\n");
        throw Interrupted(g_signal ? g_signal : SIGINT);
      }
      if (!o->records_path.empty()) {
        std::string text;
        for (const Record& r : games) text += record_json(r, start).dump() + '\n';
        gsearch::write_file_atomically(o->records_path, text);
      }
      const auto s = gsearch::arena::summarize(games);
      std::printf("A = %s\nB = %s\n", name_a.c_str(), name_b.c_str());
      std::printf("%-6s %5s %5s %6s %5s %9s  %-15s %6s  %-15s %6s %9s %9s\n", "agent", "games",
                  "wins", "losses", "draws", "score", "95% interval", "Elo", "Elo 95%", "plies",
                  "s/move A", "s/move B");
      std::printf(
          "%-6s %5zu %5zu %6zu %5zu %8.1f%%  [%5.1f, %5.1f]  %6s  [%5s, %5s] %6.1f %9.4f %9.4f\n",
          "A", s.games, s.wins, s.losses, s.draws, 100.0 * s.score / static_cast<double>(s.games),
          100 * s.score_ci.low, 100 * s.score_ci.high, format_elo(s.elo).c_str(),
          format_elo(s.elo_ci.low).c_str(), format_elo(s.elo_ci.high).c_str(), s.mean_plies,
          s.seconds_per_move[0], s.seconds_per_move[1]);
      if (s.unfinished) std::printf("%zu games were stopped unfinished\n", s.unfinished);
      if (!o->json_path.empty())
        gsearch::write_file_atomically(
            o->json_path, json{{"a", name_a},
                               {"b", name_b},
                               {"board", start.text()},
                               {"seed", o->seed},
                               {"games", s.games},
                               {"games_planned", o->games},
                               {"wins", s.wins},
                               {"losses", s.losses},
                               {"draws", s.draws},
                               {"score", s.score},
                               {"win_rate", s.score / static_cast<double>(s.games)},
                               {"win_rate_ci", {s.score_ci.low, s.score_ci.high}},
                               {"elo", std::isinf(s.elo) ? json(nullptr) : json(s.elo)},
                               {"mean_plies", s.mean_plies},
                               {"seconds_per_move", {s.seconds_per_move[0], s.seconds_per_move[1]}},
                               {"interrupted", games.size() < o->games}}
                                  .dump(2) +
                              '\n');
      if (games.size() < o->games) {
        std::fprintf(
            stderr,
            "gomoku: match: interrupted after %zu of %zu games; the table and files count those\n",
            games.size(), o->games);
        throw Interrupted(g_signal ? g_signal : SIGINT);
      }
    });
  }
  {
    auto path = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "replay", "Replay the games of a records file and check every move and result");
    cmd->add_option("file", *path, "A file written by gomoku match --records")->required();
    cmd->callback([path] {
      std::printf("%zu games replayed: every move legal, every result confirmed\n",
                  read_records(*path).size());
    });
  }
}

void add_play_commands(CLI::App& app) {
  {
    auto o = std::make_shared<BoardOpts>();
    auto spec = std::make_shared<std::string>("mcts:playouts=1000,window=6,threats=1");
    auto* cmd = app.add_subcommand("analyze", "Search a position and print the best move and line");
    add_board_options(*cmd, *o);
    cmd->add_option("--agent", *spec,
                    "The agent that searches (default mcts:playouts=1000,window=6,threats=1)");
    cmd->callback([o, spec] {
      const Position p = board_position(*o);
      auto agent = gomoku::make_agent(*spec);
      if (p.is_terminal()) throw BadInput("the game is over: nothing to analyze");
      agent->reset(1);
      const Move m = agent->choose(p);
      const auto& info = agent->info();
      std::string pv;
      Position q = p;
      for (const Move& x : info.pv) {
        pv += (pv.empty() ? "" : " ") + q.move_to_string(x);
        q.apply(x);
        if (q.is_terminal()) break;
      }
      std::printf(
          "agent %s\nbestmove %s\nvalue %+.3f\nplayouts %llu\ncandidates %zu\ntime %.3f s\npv %s\n",
          agent->name().c_str(), p.move_to_string(m).c_str(), info.value,
          static_cast<unsigned long long>(info.iterations), info.candidates, info.seconds,
          pv.c_str());
    });
  }
  {
    auto o = std::make_shared<BoardOpts>();
    auto spec = std::make_shared<std::string>("mcts:playouts=3000,window=6,threats=1");
    auto colour = std::make_shared<std::string>("black");
    auto* cmd = app.add_subcommand("play", "Play against an agent on the terminal");
    add_board_options(*cmd, *o);
    cmd->add_option("--agent", *spec,
                    "The opponent (default mcts:playouts=3000,window=6,threats=1)");
    cmd->add_option("--colour", *colour, "Your colour: black (moves first) or white")
        ->check(CLI::IsMember({"black", "white"}));
    cmd->callback([o, spec, colour] {
      Position p = board_position(*o);
      auto agent = gomoku::make_agent(*spec);
      agent->reset(1);
      const gsearch::Player human = *colour == "black" ? gomoku::kBlack : gomoku::kWhite;
      std::string line;
      while (!p.is_terminal()) {
        if (p.to_move() == human) {
          std::printf("%syour move (or quit): ", render(p).c_str());
          std::fflush(stdout);
          if (!std::getline(std::cin, line)) return;
          const auto w = gomoku::cli::EngineSession::words(line);
          if (w.empty()) continue;
          if (w[0] == "quit") return;
          try {
            p.apply(p.parse_move(w[0]));
          } catch (const gomoku::NotationError& e) {
            std::printf("%s\n", one_line(e.what()).c_str());
          }
        } else {
          const Move m = agent->choose(p);
          std::printf("%s plays %s\n", agent->name().c_str(), p.move_to_string(m).c_str());
          p.apply(m);
        }
      }
      std::printf("%s", render(p).c_str());
    });
  }
  {
    auto o = std::make_shared<BoardOpts>();
    auto spec = std::make_shared<std::string>("mcts:playouts=1000,window=6,threats=1");
    auto* cmd = app.add_subcommand(
        "engine", "Speak the engine protocol on stdin and stdout (docs/gomoku.md)");
    add_board_options(*cmd, *o, false);
    cmd->add_option("--agent", *spec, "The agent (default mcts:playouts=1000,window=6,threats=1)");
    cmd->callback([o, spec] {
      gomoku::cli::EngineSession session(*spec, empty_board(*o));
      std::string line;
      while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto answer = session.handle(line);
        if (!answer) break;
        std::printf("%s\n", one_line(*answer).c_str());
        std::fflush(stdout);
      }
    });
  }
}

// The options that shape a training run (gomoku train) or its self-play (gomoku selfplay).
struct LearnOpts {
  BoardOpts board;
  std::string restrict_text = "none", trunk = "32,64,128";
  gomoku::learn::TrainConfig cfg;
};

void add_learn_options(CLI::App& cmd, LearnOpts& o) {
  add_board_options(cmd, o.board, false);
  cmd.add_option("--restrict", o.restrict_text,
                 "Candidate restriction, e.g. window=6,threats (default none)");
  cmd.add_option("--trunk", o.trunk, "Channels of the network's 3x3 layers (default 32,64,128)");
  add_number(cmd, "--playouts", o.cfg.playouts, "Playouts per move (default 400)", std::uint64_t{1},
             std::uint64_t{1'000'000});
  add_number(cmd, "--threads,-t", o.cfg.threads, "Self-play games played at once (default 1)", 1u,
             64u);
  add_number(cmd, "--seed", o.cfg.seed, "Seed of every random choice (default 1)", std::uint64_t{0},
             std::numeric_limits<std::uint64_t>::max());
}

// The configuration the options give. Throws BadInput or std::invalid_argument.
gomoku::learn::TrainConfig learn_config(LearnOpts& o) {
  gomoku::learn::TrainConfig cfg = o.cfg;
  const Position start = empty_board(o.board);
  cfg.width = start.width();
  cfg.height = start.height();
  cfg.k = start.k();
  cfg.restriction = gomoku::parse_restriction(o.restrict_text);
  cfg.trunk.clear();
  std::stringstream in(o.trunk);
  for (std::string part; std::getline(in, part, ',');) {
    int c = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), c);
    if (ec != std::errc() || ptr != part.data() + part.size() || c < 1 || c > 512)
      throw BadInput("--trunk \"" + o.trunk.substr(0, 40) +
                     "\": expected channels in [1, 512], e.g. 32,64,128");
    cfg.trunk.push_back(c);
  }
  if (cfg.trunk.empty() || cfg.trunk.size() > 16)
    throw BadInput("--trunk \"" + o.trunk.substr(0, 40) +
                   "\": expected 1 to 16 layers, e.g. 32,64,128");
  return cfg;
}

void add_learn_commands(CLI::App& app) {
  {
    struct Opts {
      LearnOpts learn;
      std::string out;
      double minutes = 0;
      std::size_t batches = 1500, checkpoint_every = 10;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "train", "AlphaZero-style self-play training (resumes the run in --out when there is one)");
    cmd->add_option("--out", o->out, "The run's directory: checkpoint, weights, metrics, plots")
        ->required();
    add_learn_options(*cmd, o->learn);
    cmd->add_option("--minutes", o->minutes,
                    "Stop after this much training time in this call (default: no limit)")
        ->check(CLI::Range(0.0, 1e6));
    add_number(*cmd, "--batches", o->batches,
               "Stop once the run has this many batches (default 1500)", std::size_t{1},
               std::size_t{100'000'000});
    add_number(*cmd, "--checkpoint-every", o->checkpoint_every,
               "Batches between checkpoints (default 10)", std::size_t{1}, std::size_t{1'000'000});
    auto& cfg = o->learn.cfg;
    add_number(*cmd, "--buffer", cfg.buffer, "Replay buffer size in samples (default 10000)",
               std::size_t{1}, std::size_t{10'000'000});
    add_number(*cmd, "--batch-size", cfg.batch, "Samples per update (default 512)", std::size_t{1},
               std::size_t{1'000'000});
    add_number(*cmd, "--epochs", cfg.epochs, "Adam steps per update (default 5)", 1, 1000);
    cmd->add_option("--lr", cfg.lr, "Adam's learning rate (default 2e-3)")
        ->check(CLI::Range(1e-9, 1.0));
    add_number(*cmd, "--eval-every", cfg.eval_every,
               "Batches between evaluations, 0 = none (default 50)", std::size_t{0},
               std::size_t{1'000'000});
    add_number(*cmd, "--eval-games", cfg.eval_games, "Games per evaluation (default 10)",
               std::size_t{1}, std::size_t{10'000});
    add_number(*cmd, "--eval-playouts", cfg.eval_playouts,
               "The pure MCTS opponent's playouts (default 1000)", std::uint64_t{1},
               std::uint64_t{10'000'000});
    cmd->callback([o] {
      const gomoku::learn::TrainConfig cfg = learn_config(o->learn);
      const std::filesystem::path dir = o->out;
      try {
        std::filesystem::create_directories(dir);
        gsearch::check_directory_writable(dir);
      } catch (const std::exception& e) {
        throw BadInput("--out " + o->out + ": " + e.what());
      }
      gomoku::learn::Trainer trainer(cfg);
      const auto checkpoint = dir / "checkpoint.bin";
      if (std::filesystem::exists(checkpoint)) {
        std::string blob;
        try {
          blob = gsearch::read_file(checkpoint, std::size_t{1} << 31);
          trainer.restore(blob, checkpoint.string());
        } catch (const gsearch::FileError& e) {
          throw BadInput(e.what());
        } catch (const std::runtime_error& e) {
          throw BadInput(e.what());
        }
        std::printf("resumed %s at batch %zu (%.0f s of training so far)\n", o->out.c_str(),
                    trainer.batches(), trainer.seconds());
      } else {
        gsearch::write_file_atomically(dir / "config.json", cfg.to_json().dump(2) + "\n");
      }
      const auto save = [&] {
        gsearch::write_file_atomically(checkpoint, trainer.checkpoint());
        gsearch::nn::save_weights(dir / "weights.json", trainer.network());
        gomoku::learn::write_metrics(dir, trainer.metrics());
      };
      std::optional<StopOnSignal> on_signal(std::in_place);
      gsearch::Stopwatch watch;
      {
        while (trainer.batches() < o->batches && !g_stop.load() &&
               (o->minutes <= 0 || watch.seconds() < 60 * o->minutes)) {
          const auto row = trainer.run_batch([&](double ratio) {
            if (ratio >= trainer.best_win_ratio())
              gsearch::nn::save_weights(dir / "best.json", trainer.network());
          });
          std::printf(
              "batch %5zu  games %6zu  length %5.1f  buffer %6zu  loss %7.4f  entropy %6.3f  kl "
              "%8.5f  "
              "lr x%5.3f  %7.0f s%s\n",
              row.batch, row.games, row.game_length, row.buffer, row.loss, row.entropy, row.kl,
              row.lr_multiplier, row.seconds,
              std::isnan(row.win_ratio) ? ""
                                        : ("  win ratio " + std::to_string(row.win_ratio)).c_str());
          std::fflush(stdout);
          if (row.batch % o->checkpoint_every == 0) save();
        }
        save();
      }
      on_signal.reset();
      std::printf("checkpoint at batch %zu in %s; best win ratio %.2f\n", trainer.batches(),
                  o->out.c_str(), trainer.best_win_ratio());
      if (g_stop.load()) throw Interrupted(g_signal ? g_signal : SIGINT);
    });
  }
  {
    struct Opts {
      LearnOpts learn;
      std::string weights, records;
      std::size_t games = 10;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("selfplay",
                                   "Play self-play games with a trained network and record them");
    cmd->add_option("--weights", o->weights, "A network (weights.json of gomoku train)")
        ->required();
    cmd->add_option("--records", o->records, "Write every game as one JSON line to this file")
        ->required();
    add_learn_options(*cmd, o->learn);
    add_number(*cmd, "--games,-g", o->games, "Games (default 10)", std::size_t{1},
               std::size_t{1'000'000});
    cmd->callback([o] {
      const gomoku::learn::TrainConfig cfg = learn_config(o->learn);
      check_output_file(o->records);
      const auto net = gomoku::learn::load_network(o->weights, cfg.width, cfg.height);
      const Position start = Position::empty(cfg.width, cfg.height, cfg.k);
      std::string text;
      double plies = 0;
      int wins[3] = {0, 0, 0};
      for (std::size_t g = 0; g < o->games; ++g) {
        std::uint64_t s = cfg.seed * 0x9e3779b97f4a7c15ULL + g;
        const auto game = gomoku::learn::self_play_game(*net, cfg, gsearch::splitmix64(s));
        Record r;
        r.index = g;
        r.players[0] = r.players[1] = "selfplay:weights=" + o->weights;
        r.seed = s;
        r.moves = game.moves;
        r.result = game.winner < 0 ? 0.0 : game.winner == gomoku::kBlack ? 1.0 : -1.0;
        text += record_json(r, start).dump() + '\n';
        plies += static_cast<double>(game.moves.size());
        ++wins[game.winner < 0 ? 2 : game.winner];
      }
      gsearch::write_file_atomically(o->records, text);
      std::printf("%zu games: Black won %d, White %d, drawn %d; %.1f plies on average\n", o->games,
                  wins[0], wins[1], wins[2], plies / static_cast<double>(o->games));
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gomoku: free-style Gomoku and m,n,k-games on gsearch (rules, search, matches)",
               "gomoku"};
  app.require_subcommand(1);
  app.fallthrough(false);
  add_rules_commands(app);
  add_match_commands(app);
  add_play_commands(app);
  add_learn_commands(app);
  // One search per core: a network's small matrix products stay on the thread that asks for
  // them. With Eigen's OpenMP on every core, two games at once spun four threads on two cores
  // and a match ran 14 times slower. Only the training update widens it (train.hpp).
  Eigen::setNbThreads(1);
  try {
    app.parse(argc, argv);
  } catch (const Interrupted& e) {
    return e.exit_code();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail(kExitBadInput, std::string(e.what()) + " (see gomoku --help)");
  } catch (const std::invalid_argument& e) {  // NotationError, SpecError, a bad restriction
    return fail(kExitBadInput, e.what());
  } catch (const BadInput& e) {
    return fail(kExitBadInput, e.what());
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
  return 0;
}
