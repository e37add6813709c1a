// SolverPosition: a conforming Game, its knowledge is the region knowledge, its moves keep
// the value, and its heuristic is a value in [-1, 1] that is 0 where both sides stand alike.
#include "amazons/rules/solver.hpp"

#include <doctest/doctest.h>

#include "amazons/exact.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "gsearch/testing/game_conformance.hpp"

using amazons::Position;
using amazons::SolverPosition;

TEST_CASE("SolverPosition conforms to the Game contract on small boards") {
  for (const char* fen : {"1q1q1/q3q/5/Q3Q/1Q1Q1 w", "1qq1/q2q/Q2Q/1QQ1 w"}) {
    CAPTURE(fen);
    const auto report =
        gsearch::testing::check_game(SolverPosition(Position::from_fen(fen)), {.games = 200});
    CHECK_MESSAGE(report.ok, report.failure);
  }
}

TEST_CASE("knowledge and essential moves are those of regions.hpp, and exact") {
  gsearch::Rng rng(21);
  exact::Solver reference;
  int decided = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int cols = 3 + static_cast<int>(rng.below(3)), rows = 3 + static_cast<int>(rng.below(3));
    const Position pos =
        exact::random_position(rng, cols, rows, 1 + static_cast<int>(rng.below(3)),
                               1 + static_cast<int>(rng.below(3)), 0.3 + 0.35 * rng.uniform());
    if (pos.is_terminal() || amazons::popcount(pos.empty()) > 8) continue;
    CAPTURE(pos.fen());
    const SolverPosition s(pos);
    amazons::Solitaire solitaire;
    CHECK(s.proven_outcome() == amazons::bound_outcome(pos, solitaire));
    if (s.proven_outcome() != 0) {
      ++decided;
      CHECK((s.proven_outcome() > 0) == reference.wins(pos));
    }
    gsearch::MoveListOf<SolverPosition> essential, expected;
    s.essential_moves(essential);
    pos.legal_moves(expected);
    amazons::remove_dominated(pos, solitaire, expected);
    REQUIRE(essential.size() == expected.size());
    for (std::size_t i = 0; i < essential.size(); ++i) CHECK(essential[i] == expected[i]);
  }
  CHECK(decided > 30);
}

TEST_CASE("the heuristic: in [-1, 1], 0 at a symmetric start, favours the freer side") {
  const SolverPosition start(Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w"));
  CHECK(start.evaluate() == 0.0);
  // White's queens hemmed in at the bottom, Black's free: bad for White, good for Black.
  const SolverPosition cramped(Position::from_fen("1q1q1/q3q/*****/Q***Q/1Q*Q1 w"));
  CHECK(cramped.evaluate() < -0.5);
  const SolverPosition cramped_black(Position::from_fen("1q1q1/q3q/*****/Q***Q/1Q*Q1 b"));
  CHECK(cramped_black.evaluate() > 0.5);
  gsearch::Rng rng(4);
  for (int trial = 0; trial < 300; ++trial) {
    const SolverPosition s(exact::random_position(rng, 5, 5, 4, 4, 0.4));
    const double v = s.evaluate();
    CHECK(v >= -1.0);
    CHECK(v <= 1.0);
  }
}

TEST_CASE("MCTS-Solver proves small positions, with the region knowledge at its leaves") {
  // Each search runs until its root is proven; the proof must agree with the exhaustive
  // reference, and the chosen move must keep a won position won.
  gsearch::Rng rng(33);
  exact::Solver reference;
  int proven = 0, wins = 0;
  for (int trial = 0; trial < 300 && proven < 40; ++trial) {
    const int cols = 3 + static_cast<int>(rng.below(3)), rows = 3 + static_cast<int>(rng.below(3));
    const Position pos =
        exact::random_position(rng, cols, rows, 1 + static_cast<int>(rng.below(3)),
                               1 + static_cast<int>(rng.below(3)), 0.3 + 0.35 * rng.uniform());
    if (pos.is_terminal() || amazons::popcount(pos.empty()) > 9) continue;
    CAPTURE(pos.fen());
    gsearch::mcts::Search<SolverPosition> search(
        {.seed = static_cast<std::uint64_t>(trial), .solver = true});
    search.set_root(SolverPosition(pos));
    search.run(gsearch::Budget::iters(1'000'000));
    REQUIRE(search.tree().root().exhausted);
    const bool win = reference.wins(pos);
    CHECK(search.tree().root().q == (win ? -1.0f : 1.0f));  // for the player who moved last
    if (win) {
      Position next = pos;
      next.apply(search.best_move());
      CHECK_FALSE(reference.wins(next));
      ++wins;
    }
    ++proven;
  }
  CHECK(proven == 40);
  CHECK(wins >= 10);
  CHECK(wins <= 30);
}
