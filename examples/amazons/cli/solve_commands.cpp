// amazons solve — exact solving of small boards: does the player to move win?
//
//   amazons solve [--fen FEN] [--moves ...] [--ms T] [--tt MB] [--method ab|dfpn]
//                 [--init evaluation|mobility|unit] [--numbers weak|summed] [--split [--skip N]]
//
// Prints whether the player to move wins (a proof), loses (a disproof), or whether the budget
// ran out first, with the winning move when one is proven, the nodes searched and the time.
// The default position is the 5×5 start of the solving literature (docs/amazons.md). With
// --split, each move of the player to move is solved as a position of its own, one line each.
// --init and --numbers choose df-pn's leaf numbers and how it combines children (dfpn.hpp),
// to compare them; the defaults are the fastest measured.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "amazons/rules/solver.hpp"
#include "cli/command.hpp"
#include "gsearch/alphabeta/alphabeta.hpp"
#include "gsearch/alphabeta/dfpn.hpp"

namespace amazons::cli {
namespace {

constexpr const char* kFiveByFive = "1q1q1/q3q/5/Q3Q/1Q1Q1 w";

struct Outcome {
  bool win = false, loss = false, has_move = false;
  Move best{};
  std::uint64_t nodes = 0;
  double seconds = 0.0;
};

// One exact search of a position; the solver (and its table) is kept between calls.
using SolveOne = std::function<Outcome(const Position&, const gsearch::Budget&)>;

SolveOne make_solver(const std::string& method, std::size_t tt_mb,
                     const gsearch::alphabeta::DfpnParams& dfpn) {
  if (method == "ab") {  // (an Amazons game is never longer than its empty squares)
    auto solver =
        std::make_shared<gsearch::alphabeta::AlphaBeta<SolverPosition>>(gsearch::alphabeta::Params{
            .max_depth = gsearch::alphabeta::kMaxPly - 1, .tt_megabytes = tt_mb});
    return [solver](const Position& pos, const gsearch::Budget& budget) {
      const auto r = solver->search(SolverPosition(pos), budget);
      return Outcome{r.proven_win, r.proven_loss, r.proven_win && r.has_move,
                     r.best,       r.nodes,       r.seconds};
    };
  }
  gsearch::alphabeta::DfpnParams params = dfpn;
  params.tt_megabytes = tt_mb;
  auto solver = std::make_shared<gsearch::alphabeta::Dfpn<SolverPosition>>(params);
  return [solver](const Position& pos, const gsearch::Budget& budget) {
    const auto r = solver->solve(SolverPosition(pos), budget);
    return Outcome{r.proven_win, r.proven_loss, r.has_move, r.best, r.nodes, r.seconds};
  };
}

// Solves `pos` one move at a time: each essential move (the legal moves less the dominated
// ones, which never change the result) is solved as a position of its own, best-looking
// first, until one is a loss for the opponent (then `pos` is a win with that move) or all are
// wins for the opponent (then `pos` is a loss). Each move's line goes to stderr. `skip` leaves
// out the first moves of that order (to resume a run that was stopped: the order is fixed).
Outcome solve_split(const Position& pos, double ms, std::size_t skip, const SolveOne& solve_one) {
  const gsearch::Stopwatch watch;
  const auto left = [&] {
    if (ms <= 0) return gsearch::Budget{};
    return gsearch::Budget{.seconds = std::max(ms / 1000.0 - watch.seconds(), 1e-3)};
  };
  Outcome total;
  if (pos.is_terminal()) return solve_one(pos, left());
  gsearch::MoveListOf<SolverPosition> moves;
  SolverPosition(pos).essential_moves(moves);
  std::vector<std::pair<double, Move>> order;  // the child's value for its mover: low first
  for (const Move& m : moves) {
    SolverPosition child(pos);
    child.apply(m);
    order.emplace_back(child.is_terminal() ? -2.0 : child.evaluate(), m);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  bool all_lost = true;
  if (skip > 0) all_lost = false;  // a partial run proves no loss
  for (std::size_t i = skip; i < order.size(); ++i) {
    const Move m = order[i].second;
    Position child = pos;
    child.apply(m);
    const Outcome o = solve_one(child, left());
    total.nodes += o.nodes;
    std::fprintf(stderr, "%4zu/%zu  %-10s %-8s %12llu nodes %9.2f s\n", i + 1, order.size(),
                 pos.move_to_string(m).c_str(),
                 o.loss  ? "wins"
                 : o.win ? "loses"
                         : "unknown",
                 static_cast<unsigned long long>(o.nodes), o.seconds);
    if (o.loss) {
      total.win = total.has_move = true;
      total.best = m;
      break;
    }
    if (!o.win) all_lost = false;
    if (ms > 0 && watch.seconds() >= ms / 1000.0) break;
  }
  total.loss = !total.win && all_lost && order.size() > 0;
  total.seconds = watch.seconds();
  return total;
}

void run_solve(const Position& pos, double ms, std::size_t tt_mb, const std::string& method,
               const gsearch::alphabeta::DfpnParams& dfpn, bool split, std::size_t skip) {
  const gsearch::Stopwatch wall;  // the whole run: the table's allocation, then the search
  const SolveOne solve_one = make_solver(method, tt_mb, dfpn);
  const Outcome o = split
                        ? solve_split(pos, ms, skip, solve_one)
                        : solve_one(pos, ms > 0 ? gsearch::Budget::millis(ms) : gsearch::Budget{});
  const char* mover = pos.to_move() == kWhite ? "White" : "Black";
  std::printf("position  %s\n", pos.fen().c_str());
  if (o.win)
    std::printf("result    win: the player to move (%s) wins against any defence\n", mover);
  else if (o.loss)
    std::printf("result    loss: the player to move (%s) loses; the second player wins\n", mover);
  else
    std::printf("result    unknown: no proof within the budget\n");
  if (o.win && o.has_move) std::printf("move      %s\n", pos.move_to_string(o.best).c_str());
  std::printf("nodes     %llu\n", static_cast<unsigned long long>(o.nodes));
  std::printf("time      %.3f s (the search %.3f s, the rest allocating the table)\n",
              wall.seconds(), o.seconds);
  std::printf("speed     %.0f nodes/s of search\n",
              o.seconds > 0 ? static_cast<double>(o.nodes) / o.seconds : 0.0);
}

}  // namespace

void add_solve_commands(CLI::App& app) {
  struct Opts {
    PositionOptions position;
    double ms = 0;
    std::size_t tt = 256;
    std::string method = "ab";
    std::string init = "evaluation", numbers = "weak";
    bool split = false;
    std::size_t skip = 0;
  };
  auto opts = std::make_shared<Opts>();
  opts->position.fen = kFiveByFive;
  auto* cmd = app.add_subcommand(
      "solve", "Solve a small position exactly: does the player to move win against any defence?");
  cmd->add_option("--fen", opts->position.fen,
                  "Position in FEN (default: the 5x5 start, 1q1q1/q3q/5/Q3Q/1Q1Q1 w)");
  cmd->add_option("--moves", opts->position.moves, "Moves to play first, e.g. b1-b3/d3");
  add_number(*cmd, "--ms", opts->ms, "Search time budget in milliseconds (0: until solved)", 0.0,
             1e9);
  add_number(*cmd, "--tt", opts->tt, "Transposition table size in MiB", std::size_t{1},
             std::size_t{65536});
  cmd->add_option("--method", opts->method,
                  "ab (alpha-beta solver, default) or dfpn (proof-number search)")
      ->check(CLI::IsMember({"dfpn", "ab"}));
  auto* init = cmd->add_option("--init", opts->init,
                               "dfpn: new leaves numbered by the evaluation (df-pn+, default), "
                               "by mobility, or all (1, 1)")
                   ->check(CLI::IsMember({"evaluation", "mobility", "unit"}));
  auto* numbers = cmd->add_option("--numbers", opts->numbers,
                                  "dfpn: weak proof numbers (default) or summed (plain df-pn)")
                      ->check(CLI::IsMember({"weak", "summed"}));
  cmd->add_flag("--split", opts->split,
                "Solve each move of the player to move separately (one line per move on stderr)");
  add_number(*cmd, "--skip", opts->skip,
             "With --split: leave out the first N moves (to resume a stopped run)", std::size_t{0},
             std::size_t{100000});
  cmd->callback([opts, init, numbers] {
    if (opts->method != "dfpn" && (init->count() > 0 || numbers->count() > 0))
      throw BadInput("--init and --numbers apply to --method dfpn only");
    const Position pos = opts->position.resolve();
    using gsearch::alphabeta::DfpnInit;
    const gsearch::alphabeta::DfpnParams dfpn{
        .init = opts->init == "evaluation" ? DfpnInit::kEvaluation
                : opts->init == "mobility" ? DfpnInit::kMobility
                                           : DfpnInit::kUnit,
        .weak = opts->numbers == "weak"};
    run_solve(pos, opts->ms, opts->tt, opts->method, dfpn, opts->split, opts->skip);
  });
}

}  // namespace amazons::cli
