// Implicit minimax backups: the values against hand-built trees (both patterns of movers, a
// best child that falls, priors out of range), against a full recomputation after every
// iteration of real searches (with tree reuse, which renumbers nodes), the selection's blend,
// and a search that finds tic-tac-toe's winning move.
#include "gsearch/mcts/implicit.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "gsearch/mcts/mcts.hpp"
#include "support/mnk.hpp"

using gsearch::NodeId;
using test_games::TicTacToe;
namespace mcts = gsearch::mcts;

static_assert(sizeof(mcts::Node<int, mcts::MinimaxStats>) == sizeof(mcts::Node<int>) + 12);
static_assert(mcts::BackupPolicy<mcts::ImplicitBackup, int>);
static_assert(mcts::SelectionPolicy<mcts::ImplicitUct, mcts::Tree<int, mcts::MinimaxStats>>);

namespace implicit_test {
TicTacToe ttt_after(std::initializer_list<int> cells) {
  TicTacToe g;
  for (int c : cells) g.apply({static_cast<std::uint8_t>(c)});
  return g;
}

// A made-up heuristic value of each move in [-1.5, 1.5] (some outside [-1, 1]), fixed by the
// position and the move.
struct HashPrior {
  double operator()(const TicTacToe& g, const TicTacToe::Move& m) const {
    std::uint64_t h = (g.hash() + m.cell + 1) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    return static_cast<double>(h % 3001) / 1000.0 - 1.5;
  }
};

using Expand = mcts::Expansion<mcts::PerMovePrior<HashPrior>>;
using ImplicitSearch =
    mcts::Search<TicTacToe, mcts::ImplicitUct, Expand, mcts::RandomPlayout, mcts::ImplicitBackup>;

// The implicit minimax value of node n for its mover, recomputed from the priors up.
template <class Tree>
double recompute(const Tree& tree, NodeId n) {
  const auto& node = tree[n];
  if (!node.expanded || node.num_children == 0)
    return std::clamp(static_cast<double>(node.prior), -1.0, 1.0);
  double best = -2;
  for (NodeId c : tree.children(n)) best = std::max(best, recompute(tree, c));
  return tree[node.first_child].mover == node.mover ? best : -best;
}

// Every expanded node that a backup has reached holds its recomputed value.
template <class Tree>
bool all_consistent(const Tree& tree) {
  for (NodeId n = 0; n < tree.size(); ++n) {
    const auto& node = tree[n];
    if (!node.expanded || node.num_children == 0 || !node.data.known) continue;
    if (node.data.tau != static_cast<float>(recompute(tree, n))) return false;
  }
  return true;
}
}  // namespace implicit_test

TEST_CASE("implicit minimax: each node keeps the best of its children's values, for its mover") {
  // root (player 0 to move; mover 1) -> 1, 2, 3 (mover 0); 2 -> 4, 5 (mover 1).
  mcts::Tree<int, mcts::MinimaxStats> t;
  t[0].mover = 1;
  const NodeId first = t.add_children(0, 3, 0);
  t[first].prior = 0.1f, t[first + 1].prior = 0.5f, t[first + 2].prior = -0.2f;
  const NodeId below = t.add_children(2, 2, 1);
  t[below].prior = 0.3f, t[below + 1].prior = 0.9f;
  const mcts::ImplicitBackup backup;
  backup.backup(t, mcts::Iteration<int>{below + 1, 0.0, 0});
  CHECK(t[2].data.known == 1);
  CHECK(t[2].data.tau == doctest::Approx(-0.9));  // player 1's best reply leaves 0 at -0.9
  CHECK(t[0].data.tau == doctest::Approx(-0.1));  // player 0's best is child 1 (0.1)
  CHECK(mcts::implicit_value(t, 1) == doctest::Approx(0.1));  // a slot: its prior
  CHECK(t[0].visits == 0);  // visits and means are the driver's, not the policy's

  // The best child improves: O(1), and the root follows. (Priors do not change in a search;
  // a changed prior here stands for a new value below the child.)
  t[1].prior = 0.7f;
  backup.backup(t, mcts::Iteration<int>{1, 0.0, 0});
  CHECK(t[0].data.tau == doctest::Approx(-0.7));
  // The best child falls: the node rescans and finds the next best.
  t[1].prior = -0.8f;
  backup.backup(t, mcts::Iteration<int>{1, 0.0, 0});
  CHECK(t[0].data.tau == doctest::Approx(0.2));  // child 3 (-0.2) is the best now
  // A prior beyond [-1, 1] (a move a game scores 2 to rank it first) counts as 1.
  t[3].prior = 2.0f;
  backup.backup(t, mcts::Iteration<int>{3, 0.0, 0});
  CHECK(t[0].data.tau == doctest::Approx(-1.0));
}

TEST_CASE("implicit minimax: where the same player moves again, values are not negated") {
  // The Amazons decision model: player 0 picks a queen, then its square (movers 0, 0).
  mcts::Tree<int, mcts::MinimaxStats> t;
  t[0].mover = 1;
  const NodeId first = t.add_children(0, 2, 0);
  t[first].prior = 0.0f, t[first + 1].prior = -0.5f;
  const NodeId below = t.add_children(1, 2, 0);
  t[below].prior = 0.6f, t[below + 1].prior = 0.4f;
  mcts::ImplicitBackup{}.backup(t, mcts::Iteration<int>{below, 0.0, 0});
  CHECK(t[1].data.tau == doctest::Approx(0.6));
  CHECK(t[0].data.tau == doctest::Approx(-0.6));
}

TEST_CASE("implicit minimax values match a full recomputation through searches and tree reuse") {
  for (std::uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    implicit_test::ImplicitSearch search({.seed = seed}, {.c = 0.5, .alpha = 0.5},
                                         implicit_test::Expand{.threshold = 2});
    search.set_root(TicTacToe{});
    for (int move = 0; move < 4; ++move) {
      for (int i = 0; i < 300; ++i) {
        search.run(gsearch::Budget::iters(1));
        REQUIRE(implicit_test::all_consistent(search.tree()));
      }
      search.advance(search.best_move());  // reuse renumbers the kept subtree
      REQUIRE(implicit_test::all_consistent(search.tree()));
    }
  }
}

TEST_CASE("ImplicitUct: alpha 0 is UCT; alpha 1 follows the implicit values") {
  mcts::Tree<int, mcts::MinimaxStats> t;
  t[0].mover = 1;
  t.add_children(0, 3, 0);
  t[0].visits = 30;
  t[1].visits = 10, t[1].q = 0.5f, t[1].prior = -0.5f;
  t[2].visits = 10, t[2].q = 0.1f, t[2].prior = 0.9f;
  t[3].visits = 10, t[3].q = 0.3f, t[3].prior = 0.0f;
  const mcts::Uct uct{.c = 0.3};
  CHECK(mcts::ImplicitUct{.c = 0.3, .alpha = 0.0}.select(t, 0, 1, 3) == uct.select(t, 0, 1, 3));
  CHECK(mcts::ImplicitUct{.c = 0.3, .alpha = 0.0}.select(t, 0, 1, 3) == 1);
  CHECK(mcts::ImplicitUct{.c = 0.3, .alpha = 1.0}.select(t, 0, 1, 3) == 2);
  CHECK(mcts::ImplicitUct{.c = 0.3, .alpha = 0.5}.select(t, 0, 1, 3) ==
        2);  // 0.5 against 0 and 0.15
  t[3].visits = 0;
  CHECK(mcts::ImplicitUct{.c = 0.3, .alpha = 1.0}.select(t, 0, 1, 3) == 3);  // unvisited first
}

TEST_CASE("ImplicitUct: with fade, the implicit value's weight falls with the child's visits") {
  const mcts::ImplicitUct fading{.c = 0.0, .alpha = 0.6, .fade = 10.0};
  CHECK(fading.weight(0) == doctest::Approx(0.6));
  CHECK(fading.weight(10) == doctest::Approx(0.3));
  CHECK(fading.weight(990) == doctest::Approx(0.006));
  CHECK(mcts::ImplicitUct{.alpha = 0.6}.weight(990) == 0.6);  // fade 0: the paper's fixed α

  mcts::Tree<int, mcts::MinimaxStats> t;
  t[0].mover = 1;
  t.add_children(0, 3, 0);
  t[0].visits = 1030;
  t[1].visits = 10, t[1].q = 0.5f, t[1].prior = -0.5f;   // 0.5·0.5 + 0.5·(−0.5) = 0
  t[2].visits = 1000, t[2].q = 0.1f, t[2].prior = 0.9f;  // ≈ 0.1: the mean rules
  t[3].visits = 20, t[3].q = 0.0f, t[3].prior = 0.5f;    // (1/3)·0.5 ≈ 0.17
  CHECK(mcts::ImplicitUct{.c = 0.0, .alpha = 1.0}.select(t, 0, 1, 3) == 2);
  CHECK(mcts::ImplicitUct{.c = 0.0, .alpha = 1.0, .fade = 10.0}.select(t, 0, 1, 3) == 3);
}

TEST_CASE("implicit minimax search finds the winning move and the necessary block") {
  implicit_test::ImplicitSearch search({.seed = 1}, {.c = 1.0, .alpha = 0.3});
  search.set_root(implicit_test::ttt_after({0, 3, 1, 4}));  // X wins with 2
  search.run(gsearch::Budget::iters(2000));
  CHECK(search.best_move().cell == 2);
  search.set_root(implicit_test::ttt_after({0, 4, 8, 3}));  // O threatens 3-4-5: X must block 5
  search.run(gsearch::Budget::iters(4000));
  CHECK(search.best_move().cell == 5);
}
