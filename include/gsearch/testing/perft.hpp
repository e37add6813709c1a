// gsearch/testing/perft.hpp — perft: count the leaves of the game tree to a fixed depth.
//
// Perft is the standard correctness check of a move generator: the number of move sequences
// of length `depth` from a position, compared against published or independently computed
// counts. A terminal state before `depth` contributes no leaves. At the last ply the count is
// taken in bulk: count_moves() when the game offers it (CountableGame), otherwise the size of
// the generated move list, so the leaves themselves are never played.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "gsearch/core/game.hpp"

namespace gsearch::testing {

template <Game G>
[[nodiscard]] std::uint64_t perft(const G& state, int depth) {
  if (depth <= 0) return 1;
  if constexpr (CountableGame<G>) {
    if (depth == 1) return static_cast<std::uint64_t>(state.count_moves());
  }
  MoveListOf<G> moves;
  state.legal_moves(moves);
  if (depth == 1) return moves.size();
  std::uint64_t leaves = 0;
  for (const auto& m : moves) {
    G child = state;
    child.apply(m);
    leaves += perft(child, depth - 1);
  }
  return leaves;
}

// Perft split by the first move: each legal move with the leaf count below it. The counts
// sum to perft(state, depth); comparing two generators move by move finds a bug fast.
template <Game G>
[[nodiscard]] std::vector<std::pair<typename G::Move, std::uint64_t>> perft_divide(const G& state,
                                                                                   int depth) {
  std::vector<std::pair<typename G::Move, std::uint64_t>> out;
  if (depth <= 0) return out;
  MoveListOf<G> moves;
  state.legal_moves(moves);
  out.reserve(moves.size());
  for (const auto& m : moves) {
    G child = state;
    child.apply(m);
    out.emplace_back(m, perft(child, depth - 1));
  }
  return out;
}

}  // namespace gsearch::testing
