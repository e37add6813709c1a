// The Game concept and its optional capabilities, on the tests' m,n,k game.
#include "gsearch/core/game.hpp"

#include <doctest/doctest.h>

#include "support/mnk.hpp"

using test_games::TicTacToe;

static_assert(gsearch::Game<TicTacToe>);
static_assert(gsearch::UndoableGame<TicTacToe>);
static_assert(gsearch::RehashableGame<TicTacToe>);
static_assert(!gsearch::EvaluableGame<TicTacToe>);
static_assert(!gsearch::CountableGame<TicTacToe>);
static_assert(!gsearch::Game<int>);

namespace {
struct NoHash {  // everything but hash()
  struct Move {
    int x;
    friend bool operator==(const Move&, const Move&) = default;
  };
  static constexpr std::size_t max_moves = 1;
  gsearch::Player to_move() const { return 0; }
  void legal_moves(gsearch::MoveList<Move, 1>& l) const { l.clear(); }
  void apply(const Move&) {}
  bool is_terminal() const { return true; }
  double result(gsearch::Player) const { return 0; }
  friend bool operator==(const NoHash&, const NoHash&) = default;
};
static_assert(!gsearch::Game<NoHash>);
}  // namespace

TEST_CASE("tic-tac-toe: a won game is terminal with the right result; play() and is_legal()") {
  TicTacToe g;
  CHECK(g.to_move() == 0);
  // X: 0, 1, 2 (top row); O: 3, 4.
  for (int cell : {0, 3, 1, 4, 2}) {
    REQUIRE(gsearch::is_legal(g, {static_cast<std::uint8_t>(cell)}));
    gsearch::play(g, {static_cast<std::uint8_t>(cell)});
  }
  CHECK(g.is_terminal());
  CHECK(g.result(0) == 1.0);
  CHECK(g.result(1) == -1.0);
  CHECK_FALSE(gsearch::is_legal(g, {8}));
  gsearch::MoveListOf<TicTacToe> moves;
  g.legal_moves(moves);
  CHECK(moves.empty());
}

TEST_CASE("opponent() flips the player") {
  CHECK(gsearch::opponent(0) == 1);
  CHECK(gsearch::opponent(1) == 0);
}
