#include "gsearch/testing/perft.hpp"

#include <doctest/doctest.h>

#include "support/mnk.hpp"

using test_games::TicTacToe;

TEST_CASE("tic-tac-toe perft matches the known counts") {
  // Sequences of k moves from the empty board: 9, 72, 504, 3024, 15120, and at depth 9 the
  // 255,168 complete games are the leaves still alive (games ending earlier stop counting).
  const TicTacToe g;
  CHECK(gsearch::testing::perft(g, 0) == 1);
  CHECK(gsearch::testing::perft(g, 1) == 9);
  CHECK(gsearch::testing::perft(g, 2) == 72);
  CHECK(gsearch::testing::perft(g, 3) == 504);
  CHECK(gsearch::testing::perft(g, 4) == 3024);
  CHECK(gsearch::testing::perft(g, 5) == 15120);
  // 5-move sequences: none ends before move 5; at move 5, 1440 of them are X wins, so 6-move
  // sequences number (15120 - 1440) * 4 = 54720.
  CHECK(gsearch::testing::perft(g, 6) == 54720);
}

TEST_CASE("perft_divide sums to perft") {
  const TicTacToe g;
  std::uint64_t sum = 0;
  const auto parts = gsearch::testing::perft_divide(g, 4);
  CHECK(parts.size() == 9);
  for (const auto& [m, n] : parts) sum += n;
  CHECK(sum == gsearch::testing::perft(g, 4));
}
