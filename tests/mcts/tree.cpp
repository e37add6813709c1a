#include "gsearch/mcts/tree.hpp"

#include <doctest/doctest.h>

#include <vector>

using gsearch::kNoNode;
using gsearch::NodeId;
using Tree = gsearch::mcts::Tree<int>;

static_assert(sizeof(gsearch::mcts::Node<int>) <= 32, "a node must fit in 32 bytes");
static_assert(gsearch::TreeView<gsearch::mcts::TreeViewOf<int>>);

namespace {
// root -> {1, 2, 3}; 1 -> {4, 5}; visited: 0, 1, 3, 4.
Tree small_tree() {
  Tree t;
  const NodeId first = t.add_children(0, 3, 0);
  CHECK(first == 1);
  t.add_children(1, 2, 1);
  for (NodeId n = 0; n < t.size(); ++n) t[n].move = static_cast<int>(n * 10);
  for (NodeId n : {0u, 1u, 3u, 4u}) t[n].visits = 1;
  t[4].q = 0.5f;
  return t;
}
}  // namespace

TEST_CASE("children are one contiguous range of slots") {
  const Tree t = small_tree();
  CHECK(t.size() == 6);
  std::vector<NodeId> kids;
  for (NodeId c : t.children(0)) kids.push_back(c);
  CHECK(kids == std::vector<NodeId>{1, 2, 3});
  CHECK(t[4].parent == 1);
  CHECK(t[1].mover == 0);
  CHECK(t[4].mover == 1);
  CHECK(t.children(2).empty());
  CHECK(t.visited_count() == 4);
}

TEST_CASE("reroot keeps the subtree, breadth-first, with a parentless root") {
  Tree t = small_tree();
  std::vector<gsearch::mcts::Node<int>> scratch;
  t.reroot(1, scratch);
  CHECK(t.size() == 3);
  CHECK(t[0].move == 10);
  CHECK(t[0].parent == kNoNode);
  CHECK(t[1].move == 40);
  CHECK(t[2].move == 50);
  CHECK(t[1].parent == 0);
  CHECK(t[1].q == 0.5f);
}

TEST_CASE("TreeViewOf sees the visited nodes only, numbered breadth-first") {
  const Tree t = small_tree();
  const gsearch::mcts::TreeViewOf<int> view(t);
  CHECK(view.size() == 4);
  CHECK(view.tree_id(0) == 0);
  CHECK(view.tree_id(1) == 1);
  CHECK(view.tree_id(2) == 3);
  CHECK(view.tree_id(3) == 4);
  CHECK(view.parent(3) == 1);
  CHECK(view.depth(3) == 2);
  CHECK(view.children(0).size() == 2);
  CHECK(view.children(1).size() == 1);
  CHECK(view.objective(3) == doctest::Approx(0.75));  // (q + 1) / 2
  CHECK(gsearch::max_depth(view) == 2);
}

TEST_CASE("TreeViewOf with a filter leaves out the refused children and their subtrees") {
  // root (10 visits) -> 1 (6 visits) -> 4 (5 visits); root -> 3 (2 visits).
  Tree t = small_tree();
  t[0].visits = 10;
  t[1].visits = 6;
  t[3].visits = 2;
  t[4].visits = 5;
  const gsearch::mcts::TreeViewOf<int> share30(t, gsearch::mcts::KeepVisitShare{0.3});
  CHECK(share30.size() == 3);  // 3 has 2 < 0.3 · 10 visits: left out
  CHECK(share30.tree_id(1) == 1);
  CHECK(share30.tree_id(2) == 4);
  CHECK(share30.children(0).size() == 1);
  const gsearch::mcts::TreeViewOf<int> share90(t, gsearch::mcts::KeepVisitShare{0.9});
  CHECK(share90.size() == 1);  // 1 has 6 < 9 visits: it goes, and 4 below it with it
  const gsearch::mcts::TreeViewOf<int> all(t, gsearch::mcts::KeepVisitShare{0.0});
  CHECK(all.size() == gsearch::mcts::TreeViewOf<int>(t).size());
}

TEST_CASE("prove: a win for the chooser proves the parent; otherwise all children must be") {
  // Root (mover 1: player 0 to move) -> {1, 2, 3} (mover 0); 1 -> {4, 5} (mover 1).
  Tree t = small_tree();
  t.prove(4, -1.0f);  // player 1 loses after 4: node 1 is not proven, 5 is still open
  CHECK(t[4].exhausted);
  CHECK(t[4].q == -1.0f);
  CHECK_FALSE(t[1].exhausted);
  t.prove(5, 1.0f);  // player 1 wins after 5: choosing it, player 1 wins at node 1
  CHECK(t[1].exhausted);
  CHECK(t[1].q == -1.0f);       // for node 1's mover, player 0
  CHECK_FALSE(t[0].exhausted);  // a loss for player 0 there; 2 and 3 are open
  t.prove(2, 0.0f);
  CHECK_FALSE(t[0].exhausted);
  t.prove(3, -0.5f);  // every child proven: player 0's best is the draw at 2
  CHECK(t[0].exhausted);
  CHECK(t[0].q == 0.0f);
}

TEST_CASE("prove: values are read for the right player when the mover does not change") {
  // A turn of two decisions: player 0 chooses at the root and again at node 1.
  Tree t;
  t.add_children(0, 2, 0);
  t.add_children(1, 2, 0);
  t[0].mover = 1;
  t.prove(3, 1.0f);  // the second decision wins for player 0
  CHECK(t[1].exhausted);
  CHECK(t[1].q == 1.0f);  // same mover: not negated
  CHECK(t[0].exhausted);
  CHECK(t[0].q == -1.0f);  // a loss for player 1, who moved into the root
}

TEST_CASE("TreeViewOf: a node added since the last normalising pass reads its q") {
  Tree t = small_tree();
  t.objective().assign(4, 0.25f);  // a pass when the tree had 4 nodes
  t.add_children(3, 1, 1);         // node 6, visited since
  t[6].visits = 1;
  t[6].q = 0.5f;
  const gsearch::mcts::TreeViewOf<int> view(t);
  REQUIRE(view.size() == 5);
  CHECK(view.objective(2) == doctest::Approx(0.25));  // node 3: from the pass
  CHECK(view.tree_id(4) == 6);
  CHECK(view.objective(4) == doctest::Approx(0.75));  // node 6: (q + 1) / 2
}
