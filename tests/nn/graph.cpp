#include "gsearch/nn/graph.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace nn = gsearch::nn;
using V = std::vector<std::int32_t>;

TEST_CASE("from_edges: undirected edges both ways, sorted, merged, self loops dropped") {
  const std::vector<nn::Edge> edges = {{0, 1}, {2, 1}, {1, 0}, {2, 2}, {0, 3}};
  const auto g = nn::CsrGraph::from_edges(4, edges, nn::EdgeKind::kUndirected);
  CHECK(g.num_nodes() == 4);
  CHECK(g.num_edges() == 6);
  CHECK(g.offsets() == V{0, 2, 4, 5, 6});
  CHECK(g.indices() == V{1, 3, 0, 2, 1, 0});
  const auto n1 = g.neighbours(1);
  CHECK(V(n1.begin(), n1.end()) == V{0, 2});
}

TEST_CASE("from_edges: a directed edge src → dst makes dst aggregate from src") {
  const std::vector<nn::Edge> edges = {{0, 1}, {0, 2}, {2, 1}};
  const auto g = nn::CsrGraph::from_edges(3, edges, nn::EdgeKind::kDirected);
  CHECK(g.offsets() == V{0, 0, 2, 3});
  CHECK(g.indices() == V{0, 2, 0});
}

TEST_CASE("from_parents builds the undirected tree") {
  const auto g = nn::CsrGraph::from_parents(V{0, 0, 0, 1});
  CHECK(g.offsets() == V{0, 2, 4, 5, 6});
  CHECK(g.indices() == V{1, 2, 0, 3, 0, 1});
}

TEST_CASE("random_tree: a tree on n nodes, the same for the same seed") {
  gsearch::Rng a(8), b(8), c(9);
  const auto t = nn::CsrGraph::random_tree(40, a);
  CHECK(t == nn::CsrGraph::random_tree(40, b));
  CHECK(t != nn::CsrGraph::random_tree(40, c));
  CHECK(t.num_nodes() == 40);
  CHECK(t.num_edges() == 2 * 39);     // n − 1 undirected edges
  std::vector<bool> seen(40, false);  // connected: every node reached from the root
  std::vector<std::int32_t> stack = {0};
  seen[0] = true;
  while (!stack.empty()) {
    const auto i = stack.back();
    stack.pop_back();
    for (const auto j : t.neighbours(i))
      if (!seen[std::size_t(j)]) seen[std::size_t(j)] = true, stack.push_back(j);
  }
  CHECK(std::count(seen.begin(), seen.end(), true) == 40);
  CHECK(nn::CsrGraph::random_tree(0, a).num_nodes() == 0);
}

TEST_CASE("bad graphs are refused with a message") {
  const std::vector<nn::Edge> out_of_range = {{0, 3}};
  try {
    (void)nn::CsrGraph::from_edges(3, out_of_range);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "graph: edge 0 (0 -> 3) has an end outside [0, 3)");
  }
  CHECK_THROWS_AS(nn::CsrGraph::from_edges(-1, {}), std::invalid_argument);
  CHECK_THROWS_AS(nn::CsrGraph(V{}, V{}), std::invalid_argument);
  CHECK_THROWS_AS(nn::CsrGraph(V{1, 1}, V{0}), std::invalid_argument);
  CHECK_THROWS_AS(nn::CsrGraph(V{0, 2}, V{0}), std::invalid_argument);
  try {  // decreasing offsets are refused before any index is read through them
    nn::CsrGraph(V{0, 2, 1}, V{1});
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "graph: offsets decrease at node 1");
  }
  try {
    nn::CsrGraph(V{0, 1, 1}, V{0});
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "graph: node 0 lists neighbour 0: a self loop (the GAT layer adds self loops itself)");
  }
  CHECK_THROWS_AS(nn::CsrGraph(V{0, 2, 2, 2}, V{2, 1}), std::invalid_argument);  // unsorted
  CHECK_THROWS_AS(nn::CsrGraph(V{0, 2, 2}, V{1, 1}), std::invalid_argument);     // twice
  CHECK_THROWS_AS(nn::CsrGraph(V{0, 1, 1}, V{5}), std::invalid_argument);        // range
  CHECK_NOTHROW(nn::CsrGraph(V{0, 1, 2}, V{1, 0}));
}

TEST_CASE("GraphBatch: block-diagonal, node offsets, reusable") {
  const auto a = nn::CsrGraph::from_parents(V{0, 0, 1});  // 3 nodes: 0-1-2
  const auto b = nn::CsrGraph::from_parents(V{0, 0});     // 2 nodes: 0-1
  const std::vector<nn::CsrGraph> graphs = {a, b, nn::CsrGraph{}, a};
  nn::GraphBatch batch(graphs);
  CHECK(batch.size() == 4);
  CHECK(batch.node_offsets() == V{0, 3, 5, 5, 8});
  const auto& g = batch.graph();
  CHECK(g.num_nodes() == 8);
  CHECK(g.offsets() == V{0, 1, 3, 4, 5, 6, 7, 9, 10});
  CHECK(g.indices() == V{1, 0, 2, 1, 4, 3, 6, 5, 7, 6});
  CHECK(batch.nodes_of(1) == std::pair<std::int32_t, std::int32_t>{3, 2});
  CHECK(batch.nodes_of(2).second == 0);
  CHECK_THROWS_AS((void)batch.nodes_of(4), std::out_of_range);
  CHECK(nn::CsrGraph(g.offsets(), g.indices()) == g);  // a valid CSR graph
  batch.clear();
  CHECK(batch.size() == 0);
  CHECK(batch.graph() == nn::CsrGraph{});
  batch.add(b);
  CHECK(batch.graph() == b);
}
