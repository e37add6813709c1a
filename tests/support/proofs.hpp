// The MCTS-Solver checks the tests share: positions from random play, and a search run until
// its root is proven, whose proof and chosen move must match negamax.
#pragma once

#include <doctest/doctest.h>

#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"
#include "support/negamax.hpp"

namespace test_support {

// `plies` uniformly random moves from the start (fewer when the game ends first).
template <gsearch::Game G>
G random_position(gsearch::Rng& rng, int plies) {
  G g;
  for (int i = 0; i < plies && !g.is_terminal(); ++i) {
    gsearch::MoveListOf<G> moves;
    g.legal_moves(moves);
    g.apply(moves[rng.below(moves.size())]);
  }
  return g;
}

// Runs `search` (the solver on) from `g` until its root is proven; the proof must be
// negamax's value and the chosen move must keep it.
template <class Search, gsearch::Game G>
void check_proof(Search& search, const G& g, Negamax<G>& negamax) {
  search.set_root(g);
  search.run(gsearch::Budget::iters(2'000'000));
  REQUIRE(search.tree().root().exhausted);
  const double exact = negamax(g);
  CHECK(-search.tree().root().q == doctest::Approx(exact));  // root q: for the other player
  G next = g;
  next.apply(search.best_move());
  CHECK(-negamax(next) == doctest::Approx(exact));
}

}  // namespace test_support
