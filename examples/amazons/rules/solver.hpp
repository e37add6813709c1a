// amazons/rules/solver.hpp — the Amazons position as the solvers of gsearch want it.
//
// SolverPosition is a Position (the same rules, moves, hash and notation) with the three
// optional capabilities gsearch's exact solvers use (include/gsearch/core/game.hpp):
//   proven_outcome()      positions decided by the region rules of regions.hpp;
//   essential_moves(list) the legal moves less the dominated ones of regions.hpp;
//   evaluate()            a cheap heuristic, for df-pn's DfpnInit::kEvaluation only (to
//                         decide where to look first; it never decides a result).
// Position's count_moves() serves the solvers' default move ordering and df-pn's leaf numbers.
// The region knowledge needs a cache (Solitaire); each thread has its own.
#pragma once

#include <cmath>

#include "amazons/rules/position.hpp"
#include "amazons/rules/regions.hpp"

namespace amazons {

class SolverPosition : public Position {
 public:
  SolverPosition() = default;
  explicit SolverPosition(const Position& pos) noexcept : Position(pos) {}

  // +1 / -1 when the region rules prove that the player to move wins / loses, else 0.
  [[nodiscard]] int proven_outcome() const noexcept { return bound_outcome(*this, solitaire()); }

  // The legal moves, less those dominated by another move (regions.hpp).
  void essential_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept {
    legal_moves(list);
    remove_dominated(*this, solitaire(), list);
  }

  // A heuristic value in [-1, 1] for the player to move: tanh(x / 4), where x is the
  // queen-distance territory (empty squares the mover reaches in fewer queen moves than the
  // other player, less those the other reaches first) plus 6 (q_m - q_o) / (q_m + q_o + 1),
  // with q the number of squares a player's queens reach in one move. The weights were tuned
  // on the proofs of 5×5 positions (docs/amazons.md, "Solving small boards").
  [[nodiscard]] double evaluate() const noexcept {
    const Bitboard free = empty();
    const Bitboard occ = occupied();
    const Player me = to_move(), other = gsearch::opponent(me);
    // Breadth-first by queen moves, both players at once.
    Bitboard front[2] = {queens(me), queens(other)};
    Bitboard seen[2] = {0, 0};
    int territory = 0;
    while (front[0] | front[1]) {
      const Bitboard mine = queen_fill(front[0], free) & ~seen[0];
      const Bitboard theirs = queen_fill(front[1], free) & ~seen[1];
      territory += popcount(mine & ~seen[1] & ~theirs) - popcount(theirs & ~seen[0] & ~mine);
      seen[0] |= mine;
      seen[1] |= theirs;
      front[0] = mine;
      front[1] = theirs;
    }
    int reach[2] = {0, 0};
    for (int side = 0; side < 2; ++side)
      for (Bitboard qs = queens(side == 0 ? me : other); qs;)
        reach[side] += popcount(queen_attacks(pop_lsb(qs), occ));
    const double mobility = 6.0 * (reach[0] - reach[1]) / (reach[0] + reach[1] + 1);
    return std::tanh((territory + mobility) / 4.0);
  }

  // This thread's solitaire cache.
  static Solitaire& solitaire() noexcept {
    static thread_local Solitaire cache;
    return cache;
  }
};

static_assert(gsearch::Game<SolverPosition>);
static_assert(gsearch::ProvableGame<SolverPosition>);
static_assert(gsearch::EvaluableGame<SolverPosition>);

}  // namespace amazons
