// gsearch/alphabeta/alphabeta.hpp — iterative-deepening alpha-beta, and an exact solver.
//
// The search is negamax with principal-variation search (PVS: the first move with the full
// window, the others with a null window and a re-search when they beat alpha), a
// transposition table (tt.hpp), killer and history move ordering (ordering.hpp), staged: the
// table's move and the killers are searched before the rest of the list is ordered, which a
// cutoff by one of them saves; and iterative deepening: depth 1, 2, ... until the depth
// limit, the node or time budget, or a proof. Each depth searches the previous depth's best
// move first, so that the iteration a budget interrupts is not lost (Params::use_interrupted):
// once that move is searched, the best move found so far (that move, or one the iteration
// proved better) is the result, with its value and line.
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
//
// Selective search (with an evaluator; the solver never prunes): the techniques of strong
// programs for games with many moves, each switched by Params and measured on its own in
// docs/strength.md. Ordering and forward pruning need a move scorer — the same bulk form as an
// MCTS prior, scorer(state, moves, scores) writing one float per move, higher first:
//   ordering        at nodes with at least score_depth plies left, the moves are tried in the
//                   scorer's order (after the table's move) instead of killers and history;
//                   the table's move is searched before the scorer runs (staged);
//   forward pruning only the best `width` of them are searched (`root_width` at the root);
//   frontier pruning  at nodes one ply from the leaves (not ordered by the scorer), the
//                   table's move and the killers are searched first; when none cuts off,
//                   the scorer ranks the moves and only its best `frontier_width` follow.
//                   A scorer that scores a move as the evaluation of the position it leads
//                   to makes frontier_width = 1 the full one-ply search; a scorer may offer a
//                   cheaper frontier(state, moves, scores) for these nodes alone (one that
//                   evaluates some moves only, ranking the rest below them);
//   futility pruning  at the nodes the scorer orders (below the root), for a scorer that
//                   scores a move by the evaluation of the position it leads to (the
//                   evaluator's units, so that score · eval_scale is a Score): once a move has
//                   been searched, a move whose score · eval_scale + futility · (d - 1) is at
//                   most alpha (d plies from the leaves) is not searched, nor any after it
//                   (they score less). The margin stands for what the d - 1 plies below can
//                   gain over the one-ply value;
//   late-move reductions  at nodes with at least lmr_depth plies left, the moves after the
//                   first lmr_after are searched one ply shallower with a null window, and
//                   again at full depth when one beats alpha;
//   aspiration      from the second iteration on, the root is searched with a window of
//                   ±aspiration around the last score, widened (doubling) when it fails;
//   proven outcomes for a ProvableGame, positions its proven_outcome() decides score as won or
//                   lost, below the root (an endgame mode: Amazons decides separated regions).
// A pruned search can miss the refutation of a line, so a win or loss it finds is not marked
// proven (Result::proven) unless no move was pruned in that iteration.
//
// Threads (Lazy SMP, with an evaluator): with Params::threads = T > 1, T - 1 helper threads
// search the same root at the same time, each with its own move ordering, sharing the
// transposition table (tt.hpp, share()); half of them start one iteration deeper, so that they
// fill the table ahead of the main thread. The main thread's iterations are the result; the
// helpers stop when it does. The node budget counts the main thread's nodes, Result::nodes all
// threads'. With T > 1 the search is not deterministic (the threads race); T = 1 is.
//
// The search copies a position to make a move (G child = state; child.apply(m)), never undo:
// for the games here a copy is cheaper (a 64-byte Amazons position: copy + apply 6.3 ns,
// apply + undo 8.5 ns; docs/benchmarks.md).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "gsearch/alphabeta/ordering.hpp"
#include "gsearch/alphabeta/tt.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"

namespace gsearch::alphabeta {

// No static evaluation: the search is an exact solver.
struct NoEvaluation {};
// No move scorer: no selective search (ordering by the table's move, killers and history).
struct NoMoveScorer {};

// A move scorer for G: writes one score per move, higher for the moves to try first.
template <class S, class G>
concept MoveScorer = requires(const S& s, const G& g, const MoveListOf<G>& moves, float* out) {
  s(g, moves, out);
};

struct Params {
  int max_depth = 64;  // deepest iteration (plies); budgets may stop earlier
  std::size_t tt_megabytes = 16;
  Score eval_scale = 10000;  // an evaluation of 1.0 is worth this many score units
  bool killers = true;       // order by killer moves
  bool history = true;       // order by the history heuristic
  // Selective search (with an evaluator and a move scorer; see the header comment).
  int score_depth = 2;               // order by the scorer at nodes this many plies from the leaves
                                     // or more (0: never)
  std::uint32_t width = 0;           // forward pruning below the root, at the nodes ordered by the
                                     // scorer: moves kept (0: all)
  std::uint32_t root_width = 0;      // the same at the root
  std::uint32_t frontier_width = 0;  // frontier pruning: moves kept one ply from the leaves,
                                     // after the table's move and the killers (0: all)
  Score futility = 0;                // futility pruning at the scored nodes: the margin per ply
                                     // below the node's first (0: off)
  int lmr_depth = 0;                 // late-move reductions at nodes with this many plies left or
                                     // more (0: off)
  std::uint32_t lmr_after = 3;       // moves searched at full depth before reductions start
  Score aspiration = 0;              // half-width of the root's window from iteration 2 (0: off)
  bool proven_outcomes = false;  // score what the game's proven_outcome() decides (ProvableGame)
  bool use_interrupted = true;   // the iteration a budget interrupts may change the move
  unsigned threads = 1;          // Lazy SMP: searching threads (with an evaluator; see above)
};

template <MoveType Move>
struct Result {
  bool has_move = false;  // false only at a terminal root
  Move best{};
  Score score = 0;           // for the player to move at the root
  int depth = 0;             // last completed iteration (the move, score and line may come
                             // from the next one, interrupted: see the header comment)
  bool proven = false;       // score is the exact result (solver mode; or a win or loss
                             // found within the depth, with an evaluator)
  bool proven_win = false;   // proven, and score > 0
  bool proven_loss = false;  // proven, and score < 0
  bool proven_draw = false;  // proven, and score == 0 (solver mode only)
  std::uint64_t nodes = 0;   // positions visited, all iterations
  double seconds = 0.0;
  std::vector<Move> pv;  // principal variation (of the iteration the move comes from)
};

template <Game G, class Evaluator = NoEvaluation, class Scorer = NoMoveScorer>
class AlphaBeta {
 public:
  using Move = typename G::Move;
  static constexpr bool kSolver = std::is_same_v<Evaluator, NoEvaluation>;
  static constexpr bool kScored = !kSolver && !std::is_same_v<Scorer, NoMoveScorer>;
  static_assert(G::max_moves <= 65536, "move indices are 16 bits");
  static_assert(!kScored || MoveScorer<Scorer, G>,
                "a move scorer is called as scorer(state, moves, float* scores)");

  explicit AlphaBeta() requires std::default_initializable<Evaluator> &&
      std::default_initializable<Scorer> : AlphaBeta(Params{}) {}

  explicit AlphaBeta(const Params& params, Evaluator evaluator = {}, Scorer scorer = {})
      : params_(params),
        evaluator_(std::move(evaluator)),
        scorer_(std::move(scorer)),
        tt_(params.tt_megabytes) {
    if (kScored && params_.futility > 0) {
      futility_cap_ = params_.width > 0 ? params_.width : G::max_moves;
      futility_keys_.resize(static_cast<std::size_t>(kMaxPly + 1) * futility_cap_);
    }
  }

  AlphaBeta(const AlphaBeta&) = delete;
  AlphaBeta& operator=(const AlphaBeta&) = delete;

  // Searches `root` with iterative deepening until Params::max_depth, a budget limit (nodes
  // or time; iterations are not used), or a proof. Returns the last completed iteration's
  // result, or the interrupted one's best move so far once it has searched the last one's
  // (the first iteration always completes, budgets notwithstanding). The solver's one
  // search to max_depth stops at the budget like any other: then nothing is proven and there
  // is no move. `max_depth` > 0 replaces Params::max_depth for this search alone: a player
  // whose usual search is a fixed depth, given a clock, searches as deep as the time allows.
  Result<Move> search(const G& root, const Budget& budget = {}, int max_depth = 0) {
    Result<Move> result;
    tracker_.emplace(budget, 1);  // negamax already asks only every 1024 nodes
    depth_limit_ = max_depth > 0 ? std::min(max_depth, kMaxPly - 1) : params_.max_depth;
    stopped_ = false;
    nodes_ = 0;
    tt_.new_search();
    Helpers helpers(*this, root);
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
    for (int depth = kSolver ? depth_limit_ : 1; depth <= depth_limit_; ++depth) {
      allow_stop_ = kSolver || depth > 1;
      unknowns_ = 0;
      pruned_ = 0;
      const Score score = search_root(root, depth, result);
      if (stopped_) {
        // The interrupted iteration searched the last one's best move first: a move it
        // searched to the end and found better (or that move itself, now searched deeper)
        // replaces the last iteration's move; the depth stays the last completed one.
        if (!kSolver && params_.use_interrupted && result.has_move && pv_length_[0] > 0) {
          result.best = pv_[0][0];
          result.score = root_score_;
          result.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
        }
        break;
      }
      result.has_move = pv_length_[0] > 0;
      result.best = pv_[0][0];
      result.score = score;
      result.depth = depth;
      result.pv.assign(pv_[0].begin(), pv_[0].begin() + pv_length_[0]);
      set_proof(kSolver ? unknowns_ == 0 : is_decisive(score) && pruned_ == 0);
      if (result.proven) break;
      if (tracker_->exhausted(0, nodes_)) break;
    }
    root_first_ = nullptr;
    result.nodes = nodes_ + helpers.stop();
    result.seconds = tracker_->elapsed();
    return result;
  }

  void clear() {
    tt_.clear();
    ordering_.clear();
    for (auto& h : helpers_) h->ordering_.clear();
  }

  // Root searches repeated because the aspiration window failed, since construction.
  [[nodiscard]] std::uint64_t aspiration_researches() const noexcept {
    return aspiration_researches_;
  }

 private:
  // The Lazy SMP helpers of one search: started by the constructor (when Params::threads > 1),
  // stopped by stop(), which returns their nodes. Each helper is an AlphaBeta of its own that
  // uses the main search's table.
  class Helpers {
   public:
    Helpers(AlphaBeta& main, const G& root) : main_(main) {
      if constexpr (!kSolver) {
        if (main.params_.threads <= 1 || root.is_terminal()) return;
        main.tt_.share();
        const std::size_t n = main.params_.threads - 1;
        while (main.helpers_.size() < n)
          main.helpers_.push_back(std::make_unique<AlphaBeta>(helper_params(main.params_),
                                                              main.evaluator_, main.scorer_));
        for (std::size_t i = 0; i < n; ++i) {
          AlphaBeta* h = main.helpers_[i].get();
          h->table_ = &main.tt_;
          h->depth_limit_ = main.depth_limit_;
          const int first_depth = i % 2 == 0 ? 2 : 1;
          threads_.emplace_back(
              [h, &root, first_depth, this] { h->help(root, first_depth, stop_); });
        }
      }
    }
    ~Helpers() { (void)stop(); }
    Helpers(const Helpers&) = delete;
    Helpers& operator=(const Helpers&) = delete;

    // Stops and joins the helpers; returns the nodes they searched.
    std::uint64_t stop() {
      stop_.store(true, std::memory_order_relaxed);
      std::uint64_t nodes = 0;
      for (std::size_t i = 0; i < threads_.size(); ++i) {
        threads_[i].join();
        nodes += main_.helpers_[i]->nodes_;
      }
      threads_.clear();
      return nodes;
    }

   private:
    static Params helper_params(Params p) {
      p.threads = 1;
      p.tt_megabytes = 0;  // (the smallest table: a helper uses the main search's)
      return p;
    }
    AlphaBeta& main_;
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
  };

  // A helper's search: iterative deepening from `first_depth` until `stop` (or the main
  // search's depth limit).
  void help(const G& root, int first_depth, const std::atomic<bool>& stop) {
    tracker_.emplace(Budget{}, 1);
    stopped_ = false;
    nodes_ = 0;
    external_stop_ = &stop;
    allow_stop_ = true;
    for (int depth = first_depth; depth <= depth_limit_ && !stopped_; ++depth)
      (void)negamax(root, depth, -kInfinity, kInfinity, 0);
    external_stop_ = nullptr;
  }

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

  // One iteration at the root: with the full window, or (aspiration) a window around the last
  // iteration's score, widened on each side it fails on until the score lies inside.
  Score search_root(const G& root, int depth, const Result<Move>& last) {
    root_first_ = last.has_move && params_.use_interrupted ? &last.best : nullptr;
    Score delta = std::min(params_.aspiration, kWin);
    const bool aspire = !kSolver && delta > 0 && depth > 1 && !is_decisive(last.score);
    Score alpha = aspire ? std::max<Score>(last.score - delta, -kInfinity) : -kInfinity;
    Score beta = aspire ? std::min<Score>(last.score + delta, kInfinity) : kInfinity;
    for (;;) {
      const Score score = negamax(root, depth, alpha, beta, 0);
      if (stopped_) return 0;
      if (score <= alpha && alpha > -kInfinity) {
        ++aspiration_researches_;
        delta = std::min<Score>(delta, kWin / 2) * 2;
        alpha = score - delta <= -kWin ? -kInfinity : score - delta;
      } else if (score >= beta && beta < kInfinity) {
        ++aspiration_researches_;
        delta = std::min<Score>(delta, kWin / 2) * 2;
        beta = score + delta >= kWin ? kInfinity : score + delta;
      } else {
        return score;
      }
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
    if ((nodes_ & 1023) == 0 && allow_stop_ &&
        (tracker_->exhausted(0, nodes_) ||
         (external_stop_ && external_stop_->load(std::memory_order_relaxed))))
      stopped_ = true;
    if (stopped_) return 0;
    if (state.is_terminal()) return terminal_score(state, ply);
    if constexpr (kSolver && ProvableGame<G>) {
      if (const int outcome = state.proven_outcome(); outcome != 0)
        return outcome > 0 ? kWin : -kWin;
    }
    if constexpr (!kSolver && ProvableGame<G>) {
      if (params_.proven_outcomes && ply > 0)
        if (const int outcome = state.proven_outcome(); outcome != 0)
          return outcome > 0 ? kWin - ply : -(kWin - ply);
    }
    if (depth <= 0 || ply >= kMaxPly - 1) {
      ++unknowns_;  // (solver mode: a value that depends on this one is not settled)
      return leaf_score(state);
    }

    const Score alpha_in = alpha;
    const std::uint64_t unknowns_in = unknowns_;
    const std::uint64_t key = state.hash();
    typename TranspositionTable<Move>::Entry hit;
    const auto* entry = table_->probe(key, tt_ply(ply), hit);
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
    if (ply == 0 && root_first_) tt_move = root_first_;
    std::size_t reduce_from = moves.size();  // late-move reductions from this move on
    // Staged ordering: the moves a node tries before it orders its list, as indices into the
    // list (the table's move; at nodes ordered by killers and history, the killers after it),
    // in the order the ordering gives them. The list is ordered (and frontier pruned) only
    // when none of them cut off, and then lists them first, in that order: the same search
    // as ordering first, without the ordering's cost at the nodes they cut off.
    std::array<std::size_t, 3> staged{};
    std::size_t n_staged = 0;
    bool ordered = kSolver;
    bool by_score = false;  // the ordering: order_by_score (else order())
    std::size_t score_keep = 0;
    bool frontier = false;  // with frontier pruning after order()
    Score futility = 0;     // futility pruning's margin at this node (0: none)
    if constexpr (kSolver) {
      if (const auto cut = look_ahead(state, moves, key, depth, beta, ply, tt_move)) return *cut;
    } else {
      if constexpr (kScored) by_score = params_.score_depth > 0 && depth >= params_.score_depth;
      if (by_score) {
        const std::uint32_t width = ply == 0 ? params_.root_width : params_.width;
        if (width > 0 && moves.size() > width) pruned_ += moves.size() - width;
        score_keep = width > 0 ? width : moves.size();
        if (const std::size_t i = index_of(moves, tt_move); i < moves.size())
          staged[n_staged++] = i;
        if (ply > 0) futility = params_.futility * (depth - 1);
      } else {
        if (to_front(moves, tt_move)) staged[n_staged++] = 0;
        n_staged = stage_killers(state.to_move(), moves, ply, staged, n_staged);
        frontier = kScored && params_.frontier_width > 0 && depth == 1 && ply > 0;
      }
    }
    if constexpr (!kSolver) {
      if (params_.lmr_depth > 0 && depth >= params_.lmr_depth)
        reduce_from = std::max<std::size_t>(params_.lmr_after, 1);
    }

    Score best = -kInfinity;
    const Move* best_move = nullptr;
    std::size_t best_index = 0;
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (!ordered && i == n_staged) {  // none of the staged moves cut off
        ordered = true;
        if (by_score) {
          if constexpr (kScored) {
            order_by_score(state, moves, tt_move, score_keep);
            // (the children's orderings reuse score_keys_: this node's keys are kept per ply)
            if (futility > 0) std::copy_n(score_keys_.begin(), moves.size(), futility_keys(ply));
          }
        } else {
          order(state, moves, ply, tt_move);
          if constexpr (kScored) {
            if (frontier) prune_frontier(state, moves, i);
          }
        }
        if (best_move) best_move = &moves[best_index];  // (the staged moves lead the list)
        if (i == moves.size()) break;                   // (a width of 1 keeps the first alone)
      }
      if (futility > 0 && ordered && i > 0 && !is_decisive(alpha) &&
          static_cast<double>(futility_keys(ply)[i]) * params_.eval_scale + futility <= alpha) {
        pruned_ += moves.size() - i;  // (the moves after i score no more)
        break;
      }
      const Move& m = ordered ? moves[i] : moves[staged[i]];
      G child = state;
      child.apply(m);
      Score score;
      if (i == 0) {
        score = child_value(state, child, depth - 1, alpha, beta, ply + 1);
      } else {  // PVS: prove the move no better than alpha with a null window first
        // (a late move one ply shallower first, and at full depth only when it beats alpha)
        const bool reduced = i >= reduce_from && depth >= 2;
        score = child_value(state, child, depth - 1 - (reduced ? 1 : 0), alpha, alpha + 1, ply + 1);
        if (reduced && score > alpha && !stopped_)
          score = child_value(state, child, depth - 1, alpha, alpha + 1, ply + 1);
        if (score > alpha && score < beta && !stopped_)
          score = child_value(state, child, depth - 1, alpha, beta, ply + 1);
      }
      if (stopped_) return 0;
      if (score > best) {
        best = score;
        best_move = &m;
        best_index = i;
        if (score > alpha) {
          alpha = score;
          update_pv(ply, m);
          if (ply == 0) root_score_ = score;
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
    table_->store(key, tt_ply(ply), stored_depth, best, bound, best_move);
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
      table_->prefetch(child_keys_[i]);
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
      const auto* e = table_->probe(child_keys_[i], tt_ply(ply + 1), hit);
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
      table_->store(key, tt_ply(ply), settled ? kSettled : std::min(depth, kSettled - 1), value,
                    Bound::kLower, &moves[i]);
      return value;
    }
    sort_by_key_descending(moves, order_keys_.data(), from);
    return std::nullopt;
  }

  // Orders the moves by the scorer, best first, with the transposition table's move before all,
  // and keeps the best `keep`.
  void order_by_score(const G& state, MoveListOf<G>& moves, const Move* tt_move, std::size_t keep) {
    scorer_(state, moves, score_keys_.data());
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (std::isnan(score_keys_[i])) score_keys_[i] = -std::numeric_limits<float>::infinity();
      if (tt_move && moves[i] == *tt_move) score_keys_[i] = std::numeric_limits<float>::infinity();
    }
    sort_by_key_descending(moves, score_keys_.data(), 0, keep);
  }

  // The sorted scores of the moves kept at the scored node at `ply` (futility pruning).
  float* futility_keys(int ply) noexcept {
    return futility_keys_.data() + static_cast<std::size_t>(ply) * futility_cap_;
  }

  // Appends to staged[0..n) the indices of the killers in the list after its first n moves,
  // in the order order() gives them (killers first, by history, then by index); returns the
  // new count.
  std::size_t stage_killers(Player me, const MoveListOf<G>& moves, int ply,
                            std::array<std::size_t, 3>& staged, std::size_t n) const {
    if (!params_.killers) return n;
    const std::size_t from = n;
    for (std::size_t i = from; i < moves.size() && n < staged.size(); ++i)
      if (ordering_.is_killer(ply, moves[i])) staged[n++] = i;
    if (n == from + 2 && params_.history &&
        ordering_.history(me, moves[staged[from + 1]]) > ordering_.history(me, moves[staged[from]]))
      std::swap(staged[from], staged[from + 1]);
    return n;
  }

  // Frontier pruning: ranks moves[from...] by the scorer (its frontier() when it has one) and
  // keeps the best Params::frontier_width of them. (The scorer scores the whole list, the
  // `from` moves already searched too: at most the table's move and two killers.)
  void prune_frontier(const G& state, MoveListOf<G>& moves, std::size_t from) {
    if constexpr (requires { scorer_.frontier(state, moves, score_keys_.data()); })
      scorer_.frontier(state, moves, score_keys_.data());
    else
      scorer_(state, moves, score_keys_.data());
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (std::isnan(score_keys_[i])) score_keys_[i] = -std::numeric_limits<float>::infinity();
    const std::size_t listed = moves.size();
    sort_by_key_descending(moves, score_keys_.data(), from, params_.frontier_width);
    pruned_ += listed - moves.size();
  }

  // Orders the moves: the transposition table's move first, then killers, then by history.
  // The keys are never negative: the moves whose key is 0 keep their order behind the others,
  // as a whole sort would leave them, and only the others are sorted (the same order as
  // sorting them all, for less at nodes with hundreds of moves and few keys).
  void order(const G& state, MoveListOf<G>& moves, int ply, const Move* tt_move) {
    const std::size_t from = to_front(moves, tt_move);
    if (!params_.killers && !params_.history) return;
    std::size_t keyed = 0;
    for (std::size_t i = from; i < moves.size(); ++i) {
      order_keys_[i] = killer_history_key(state.to_move(), ply, moves[i]);
      if (order_keys_[i] > 0) keyed_[keyed++] = static_cast<std::uint16_t>(i);
    }
    if (keyed == 0) return;
    std::sort(keyed_.begin(), keyed_.begin() + keyed, [this](std::uint16_t a, std::uint16_t b) {
      return order_keys_[a] > order_keys_[b] || (order_keys_[a] == order_keys_[b] && a < b);
    });
    reordered_.clear();
    for (std::size_t k = 0; k < keyed; ++k) reordered_.push_back(moves[keyed_[k]]);
    for (std::size_t i = from; i < moves.size(); ++i)
      if (order_keys_[i] == 0) reordered_.push_back(moves[i]);
    for (std::size_t i = from; i < moves.size(); ++i) moves[i] = reordered_[i - from];
  }

  // The index of `m` in the list (moves.size() when not given or not listed).
  static std::size_t index_of(const MoveListOf<G>& moves, const Move* m) noexcept {
    if (!m) return moves.size();
    std::size_t i = 0;
    while (i < moves.size() && !(moves[i] == *m)) ++i;
    return i;
  }

  // Moves `m` (when given and listed) to the front; returns how many moves are placed (0, 1).
  static std::size_t to_front(MoveListOf<G>& moves, const Move* m) noexcept {
    const std::size_t i = index_of(moves, m);
    if (i == moves.size()) return 0;
    std::swap(moves[0], moves[i]);
    return 1;
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
  [[no_unique_address]] Scorer scorer_;
  TranspositionTable<Move> tt_;
  TranspositionTable<Move>* table_ = &tt_;  // a helper's is its main search's (Lazy SMP)
  std::vector<std::unique_ptr<AlphaBeta>> helpers_;
  const std::atomic<bool>* external_stop_ = nullptr;  // a helper's stop signal
  MoveOrdering<Move> ordering_;
  std::optional<BudgetTracker> tracker_;
  bool stopped_ = false;
  int depth_limit_ = 0;  // this search's deepest iteration (Params::max_depth unless search() says)
  bool allow_stop_ = false;
  std::uint64_t nodes_ = 0;
  std::uint64_t unknowns_ = 0;  // depth-limited leaves (and tables hits) values depend on
  std::uint64_t pruned_ = 0;    // moves forward pruning left out in this iteration
  std::uint64_t aspiration_researches_ = 0;
  const Move* root_first_ = nullptr;  // the root's first move: the last iteration's best
  Score root_score_ = 0;              // the root's best value so far in this iteration
  std::vector<std::uint64_t> child_keys_ = std::vector<std::uint64_t>(G::max_moves);
  std::vector<std::int64_t> order_keys_ = std::vector<std::int64_t>(G::max_moves);
  // order()'s scratch: the indices of the moves with a key, and the reordered list.
  std::vector<std::uint16_t> keyed_ = std::vector<std::uint16_t>(G::max_moves);
  MoveListOf<G> reordered_;
  std::vector<float> score_keys_ = std::vector<float>(kScored ? G::max_moves : 0);
  std::size_t futility_cap_ = 0;      // moves a scored node keeps (futility pruning)
  std::vector<float> futility_keys_;  // their keys, futility_cap_ per ply
  std::vector<std::array<Move, kMaxPly>> pv_ = std::vector<std::array<Move, kMaxPly>>(kMaxPly + 1);
  std::array<int, kMaxPly + 1> pv_length_{};
};

}  // namespace gsearch::alphabeta
