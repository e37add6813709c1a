// amazons agents | match | replay — players, matches between them, and their records.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "amazons/players/agents.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/arena/sprt.hpp"
#include "gsearch/core/file.hpp"

namespace amazons::cli {
namespace {

using Record = gsearch::arena::GameRecord<Move>;
using nlohmann::json;

std::string result_text(const Record& r) {
  if (!r.finished) return "*";
  return r.result > 0 ? "1-0" : r.result < 0 ? "0-1" : "1/2-1/2";
}

json record_json(const Record& r, const Position& start) {
  json moves = json::array();
  Position pos = start;
  for (const Move& m : r.moves) {
    moves.push_back(pos.move_to_string(m));
    pos.apply(m);
  }
  return {{"game", r.index},
          {"white", r.players[0]},
          {"black", r.players[1]},
          {"a_first", r.a_first},
          {"seed", r.seed},
          {"opening_seed", r.opening_seed},
          {"opening_plies", r.opening_plies},
          {"start", start.fen()},
          {"result", result_text(r)},
          {"plies", r.moves.size()},
          {"seconds", {r.seconds[0], r.seconds[1]}},
          {"moves", moves}};
}

// Set by SIGINT and SIGTERM during a match: the games in progress are abandoned, and the
// games already played are written and summarised. A second signal ends the program at once.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  g_stop.store(true);
  std::signal(sig, SIG_DFL);
}

// Installs on_stop_signal for SIGINT and SIGTERM while it lives.
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

void print_progress(std::size_t done, std::size_t total, double score) {
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  std::fprintf(stderr, "\r[%s%s] %zu/%zu  A scores %.1f",
               std::string(static_cast<std::size_t>(filled), '=').c_str(),
               std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), done, total,
               score);
  if (done == total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

std::string format_elo(double v) {
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(0);
  out << (v >= 0 ? "+" : "") << v;
  return out.str();
}

// Checks one line of a records file: a JSON game record whose moves are legal from its start
// and whose result is the one they give. Throws BadInput naming file:line.
void check_record(const std::string& path, std::size_t line_no, const std::string& line) {
  const std::string where = path + ":" + std::to_string(line_no) + ": ";
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    throw BadInput(where + "not JSON (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("start") || !j.contains("moves") || !j.contains("result") ||
      !j["moves"].is_array() || !j["start"].is_string() || !j["result"].is_string())
    throw BadInput(where + "not a game record (needs start, moves, result)");
  Position pos;
  try {
    pos = Position::from_fen(j["start"].get<std::string>());
    for (std::size_t k = 0; k < j["moves"].size(); ++k) {
      if (!j["moves"][k].is_string())
        throw BadInput(where + "move " + std::to_string(k + 1) + " is not a string");
      if (pos.is_terminal())
        throw BadInput(where + "move " + std::to_string(k + 1) + " comes after the end");
      pos.apply(pos.parse_move(j["moves"][k].get<std::string>()));
    }
  } catch (const NotationError& e) {
    throw BadInput(where + e.what());
  }
  const std::string result = j["result"].get<std::string>();
  const std::string actual = !pos.is_terminal() ? "*" : pos.result(kWhite) > 0 ? "1-0" : "0-1";
  if (result != actual)
    throw BadInput(where + "recorded result " + detail::quoted(result) + " but the moves give " +
                   actual);
}

// "elo0=0,elo1=10[,alpha=0.05,beta=0.05]" (both Elo bounds required). Throws BadInput.
gsearch::arena::SprtParams parse_sprt(const std::string& text) {
  gsearch::arena::SprtParams p;
  bool has_elo0 = false, has_elo1 = false;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (eq == std::string::npos || ec != std::errc() || ptr != value.data() + value.size() ||
        !std::isfinite(v))
      throw BadInput("--sprt: " + detail::quoted(item) + " is not key=number");
    if (key == "elo0")
      p.elo0 = v, has_elo0 = true;
    else if (key == "elo1")
      p.elo1 = v, has_elo1 = true;
    else if (key == "alpha")
      p.alpha = v;
    else if (key == "beta")
      p.beta = v;
    else
      throw BadInput("--sprt: unknown key " + detail::quoted(key) + " (elo0, elo1, alpha, beta)");
  }
  if (!has_elo0 || !has_elo1) throw BadInput("--sprt: give both elo0 and elo1");
  try {
    p.check();
  } catch (const std::invalid_argument& e) {
    throw BadInput(std::string("--") + e.what());
  }
  return p;
}

const char* sprt_result(gsearch::arena::Sprt::Status s) {
  using Status = gsearch::arena::Sprt::Status;
  return s == Status::kAcceptH1 ? "H1" : s == Status::kAcceptH0 ? "H0" : "none";
}

}  // namespace

void add_match_commands(CLI::App& app) {
  app.add_subcommand("agents", "List the agents and their parameters")->callback([] {
    std::fputs(describe_agents().c_str(), stdout);
  });

  {
    struct Opts {
      std::string a, b, fen{Position::kStartFen}, json_path, records_path, sprt;
      std::size_t games = 100, openings = 2;
      unsigned threads = 1;
      std::uint64_t seed = 1;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("match", "Play a match between two agents");
    cmd->add_option("a", o->a, "First agent spec, e.g. uct:iters=200")->required();
    cmd->add_option("b", o->b, "Second agent spec, e.g. random")->required();
    add_number(*cmd, "--games,-g", o->games,
               "Games to play (pairs share an opening, colours swapped)", std::size_t{1},
               std::size_t{1000000});
    add_number(*cmd, "--threads,-t", o->threads, "Games played at once", 1u, 256u);
    add_seed(*cmd, "--seed,-s", o->seed, "Match seed: the same seed replays the same games");
    add_number(*cmd, "--openings", o->openings, "Random plies that open each pair of games",
               std::size_t{0}, std::size_t{20});
    cmd->add_option("--fen", o->fen, "Start position (default: the 10x10 start)");
    cmd->add_option("--json", o->json_path, "Write the summary as JSON to this file");
    cmd->add_option("--records", o->records_path, "Write every game as one JSON line to this file");
    cmd->add_option("--sprt", o->sprt,
                    "Stop as soon as a sequential test over game pairs decides: "
                    "elo0=E0,elo1=E1[,alpha=0.05,beta=0.05] (logistic Elo, pentanomial; "
                    "--games is then the most played, 10000 unless given)");
    cmd->callback([o, cmd] {
      std::optional<gsearch::arena::Sprt> sprt;
      if (!o->sprt.empty()) {
        sprt.emplace(parse_sprt(o->sprt));
        if (cmd->count("--games") == 0) o->games = 10000;
      }
      const Position start = Position::from_fen(o->fen);
      // Build both agents once up front, so a bad spec fails before any game is played.
      const std::string name_a = make_agent(o->a)->name(), name_b = make_agent(o->b)->name();
      // And the output paths, before any game is played.
      check_output_file(o->records_path);
      check_output_file(o->json_path);
      const gsearch::arena::MatchParams params{.games = o->games,
                                               .threads = o->threads,
                                               .seed = o->seed,
                                               .opening_plies = o->openings,
                                               .stop = &g_stop};
      if (const std::size_t decided = gsearch::arena::games_decided_by_opening(start, params))
        std::fprintf(stderr,
                     "amazons: warning: the random opening (--openings %zu) ends %zu of the %zu "
                     "games before either agent moves; use fewer opening plies on this board\n",
                     o->openings, decided, o->games);
      const bool tty = isatty(STDERR_FILENO);
      double score = 0;
      std::vector<Record> games;
      // The SPRT takes the pairs in order, a pair once both its games are in, so that where it
      // stops does not depend on the order in which threads finish games.
      std::vector<double> scores(o->games, -1.0);
      std::size_t next_pair = 0;
      if (sprt)
        std::printf("SPRT elo0 %g, elo1 %g, alpha %g, beta %g: bounds [%.3f, %.3f]\n",
                    sprt->params().elo0, sprt->params().elo1, sprt->params().alpha,
                    sprt->params().beta, sprt->params().lower_bound(),
                    sprt->params().upper_bound());
      {
        const StopOnSignal on_signal;
        games = gsearch::arena::play_match(
            start, [&] { return AgentHandle(make_agent(o->a)); },
            [&] { return AgentHandle(make_agent(o->b)); }, params,
            [&](const Record& r, std::size_t done, std::size_t total) {
              score += r.score_a();
              if (tty && !sprt) print_progress(done, total, score);
              if (!sprt) return true;
              scores[r.index] = r.score_a();
              for (; 2 * next_pair + 1 < o->games && scores[2 * next_pair] >= 0 &&
                     scores[2 * next_pair + 1] >= 0 &&
                     sprt->status() == gsearch::arena::Sprt::Status::kContinue;
                   ++next_pair) {
                sprt->add_pair(scores[2 * next_pair], scores[2 * next_pair + 1]);
                const auto& c = sprt->counts();
                std::printf(
                    "pair %5zu  LLR %+7.3f  pairs by A's score 0/0.5/1/1.5/2: %llu %llu "
                    "%llu %llu %llu\n",
                    next_pair + 1, sprt->llr(), static_cast<unsigned long long>(c[0]),
                    static_cast<unsigned long long>(c[1]), static_cast<unsigned long long>(c[2]),
                    static_cast<unsigned long long>(c[3]), static_cast<unsigned long long>(c[4]));
              }
              std::fflush(stdout);
              return sprt->status() == gsearch::arena::Sprt::Status::kContinue;
            });
      }
      std::size_t planned = o->games;
      if (sprt && sprt->status() != gsearch::arena::Sprt::Status::kContinue) {
        // The decided pairs are the match: games of later pairs that other threads had
        // under way when it stopped are left out.
        planned = 2 * next_pair;
        std::erase_if(games, [&](const Record& r) { return r.index >= planned; });
        std::printf(
            "SPRT: %s accepted after %zu pairs (%zu games): LLR %+.3f, bounds [%.3f, "
            "%.3f]\n",
            sprt_result(sprt->status()), next_pair, planned, sprt->llr(),
            sprt->params().lower_bound(), sprt->params().upper_bound());
      } else if (sprt) {
        std::printf("SPRT: no decision after %zu pairs: LLR %+.3f within [%.3f, %.3f]\n", next_pair,
                    sprt->llr(), sprt->params().lower_bound(), sprt->params().upper_bound());
      }
      const bool interrupted = games.size() < planned;
      if (interrupted && tty) std::fputc('\n', stderr);
      if (games.empty()) {
        std::fprintf(stderr,
                     "amazons: match: interrupted before any game ended; nothing written\n");
        throw Interrupted(g_signal);
      }
      if (!o->records_path.empty()) {
        std::string text;
        for (const Record& r : games) text += record_json(r, start).dump() + '\n';
        gsearch::write_file_atomically(o->records_path, text);
      }
      const auto s = gsearch::arena::summarize(games);
      std::printf("A = %s\nB = %s\n", name_a.c_str(), name_b.c_str());
      std::printf("%-6s %5s %5s %5s %8s  %-15s %6s  %-15s %7s %9s %9s\n", "agent", "games", "wins",
                  "losses", "win rate", "95% interval", "Elo", "Elo 95%", "plies", "s/move A",
                  "s/move B");
      std::printf(
          "%-6s %5zu %5zu %5zu %7.1f%%  [%5.1f, %5.1f]  %6s  [%5s, %5s] %7.1f %9.4f %9.4f\n", "A",
          s.games, s.wins, s.losses, 100.0 * s.score / static_cast<double>(s.games),
          100 * s.score_ci.low, 100 * s.score_ci.high, format_elo(s.elo).c_str(),
          format_elo(s.elo_ci.low).c_str(), format_elo(s.elo_ci.high).c_str(), s.mean_plies,
          s.seconds_per_move[0], s.seconds_per_move[1]);
      if (s.unfinished) std::printf("%zu games were stopped unfinished\n", s.unfinished);
      if (!o->json_path.empty()) {
        gsearch::write_file_atomically(
            o->json_path,
            json{
                {"a", name_a},
                {"b", name_b},
                {"seed", o->seed},
                {"games", s.games},
                {"games_planned", planned},
                {"wins", s.wins},
                {"losses", s.losses},
                {"draws", s.draws},
                {"score", s.score},
                {"win_rate", s.score / static_cast<double>(s.games)},
                {"win_rate_ci", {s.score_ci.low, s.score_ci.high}},
                {"elo", std::isinf(s.elo) ? json(nullptr) : json(s.elo)},
                {"mean_plies", s.mean_plies},
                {"seconds_per_move", {s.seconds_per_move[0], s.seconds_per_move[1]}},
                {"interrupted", interrupted},
                {"sprt", sprt ? json{{"elo0", sprt->params().elo0},
                                     {"elo1", sprt->params().elo1},
                                     {"alpha", sprt->params().alpha},
                                     {"beta", sprt->params().beta},
                                     {"bounds",
                                      {sprt->params().lower_bound(), sprt->params().upper_bound()}},
                                     {"llr", sprt->llr()},
                                     {"pairs", sprt->pairs()},
                                     {"pentanomial", sprt->counts()},
                                     {"result", sprt_result(sprt->status())}}
                              : json(nullptr)}}
                    .dump(2) +
                '\n');
      }
      if (interrupted) {
        std::fprintf(stderr,
                     "amazons: match: interrupted by %s after %zu of %zu games; %s those %zu "
                     "games\n",
                     g_signal == SIGTERM ? "SIGTERM" : "SIGINT", games.size(), planned,
                     o->records_path.empty() && o->json_path.empty()
                         ? "the table above counts"
                         : "the table above and the files written count",
                     games.size());
        throw Interrupted(g_signal);
      }
    });
  }

  {
    auto path = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "replay", "Replay the games of a records file and check every move and result");
    cmd->add_option("file", *path, "A file written by amazons match --records")->required();
    cmd->callback([path] {
      // A record is a few KB (10x10: at most 92 moves); a longer line is not a record.
      constexpr std::size_t kMaxRecordLine = std::size_t{1} << 20;
      std::string line;
      std::size_t n = 0;
      try {
        gsearch::LineReader in(*path, kMaxRecordLine);
        while (in.next(line)) {
          if (line.empty()) continue;
          check_record(*path, in.line_number(), line);
          ++n;
        }
      } catch (const gsearch::FileError& e) {
        throw BadInput(e.what());
      }
      if (n == 0) throw BadInput(*path + ": no game records (an empty file?)");
      std::printf("%zu games replayed: every move legal, every result confirmed\n", n);
    });
  }
}

}  // namespace amazons::cli
