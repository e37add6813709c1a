// amazons/players/classic.hpp — the classic Amazons players as classes: random, greedy,
// alpha-beta, plain UCT, and INVADERMC-style MCTS (Lorentz, "Amazons discover Monte-Carlo",
// CG 2008). make_agent() (agents.hpp) builds them from specs, with every parameter checked;
// a program that embeds one directly constructs it with its parameters here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "amazons/players/agents.hpp"
#include "amazons/players/eval.hpp"
#include "amazons/rules/decision.hpp"
#include "amazons/rules/solver.hpp"
#include "gsearch/alphabeta/alphabeta.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/mcts/implicit.hpp"
#include "gsearch/mcts/mcts.hpp"

namespace amazons::classic {

namespace mcts = gsearch::mcts;
namespace ab = gsearch::alphabeta;

// `params` with `seed`.
inline mcts::Params with_seed(mcts::Params params, std::uint64_t seed) {
  params.seed = seed;
  return params;
}

// The player's own move number in the game (1 for each player's first move).
inline int own_move_number(const Position& pos) { return pos.turns_played() / 2 + 1; }

// The time schedule of the agents that spend more early (schedule=1): the factor on the time
// per move for the player's n-th own move, ×3, ×2, ×1.5 of a base for the first 10, 10, 10
// own moves and the base after, the base chosen so that `expected_moves` moves use
// expected_moves times the time per move in all.
inline double early_time_factor(int n, int expected_moves) {
  const auto weight = [](int k) { return k <= 10 ? 3.0 : k <= 20 ? 2.0 : k <= 30 ? 1.5 : 1.0; };
  double sum = 0;
  for (int k = 1; k <= expected_moves; ++k) sum += weight(k);
  return weight(n) * expected_moves / sum;
}

// Own moves in a typical 10×10 game, for the schedule.
inline constexpr int kExpectedMoves = 40;

// ---------------------------------------------------------------------------------------
// random, greedy

class RandomAgent final : public Agent {
 public:
  explicit RandomAgent(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    const Move m = pos.random_move(rng_);
    info_ = SearchInfo{};
    info_.pv = {m};
    return m;
  }

 private:
  std::string name_;
  gsearch::Rng rng_;
};

// One ply: every move's resulting position is evaluated; the best for the mover wins (a move
// that leaves the opponent without a move wins outright). Ties are broken at random.
class GreedyAgent final : public Agent {
 public:
  explicit GreedyAgent(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    gsearch::Stopwatch watch;
    gsearch::MoveListOf<Position> moves;
    pos.legal_moves(moves);
    double best = -std::numeric_limits<double>::infinity();
    Move choice = moves[0];
    int ties = 0;
    for (const Move& m : moves) {
      Position child = pos;
      child.apply(m);
      const double v = child.is_terminal() ? 2.0 : -eval_(child);
      if (v > best) {
        best = v, choice = m, ties = 1;
      } else if (v == best && rng_.below(static_cast<std::uint64_t>(++ties)) == 0) {
        choice = m;
      }
    }
    info_ = SearchInfo{};
    info_.pv = {choice};
    info_.value = std::min(best, 1.0);
    info_.iterations = moves.size();
    info_.seconds = watch.seconds();
    return choice;
  }

 private:
  std::string name_;
  gsearch::Rng rng_;
  LieberumEvaluator eval_;
};

// ---------------------------------------------------------------------------------------
// alpha-beta

struct LieberumRef {
  LieberumEvaluator eval;
  double operator()(const Position& p) const { return eval(p); }
  double operator()(const DecisionPosition& d) const {
    // Between the decisions of a turn the mover is still to move; the position is scored as
    // it stands (queen moved, arrow not yet shot).
    return eval(d.position());
  }
};

inline SearchInfo alpha_beta_info(const ab::Result<Move>& r) {
  SearchInfo info;
  info.pv = r.pv;
  info.value = std::clamp(r.score / 10000.0, -1.0, 1.0);
  info.iterations = r.nodes;
  info.nodes = r.nodes;
  info.depth = r.depth;
  info.seconds = r.seconds;
  if (r.proven_win || r.proven_loss) info.details = r.proven_win ? "proven win\n" : "proven loss\n";
  return info;
}

// Alpha-beta over whole moves: the Lieberum evaluation at the leaves, the one-ply Lieberum value
// of each move as the scorer of the selective techniques (gsearch/alphabeta; with `queen_moves`,
// LieberumMovePrior's two stages; `frontier_queen_moves` the same at the frontier nodes), and
// the region rules of SolverPosition as its proven outcomes (the endgame mode); with `schedule`,
// the spec's time per move follows early_time_factor (a budget passed to choose() is kept). A
// budget passed to choose() (an engine's clock, `go ms T`) is searched to the deepest iteration
// unless the spec wrote its depth (`depth_given`): the default depth of 2 is the spec's own fixed
// budget, not a cap on a time the caller gives.
class AlphaBetaAgent final : public Agent {
 public:
  AlphaBetaAgent(std::string name, const ab::Params& params, gsearch::Budget budget, bool schedule,
                 const LieberumWeights& weights, bool depth_given, std::uint32_t queen_moves,
                 std::uint32_t frontier_queen_moves)
      : name_(std::move(name)),
        budget_(budget),
        schedule_(schedule),
        depth_given_(depth_given),
        search_(params, LieberumRef{LieberumEvaluator(weights)},
                LieberumMovePrior{.eval = LieberumEvaluator(weights),
                                  .queen_moves = queen_moves,
                                  .frontier_queen_moves = frontier_queen_moves}) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t) override { search_.clear(); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Budget b = budget.value_or(budget_);
    if (schedule_ && !budget) b.seconds *= early_time_factor(own_move_number(pos), kExpectedMoves);
    const int depth = budget && !depth_given_ ? ab::Params{}.max_depth : 0;
    const auto r = search_.search(SolverPosition(pos), b, depth);
    info_ = alpha_beta_info(r);
    return r.best;
  }

 private:
  std::string name_;
  gsearch::Budget budget_;
  bool schedule_;
  bool depth_given_;
  ab::AlphaBeta<SolverPosition, LieberumRef, LieberumMovePrior> search_;
};

// ---------------------------------------------------------------------------------------
// MCTS helpers

template <class Search>
std::string root_table(const Search& search) {
  std::ostringstream out;
  int shown = 0;
  for (const auto& c : search.root_children()) {
    if (shown++ == 8) break;
    out << "  " << search.root_state().move_to_string(c.move) << "  visits " << c.visits
        << "  value " << c.q << "\n";
  }
  return out.str();
}

template <class Search>
SearchInfo mcts_info(const Search& search, const mcts::SearchStats& stats) {
  SearchInfo info;
  info.pv = search.principal_variation(8);
  info.iterations = stats.iterations;
  info.nodes = search.tree().total_visits();
  info.seconds = stats.seconds;
  info.details = root_table(search);
  const auto children = search.root_children();
  if (!children.empty()) info.value = children.front().q;
  return info;
}

// Searches a turn in the decision model: one search from the start of the turn, then the
// most visited queen, destination and arrow in turn. A decision the first search left
// unexplored (no visited child) gets a short search of its own: `top_up` iterations.
template <class Search>
Move decide_turn(Search& search, const Position& pos, const gsearch::Budget& budget,
                 SearchInfo& info, std::uint64_t top_up = 64) {
  gsearch::Stopwatch watch;
  search.set_root(DecisionPosition{pos});
  const auto stats = search.run(budget);
  info.details = root_table(search);
  info.iterations = stats.iterations;
  info.nodes = search.tree().total_visits();
  double value = 0;
  Decision path[3];
  for (int k = 0; k < 3; ++k) {
    if (search.root_children().empty()) {
      const std::uint64_t before = search.tree().total_visits();
      info.iterations += search.run(gsearch::Budget::iters(top_up)).iterations;
      info.nodes += search.tree().total_visits() - before;
    }
    const auto children = search.root_children();
    if (k == 0 && !children.empty()) value = children.front().q;
    path[k] = search.best_move();
    search.advance(path[k]);
  }
  const Move m{path[1].from, path[1].to, path[2].to};
  info.pv = {m};
  info.value = value;
  info.seconds = watch.seconds();
  return m;
}

// Plain UCT: random playouts to the end, UCT selection, all children.
class UctAgent final : public Agent {
 public:
  UctAgent(std::string name, gsearch::Budget budget, double c, bool decisions,
           const mcts::Params& threads)
      : name_(std::move(name)), budget_(budget), decisions_(decisions), c_(c), threads_(threads) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { seed_ = seed; }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    const std::uint64_t seed =
        gsearch::derive_seed(seed_, static_cast<std::uint64_t>(pos.turns_played()));
    if (decisions_) {
      mcts::Search<DecisionPosition> search(with_seed(threads_, seed), {.c = c_});
      return decide_turn(search, pos, budget.value_or(budget_), info_);
    }
    mcts::Search<Position> search(with_seed(threads_, seed), {.c = c_});
    search.set_root(pos);
    info_ = mcts_info(search, search.run(budget.value_or(budget_)));
    return search.best_move();
  }

 private:
  std::string name_;
  gsearch::Budget budget_;
  bool decisions_;
  double c_;
  mcts::Params threads_;
  std::uint64_t seed_ = 0;
};

// ---------------------------------------------------------------------------------------
// INVADERMC-style MCTS

using InvaderSearch = mcts::Search<Position, mcts::ImplicitUct, mcts::Expansion<LieberumMovePrior>,
                                   mcts::CutoffPlayout<LieberumRef>, mcts::ImplicitBackup>;

struct InvaderParams {
  gsearch::Budget budget;
  std::uint32_t top_k, widen, step, every, threshold, plies, queen_moves;
  // With endgame: alpha-beta once at most this many empty squares are reachable by both sides
  // (0: once the territories are settled).
  std::uint32_t contested = 0;
  double c, implicit, implicit_fade;
  bool schedule, endgame, reuse;
  int expected_moves;
  mcts::Params threads;  // threads and parallel
  LieberumWeights weights;
};

// UCT over whole moves with: forward pruning to the top_k moves by evaluation (with
// queen_moves, a two-stage one: LieberumMovePrior); progressive
// widening (widen children open, +step every `every` visits); leaves expanded after
// `threshold` visits; playouts cut after `plies` random plies and scored by the Lieberum
// evaluation, always with the root player to move (the parity adjustment); a time schedule
// that spends more early (×3, ×2, ×1.5 of the base for the first 10, 10, 10 own moves, then
// the base, scaled so that `expected_moves` moves use expected_moves × ms in all);
// alpha-beta once the territories are settled (no empty square reachable by both sides; with
// `contested`, once at most that many are); with `reuse`, the tree kept from one move to the next;
// and with `implicit` > 0, selection blends each child's mean with the minimax of the expansions'
// evaluations below it (gsearch/mcts/implicit.hpp; 0 is plain UCT), with a weight that falls with
// the child's visits when `implicit_fade` > 0.
class InvaderAgent final : public Agent {
 public:
  // The endgame's alpha-beta and its table are built here, before any clock runs: a table
  // allocated during a move (16 MiB, asked for on huge pages) can stall for a tenth of a
  // second while the kernel compacts memory, and that time is not in the search's budget.
  InvaderAgent(std::string name, const InvaderParams& p) : name_(std::move(name)), p_(p) {
    if (p_.endgame)
      endgame_.emplace(ab::Params{.max_depth = 64}, LieberumRef{LieberumEvaluator(p_.weights)});
  }
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override {
    seed_ = seed;
    search_.reset();
    if (endgame_) endgame_->clear();
  }

  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Budget b = budget.value_or(p_.budget);
    if (p_.schedule && !budget) b.seconds *= schedule(own_move_number(pos));
    if (endgame_ && contested(pos) <= p_.contested) {
      search_.reset();
      gsearch::Budget ab_budget{.nodes = b.iterations * 20, .seconds = b.seconds};
      const auto r = endgame_->search(pos, ab_budget);
      info_ = {.pv = r.pv,
               .value = std::clamp(r.score / 10000.0, -1.0, 1.0),
               .iterations = r.nodes,
               .nodes = r.nodes,
               .depth = r.depth,
               .seconds = r.seconds,
               .details = "endgame: alpha-beta\n"};
      return r.best;
    }
    const std::uint64_t seed =
        gsearch::derive_seed(seed_, static_cast<std::uint64_t>(pos.turns_played()));
    InvaderSearch& search = root_at(pos);
    search.reseed(seed);
    info_ = mcts_info(search, search.run(b));
    const Move m = search.best_move();
    if (p_.reuse) search.advance(m);
    return m;
  }

 private:
  // The search to run at `pos`. With reuse, the last search's tree, rooted after the move it
  // chose, keeps the subtree of the opponent's reply when the reply was visited; otherwise a
  // fresh tree.
  InvaderSearch& root_at(const Position& pos) {
    if (p_.reuse && search_) {
      for (const auto& c : search_->root_children()) {
        Position next = search_->root_state();
        next.apply(c.move);
        if (next == pos) {
          search_->advance(c.move);
          return *search_;
        }
      }
    }
    if (!search_) {
      search_.emplace(with_seed(p_.threads, 0),
                      mcts::ImplicitUct{.c = p_.c, .alpha = p_.implicit, .fade = p_.implicit_fade},
                      mcts::Expansion<LieberumMovePrior>{
                          .prior = LieberumMovePrior{.eval = LieberumEvaluator(p_.weights),
                                                     .queen_moves = p_.queen_moves},
                          .top_k = p_.top_k,
                          .widen_initial = p_.widen,
                          .widen_step = p_.step,
                          .widen_every = p_.every,
                          .threshold = p_.threshold},
                      mcts::CutoffPlayout<LieberumRef>{
                          .plies = p_.plies,
                          .parity = true,
                          .evaluator = LieberumRef{LieberumEvaluator(p_.weights)}});
    }
    search_->set_root(pos);
    return *search_;
  }

  // The time multiplier for the player's n-th move.
  double schedule(int n) const { return early_time_factor(n, p_.expected_moves); }
  // The empty squares both sides reach (0: the territories are settled).
  static std::uint32_t contested(const Position& pos) {
    DistanceMaps maps;
    compute_distances(pos, maps);
    std::uint32_t n = 0;
    for (Bitboard b = maps.empty; b;) {
      const Square s = pop_lsb(b);
      n += maps.queen[kWhite][s] < kFar && maps.queen[kBlack][s] < kFar;
    }
    return n;
  }

  std::string name_;
  InvaderParams p_;
  std::uint64_t seed_ = 0;
  std::optional<InvaderSearch> search_;
  std::optional<ab::AlphaBeta<Position, LieberumRef>> endgame_;  // with p_.endgame
};

}  // namespace amazons::classic
