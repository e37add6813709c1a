// gsearch/nn/graph.hpp — sparse graphs in CSR form, and batches of graphs.
//
// A CsrGraph lists, for each node i, the nodes j that i aggregates from (its in-neighbours):
// neighbours(i) = indices[offsets[i] .. offsets[i+1]), sorted ascending, without duplicates
// and without i itself. The GAT layer adds every node's self loop on its own (it attends to
// itself as well as to its neighbours), so graphs never store self loops.
//
//   offsets   (N + 1)   offsets[0] = 0, non-decreasing, offsets[N] = E
//   indices   (E)       in [0, N)
//
// A batch of graphs is one block-diagonal graph: graph g's nodes are numbered
// node_offsets[g] .. node_offsets[g+1] in the batch, and its feature rows are the same rows of
// the stacked feature matrix. Graphs in a batch never exchange messages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace gsearch::nn {

// An edge src → dst: dst aggregates from src (PyTorch Geometric's edge_index column
// [src, dst]).
struct Edge {
  std::int32_t src = 0;
  std::int32_t dst = 0;
};

enum class EdgeKind {
  kDirected,   // src → dst only
  kUndirected  // both ways
};

class CsrGraph {
 public:
  // The graph with no nodes.
  CsrGraph() : offsets_{0} {}

  // A graph from its CSR arrays. Throws std::invalid_argument, naming the first problem,
  // unless the arrays satisfy the invariants above (self loops and duplicates included).
  CsrGraph(std::vector<std::int32_t> offsets, std::vector<std::int32_t> indices)
      : offsets_(std::move(offsets)), indices_(std::move(indices)) {
    validate();
  }

  // A graph on `num_nodes` nodes from an edge list. Self loops in the list are dropped (the
  // GAT layer adds them) and repeated edges are merged. Throws std::invalid_argument for a
  // negative node count or an edge with an end outside [0, num_nodes).
  static CsrGraph from_edges(std::int32_t num_nodes, std::span<const Edge> edges,
                             EdgeKind kind = EdgeKind::kUndirected) {
    if (num_nodes < 0)
      throw std::invalid_argument("graph: negative node count " + std::to_string(num_nodes));
    std::vector<std::pair<std::int32_t, std::int32_t>> pairs;  // (dst, src)
    pairs.reserve(edges.size() * (kind == EdgeKind::kUndirected ? 2 : 1));
    for (std::size_t e = 0; e < edges.size(); ++e) {
      const auto [s, d] = edges[e];
      if (s < 0 || s >= num_nodes || d < 0 || d >= num_nodes)
        throw std::invalid_argument("graph: edge " + std::to_string(e) + " (" + std::to_string(s) +
                                    " -> " + std::to_string(d) + ") has an end outside [0, " +
                                    std::to_string(num_nodes) + ")");
      if (s == d) continue;
      pairs.emplace_back(d, s);
      if (kind == EdgeKind::kUndirected) pairs.emplace_back(s, d);
    }
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    CsrGraph g;
    g.offsets_.assign(static_cast<std::size_t>(num_nodes) + 1, 0);
    g.indices_.reserve(pairs.size());
    for (const auto& [d, s] : pairs) {
      ++g.offsets_[static_cast<std::size_t>(d) + 1];
      g.indices_.push_back(s);
    }
    for (std::size_t i = 1; i < g.offsets_.size(); ++i) g.offsets_[i] += g.offsets_[i - 1];
    return g;
  }

  // The tree whose node i > 0 has parent parents[i] (parents[0] is ignored: the root), as an
  // undirected graph: each node aggregates from its parent and its children. Throws
  // std::invalid_argument for a parent outside [0, N).
  static CsrGraph from_parents(std::span<const std::int32_t> parents) {
    std::vector<Edge> edges;
    edges.reserve(parents.size());
    for (std::size_t i = 1; i < parents.size(); ++i)
      edges.push_back({parents[i], static_cast<std::int32_t>(i)});
    return from_edges(static_cast<std::int32_t>(parents.size()), edges, EdgeKind::kUndirected);
  }

  // A random recursive tree on n nodes, undirected: node i > 0 hangs under a node drawn
  // uniformly from 0..i−1. Same seed, same tree (for tests and benchmarks).
  static CsrGraph random_tree(std::int32_t n, Rng& rng) {
    if (n < 0) throw std::invalid_argument("graph: negative node count " + std::to_string(n));
    std::vector<std::int32_t> parents(static_cast<std::size_t>(n), 0);
    for (std::int32_t i = 1; i < n; ++i)
      parents[static_cast<std::size_t>(i)] =
          static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(i)));
    return from_parents(parents);
  }

  [[nodiscard]] std::int32_t num_nodes() const noexcept {
    return static_cast<std::int32_t>(offsets_.size()) - 1;
  }
  // The number of stored (directed) edges; self loops are not stored.
  [[nodiscard]] std::int32_t num_edges() const noexcept {
    return static_cast<std::int32_t>(indices_.size());
  }
  // The nodes that node i aggregates from, ascending.
  [[nodiscard]] std::span<const std::int32_t> neighbours(std::int32_t i) const noexcept {
    const auto b = static_cast<std::size_t>(offsets_[static_cast<std::size_t>(i)]);
    const auto e = static_cast<std::size_t>(offsets_[static_cast<std::size_t>(i) + 1]);
    return {indices_.data() + b, e - b};
  }
  [[nodiscard]] const std::vector<std::int32_t>& offsets() const noexcept { return offsets_; }
  [[nodiscard]] const std::vector<std::int32_t>& indices() const noexcept { return indices_; }

  friend bool operator==(const CsrGraph&, const CsrGraph&) = default;

 private:
  friend class GraphBatch;

  void validate() const {
    auto fail = [](const std::string& what) { throw std::invalid_argument("graph: " + what); };
    if (offsets_.empty()) fail("offsets is empty (it needs N + 1 entries)");
    if (offsets_.front() != 0)
      fail("offsets[0] is " + std::to_string(offsets_.front()) + ", not 0");
    if (static_cast<std::size_t>(offsets_.back()) != indices_.size())
      fail("offsets[N] is " + std::to_string(offsets_.back()) + " but there are " +
           std::to_string(indices_.size()) + " indices");
    const auto n = static_cast<std::int32_t>(offsets_.size()) - 1;
    for (std::int32_t i = 0; i < n; ++i)  // all offsets first: then every range is in bounds
      if (offsets_[static_cast<std::size_t>(i) + 1] < offsets_[static_cast<std::size_t>(i)])
        fail("offsets decrease at node " + std::to_string(i));
    for (std::int32_t i = 0; i < n; ++i) {
      const auto b = offsets_[static_cast<std::size_t>(i)];
      const auto e = offsets_[static_cast<std::size_t>(i) + 1];
      for (auto k = b; k < e; ++k) {
        const auto j = indices_[static_cast<std::size_t>(k)];
        const std::string at =
            "node " + std::to_string(i) + " lists neighbour " + std::to_string(j);
        if (j < 0 || j >= n) fail(at + ", outside [0, " + std::to_string(n) + ")");
        if (j == i) fail(at + ": a self loop (the GAT layer adds self loops itself)");
        if (k > b && indices_[static_cast<std::size_t>(k) - 1] >= j)
          fail(at + " out of ascending order or twice");
      }
    }
  }

  std::vector<std::int32_t> offsets_;
  std::vector<std::int32_t> indices_;
};

// Many graphs as one block-diagonal graph. Reusable: clear() keeps the capacity, so a batch
// rebuilt every move allocates only when it outgrows what it held before.
class GraphBatch {
 public:
  GraphBatch() = default;
  explicit GraphBatch(std::span<const CsrGraph> graphs) {
    for (const auto& g : graphs) add(g);
  }

  // Appends `g`; its node k becomes node node_offsets()[g] + k of the batch.
  void add(const CsrGraph& g) {
    const std::int32_t base = graph_.num_nodes();
    const std::int32_t edge_base = graph_.num_edges();
    graph_.offsets_.pop_back();
    for (const auto o : g.offsets()) graph_.offsets_.push_back(edge_base + o);
    for (const auto j : g.indices()) graph_.indices_.push_back(base + j);
    node_offsets_.push_back(base + g.num_nodes());
  }

  // Empties the batch, keeping its storage.
  void clear() {
    graph_.offsets_.assign(1, 0);
    graph_.indices_.clear();
    node_offsets_.assign(1, 0);
  }

  // The block-diagonal graph of every graph added so far.
  [[nodiscard]] const CsrGraph& graph() const noexcept { return graph_; }
  // The number of graphs.
  [[nodiscard]] std::int32_t size() const noexcept {
    return static_cast<std::int32_t>(node_offsets_.size()) - 1;
  }
  // (size() + 1): graph g owns batch nodes [node_offsets[g], node_offsets[g+1]).
  [[nodiscard]] const std::vector<std::int32_t>& node_offsets() const noexcept {
    return node_offsets_;
  }
  // The first batch node of graph g and its node count: rows (first, count) of any per-node
  // matrix of the batch, e.g. scores.middleRows(first, count).
  [[nodiscard]] std::pair<std::int32_t, std::int32_t> nodes_of(std::int32_t g) const {
    if (g < 0 || g >= size())
      throw std::out_of_range("graph batch: graph " + std::to_string(g) + " of " +
                              std::to_string(size()));
    const auto b = node_offsets_[static_cast<std::size_t>(g)];
    return {b, node_offsets_[static_cast<std::size_t>(g) + 1] - b};
  }

 private:
  CsrGraph graph_;
  std::vector<std::int32_t> node_offsets_{0};
};

}  // namespace gsearch::nn
