// amazons/players/eval.hpp — distance maps, the paper's five features, and Lieberum's evaluation.
//
// Everything here comes from two breadth-first distance maps per player, computed once per
// position with bitboard fills:
//   queen distance  D1_p(s): the fewest queen moves one of p's queens needs to reach s,
//                   moving through empty squares (arrows and queens block);
//   king distance   D2_p(s): the same with king steps.
// Unreachable squares have distance kFar. The maps come in two forms: per square
// (DistanceMaps, for the features and the reference sums) and as level sets (DistanceLevels,
// the squares within each distance, from which the evaluation sums its terms by popcounts).
// The formulas, their sources and the readings of the paper are in docs/amazons.md
// ("Evaluation").
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <type_traits>

#include "amazons/rules/position.hpp"
#include "gsearch/core/assert.hpp"

namespace amazons {

inline constexpr std::uint8_t kFar = 99;  // "unreachable"

namespace detail {
// 2^-d for distances d = 0..kFar (2^-kFar is taken as 0: unreachable contributes nothing).
constexpr std::array<double, kFar + 1> make_inverse_powers() {
  std::array<double, kFar + 1> t{};
  double v = 1.0;
  for (int d = 0; d < kFar; ++d, v /= 2) t[d] = v;
  t[kFar] = 0.0;
  return t;
}
inline constexpr auto kInversePowers = make_inverse_powers();
}  // namespace detail

// 2^-d for a distance d (0 for kFar).
inline double inverse_power(int d) noexcept { return detail::kInversePowers[d]; }

struct DistanceMaps {
  // [player][square]: D1 (queen moves) and D2 (king steps); kFar where unreachable.
  std::array<std::array<std::uint8_t, 128>, 2> queen{};
  std::array<std::array<std::uint8_t, 128>, 2> king{};
  Bitboard empty = 0;  // the empty squares the maps are about
};

// Fills the four maps of `pos` (every square of the 10×10 area; off-board squares stay far).
inline void compute_distances(const Position& pos, DistanceMaps& maps) {
  const Bitboard empty = pos.empty();
  maps.empty = empty;
  for (Player p : {kWhite, kBlack}) {
    auto& q = maps.queen[p];
    auto& k = maps.king[p];
    q.fill(kFar);
    k.fill(kFar);
    Bitboard seen = pos.queens(p);
    Bitboard frontier = seen;
    for (std::uint8_t d = 1; frontier; ++d) {
      frontier = queen_fill(frontier, empty) & ~seen;
      seen |= frontier;
      for (Bitboard b = frontier; b;) q[pop_lsb(b)] = d;
    }
    seen = pos.queens(p);
    frontier = seen;
    for (std::uint8_t d = 1; frontier; ++d) {
      frontier = king_box(frontier) & empty & ~seen;
      seen |= frontier;
      for (Bitboard b = frontier; b;) k[pop_lsb(b)] = d;
    }
  }
}

// The five evaluation features of the paper (§4.1), each in [0, 1], for `me` in `pos`:
//   [0] adjacency territory  share of the contested empty squares `me` reaches first by
//                            king steps (ties count half)
//   [1] line territory       the same by queen moves
//   [2] one mobility         empty neighbours of `moved` (the queen just moved) / 8
//   [3] line mobility        squares reachable in one queen move by all of me's queens
//                            / 4 (the paper), then / 35 (the most a queen reaches on 10×10)
//   [4] position             eq. 9 read as Lieberum's c1/c2: the mean over empty squares of
//                            2^-D(me) - 2^-D(opp), with D = D1 up to turn 30 and D2 after,
//                            mapped from [-1, 1] to [0, 1]
// `moved` may be 0 when there is no moved queen (feature [2] is then that of the best-placed
// queen of `me`).
using Features = std::array<float, 5>;

inline Features features(const Position& pos, const DistanceMaps& maps, Player me, Square moved) {
  const Player opp = gsearch::opponent(me);
  double terr_king = 0, terr_queen = 0, contested_king = 0, contested_queen = 0, position = 0;
  const bool early = pos.turns_played() <= 30;
  int empties = 0;
  for (Bitboard b = maps.empty; b;) {
    const Square s = pop_lsb(b);
    ++empties;
    const int k_me = maps.king[me][s], k_op = maps.king[opp][s];
    const int q_me = maps.queen[me][s], q_op = maps.queen[opp][s];
    if (k_me < kFar || k_op < kFar) {
      ++contested_king;
      terr_king += k_me < k_op ? 1.0 : k_me == k_op ? 0.5 : 0.0;
    }
    if (q_me < kFar || q_op < kFar) {
      ++contested_queen;
      terr_queen += q_me < q_op ? 1.0 : q_me == q_op ? 0.5 : 0.0;
    }
    const int d_me = early ? q_me : k_me, d_op = early ? q_op : k_op;
    position += inverse_power(d_me) - inverse_power(d_op);
  }
  const Bitboard free = maps.empty;
  int reach = 0;
  int best_neighbours = 0;
  for (Bitboard qs = pos.queens(me); qs;) {
    const Square q = pop_lsb(qs);
    reach += popcount(queen_attacks(q, pos.occupied()));
    best_neighbours = std::max(best_neighbours, popcount(king_moves(q) & free));
  }
  const int neighbours = moved ? popcount(king_moves(moved) & free) : best_neighbours;
  Features f;
  f[0] = static_cast<float>(contested_king > 0 ? terr_king / contested_king : 0.5);
  f[1] = static_cast<float>(contested_queen > 0 ? terr_queen / contested_queen : 0.5);
  f[2] = static_cast<float>(neighbours / 8.0);
  f[3] = static_cast<float>(reach / 4.0 / 35.0);
  f[4] = static_cast<float>(empties > 0 ? (position / empties + 1.0) / 2.0 : 0.5);
  return f;
}

// Lieberum's evaluation ("An evaluation function for the game of Amazons", Theoretical
// Computer Science 349, 2005), from the point of view of the player to move, with mobility.
// For each empty square s, with n = D(me, s), m = D(opp, s):
//   t1 = Σ Δ(D1)            Δ = 0 if both unreachable, κ if n = m (the player to move is a
//   t2 = Σ Δ(D2)                tempo ahead), +1 if n < m, -1 if n > m
//   c1 = 2 Σ (2^-D1(me) - 2^-D1(opp))
//   c2 = Σ clamp((D2(opp) - D2(me)) / 6, -1, 1)
//   w  = Σ 2^-|D1(me) - D1(opp)|   over squares both reach: how much is still contested
//   m  = (queen-move mobility of me - of opp) / 4
//   a  = Σ 2^(-k/2) over opp's queens - over mine, k a queen's one-move reach (below)
// combined by the phase weights below, where phase = min(1, w / w_open) goes from 1 in the
// opening to 0 when the territories are settled, and squashed to [-1, 1] by tanh.
struct LieberumWeights {
  double kappa = 0.2;    // tie value for the player to move (Lieberum's κ, |κ| < 1)
  double w_open = 40.0;  // w at or above which the position counts as an opening
  // Weights of t1, t2, c1, c2, m in the opening (phase 1) and the ending (phase 0); the
  // weights in between are linear in the phase.
  std::array<double, 5> opening{0.14, 0.37, 0.13, 0.13, 0.20};
  std::array<double, 5> ending{0.80, 0.10, 0.05, 0.05, 0.00};
  double scale = 0.15;  // tanh(scale · sum): the slope of the squashing
  double trap = 0.0;    // weight of the trapped-queen term a in the opening (0 in the ending)
};

struct LieberumTerms {
  double t1 = 0, t2 = 0, c1 = 0, c2 = 0, w = 0, m = 0, a = 0;
};

// A queen with few moves left is a liability long before it is shut in: the trapped-queen
// term a = Σ_opp's queens g(k) − Σ_my queens g(k), k a queen's one-move reach (the squares
// it can move to), g(k) = 2^(-k/2): a queen with no move costs 1, with 2 moves 0.5, with
// 10 moves 0.03. The total mobility m cannot see it: one queen shut in while the others
// roam scores as well there as four queens that all move.
inline double trapped_weight(int reach) noexcept {
  static constexpr auto kTable = [] {
    std::array<double, 32> t{};
    double v = 1.0;
    for (double& x : t) {
      x = v;
      v *= 0.70710678118654752;  // 2^(-1/2)
    }
    return t;
  }();
  return reach < static_cast<int>(kTable.size()) ? kTable[reach] : 0.0;
}

// From each queen's one-move reach: Lieberum's m, (squares reached in one queen move by the
// mover's queens − by the opponent's) / 4, and the trapped-queen term a.
inline void set_mobility_terms(const Position& pos, LieberumTerms& t) {
  const Bitboard occ = pos.occupied();
  int mob[2] = {0, 0};
  double trapped[2] = {0, 0};
  for (Player p : {kWhite, kBlack})
    for (Bitboard qs = pos.queens(p); qs;) {
      const int reach = popcount(queen_attacks(pop_lsb(qs), occ));
      mob[p] += reach;
      trapped[p] += trapped_weight(reach);
    }
  const Player me = pos.to_move(), opp = gsearch::opponent(me);
  t.m = (mob[me] - mob[opp]) / 4.0;
  t.a = trapped[opp] - trapped[me];
}

inline LieberumTerms lieberum_terms(const Position& pos, const DistanceMaps& maps, double kappa) {
  const Player me = pos.to_move();
  const Player opp = gsearch::opponent(me);
  LieberumTerms t;
  const auto delta = [kappa](int n, int m) {
    if (n >= kFar && m >= kFar) return 0.0;
    if (n == m) return kappa;
    return n < m ? 1.0 : -1.0;
  };
  for (Bitboard b = maps.empty; b;) {
    const Square s = pop_lsb(b);
    const int q_me = maps.queen[me][s], q_op = maps.queen[opp][s];
    const int k_me = maps.king[me][s], k_op = maps.king[opp][s];
    t.t1 += delta(q_me, q_op);
    t.t2 += delta(k_me, k_op);
    t.c1 += 2.0 * (inverse_power(q_me) - inverse_power(q_op));
    t.c2 += std::clamp((k_op - k_me) / 6.0, -1.0, 1.0);
    if (q_me < kFar && q_op < kFar) t.w += inverse_power(std::abs(q_me - q_op));
  }
  set_mobility_terms(pos, t);
  return t;
}

// The distance maps as level sets, the form the evaluation computes from: queen[p].within[d]
// holds the empty squares p reaches in at most d queen moves, for d = 0..queen[p].depth
// (within[0] is empty: a queen stands on no empty square), and king[p] the same by king
// steps. A square in no set is unreachable. Each level adds a square, so the depth stays
// below the 100 squares of the largest board. Each term of Lieberum's evaluation is then a
// sum over distances of popcounts instead of a sum over squares; lieberum_terms(pos, levels,
// κ) equals lieberum_terms(pos, maps, κ) up to the rounding of the sums.
//
// The sets are bitboards of the board's layout B: Bitboard (every board), or Bitboard8 for a
// board of at most 8×8 (board.hpp), whose fills cost half as much. The counts, and so the
// terms, are the same in either.
template <class B>
struct DistanceLevelsOf {
  static constexpr int kMaxDepth = 100;  // > any distance (a path visits each square once)
  struct Sets {
    std::array<B, kMaxDepth + 1> within{};
    int depth = 0;
    // The squares reached in at most d (d <= 0: none; d >= depth: all that are reached).
    [[nodiscard]] B at_most(int d) const noexcept {
      return d <= 0 ? B{0} : within[std::min(d, depth)];
    }
    // The squares at distance exactly d (1 <= d).
    [[nodiscard]] B exactly(int d) const noexcept {
      return d > depth ? B{0} : within[d] & ~within[d - 1];
    }
  };
  std::array<Sets, 2> queen, king;  // [player]
  B empty = 0;
  // [player]: the squares each queen reaches in one move, summed over the player's queens
  // (what Lieberum's mobility counts; a square two queens reach counts twice).
  std::array<int, 2> reach{};
  std::array<double, 2> trapped{};  // [player]: Σ over the player's queens of trapped_weight
};
using DistanceLevels = DistanceLevelsOf<Bitboard>;
using DistanceLevels8 = DistanceLevelsOf<Bitboard8>;  // boards of at most 8×8 only

namespace detail {
inline int count(Bitboard b) noexcept { return popcount(b); }
inline int count(Bitboard8 b) noexcept { return std::popcount(b); }
}  // namespace detail

// The first queen level is found queen by queen (one attack lookup each, cheaper than a
// fill from all of them), and each queen's reach, the mobility term's count, comes with it.
// A search stops at the level that reaches the last empty square, without the fill that
// would find nothing more. DistanceLevels8 takes a board of at most 8×8.
template <class B>
void compute_levels(const Position& pos, DistanceLevelsOf<B>& levels) {
  constexpr bool kSmall = std::is_same_v<B, Bitboard8>;
  GSEARCH_ASSERT(!kSmall || (pos.cols() <= 8 && pos.rows() <= 8));
  const auto layout = [](Bitboard b) -> B {
    if constexpr (kSmall)
      return to_bitboard8(b);
    else
      return b;
  };
  const B empty = layout(pos.empty());
  const Bitboard occupied = pos.occupied();
  levels.empty = empty;
  for (Player p : {kWhite, kBlack}) {
    for (const bool queen : {true, false}) {
      auto& sets = queen ? levels.queen[p] : levels.king[p];
      sets.within[0] = 0;
      int d = 0;
      B seen = layout(pos.queens(p)), frontier = seen;
      for (;;) {
        if (queen && d == 0) {
          Bitboard first = 0;
          levels.reach[p] = 0;
          levels.trapped[p] = 0;
          for (Bitboard qs = pos.queens(p); qs;) {
            const Bitboard attacks = queen_attacks(pop_lsb(qs), occupied);
            first |= attacks;
            const int reach = popcount(attacks);
            levels.reach[p] += reach;
            levels.trapped[p] += trapped_weight(reach);
          }
          frontier = layout(first);
        } else if constexpr (kSmall) {
          frontier = (queen ? queen_fill8(frontier, empty) : king_box8(frontier) & empty) & ~seen;
        } else {
          frontier = (queen ? queen_fill(frontier, empty) : king_box(frontier) & empty) & ~seen;
        }
        if (!frontier) break;
        seen |= frontier;
        ++d;
        sets.within[d] = sets.within[d - 1] | frontier;
        if (sets.within[d] == empty) break;  // all reached: the next level would be empty
      }
      sets.depth = d;
    }
  }
}

template <class B>
LieberumTerms lieberum_terms(const Position& pos, const DistanceLevelsOf<B>& levels, double kappa) {
  using detail::count;
  const Player me = pos.to_move();
  const Player opp = gsearch::opponent(me);
  LieberumTerms t;
  // t1, t2: a square at distance d from me is mine when opp needs more than d (or cannot
  // reach it), a tie when opp needs d too.
  const auto territory = [kappa](const auto& a, const auto& b) {
    int won = 0, lost = 0, tied = 0;
    for (int d = 1, n = std::max(a.depth, b.depth); d <= n; ++d) {
      const B na = a.exactly(d), nb = b.exactly(d);
      won += count(na & ~b.at_most(d));
      lost += count(nb & ~a.at_most(d));
      tied += count(na & nb);
    }
    return (won - lost) + kappa * tied;
  };
  const auto& qm = levels.queen[me];
  const auto& qo = levels.queen[opp];
  const auto& km = levels.king[me];
  const auto& ko = levels.king[opp];
  t.t1 = territory(qm, qo);
  t.t2 = territory(km, ko);
  // c1 = 2 Σ_d 2^-d (#me at d - #opp at d).
  for (int d = 1, n = std::max(qm.depth, qo.depth); d <= n; ++d)
    t.c1 += 2.0 * inverse_power(d) * (count(qm.exactly(d)) - count(qo.exactly(d)));
  // c2 = Σ_s clamp(a - b, -6, 6) / 6 with a = D2(opp, s), b = D2(me, s) (kFar when
  // unreachable), and clamp(a - b, -6, 6) = min(a, b + 6) - min(b, a + 6). Over squares,
  // Σ min(a, b + 6) = Σ_j≥1 #{a >= j and b >= j - 6}; past the deepest level + 7 every term
  // left counts the squares neither reaches, the same in both sums.
  int c2 = 0;
  for (int j = 1, n = std::max(km.depth, ko.depth) + 7; j <= n; ++j) {
    c2 += count(levels.empty & ~ko.at_most(j - 1) & ~km.at_most(j - 7));
    c2 -= count(levels.empty & ~km.at_most(j - 1) & ~ko.at_most(j - 7));
  }
  t.c2 = c2 / 6.0;
  // w = Σ 2^-|D1(me) - D1(opp)| over the squares both reach.
  for (int a = 1; a <= qm.depth; ++a) {
    const B na = qm.exactly(a);
    for (int b = 1; b <= qo.depth; ++b)
      t.w += inverse_power(std::abs(a - b)) * count(na & qo.exactly(b));
  }
  t.m = (levels.reach[me] - levels.reach[opp]) / 4.0;  // as set_mobility_terms
  t.a = levels.trapped[opp] - levels.trapped[me];
  return t;
}

// The evaluation in [-1, 1] for the player to move. It keeps its distance levels between
// calls (no allocation), so one object serves one thread.
class LieberumEvaluator {
 public:
  LieberumEvaluator() = default;
  explicit LieberumEvaluator(const LieberumWeights& weights) : weights_(weights) {}

  double operator()(const Position& pos) const {
    if (pos.cols() <= 8 && pos.rows() <= 8) {
      compute_levels(pos, levels8_);
      return value(lieberum_terms(pos, levels8_, weights_.kappa));
    }
    compute_levels(pos, levels_);
    return value(lieberum_terms(pos, levels_, weights_.kappa));
  }

  [[nodiscard]] double value(const LieberumTerms& t) const {
    return std::tanh(weights_.scale * sum(t));
  }
  // The phase-weighted sum of the terms before the squashing (value = tanh(scale · sum)):
  // unbounded, in about the units of squares of territory.
  [[nodiscard]] double sum(const LieberumTerms& t) const {
    const double phase = std::min(1.0, t.w / weights_.w_open);
    const double x[5] = {t.t1, t.t2, t.c1, t.c2, t.m};
    double total = 0;
    for (int i = 0; i < 5; ++i)
      total += (phase * weights_.opening[i] + (1 - phase) * weights_.ending[i]) * x[i];
    return total + phase * weights_.trap * t.a;
  }
  [[nodiscard]] const LieberumWeights& weights() const noexcept { return weights_; }

 private:
  LieberumWeights weights_{};
  mutable DistanceLevels levels_;
  mutable DistanceLevels8 levels8_;  // boards of at most 8×8
};

// The phase-weighted sum as a model linear in its weights, for tuning them on game outcomes
// (amazons tune): sum = Σ_j θ_j f_j with θ = (opening[0..4], ending[0..4]) and
// f = (phase · x, (1 - phase) · x), x = (t1, t2, c1, c2, m). The evaluation then predicts the
// mover's chance to win as (1 + tanh(scale · sum)) / 2 = σ(2 · scale · sum).
using LieberumFeatures = std::array<double, 10>;

inline LieberumFeatures lieberum_features(const LieberumTerms& t, const LieberumWeights& w) {
  const double phase = std::min(1.0, t.w / w.w_open);
  const double x[5] = {t.t1, t.t2, t.c1, t.c2, t.m};
  LieberumFeatures f;
  for (int i = 0; i < 5; ++i) {
    f[i] = phase * x[i];
    f[5 + i] = (1 - phase) * x[i];
  }
  return f;
}

// The weights `amazons tune` fitted (--l2 1, from Lieberum's) to 600 games between `ab` and
// `invader` on 10×10 and 8×8; docs/strength.md, "Tuning the evaluation", has the commands and
// seeds that made the records and what these weights are worth in play.
inline LieberumWeights tuned_lieberum_weights() {
  LieberumWeights w;
  w.opening = {0.028254, 0.140014, 0.092748, 0.054820, 0.105163};
  w.ending = {1.062318, 0.394859, 0.241731, 0.294959, 0.034942};
  return w;
}

// The weights `amazons spsa` tuned on 6,000 games of `ab:depth=3` against itself on 10×10, from
// Lieberum's (docs/strength.md, "Weights tuned by SPSA", has the command, its seed, and what
// these weights are worth in play):
//   amazons spsa --spec ab:depth=3 --iterations 3000 --book examples/amazons/books/10x10.txt
//       --threads 2 --seed 1 --r-end 0.01 --state S --out W
inline LieberumWeights spsa_lieberum_weights() {
  LieberumWeights w;
  w.opening = {0.130069, 0.380511, 0.156238, 0.266403, 0.201938};
  w.ending = {0.801536, 0.126240, 0.055551, 0.084476, 0.014682};
  return w;
}

// A move prior for MCTS expansion (gsearch::mcts::Expansion): each whole move's one-ply
// Lieberum value for the mover, the evaluation of the position after it, negated (a move
// that ends the game: 2, above any evaluation).
//
// With `queen_moves` = Q > 0 the moves are scored in two stages, which costs one evaluation
// per queen move plus one per arrow of Q of them instead of one per whole move (1.3 to 2.1
// times the iterations of invader's search at the 10×10 start): each queen move (from, to)
// is first scored as its move that shoots the arrow back onto `from` (always legal); then
// only the Q best queen moves have all their other arrows evaluated, and every move not
// evaluated gets its queen move's score less 4, which ranks it below every evaluated move and
// keeps the queen moves' order among the rest. As alpha-beta's scorer, `frontier_queen_moves`
// is the Q of its frontier nodes (gsearch/alphabeta, frontier pruning), 0 for every move.
struct LieberumMovePrior {
  LieberumEvaluator eval;
  std::uint32_t queen_moves = 0;
  std::uint32_t frontier_queen_moves = 0;

  void operator()(const Position& pos, const gsearch::MoveListOf<Position>& moves,
                  float* priors) const {
    rank(pos, moves, priors, queen_moves);
  }
  void frontier(const Position& pos, const gsearch::MoveListOf<Position>& moves,
                float* priors) const {
    rank(pos, moves, priors, frontier_queen_moves);
  }

 private:
  void rank(const Position& pos, const gsearch::MoveListOf<Position>& moves, float* priors,
            std::uint32_t queen_moves) const {
    if (queen_moves == 0) {
      for (std::size_t i = 0; i < moves.size(); ++i) priors[i] = score(pos, moves[i]);
      return;
    }
    // Stage 1: the score of each queen move, indexed by the queen's rank among the mover's
    // queens and the destination square.
    Square queens[kMaxQueens] = {};
    int nq = 0;
    for (Bitboard qs = pos.queens(pos.to_move()); qs;) queens[nq++] = pop_lsb(qs);
    const auto slot = [&](const Move& m) {
      int q = 0;
      while (queens[q] != m.from) ++q;
      return static_cast<std::size_t>(q) * 128 + m.to;
    };
    std::array<float, kMaxQueens * 128> first;
    std::array<float, kMaxQueens * 35> ranked;  // a queen reaches at most 35 squares
    std::size_t n = 0;
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (moves[i].arrow != moves[i].from) continue;
      priors[i] = first[slot(moves[i])] = score(pos, moves[i]);
      ranked[n++] = priors[i];
    }
    // Stage 2: every arrow of the queen moves scoring at least the Q-th best.
    float cut = -std::numeric_limits<float>::infinity();
    if (n > queen_moves) {
      std::nth_element(ranked.begin(), ranked.begin() + (queen_moves - 1), ranked.begin() + n,
                       std::greater<>());
      cut = ranked[queen_moves - 1];
    }
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (moves[i].arrow == moves[i].from) continue;
      const float s = first[slot(moves[i])];
      priors[i] = s >= cut ? score(pos, moves[i]) : s - 4.0f;
    }
  }

  float score(const Position& pos, const Move& m) const {
    Position child = pos;
    child.apply(m);
    return child.is_terminal() ? 2.0f : static_cast<float>(-eval(child));
  }
};

}  // namespace amazons
