// Evaluation policies: playouts to the end, cut-off playouts with the parity rule.
#include "gsearch/mcts/evaluate.hpp"

#include <doctest/doctest.h>

#include "support/mnk.hpp"

using test_games::TicTacToe;

namespace {

// A counter game for checking where playouts stop: each ply adds 1; the game ends at 100.
// With `split`, a turn is three plies by the same player (like the Amazons decision model).
template <bool Split>
struct Counter {
  struct Move {
    std::uint8_t x = 0;
    friend bool operator==(const Move&, const Move&) = default;
  };
  static constexpr std::size_t max_moves = 1;
  int ply = 0;
  gsearch::Player to_move() const { return Split ? (ply / 3) % 2 : ply % 2; }
  void legal_moves(gsearch::MoveList<Move, 1>& l) const {
    l.clear();
    if (ply < 100) l.push_back({});
  }
  void apply(const Move&) { ++ply; }
  bool is_terminal() const { return ply >= 100; }
  double result(gsearch::Player p) const { return p == 0 ? 1.0 : -1.0; }
  std::uint64_t hash() const { return static_cast<std::uint64_t>(ply); }
  bool mid_turn() const requires Split { return ply % 3 != 0; }
  friend bool operator==(const Counter&, const Counter&) = default;
};

// The evaluation records where it was called: +ply for the player to move.
struct PlyEval {
  template <class G>
  double operator()(const G& g) const {
    return g.ply / 1000.0;
  }
};

}  // namespace

TEST_CASE("a random playout ends with the game's result for the perspective") {
  gsearch::Rng rng(1);
  const gsearch::mcts::RandomPlayout playout;
  for (int i = 0; i < 100; ++i) {
    TicTacToe g;
    const double v = playout.evaluate(g, 0, rng);
    CHECK(g.is_terminal());
    CHECK(v == g.result(0));
  }
  Counter<false> c;
  CHECK(gsearch::mcts::RandomPlayout{.max_plies = 10}.evaluate(c, 0, rng) == 0.0);
  CHECK(c.ply == 10);
}

TEST_CASE("cut-off playouts stop after k plies, with the same player to move (parity)") {
  gsearch::Rng rng(1);
  const gsearch::mcts::CutoffPlayout<PlyEval> cut{.plies = 6, .parity = true};
  for (int start : {0, 1, 2, 3}) {
    Counter<false> c{.ply = start};
    const double v = cut.evaluate(c, 0, rng);
    // Stops at the first ply >= start + 6 with player 0 to move (even ply).
    const int expected = start % 2 == 0 ? start + 6 : start + 7;
    CHECK(c.ply == expected);
    CHECK(v == doctest::Approx(expected / 1000.0));  // player 0 to move: value as given
  }
  Counter<false> c{.ply = 1};
  const gsearch::mcts::CutoffPlayout<PlyEval> no_parity{.plies = 6, .parity = false};
  CHECK(no_parity.evaluate(c, 0, rng) == doctest::Approx(-7 / 1000.0));  // player 1 to move
  CHECK(c.ply == 7);
}

TEST_CASE("with turns split into decisions, cut-off playouts stop at a turn boundary") {
  gsearch::Rng rng(1);
  const gsearch::mcts::CutoffPlayout<PlyEval> cut{.plies = 6, .parity = true};
  for (int start = 0; start < 12; ++start) {
    Counter<true> c{.ply = start};
    (void)cut.evaluate(c, 0, rng);
    CHECK(c.ply % 6 == 0);  // a turn of player 0 starts every 6 plies
    CHECK(c.ply >= start + 6);
    CHECK(c.ply < start + 12);
  }
  Counter<true> end{.ply = 97};
  CHECK(cut.evaluate(end, 1, rng) == -1.0);  // the game ends first: player 1 lost
}

TEST_CASE("static evaluation reads the evaluator for the perspective") {
  gsearch::Rng rng(1);
  const gsearch::mcts::StaticEvaluation<PlyEval> eval;
  Counter<false> c{.ply = 3};
  CHECK(eval.evaluate(c, 1, rng) == doctest::Approx(0.003));
  CHECK(eval.evaluate(c, 0, rng) == doctest::Approx(-0.003));
}
