// The exact value of a small game's position for the player to move, by negamax over its whole
// game tree, memoised on the position's hash: the reference the solvers' tests check against.
// Deliberately simple: no pruning, no ordering.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "gsearch/core/game.hpp"

namespace test_support {

template <gsearch::Game G>
class Negamax {
 public:
  // +1 / -1 / 0 (or a score in between) for the player to move at `g`.
  double operator()(const G& g) {
    if (g.is_terminal()) return g.result(g.to_move());
    if (const auto it = memo_.find(g.hash()); it != memo_.end()) return it->second;
    gsearch::MoveListOf<G> moves;
    g.legal_moves(moves);
    double best = -1.0;
    for (const auto& m : moves) {
      G next = g;
      next.apply(m);
      best = std::max(best, -(*this)(next));
    }
    memo_.emplace(g.hash(), best);
    return best;
  }

 private:
  std::unordered_map<std::uint64_t, double> memo_;
};

}  // namespace test_support
