// gsearch/alphabeta/alphabeta.hpp — iterative-deepening alpha-beta, and an exact solver.
//
// The search is negamax with principal-variation search (PVS: the first move with the full
// window, the others with a null window and a re-search when they beat alpha), a
// transposition table (tt.hpp), killer and history move ordering (ordering.hpp), and
// iterative deepening: depth 1, 2, ... until the depth limit, the node or time budget, or a
// proof. Each depth starts with the previous best line first.
//
// Values are Scores for the player to move: a static evaluation in [-1, 1] becomes
// round(v · eval_scale); a terminal position is worth ±(kWin - ply) (a quicker win scores
// higher). As in MCTS, the sign flips only when the player to move changes, so games that
// split a turn into several decisions by the same player are searched correctly.
//
// Solver mode: without an evaluator (NoEvaluation), the search proves wins and losses. A
// position at the depth limit is scored 0, "unknown"; a won or lost position ±kWin, however
// far the end (the solver proves, it does not look for the quickest win, which prunes far
// more). A root score of +kWin is then a proof of a win — every line the search allows the
// opponent ends in a win within the depth — and -kWin a proof of a loss. Proven positions
// are kept in the transposition table whatever their depth, so each iteration of the
// deepening reuses every proof of the previous ones, and deepening stops at the first
// depth that proves either result. The number of nodes searched is the proof's size. (In a
// game with draws, 0 is ambiguous: the solver proves wins and losses only.)
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "gsearch/alphabeta/ordering.hpp"
#include "gsearch/alphabeta/tt.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"

namespace gsearch::alphabeta {

// No static evaluation: the search is an exact solver.
struct NoEvaluation {};

struct Params {
  int max_depth = 64;  // deepest iteration (plies); budgets may stop earlier
  std::size_t tt_megabytes = 16;
  Score eval_scale = 10000;  // an evaluation of 1.0 is worth this many score units
  bool killers = true;       // order by killer moves
  bool history = true;       // order by the history heuristic
};

template <MoveType Move>
struct Result {
  bool has_move = false;  // false only at a terminal root
  Move best{};
  Score score = 0;  // for the player to move at the root
  int depth = 0;    // last completed iteration
  bool proven_win = false;
  bool proven_loss = false;
  std::uint64_t nodes = 0;  // positions visited, all iterations
  double seconds = 0.0;
  std::vector<Move> pv;  // principal variation of the last completed iteration
};

template <Game G, class Evaluator = NoEvaluation>
class AlphaBeta {
 public:
  using Move = typename G::Move;
  static constexpr bool kSolver = std::is_same_v<Evaluator, NoEvaluation>;

  explicit AlphaBeta(const Params& params = {}, Evaluator evaluator = {})
      : params_(params), evaluator_(std::move(evaluator)), tt_(params.tt_megabytes) {}

  // Searches `root` with iterative deepening until Params::max_depth, a budget limit (nodes
  // or time; iterations are not used), or a proof. Returns the last completed iteration's
  // result (the first iteration always completes, budgets notwithstanding).
  Result<Move> search(const G& root, const Budget& budget = {}) {
    Result<Move> result;
    tracker_.emplace(budget, 1);  // negamax already asks only every 1024 nodes
    stopped_ = false;
    nodes_ = 0;
    tt_.new_search();
    if (root.is_terminal()) {
      result.score = terminal_score(root, 0);
      result.proven_win = result.score > 0;
      result.proven_loss = result.score < 0;
      return result;
    }
    for (int depth = 1; depth <= params_.max_depth; ++depth) {
      pv_length_[0] = 0;
      allow_stop_ = depth > 1;
      const Score score = negamax(root, depth, -kInfinity, kInfinity, 0);
      if (stopped_) break;
      result.has_move = pv_length_[0] > 0;
      result.best = pv_[0][0];
      result.score = score;
      result.depth = depth;
      result.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
      result.proven_win = score >= kWin - kMaxPly;
      result.proven_loss = score <= -(kWin - kMaxPly);
      if (result.proven_win || result.proven_loss) break;
      if (tracker_->exhausted(0, nodes_)) break;
    }
    result.nodes = nodes_;
    result.seconds = tracker_->elapsed();
    return result;
  }

  void clear() {
    tt_.clear();
    ordering_.clear();
  }

 private:
  Score terminal_score(const G& state, int ply) const {
    const double r = state.result(state.to_move());
    const Score win = kSolver ? kWin : kWin - ply;
    return r > 0 ? win : r < 0 ? -win : 0;
  }
  // Solver proofs hold at any depth; distances to the end are kept relative to the node.
  static int tt_ply(int ply) noexcept { return kSolver ? 0 : ply; }
  static int tt_depth(int depth, Score score) noexcept {
    return kSolver && (score == kWin || score == -kWin) ? 255 : depth;
  }

  Score leaf_score(const G& state) const {
    if constexpr (kSolver) {
      return 0;
    } else {
      const double v = std::clamp(static_cast<double>(evaluator_(state)), -1.0, 1.0);
      return static_cast<Score>(std::lround(v * params_.eval_scale));
    }
  }

  // The value of `child` for the player to move at its parent.
  Score child_value(const G& parent, const G& child, int depth, Score alpha, Score beta, int ply) {
    if (child.to_move() == parent.to_move()) return negamax(child, depth, alpha, beta, ply);
    return -negamax(child, depth, -beta, -alpha, ply);
  }

  Score negamax(const G& state, int depth, Score alpha, Score beta, int ply) {
    ++nodes_;
    pv_length_[ply] = 0;
    if ((nodes_ & 1023) == 0 && allow_stop_ && tracker_->exhausted(0, nodes_)) stopped_ = true;
    if (stopped_) return 0;
    if (state.is_terminal()) return terminal_score(state, ply);
    if constexpr (kSolver && ProvableGame<G>) {
      if (const int outcome = state.proven_outcome(); outcome != 0)
        return outcome > 0 ? kWin : -kWin;
    }
    if (depth <= 0 || ply >= kMaxPly - 1) return leaf_score(state);

    const Score alpha_in = alpha;
    const std::uint64_t key = state.hash();
    typename TranspositionTable<Move>::Entry hit;
    const auto* entry = tt_.probe(key, tt_ply(ply), hit);
    if (entry && entry->depth >= depth && ply > 0) {
      if (entry->bound == Bound::kExact) return entry->score;
      if (entry->bound == Bound::kLower && entry->score >= beta) return entry->score;
      if (entry->bound == Bound::kUpper && entry->score <= alpha) return entry->score;
    }

    MoveListOf<G> moves;
    state.legal_moves(moves);
    order(state, moves, ply, entry && entry->has_move ? &entry->move : nullptr);

    Score best = -kInfinity;
    const Move* best_move = nullptr;
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const Move& m = moves[i];
      G child = state;
      child.apply(m);
      Score score;
      if (i == 0) {
        score = child_value(state, child, depth - 1, alpha, beta, ply + 1);
      } else {  // PVS: prove the move no better than alpha with a null window first
        score = child_value(state, child, depth - 1, alpha, alpha + 1, ply + 1);
        if (score > alpha && score < beta)
          score = child_value(state, child, depth - 1, alpha, beta, ply + 1);
      }
      if (stopped_) return 0;
      if (score > best) {
        best = score;
        best_move = &moves[i];
        if (score > alpha) {
          alpha = score;
          update_pv(ply, m);
        }
      }
      if (alpha >= beta) {
        if (params_.killers || params_.history) ordering_.cutoff(state.to_move(), ply, depth, m);
        break;
      }
    }
    const Bound bound = best <= alpha_in ? Bound::kUpper
                        : best >= beta   ? Bound::kLower
                                         : Bound::kExact;
    tt_.store(key, tt_ply(ply), tt_depth(depth, best), best, bound, best_move);
    return best;
  }

  // Orders the moves: the transposition table's move first, then killers, then by history.
  void order(const G& state, MoveListOf<G>& moves, int ply, const Move* tt_move) {
    std::size_t from = 0;
    if (tt_move) {
      for (std::size_t i = 0; i < moves.size(); ++i)
        if (moves[i] == *tt_move) {
          std::swap(moves[0], moves[i]);
          from = 1;
          break;
        }
    }
    if (!params_.killers && !params_.history) return;
    std::array<std::int64_t, G::max_moves> keys;
    for (std::size_t i = from; i < moves.size(); ++i) {
      std::int64_t s = 0;
      if (params_.killers && ordering_.is_killer(ply, moves[i])) s += std::int64_t{1} << 40;
      if (params_.history) s += ordering_.history(state.to_move(), moves[i]);
      keys[i] = s;
    }
    sort_by_key_descending(moves, keys.data(), from);
  }

  void update_pv(int ply, const Move& m) {
    auto& line = pv_[static_cast<std::size_t>(ply)];
    line[0] = m;
    const int child_len = pv_length_[ply + 1];
    for (int k = 0; k < child_len && k + 1 < kMaxPly; ++k) line[k + 1] = pv_[ply + 1][k];
    pv_length_[ply] = std::min(child_len + 1, kMaxPly);
  }

  Params params_;
  Evaluator evaluator_;
  TranspositionTable<Move> tt_;
  MoveOrdering<Move> ordering_;
  std::optional<BudgetTracker> tracker_;
  bool stopped_ = false;
  bool allow_stop_ = false;
  std::uint64_t nodes_ = 0;
  std::vector<std::array<Move, kMaxPly>> pv_ = std::vector<std::array<Move, kMaxPly>>(kMaxPly + 1);
  std::array<int, kMaxPly + 1> pv_length_{};
};

}  // namespace gsearch::alphabeta
