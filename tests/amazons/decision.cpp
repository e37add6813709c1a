// The decision model: the same rules as whole turns, one decision per ply.
#include "amazons/rules/decision.hpp"

#include <doctest/doctest.h>

#include "gsearch/testing/game_conformance.hpp"
#include "gsearch/testing/perft.hpp"

using amazons::Decision;
using amazons::DecisionPosition;
using amazons::Position;
using amazons::Stage;
using gsearch::testing::perft;

TEST_CASE("three decisions make one turn: perft(3k) of decisions = perft(k) of turns") {
  const DecisionPosition start{Position{}};
  CHECK(perft(start, 1) == 4);
  CHECK(perft(start, 3) == 2176);
  CHECK(perft(start, 6) == 4307152);
  const Position small = Position::from_fen("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1");
  CHECK(perft(DecisionPosition(small), 9) == perft(small, 3));
}

TEST_CASE("the player to move stays for the three decisions of a turn") {
  DecisionPosition d{Position{}};
  const Decision q = d.parse_move("d1");
  CHECK(q == Decision{Stage::kQueen, amazons::make_square(3, 0), amazons::make_square(3, 0)});
  d.apply(q);
  CHECK(d.to_move() == amazons::kWhite);
  CHECK(d.stage() == Stage::kDestination);
  const Decision to = d.parse_move("d6");
  CHECK(d.parse_move("d1-d6") == to);
  d.apply(to);
  CHECK(d.to_move() == amazons::kWhite);
  CHECK(d.stage() == Stage::kArrow);
  CHECK(d.move_to_string(to) == "d1-d6");
  const Decision arrow = d.parse_move("g9");
  CHECK(d.move_to_string(arrow) == "d6/g9");
  d.apply(arrow);
  CHECK(d.to_move() == amazons::kBlack);
  CHECK(d.stage() == Stage::kQueen);
  Position whole;
  whole.apply(whole.parse_move("d1-d6/g9"));
  CHECK(d.position() == whole);
  CHECK(d.hash() == DecisionPosition(whole).hash());
  // Undo walks back through the stages.
  d.undo(arrow);
  d.undo(to);
  d.undo(q);
  CHECK(d == DecisionPosition{Position{}});
}

TEST_CASE("only queens that can move are offered; a walled-in side is terminal") {
  // White a1 is walled in; White c3 can move.
  const DecisionPosition d{Position::from_fen("q3/2Q1/**2/Q*2 w - - 0 1")};
  gsearch::MoveListOf<DecisionPosition> moves;
  d.legal_moves(moves);
  REQUIRE(moves.size() == 1);
  CHECK(d.move_to_string(moves[0]) == "c3");
  const DecisionPosition lost{Position::from_fen("q3/4/**2/Q*2 w - - 0 1")};
  CHECK(lost.is_terminal());
  CHECK(lost.result(amazons::kWhite) == -1.0);
}

TEST_CASE("bad decisions are refused with a reason") {
  DecisionPosition d{Position{}};
  CHECK_THROWS_WITH_AS((void)d.parse_move("a7"), doctest::Contains("a queen of the side to move"),
                       amazons::NotationError);
  CHECK_THROWS_AS((void)d.parse_move("k1"), amazons::NotationError);
  d.apply(d.parse_move("d1"));
  CHECK_THROWS_WITH_AS((void)d.parse_move("a4-a5"), doctest::Contains("starts from d1"),
                       amazons::NotationError);
  CHECK_THROWS_WITH_AS((void)d.parse_move("e3"), doctest::Contains("the chosen queen reaches"),
                       amazons::NotationError);
}

TEST_CASE("conformance: thousands of random games, single decisions") {
  const auto big =
      gsearch::testing::check_game(DecisionPosition{Position{}}, {.games = 1000, .seed = 3});
  CHECK_MESSAGE(big.ok, big.failure);
  CHECK(big.max_moves_seen <= DecisionPosition::max_moves);
  const auto small = gsearch::testing::check_game(
      DecisionPosition{Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1")},
      {.games = 3000, .seed = 4});
  CHECK_MESSAGE(small.ok, small.failure);
}

TEST_CASE("random_move draws legal decisions at every stage") {
  gsearch::Rng rng(8);
  for (int game = 0; game < 20; ++game) {
    DecisionPosition d{Position{}};
    while (!d.is_terminal()) {
      const auto m = d.random_move(rng);
      REQUIRE(gsearch::is_legal(d, m));
      d.apply(m);
    }
  }
}
