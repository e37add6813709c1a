// amazons agents | match | replay — players, matches between them, and their records.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "amazons/players/agents.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"

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

// Writes to `path` through a temporary file in the same directory that replaces it only when
// complete, so an interrupted run never leaves a half-written file where a good one was.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path) : path_(path), tmp_(path + ".partial") {
    out_.open(tmp_, std::ios::trunc);
    if (!out_) throw std::runtime_error("cannot write " + tmp_);
  }
  std::ofstream& stream() { return out_; }
  void commit() {
    out_.flush();
    if (!out_) throw std::runtime_error("writing " + tmp_ + " failed");
    out_.close();
    std::filesystem::rename(tmp_, path_);
  }

 private:
  std::string path_, tmp_;
  std::ofstream out_;
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

}  // namespace

void add_match_commands(CLI::App& app) {
  app.add_subcommand("agents", "List the agents and their parameters")->callback([] {
    std::fputs(describe_agents().c_str(), stdout);
  });

  {
    struct Opts {
      std::string a, b, fen{Position::kStartFen}, json_path, records_path;
      std::size_t games = 100, openings = 2;
      unsigned threads = 1;
      std::uint64_t seed = 1;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("match", "Play a match between two agents");
    cmd->add_option("a", o->a, "First agent spec, e.g. uct:iters=200")->required();
    cmd->add_option("b", o->b, "Second agent spec, e.g. random")->required();
    cmd->add_option("--games,-g", o->games,
                    "Games to play (pairs share an opening, colours swapped)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
    cmd->add_option("--threads,-t", o->threads, "Games played at once")
        ->check(CLI::Range(1u, 256u));
    cmd->add_option("--seed,-s", o->seed, "Match seed: the same seed replays the same games");
    cmd->add_option("--openings", o->openings, "Random plies that open each pair of games")
        ->check(CLI::Range(std::size_t{0}, std::size_t{20}));
    cmd->add_option("--fen", o->fen, "Start position (default: the 10x10 start)");
    cmd->add_option("--json", o->json_path, "Write the summary as JSON to this file");
    cmd->add_option("--records", o->records_path, "Write every game as one JSON line to this file");
    cmd->callback([o] {
      const Position start = Position::from_fen(o->fen);
      // Build both agents once up front, so a bad spec fails before any game is played.
      const std::string name_a = make_agent(o->a)->name(), name_b = make_agent(o->b)->name();
      const bool tty = isatty(STDERR_FILENO);
      std::unique_ptr<AtomicFile> records;
      if (!o->records_path.empty()) records = std::make_unique<AtomicFile>(o->records_path);
      double score = 0;
      const auto games = gsearch::arena::play_match(
          start, [&] { return AgentHandle(make_agent(o->a)); },
          [&] { return AgentHandle(make_agent(o->b)); },
          {.games = o->games, .threads = o->threads, .seed = o->seed, .opening_plies = o->openings},
          [&](const Record& r, std::size_t done, std::size_t total) {
            score += r.score_a();
            if (records) records->stream() << record_json(r, start).dump() << '\n' << std::flush;
            if (tty) print_progress(done, total, score);
          });
      if (records) records->commit();
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
        AtomicFile out(o->json_path);
        out.stream() << json{{"a", name_a},
                             {"b", name_b},
                             {"seed", o->seed},
                             {"games", s.games},
                             {"wins", s.wins},
                             {"losses", s.losses},
                             {"draws", s.draws},
                             {"score", s.score},
                             {"win_rate", s.score / static_cast<double>(s.games)},
                             {"win_rate_ci", {s.score_ci.low, s.score_ci.high}},
                             {"elo", std::isinf(s.elo) ? json(nullptr) : json(s.elo)},
                             {"mean_plies", s.mean_plies},
                             {"seconds_per_move", {s.seconds_per_move[0], s.seconds_per_move[1]}}}
                            .dump(2)
                     << '\n';
        out.commit();
      }
    });
  }

  {
    auto path = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand(
        "replay", "Replay the games of a records file and check every move and result");
    cmd->add_option("file", *path, "A file written by amazons match --records")->required();
    cmd->callback([path] {
      std::error_code ec;
      if (std::filesystem::is_directory(*path, ec))
        throw BadInput(*path + " is a directory, not a records file");
      std::ifstream in(*path);
      if (!in) throw BadInput("cannot read " + *path);
      std::string line;
      std::size_t n = 0, line_no = 0;
      while (std::getline(in, line)) {
        ++line_no;
        if (line.empty()) continue;
        const std::string where = *path + ":" + std::to_string(line_no) + ": ";
        json j;
        try {
          j = json::parse(line);
        } catch (const json::exception& e) {
          throw BadInput(where + "not JSON (" + e.what() + ")");
        }
        if (!j.is_object() || !j.contains("start") || !j.contains("moves") ||
            !j.contains("result") || !j["moves"].is_array() || !j["start"].is_string() ||
            !j["result"].is_string())
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
        const std::string actual = !pos.is_terminal()       ? "*"
                                   : pos.result(kWhite) > 0 ? "1-0"
                                                            : "0-1";
        if (result != actual)
          throw BadInput(where + "recorded result " + result + " but the moves give " + actual);
        ++n;
      }
      if (in.bad()) throw BadInput("cannot read " + *path + " to its end");
      if (n == 0) throw BadInput(*path + ": no game records (an empty file?)");
      std::printf("%zu games replayed: every move legal, every result confirmed\n", n);
    });
  }
}

}  // namespace amazons::cli
