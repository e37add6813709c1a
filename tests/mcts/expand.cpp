// Expansion policies: priors and ordering, forward pruning, progressive widening, filters.
#include "gsearch/mcts/expand.hpp"

#include <doctest/doctest.h>

#include "support/mnk.hpp"

using test_games::TicTacToe;
using Moves = gsearch::MoveListOf<TicTacToe>;

namespace {
// Prior = the cell number: the children come out highest cell first.
struct CellPrior {
  void operator()(const TicTacToe&, const Moves& moves, float* priors) const {
    for (std::size_t i = 0; i < moves.size(); ++i) priors[i] = moves[i].cell;
  }
};
// Keeps the even cells only.
struct EvenCells {
  void operator()(const TicTacToe&, Moves& moves) const {
    Moves kept;
    for (auto m : moves)
      if (m.cell % 2 == 0) kept.push_back(m);
    moves = kept;
  }
};
struct NoCells {
  void operator()(const TicTacToe&, Moves& moves) const { moves.clear(); }
};
}  // namespace

TEST_CASE("ExpandAll: every legal move, generation order, priors 0, everything open") {
  const gsearch::mcts::ExpandAll e;
  Moves moves;
  float priors[9];
  e.children(TicTacToe{}, moves, priors);
  CHECK(moves.size() == 9);
  CHECK(moves[0].cell == 0);
  CHECK(priors[8] == 0.0f);
  CHECK(e.open(0, 9) == 9);
  CHECK(e.expand_threshold() == 1);
}

TEST_CASE("priors sort the children, best first; top_k keeps the best k") {
  gsearch::mcts::Expansion<CellPrior> e;
  Moves moves;
  float priors[9];
  e.children(TicTacToe{}, moves, priors);
  CHECK(moves[0].cell == 8);
  CHECK(moves[8].cell == 0);
  CHECK(priors[0] == 8.0f);
  e.top_k = 3;
  e.children(TicTacToe{}, moves, priors);
  REQUIRE(moves.size() == 3);
  CHECK(moves[2].cell == 6);
  CHECK(priors[2] == 6.0f);
}

TEST_CASE("progressive widening opens k0 children, then k more every m visits") {
  const gsearch::mcts::Expansion<> e{.widen_initial = 5, .widen_step = 5, .widen_every = 1000};
  CHECK(e.open(0, 2000) == 5);
  CHECK(e.open(999, 2000) == 5);
  CHECK(e.open(1000, 2000) == 10);
  CHECK(e.open(5000, 2000) == 30);
  CHECK(e.open(1000000, 12) == 12);
}

TEST_CASE("a candidate filter removes moves, unless it would remove them all") {
  Moves moves;
  float priors[9];
  gsearch::mcts::Expansion<gsearch::mcts::NoPrior, EvenCells>{}.children(TicTacToe{}, moves,
                                                                         priors);
  CHECK(moves.size() == 5);
  gsearch::mcts::Expansion<gsearch::mcts::NoPrior, NoCells>{}.children(TicTacToe{}, moves, priors);
  CHECK(moves.size() == 9);
}

TEST_CASE("PerMovePrior adapts a per-move function") {
  gsearch::mcts::Expansion e{
      .prior = gsearch::mcts::PerMovePrior{[](const TicTacToe&, TicTacToe::Move m) {
        return m.cell == 4 ? 1.0f : 0.0f;  // the centre first
      }}};
  Moves moves;
  float priors[9];
  e.children(TicTacToe{}, moves, priors);
  CHECK(moves[0].cell == 4);
  CHECK(moves[1].cell == 0);  // ties keep generation order
}
