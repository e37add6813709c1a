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
// Solver mode: without an evaluator (NoEvaluation), the search computes the game's exact
// result. A terminal position scores its result r in [-1, 1] as round(r · kWin), however far
// the end (the solver proves, it does not look for the quickest win, which prunes far more),
// so a game scored in fractions keeps its fractions and a draw is 0. A position at the depth
// limit is "unknown": it scores 0 and makes every value that depends on it provisional. A
// value that depends on no such position — or is ±kWin, which no unknown can change — is
// settled: it holds at any depth, and is stored in the transposition table as such (later
// searches with the same table reuse it). The solver searches once, to Params::max_depth, with
// no deepening. When the root's value is settled, Result::proven says that its score is the
// game's exact result (a proven win, loss or draw, or the exact fraction), and the nodes
// searched are the proof's size; else the result is unknown at that depth. What the game offers
// speeds the solver up, never changes what it proves:
//   proven_outcome()  (ProvableGame) positions it decides are leaves, settled at ±kWin;
//   essential_moves() (ReducibleGame) the moves searched, dominated ones left out;
//   count_moves()     (CountableGame) moves are tried in the order of the opponent's
//                     mobility after them, fewest replies first (after the table's move);
// and before searching any child, every child is looked up in the table (all prefetched
// first), so that one child proven good enough cuts the node at once (enhanced
// transposition cutoff, Plaat et al. 1996).
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
  Score score = 0;           // for the player to move at the root
  int depth = 0;             // last completed iteration
  bool proven = false;       // score is the exact result (solver mode; or a win or loss
                             // found within the depth, with an evaluator)
  bool proven_win = false;   // proven, and score > 0
  bool proven_loss = false;  // proven, and score < 0
  bool proven_draw = false;  // proven, and score == 0 (solver mode only)
  std::uint64_t nodes = 0;   // positions visited, all iterations
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
  // result (the first iteration always completes, budgets notwithstanding). The solver's one
  // search to max_depth stops at the budget like any other: then nothing is proven and there
  // is no move.
  Result<Move> search(const G& root, const Budget& budget = {}) {
    Result<Move> result;
    tracker_.emplace(budget, 1);  // negamax already asks only every 1024 nodes
    stopped_ = false;
    nodes_ = 0;
    tt_.new_search();
    const auto set_proof = [&result](bool proven) {
      result.proven = proven;
      result.proven_win = proven && result.score > 0;
      result.proven_loss = proven && result.score < 0;
      result.proven_draw = kSolver && proven && result.score == 0;
    };
    if (root.is_terminal()) {
      result.score = terminal_score(root, 0);
      set_proof(true);
      return result;
    }
    // The solver does not deepen: an iteration leaves unknown what it does not reach, and
    // the next would search all that again, which costs more than the move ordering of the
    // earlier iterations saves (docs/amazons.md, "Solving small boards"); it searches to
    // max_depth at once.
    for (int depth = kSolver ? params_.max_depth : 1; depth <= params_.max_depth; ++depth) {
      pv_length_[0] = 0;
      allow_stop_ = kSolver || depth > 1;
      unknowns_ = 0;
      const Score score = negamax(root, depth, -kInfinity, kInfinity, 0);
      if (stopped_) break;
      result.has_move = pv_length_[0] > 0;
      result.best = pv_[0][0];
      result.score = score;
      result.depth = depth;
      result.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
      set_proof(kSolver ? unknowns_ == 0 : is_decisive(score));
      if (result.proven) break;
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
  // A stored depth that means "settled": the value holds at any depth (solver mode).
  static constexpr int kSettled = 255;

  Score terminal_score(const G& state, int ply) const {
    const double r = std::clamp(static_cast<double>(state.result(state.to_move())), -1.0, 1.0);
    if constexpr (kSolver) return static_cast<Score>(std::lround(r * kWin));
    return r > 0 ? kWin - ply : r < 0 ? -(kWin - ply) : 0;
  }
  // Solver values hold at any ply; distances to the end are kept relative to the node.
  static int tt_ply(int ply) noexcept { return kSolver ? 0 : ply; }

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
    if (depth <= 0 || ply >= kMaxPly - 1) {
      ++unknowns_;  // (solver mode: a value that depends on this one is not settled)
      return leaf_score(state);
    }

    const Score alpha_in = alpha;
    const std::uint64_t unknowns_in = unknowns_;
    const std::uint64_t key = state.hash();
    typename TranspositionTable<Move>::Entry hit;
    const auto* entry = tt_.probe(key, tt_ply(ply), hit);
    if (entry && entry->depth >= depth && ply > 0) {
      const bool cut = entry->bound == Bound::kExact ||
                       (entry->bound == Bound::kLower && entry->score >= beta) ||
                       (entry->bound == Bound::kUpper && entry->score <= alpha);
      if (cut) {
        if (entry->depth != kSettled) ++unknowns_;
        return entry->score;
      }
    }

    MoveListOf<G> moves;
    if constexpr (kSolver && ReducibleGame<G>)
      state.essential_moves(moves);
    else
      state.legal_moves(moves);
    const Move* tt_move = entry && entry->has_move ? &entry->move : nullptr;
    if constexpr (kSolver) {
      if (const auto cut = look_ahead(state, moves, key, depth, beta, ply, tt_move)) return *cut;
    } else {
      order(state, moves, ply, tt_move);
    }

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
      // (In solver mode kWin is the most any move can be worth: nothing can beat it.)
      if (alpha >= beta || (kSolver && alpha >= kWin)) {
        if (params_.killers || params_.history) ordering_.cutoff(state.to_move(), ply, depth, m);
        break;
      }
    }
    const Bound bound = best <= alpha_in ? Bound::kUpper
                        : best >= beta   ? Bound::kLower
                                         : Bound::kExact;
    int stored_depth = std::min(depth, kSettled - 1);
    if constexpr (kSolver) {
      // Settled: no unknown below, or ±kWin, which no unknown can change (the solver's
      // scores lie in [-kWin, kWin]). A settled value hides the unknowns below it.
      if (unknowns_ == unknowns_in || best >= kWin || best <= -kWin) {
        unknowns_ = unknowns_in;
        stored_depth = kSettled;
      }
    }
    tt_.store(key, tt_ply(ply), stored_depth, best, bound, best_move);
    return best;
  }

  // Solver mode, before any child is searched: computes every child's key and prefetches its
  // table slot, then reads the slots. When one child's entry alone shows that the node is
  // worth at least beta (an enhanced transposition cutoff), stores and returns that value.
  // Else orders the moves: the table's move first, then, for a CountableGame, fewest replies
  // first (history breaks ties), else killers and history as order() does.
  std::optional<Score> look_ahead(const G& state, MoveListOf<G>& moves, std::uint64_t key,
                                  int depth, Score beta, int ply, const Move* tt_move) {
    const std::size_t from = to_front(moves, tt_move);
    const Player me = state.to_move();
    for (std::size_t i = 0; i < moves.size(); ++i) {
      G child = state;
      child.apply(moves[i]);
      child_keys_[i] = child.hash();
      tt_.prefetch(child_keys_[i]);
      std::int64_t k = 0;
      if constexpr (CountableGame<G>) {
        const auto replies = static_cast<std::int64_t>(child.count_moves());
        k = (child.to_move() == me ? replies : -replies) * (std::int64_t{1} << 32);
        if (params_.history) k += ordering_.history(me, moves[i]);
      } else {
        k = killer_history_key(me, ply, moves[i]);
      }
      order_keys_[i] = k;
    }
    for (std::size_t i = 0; i < moves.size(); ++i) {
      typename TranspositionTable<Move>::Entry hit;
      const auto* e = tt_.probe(child_keys_[i], tt_ply(ply + 1), hit);
      if (!e || e->depth < depth - 1) continue;
      G child = state;  // (rare: only to learn who moves there)
      child.apply(moves[i]);
      const bool same = child.to_move() == me;
      // The entry's bound on the child's value, seen from here, when that bound is >= beta.
      const bool lower = same ? e->bound == Bound::kLower || e->bound == Bound::kExact
                              : e->bound == Bound::kUpper || e->bound == Bound::kExact;
      const Score value = same ? e->score : -e->score;
      if (!lower || (value < beta && value < kWin)) continue;
      const bool settled = e->depth == kSettled || value >= kWin;
      if (!settled) ++unknowns_;
      pv_length_[ply + 1] = 0;
      update_pv(ply, moves[i]);
      tt_.store(key, tt_ply(ply), settled ? kSettled : std::min(depth, kSettled - 1), value,
                Bound::kLower, &moves[i]);
      return value;
    }
    sort_by_key_descending(moves, order_keys_.data(), from);
    return std::nullopt;
  }

  // Orders the moves: the transposition table's move first, then killers, then by history.
  void order(const G& state, MoveListOf<G>& moves, int ply, const Move* tt_move) {
    const std::size_t from = to_front(moves, tt_move);
    if (!params_.killers && !params_.history) return;
    for (std::size_t i = from; i < moves.size(); ++i)
      order_keys_[i] = killer_history_key(state.to_move(), ply, moves[i]);
    sort_by_key_descending(moves, order_keys_.data(), from);
  }

  // Moves `m` (when given and listed) to the front; returns how many moves are placed (0, 1).
  static std::size_t to_front(MoveListOf<G>& moves, const Move* m) noexcept {
    if (!m) return 0;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moves[i] == *m) {
        std::swap(moves[0], moves[i]);
        return 1;
      }
    return 0;
  }

  // Killers first, then by history (as far as Params switches them on).
  std::int64_t killer_history_key(Player p, int ply, const Move& m) const noexcept {
    std::int64_t k = 0;
    if (params_.killers && ordering_.is_killer(ply, m)) k += std::int64_t{1} << 40;
    if (params_.history) k += ordering_.history(p, m);
    return k;
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
  std::uint64_t unknowns_ = 0;  // depth-limited leaves (and tables hits) values depend on
  std::vector<std::uint64_t> child_keys_ = std::vector<std::uint64_t>(G::max_moves);
  std::vector<std::int64_t> order_keys_ = std::vector<std::int64_t>(G::max_moves);
  std::vector<std::array<Move, kMaxPly>> pv_ = std::vector<std::array<Move, kMaxPly>>(kMaxPly + 1);
  std::array<int, kMaxPly + 1> pv_length_{};
};

}  // namespace gsearch::alphabeta
