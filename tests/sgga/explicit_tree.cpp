#include "gsearch/sgga/explicit_tree.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

using gsearch::kNoNode;
using gsearch::NodeId;
using gsearch::sgga::ExplicitTree;

static_assert(gsearch::TreeView<ExplicitTree>);

TEST_CASE("ExplicitTree: parents, children, depths and objectives of a small tree") {
  //   0 ── 1 ── 3 ── 5
  //   │    └─── 4
  //   └─── 2
  const ExplicitTree tree({kNoNode, 0, 0, 1, 1, 3}, {0.5, 0.4, 0.1, 0.9, 0.2, -3.0});
  REQUIRE(tree.size() == 6);
  CHECK(tree.parent(0) == kNoNode);
  CHECK(tree.parent(5) == 3);
  const std::vector<NodeId> root_children(tree.children(0).begin(), tree.children(0).end());
  CHECK(root_children == std::vector<NodeId>{1, 2});
  const std::vector<NodeId> one(tree.children(1).begin(), tree.children(1).end());
  CHECK(one == std::vector<NodeId>{3, 4});
  CHECK(tree.children(2).empty());
  CHECK(tree.children(5).empty());
  CHECK(tree.depth(0) == 0);
  CHECK(tree.depth(4) == 2);
  CHECK(tree.depth(5) == 3);
  CHECK(gsearch::max_depth(tree) == 3);
  CHECK(tree.objective(5) == -3.0);
}

TEST_CASE("ExplicitTree: a root alone, and set_objective") {
  ExplicitTree tree({kNoNode}, {1.0});
  CHECK(tree.size() == 1);
  CHECK(tree.children(0).empty());
  CHECK(gsearch::max_depth(tree) == 0);
  tree.set_objective(0, 2.0);
  CHECK(tree.objective(0) == 2.0);
  CHECK_THROWS_WITH_AS(tree.set_objective(0, std::numeric_limits<double>::infinity()),
                       "ExplicitTree: the objective of node 0 is not finite",
                       std::invalid_argument);
}

TEST_CASE("ExplicitTree: bad input gets a one-line message naming the problem") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS(ExplicitTree({}, {}), "ExplicitTree: the tree is empty (no root)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({kNoNode, 0}, {1.0}),
                       "ExplicitTree: 2 parents but 1 objective values", std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({0, 0}, {1.0, 2.0}),
                       "ExplicitTree: node 0 is the root, its parent must be kNoNode",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({kNoNode, 2, 0}, {0.0, 0.0, 0.0}),
                       "ExplicitTree: node 1 has parent 2; a parent must have a smaller id than "
                       "its child",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({kNoNode, 1}, {0.0, 0.0}),
                       "ExplicitTree: node 1 has parent 1; a parent must have a smaller id than "
                       "its child",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({kNoNode, kNoNode}, {0.0, 0.0}),
                       "ExplicitTree: node 1 has parent kNoNode; a parent must have a smaller id "
                       "than its child",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(ExplicitTree({kNoNode, 0}, {0.0, nan}),
                       "ExplicitTree: the objective of node 1 is not finite",
                       std::invalid_argument);
}
