// amazons agents | match | replay | tournament — players, matches between them, their records,
// and tournaments of many players with their ratings.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "amazons/players/agents.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/arena/ratings.hpp"
#include "gsearch/arena/sprt.hpp"
#include "gsearch/core/file.hpp"

#ifdef GSEARCH_HAVE_MPI
#include "gsearch/arena/mpi.hpp"
#endif

namespace amazons::cli {
namespace {

using Record = gsearch::arena::GameRecord<Move>;
using nlohmann::json;

// play_match, or, under mpirun with more than one rank, play_match_mpi: rank 0 gets the games,
// the other ranks play them and get none.
template <class MakeA, class MakeB, class Progress>
std::vector<Record> play_games(std::span<const Position> starts, MakeA make_a, MakeB make_b,
                               const gsearch::arena::MatchParams& params, Progress progress) {
#ifdef GSEARCH_HAVE_MPI
  if (world_size() > 1)
    return gsearch::arena::play_match_mpi(starts, make_a, make_b, params, progress);
#endif
  return gsearch::arena::play_match(starts, make_a, make_b, params, progress);
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
  if (std::abs(v) < 0.5) v = 0.0;  // no "+-0"
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(0);
  out << (v >= 0 ? "+" : "") << v;
  return out.str();
}

// "elo0=0,elo1=10[,alpha=0.05,beta=0.05][,model=logistic|normalized]" (both bounds required).
// Throws BadInput.
gsearch::arena::SprtParams parse_sprt(const std::string& text) {
  gsearch::arena::SprtParams p;
  bool has_elo0 = false, has_elo1 = false;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (key == "model" && eq != std::string::npos) {
      if (value != "logistic" && value != "normalized")
        throw BadInput("--sprt: model " + detail::quoted(value) + " is not logistic or normalized");
      p.model = value == "logistic" ? gsearch::arena::SprtModel::kLogistic
                                    : gsearch::arena::SprtModel::kNormalized;
      continue;
    }
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
      throw BadInput("--sprt: unknown key " + detail::quoted(key) +
                     " (elo0, elo1, alpha, beta, model)");
  }
  if (!has_elo0 || !has_elo1) throw BadInput("--sprt: give both elo0 and elo1");
  try {
    p.check();
  } catch (const std::invalid_argument& e) {
    throw BadInput(std::string("--") + e.what());
  }
  return p;
}

// ---------------------------------------------------------------------------------------
// Tournaments

struct TournamentConfig {
  std::vector<std::string> agents;  // canonical specs
  bool gauntlet = false;
  std::size_t games_per_pair = 20, openings = 2;
  std::uint64_t seed = 1;
  std::string start;              // FEN
  std::vector<std::string> book;  // an opening book's positions (FENs), or none

  [[nodiscard]] json to_json() const {
    return {{"agents", agents},     {"gauntlet", gauntlet}, {"games_per_pair", games_per_pair},
            {"openings", openings}, {"seed", seed},         {"start", start},
            {"book", book}};
  }
  // Where each pair's games start: the book's positions in turn, or the start.
  [[nodiscard]] std::vector<Position> starts() const {
    std::vector<Position> out;
    for (const auto& fen : book) out.push_back(Position::from_fen(fen));
    if (out.empty()) out.push_back(Position::from_fen(start));
    return out;
  }
  // The pairs in the order they are played: (0, 1), (0, 2), ..., (1, 2), ... or, in a
  // gauntlet, the first agent against each of the others.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> pairs() const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < agents.size(); ++i)
      for (std::size_t j = i + 1; j < agents.size(); ++j)
        if (!gauntlet || i == 0) out.emplace_back(i, j);
    return out;
  }
};

// One game of a tournament as its records file keeps it.
struct TournamentGame {
  std::size_t pair = 0, game = 0;
  double score_a = 0;  // for the pair's first agent
  json record;
};

// A's score in a game record: 1, ½ or 0 (an unfinished game counts as a draw).
double score_of(const json& record) {
  const std::string result = record["result"].get<std::string>();
  const bool a_white = record["a_first"].get<bool>();
  if (result == "1-0") return a_white ? 1.0 : 0.0;
  if (result == "0-1") return a_white ? 0.0 : 1.0;
  return 0.5;
}

// The complete pairs of a records file (a pair whose games are not all there is played
// again); each line is checked as `amazons replay` checks it. Throws BadInput naming
// file:line.
std::vector<TournamentGame> read_tournament_records(const std::string& path,
                                                    const TournamentConfig& config) {
  std::vector<TournamentGame> games;
  if (!std::filesystem::exists(path)) return games;
  const auto pairs = config.pairs();
  std::vector<std::size_t> count(pairs.size(), 0);
  std::string line;
  try {
    gsearch::LineReader in(path, std::size_t{1} << 20);
    while (in.next(line)) {
      if (line.empty()) continue;
      const json j = check_record(path, in.line_number(), line);
      const std::string where = path + ":" + std::to_string(in.line_number()) + ": ";
      if (!j.contains("pair") || !j["pair"].is_number_unsigned() || !j.contains("game") ||
          !j["game"].is_number_unsigned() || !j.contains("a_first") || !j["a_first"].is_boolean())
        throw BadInput(where + "not a tournament record (needs pair, game, a_first)");
      TournamentGame g{j["pair"].get<std::size_t>(), j["game"].get<std::size_t>(), score_of(j), j};
      if (g.pair >= pairs.size() || g.game >= config.games_per_pair)
        throw BadInput(where + "pair " + std::to_string(g.pair) + ", game " +
                       std::to_string(g.game) + " is not part of this tournament");
      const auto& [a, b] = pairs[g.pair];
      const bool a_white = j["a_first"].get<bool>();
      if (j["white"] != config.agents[a_white ? a : b] ||
          j["black"] != config.agents[a_white ? b : a])
        throw BadInput(where + "the players are not those of pair " + std::to_string(g.pair));
      ++count[g.pair];
      games.push_back(std::move(g));
    }
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
  std::erase_if(games,
                [&](const TournamentGame& g) { return count[g.pair] != config.games_per_pair; });
  std::sort(games.begin(), games.end(), [](const TournamentGame& x, const TournamentGame& y) {
    return std::pair(x.pair, x.game) < std::pair(y.pair, y.game);
  });
  // A game recorded twice (a file edited by hand) would count twice: refuse it.
  for (std::size_t k = 1; k < games.size(); ++k)
    if (games[k].pair == games[k - 1].pair && games[k].game == games[k - 1].game)
      throw BadInput(path + ": pair " + std::to_string(games[k].pair) + ", game " +
                     std::to_string(games[k].game) + " is recorded twice");
  return games;
}

std::string elo_text(double v) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(0);
  out << (v > 0 ? "+" : "") << v;
  return out.str();
}

// The crosstable (Markdown), the ratings (JSON) and their plot (SVG) of the games so far.
struct TournamentTables {
  std::string markdown, json_text, svg;
};

TournamentTables tournament_tables(const TournamentConfig& config,
                                   const std::vector<TournamentGame>& games) {
  const std::size_t n = config.agents.size();
  const auto pairs = config.pairs();
  gsearch::arena::Results results(n);
  for (const auto& g : games) results.add(pairs[g.pair].first, pairs[g.pair].second, g.score_a);
  std::vector<gsearch::arena::Rating> ratings(n);
  bool rated = false;
  try {  // before every agent has played, some cannot be rated yet
    ratings = gsearch::arena::elo_ratings(results, 0);
    rated = true;
  } catch (const std::invalid_argument&) {}
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  if (rated)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ratings[a].elo > ratings[b].elo; });
  std::size_t pairs_done = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p)
    pairs_done += std::any_of(games.begin(), games.end(),
                              [&](const TournamentGame& g) { return g.pair == p; });
  const auto total = [&](std::size_t i, bool score) {
    double t = 0;
    for (std::size_t j = 0; j < n; ++j) t += score ? results.score[i][j] : results.games[i][j];
    return t;
  };
  const auto number = [](double v) {
    std::ostringstream out;
    out << v;
    return out.str();
  };
  const char* model =
      "Elo by maximum likelihood over all games (Bradley-Terry with Elo's logistic scale, a "
      "draw half a win, 2 virtual draws per pair that played), anchored at agent 1 = 0; 95 % "
      "intervals from the likelihood's curvature, for each agent's difference from agent 1.";
  std::ostringstream md;
  md << "# Tournament: " << n << " agents, " << (config.gauntlet ? "gauntlet" : "round robin")
     << ", " << config.games_per_pair << " games per pair, seed " << config.seed << "\n\n"
     << pairs_done << " of " << pairs.size() << " pairs played, " << games.size()
     << " games.\n\n| rank | agent | games | score | Elo | 95 % |";
  for (std::size_t c = 0; c < n; ++c) md << " vs " << order[c] + 1 << " |";
  md << "\n|---|---|---|---|---|---|";
  for (std::size_t c = 0; c < n; ++c) md << "---|";
  md << "\n";
  json rows = json::array();
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t i = order[r];
    const bool anchor = i == 0;
    md << "| " << r + 1 << " | " << i + 1 << ". `" << config.agents[i] << "` | "
       << number(total(i, false)) << " | " << number(total(i, true)) << " | "
       << (rated ? elo_text(ratings[i].elo) : "–") << " | "
       << (!rated   ? "–"
           : anchor ? "anchor"
                    : "[" + elo_text(ratings[i].ci.low) + ", " + elo_text(ratings[i].ci.high) + "]")
       << " |";
    for (std::size_t c = 0; c < n; ++c) {
      const std::size_t j = order[c];
      md << " "
         << (i == j ? "–"
             : results.games[i][j] == 0
                 ? "·"
                 : number(results.score[i][j]) + "/" + number(results.games[i][j]))
         << " |";
    }
    md << "\n";
    json row = {{"agent", config.agents[i]},
                {"number", i + 1},
                {"games", total(i, false)},
                {"score", total(i, true)}};
    if (rated) {
      row["elo"] = ratings[i].elo;
      row["ci"] = anchor ? json(nullptr) : json{ratings[i].ci.low, ratings[i].ci.high};
    }
    rows.push_back(row);
  }
  md << "\n" << model << "\n";
  json cross = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < n; ++j) row.push_back({results.score[i][j], results.games[i][j]});
    cross.push_back(row);
  }
  TournamentTables t;
  t.markdown = md.str();
  t.json_text =
      json{{"config", config.to_json()}, {"model", model},        {"pairs_played", pairs_done},
           {"pairs", pairs.size()},      {"games", games.size()}, {"ratings", rows},
           {"crosstable", cross}}
          .dump(2) +
      '\n';
  // The plot: each agent's Elo as a dot, its interval as a bar, best at the top.
  std::ostringstream svg;
  const double row_h = 28, left = 330, right = 30, top = 50, width = 820;
  const double height = top + row_h * static_cast<double>(n) + 40;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < n && rated; ++i)
    lo = std::min({lo, ratings[i].ci.low, ratings[i].elo}),
    hi = std::max({hi, ratings[i].ci.high, ratings[i].elo});
  if (hi - lo < 1) lo -= 50, hi += 50;
  const double pad = 0.05 * (hi - lo);
  lo -= pad, hi += pad;
  const auto X = [&](double v) { return left + (width - left - right) * (v - lo) / (hi - lo); };
  const auto esc = [](const std::string& s) {
    std::string o;
    for (char ch : s)
      o += ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : ch == '&' ? "&amp;" : std::string(1, ch);
    return o;
  };
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
         "fill='white'/>\n<text x='"
      << width / 2 << "' y='24' text-anchor='middle' font-size='15'>Elo, 95 % intervals ("
      << games.size() << " games; agent 1 = 0)</text>\n";
  svg << "<line x1='" << X(0) << "' y1='" << top - 10 << "' x2='" << X(0) << "' y2='" << height - 30
      << "' stroke='#999' stroke-dasharray='4 3'/>\n";
  for (std::size_t r = 0; r < n && rated; ++r) {
    const std::size_t i = order[r];
    const double y = top + row_h * (static_cast<double>(r) + 0.5);
    svg << "<text x='" << left - 10 << "' y='" << y + 4 << "' text-anchor='end'>" << i + 1 << ". "
        << esc(config.agents[i].substr(0, 48)) << "</text>\n";
    if (i != 0)
      svg << "<line x1='" << X(ratings[i].ci.low) << "' y1='" << y << "' x2='"
          << X(ratings[i].ci.high) << "' y2='" << y << "' stroke='#1f77b4' stroke-width='3'/>\n";
    svg << "<circle cx='" << X(ratings[i].elo) << "' cy='" << y << "' r='5' fill='#d62728'/>\n"
        << "<text x='" << X(ratings[i].elo) << "' y='" << y - 8 << "' text-anchor='middle'>"
        << elo_text(ratings[i].elo) << "</text>\n";
  }
  svg << "<text x='" << X(lo) << "' y='" << height - 12 << "'>" << elo_text(lo)
      << "</text><text x='" << X(hi) << "' y='" << height - 12 << "' text-anchor='end'>"
      << elo_text(hi) << "</text>\n</svg>\n";
  t.svg = svg.str();
  return t;
}

const char* model_name(gsearch::arena::SprtModel m) {
  return m == gsearch::arena::SprtModel::kLogistic ? "logistic" : "normalized";
}

const char* sprt_result(gsearch::arena::Sprt::Status s) {
  using Status = gsearch::arena::Sprt::Status;
  return s == Status::kAcceptH1 ? "H1" : s == Status::kAcceptH0 ? "H0" : "none";
}

}  // namespace

// (command.hpp) A game's result and the game as a records file keeps it.
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

// (command.hpp) Checks one line of a records file: a JSON game record whose moves are legal from
// its start and whose result is the one they give. Returns it; throws BadInput naming file:line.
json check_record(const std::string& path, std::size_t line_no, const std::string& line) {
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
  return j;
}

void add_match_commands(CLI::App& app) {
  app.add_subcommand("agents", "List the agents and their parameters")->callback([] {
    std::fputs(describe_agents().c_str(), stdout);
  });

  {
    struct Opts {
      std::string a, b, fen{Position::kStartFen}, json_path, records_path, sprt, book;
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
    cmd->add_option("--book", o->book,
                    "Opening book (amazons book writes one): pair p of games starts from its "
                    "opening p mod its size; --openings is then 0 unless given");
    cmd->add_option("--json", o->json_path, "Write the summary as JSON to this file");
    cmd->add_option("--records", o->records_path, "Write every game as one JSON line to this file");
    cmd->add_option("--sprt", o->sprt,
                    "Stop as soon as a sequential test over game pairs decides: "
                    "elo0=E0,elo1=E1[,alpha=0.05,beta=0.05,model=logistic|normalized] "
                    "(pentanomial; "
                    "--games is then the most played, 10000 unless given)");
    cmd->callback([o, cmd] {
      std::optional<gsearch::arena::Sprt> sprt;
      if (!o->sprt.empty()) {
        sprt.emplace(parse_sprt(o->sprt));
        if (cmd->count("--games") == 0) o->games = 10000;
      }
      const Position start = Position::from_fen(o->fen);
      std::vector<Position> starts{start};
      if (!o->book.empty()) {
        starts = read_book(o->book, start);
        if (cmd->count("--openings") == 0) o->openings = 0;
      }
      const std::span<const Position> openings(starts);
      // Build both agents once up front, so a bad spec fails before any game is played.
      const std::string name_a = make_agent(o->a)->name(), name_b = make_agent(o->b)->name();
      // And the output paths, before any game is played (rank 0 writes them).
      const bool root = world_rank() == 0;
      if (root) {
        check_output_file(o->records_path);
        check_output_file(o->json_path);
      }
      const gsearch::arena::MatchParams params{.games = o->games,
                                               .threads = o->threads,
                                               .seed = o->seed,
                                               .opening_plies = o->openings,
                                               .stop = &g_stop};
      if (const std::size_t decided = gsearch::arena::games_decided_by_opening(openings, params);
          decided && root)
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
      if (sprt && root)
        std::printf("SPRT (%s Elo) elo0 %g, elo1 %g, alpha %g, beta %g: bounds [%.3f, %.3f]\n",
                    model_name(sprt->params().model), sprt->params().elo0, sprt->params().elo1,
                    sprt->params().alpha, sprt->params().beta, sprt->params().lower_bound(),
                    sprt->params().upper_bound());
      {
        const StopOnSignal on_signal;
        games = play_games(
            openings, [&] { return AgentHandle(make_agent(o->a)); },
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
      if (!root) return;  // rank 0 reports and writes
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
        for (const Record& r : games)
          text += record_json(r, starts[(r.index / 2) % starts.size()]).dump() + '\n';
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
      // The same result read over the pairs of games that share an opening.
      gsearch::arena::Pentanomial pentanomial{};
      {
        std::vector<double> by_index(planned, -1.0);
        for (const Record& r : games) by_index[r.index] = r.score_a();
        for (std::size_t k = 0; 2 * k + 1 < planned; ++k)
          if (by_index[2 * k] >= 0 && by_index[2 * k + 1] >= 0)
            ++pentanomial[static_cast<std::size_t>(
                std::lround(2 * (by_index[2 * k] + by_index[2 * k + 1])))];
      }
      const auto pairs = gsearch::arena::summarize_pairs(pentanomial);
      if (pairs.pairs > 0)
        std::printf(
            "pairs %llu, by A's score 0/0.5/1/1.5/2: %llu %llu %llu %llu %llu; score %.1f%% "
            "[%.1f, %.1f], Elo %s [%s, %s] (pentanomial)\n",
            static_cast<unsigned long long>(pairs.pairs),
            static_cast<unsigned long long>(pentanomial[0]),
            static_cast<unsigned long long>(pentanomial[1]),
            static_cast<unsigned long long>(pentanomial[2]),
            static_cast<unsigned long long>(pentanomial[3]),
            static_cast<unsigned long long>(pentanomial[4]), 100 * pairs.score,
            100 * pairs.score_ci.low, 100 * pairs.score_ci.high, format_elo(pairs.elo).c_str(),
            format_elo(pairs.elo_ci.low).c_str(), format_elo(pairs.elo_ci.high).c_str());
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
                {"pairs",
                 {{"count", pairs.pairs},
                  {"pentanomial", pentanomial},
                  {"score_ci", {pairs.score_ci.low, pairs.score_ci.high}},
                  {"elo", std::isinf(pairs.elo) ? json(nullptr) : json(pairs.elo)}}},
                {"sprt", sprt ? json{{"model", model_name(sprt->params().model)},
                                     {"elo0", sprt->params().elo0},
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
          (void)check_record(*path, in.line_number(), line);
          ++n;
        }
      } catch (const gsearch::FileError& e) {
        throw BadInput(e.what());
      }
      if (n == 0) throw BadInput(*path + ": no game records (an empty file?)");
      std::printf("%zu games replayed: every move legal, every result confirmed\n", n);
    });
  }
  {
    struct Opts {
      std::vector<std::string> agents;
      std::string fen{Position::kStartFen}, out, book;
      std::size_t games = 20, openings = 2;
      unsigned threads = 1;
      std::uint64_t seed = 1;
      bool gauntlet = false;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "tournament", "Play every pair of agents (or the first against each other) and rate all");
    cmd->add_option("agents", o->agents, "Agent specs, two or more")->required();
    cmd->add_flag("--gauntlet", o->gauntlet, "Only the first agent against each of the others");
    add_number(*cmd, "--games-per-pair,-g", o->games,
               "Games per pair (pairs of games share an opening, colours swapped)", std::size_t{1},
               std::size_t{100000});
    add_number(*cmd, "--threads,-t", o->threads, "Games played at once", 1u, 256u);
    add_seed(*cmd, "--seed,-s", o->seed,
             "Tournament seed: game k of pair p depends on it, p and k alone");
    add_number(*cmd, "--openings", o->openings, "Random plies that open each pair of games",
               std::size_t{0}, std::size_t{20});
    cmd->add_option("--fen", o->fen, "Start position (default: the 10x10 start)");
    cmd->add_option("--book", o->book,
                    "Opening book: each pair's game pairs start from its openings in turn; "
                    "--openings is then 0 unless given");
    cmd->add_option("--out,-o", o->out,
                    "Directory for records.jsonl, crosstable.md, ratings.json and ratings.svg; "
                    "a tournament found there is resumed")
        ->required();
    cmd->callback([o, cmd] {
      if (o->agents.size() < 2) throw BadInput("tournament: give two or more agents");
      TournamentConfig config;
      for (const auto& spec : o->agents) {
        std::string name = make_agent(spec)->name();  // a bad spec fails before any game
        if (std::find(config.agents.begin(), config.agents.end(), name) != config.agents.end())
          throw BadInput("tournament: " + detail::quoted(name) + " is given twice");
        config.agents.push_back(std::move(name));
      }
      config.gauntlet = o->gauntlet;
      config.games_per_pair = o->games;
      config.openings = o->openings;
      config.seed = o->seed;
      config.start = Position::from_fen(o->fen).fen();
      if (!o->book.empty()) {
        for (const auto& p : read_book(o->book, Position::from_fen(config.start)))
          config.book.push_back(p.fen());
        if (cmd->count("--openings") == 0) config.openings = 0;
      }
      const bool root = world_rank() == 0;  // rank 0 reads, writes and reports; all play
      const std::filesystem::path dir(o->out);
      const std::string config_path = dir / "tournament.json", records_path = dir / "records.jsonl";
      // The directory: a new tournament's config is written, a saved one must match.
      const auto open_directory = [&] {
        check_output_directory(o->out);
        if (!std::filesystem::exists(config_path)) {
          gsearch::write_file_atomically(config_path, config.to_json().dump(2) + '\n');
          return;
        }
        json saved;
        try {
          saved = json::parse(gsearch::read_file(config_path, std::size_t{1} << 20));
        } catch (const json::exception& e) {
          throw BadInput(config_path + ": not JSON (" + e.what() + ")");
        } catch (const gsearch::FileError& e) {
          throw BadInput(e.what());
        }
        if (saved != config.to_json())
          throw BadInput(o->out +
                         " holds another tournament (its tournament.json names other agents, "
                         "games per pair, seed, openings or start); use another --out");
      };
      if (root) open_directory();
      std::vector<TournamentGame> games;
      if (root) games = read_tournament_records(records_path, config);
      const std::vector<Position> starts = config.starts();
      const auto pairs = config.pairs();
      std::vector<char> done(pairs.size(), 0);
      for (const auto& g : games) done[g.pair] = 1;
      broadcast_from_root(done);  // every rank plays the pairs rank 0 still needs
      const auto already = static_cast<std::size_t>(std::count(done.begin(), done.end(), 1));
      if (already && root)
        std::fprintf(stderr, "amazons: tournament: resuming, %zu of %zu pairs already played\n",
                     already, pairs.size());
      const auto save = [&] {
        std::string text;
        for (const auto& g : games) text += g.record.dump() + '\n';
        gsearch::write_file_atomically(records_path, text);
        const auto tables = tournament_tables(config, games);
        gsearch::write_file_atomically(dir / "crosstable.md", tables.markdown);
        gsearch::write_file_atomically(dir / "ratings.json", tables.json_text);
        gsearch::write_file_atomically(dir / "ratings.svg", tables.svg);
        return tables;
      };
      const StopOnSignal on_signal;
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        if (done[p]) continue;
        const auto [a, b] = pairs[p];
        const gsearch::arena::MatchParams params{.games = config.games_per_pair,
                                                 .threads = o->threads,
                                                 .seed = gsearch::derive_seed(config.seed, p),
                                                 .opening_plies = config.openings,
                                                 .stop = &g_stop};
        const auto records = play_games(
            std::span<const Position>(starts),
            [&] { return AgentHandle(make_agent(config.agents[a])); },
            [&] { return AgentHandle(make_agent(config.agents[b])); }, params,
            [](const Record&, std::size_t, std::size_t) {});
        if (!root) continue;
        if (records.size() < config.games_per_pair) {  // a signal: this pair is played again
          save();
          std::fprintf(stderr,
                       "amazons: tournament: interrupted by %s in pair %zu of %zu; the %zu pairs "
                       "played are saved in %s; the same command resumes\n",
                       g_signal == SIGTERM ? "SIGTERM" : "SIGINT", p + 1, pairs.size(),
                       static_cast<std::size_t>(std::count(done.begin(), done.end(), 1)),
                       o->out.c_str());
          throw Interrupted(g_signal);
        }
        double score = 0;
        for (const Record& r : records) {
          json j = record_json(r, starts[(r.index / 2) % starts.size()]);
          j["pair"] = p;
          games.push_back({p, r.index, r.score_a(), std::move(j)});
          score += r.score_a();
        }
        std::sort(games.begin(), games.end(), [](const TournamentGame& x, const TournamentGame& y) {
          return std::pair(x.pair, x.game) < std::pair(y.pair, y.game);
        });
        done[p] = 1;
        save();
        std::fprintf(stderr, "pair %zu/%zu: %zu. %s vs %zu. %s: %g/%zu\n", p + 1, pairs.size(),
                     a + 1, config.agents[a].c_str(), b + 1, config.agents[b].c_str(), score,
                     config.games_per_pair);
      }
      if (root) std::fputs(save().markdown.c_str(), stdout);
    });
  }
}

}  // namespace amazons::cli
