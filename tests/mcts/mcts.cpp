// The MCTS driver: it finds wins, is reproducible, keeps its tree, respects its budgets.
#include "gsearch/mcts/mcts.hpp"

#include <doctest/doctest.h>

#include "amazons/rules/decision.hpp"
#include "support/mnk.hpp"

using test_games::TicTacToe;
namespace mcts = gsearch::mcts;

namespace {
TicTacToe play(std::initializer_list<int> cells) {
  TicTacToe g;
  for (int c : cells) g.apply({static_cast<std::uint8_t>(c)});
  return g;
}
}  // namespace

TEST_CASE("UCT finds the winning move and the necessary block in tic-tac-toe") {
  // X: 0, 1; O: 3, 4; X to move wins with 2.
  mcts::Search<TicTacToe> search({.seed = 1});
  search.set_root(play({0, 3, 1, 4}));
  search.run(gsearch::Budget::iters(2000));
  CHECK(search.best_move().cell == 2);
  // X: 0, 8; O: 4, 3 ... O threatens 3-4-5; X must block 5.
  search.set_root(play({0, 4, 8, 3}));
  search.run(gsearch::Budget::iters(4000));
  CHECK(search.best_move().cell == 5);
}

TEST_CASE("each iteration adds one node until the tree is exhausted; budgets in nodes") {
  // Far from the end of the game, every iteration adds exactly one node.
  mcts::Search<amazons::DecisionPosition> search({.seed = 2});
  search.set_root(amazons::DecisionPosition{amazons::Position{}});
  const auto stats = search.run(gsearch::Budget::iters(500));
  CHECK(stats.iterations == 500);
  CHECK(stats.nodes_added == 500);
  CHECK(search.tree().visited_count() == 501);  // + the root
  const auto more = search.run(gsearch::Budget::node_count(100));
  CHECK(more.nodes_added == 100);
  CHECK(more.iterations == 100);
  // Near the end: iterations that end on known terminal nodes add nothing, and a node
  // budget still stops once enough nodes were added.
  mcts::Search<TicTacToe> ttt({.seed = 2});
  ttt.set_root(play({0, 4, 8, 2, 6, 3}));  // X to move, three empty cells
  const auto small = ttt.run(gsearch::Budget::iters(50));
  CHECK(small.nodes_added < 50);
  CHECK(ttt.tree().visited_count() == small.nodes_added + 1);
}

TEST_CASE("same seed and budget give the same tree and move; another seed may differ") {
  const amazons::DecisionPosition start{
      amazons::Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1")};
  auto run = [&](std::uint64_t seed) {
    mcts::Search<amazons::DecisionPosition> s({.seed = seed});
    s.set_root(start);
    s.run(gsearch::Budget::iters(3000));
    std::vector<std::uint32_t> visits;
    for (const auto& c : s.root_children()) visits.push_back(c.visits);
    return std::pair{s.principal_variation(), visits};
  };
  CHECK(run(7) == run(7));
  CHECK(run(7).second != run(8).second);
}

TEST_CASE("the decision model needs nothing special: MCTS finds a winning turn") {
  //   4  .  .  x  B        Black's queen on d4 has two empty neighbours, c3 and d3.
  //   3  .  .  .  .        White's only winning turn is a1-c3/d3: the queen takes c3 and
  //   2  .  .  .  .        the arrow d3, and Black cannot move. Found through three plies
  //   1  W  .  .  .        of one player's decisions.
  const auto pos = amazons::Position::from_fen("2*q/4/4/Q3 w - - 0 1");
  mcts::Search<amazons::DecisionPosition> search({.seed = 3});
  search.set_root(amazons::DecisionPosition{pos});
  search.run(gsearch::Budget::iters(20000));
  amazons::DecisionPosition d{pos};
  for (const auto& m : search.principal_variation(3)) d.apply(m);
  REQUIRE(d.stage() == amazons::Stage::kQueen);
  CHECK(d.position().fen() == "2*q/2Q*/4/4 b - - 0 1");
  CHECK(d.is_terminal());  // Black, to move, cannot move: White has won
}

TEST_CASE("advance() keeps the subtree of a visited child, else starts afresh") {
  mcts::Search<TicTacToe> search({.seed = 4});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(1000));
  const auto best = search.best_move();
  std::uint32_t child_visits = 0;
  for (const auto& c : search.root_children())
    if (c.move == best) child_visits = c.visits;
  CHECK(search.advance(best));
  CHECK(search.tree().root().visits == child_visits);
  CHECK(search.root_state() == play({best.cell}));
  mcts::Search<TicTacToe> fresh({.seed = 4, .reuse_tree = false});
  fresh.set_root(TicTacToe{});
  fresh.run(gsearch::Budget::iters(100));
  CHECK_FALSE(fresh.advance(fresh.best_move()));
  CHECK(fresh.tree().size() == 1);
}

TEST_CASE("max_nodes caps the arena: leaves are then evaluated without expansion") {
  mcts::Search<amazons::Position> search({.seed = 5, .max_nodes = 5000});
  search.set_root(amazons::Position{});
  search.run(gsearch::Budget::iters(300));
  CHECK(search.tree().size() <= 5000);
  CHECK(search.tree().root().visits == 300);
}

TEST_CASE("a normalising search writes objectives in [0, 1]") {
  mcts::Search<TicTacToe> search({.seed = 6, .normalize_every = 100, .normalize_at_end = true});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(1000));
  const auto& obj = search.tree().objective();
  REQUIRE(obj.size() == search.tree().size());
  for (float v : obj) {
    CHECK(v >= 0.0f);
    CHECK(v <= 1.0f);
  }
}

TEST_CASE("PUCT with priors, progressive widening and a cut-off evaluation compose") {
  // Prior: prefer the centre and corners; widening opens 2 children, +2 every 50 visits.
  struct Prior {
    void operator()(const TicTacToe&, const gsearch::MoveListOf<TicTacToe>& moves, float* p) const {
      for (std::size_t i = 0; i < moves.size(); ++i)
        p[i] = moves[i].cell == 4 ? 0.5f : moves[i].cell % 2 == 0 ? 0.1f : 0.025f;
    }
  };
  struct Zero {
    double operator()(const TicTacToe&) const { return 0.0; }
  };
  using S = mcts::Search<TicTacToe, mcts::Puct, mcts::Expansion<Prior>, mcts::CutoffPlayout<Zero>>;
  S search({.seed = 9}, {}, {.widen_initial = 2, .widen_step = 2, .widen_every = 50}, {.plies = 2});
  search.set_root(play({0, 3, 1, 4}));
  search.run(gsearch::Budget::iters(3000));
  CHECK(search.best_move().cell == 2);
}

TEST_CASE("a node budget ends even when the tree runs out of new nodes") {
  // X to move with three empty cells. Leaves are never expanded (threshold out of reach), so
  // after the three root children no iteration adds a node, and none is terminal: the tree
  // is never exhausted. A budget of 1000 nodes cannot be met; the search stops after exactly
  // iterations_per_node * 1000 iterations.
  mcts::Search<TicTacToe, mcts::Uct, mcts::Expansion<>> search(
      {.seed = 8, .iterations_per_node = 10}, {}, {.threshold = 1000000});
  search.set_root(play({0, 4, 8, 2, 6, 3}));
  const auto stats = search.run(gsearch::Budget::node_count(1000));
  CHECK(stats.iterations == 10000);
  CHECK(stats.nodes_added == 3);
  CHECK(!search.tree().root().exhausted);
  CHECK(search.best_move().cell == 7);  // X completes 6-7-8
}

TEST_CASE("a search stops once the whole game tree below its root is explored") {
  // X to move with two empty cells after O's mistake: every line ends within two plies.
  mcts::Search<TicTacToe, mcts::Uct> search({.seed = 8}, {.c = 10.0});
  search.set_root(play({0, 4, 8, 2, 6, 3, 5}));
  const auto stats = search.run(gsearch::Budget::iters(100000));
  CHECK(search.tree().root().exhausted);
  CHECK(stats.iterations < 100000);
}
