// gsearch/sgga/explicit_tree.hpp — a small tree given by a parent array, for tests and users.
//
// ExplicitTree models gsearch::TreeView. It is built from two arrays of equal length: the
// parent of every node (kNoNode for the root, node 0; every other node's parent has a smaller
// id, as in a search arena where a node is created after its parent) and every node's
// objective value. Children are stored contiguously (compressed sparse rows) in increasing id
// order; depths are computed once. Use it to run SGGA on a tree that did not come from a
// gsearch search, or to write a tree down by hand:
//
//   //   0 ── 1 ── 3        parents    {kNoNode, 0, 0, 1, 1}
//   //   │    └─── 4        objectives {0.0, 0.4, 0.1, 0.9, 0.2}
//   //   └─── 2
//   gsearch::sgga::ExplicitTree tree({gsearch::kNoNode, 0, 0, 1, 1}, {0.0, 0.4, 0.1, 0.9, 0.2});
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/core/tree_view.hpp"

namespace gsearch::sgga {

class ExplicitTree {
 public:
  // Builds the tree. Throws std::invalid_argument, naming the node, when the arrays are empty
  // or of different lengths, when parents[0] is not kNoNode, when a non-root node's parent is
  // not a smaller id, or when an objective is not finite.
  ExplicitTree(std::vector<NodeId> parents, std::vector<double> objectives)
      : parent_(std::move(parents)), objective_(std::move(objectives)) {
    const std::size_t n = parent_.size();
    if (n == 0) throw std::invalid_argument("ExplicitTree: the tree is empty (no root)");
    if (objective_.size() != n)
      throw std::invalid_argument("ExplicitTree: " + std::to_string(n) + " parents but " +
                                  std::to_string(objective_.size()) + " objective values");
    if (n > static_cast<std::size_t>(kNoNode))
      throw std::invalid_argument("ExplicitTree: too many nodes for a 32-bit NodeId");
    if (parent_[0] != kNoNode)
      throw std::invalid_argument("ExplicitTree: node 0 is the root, its parent must be kNoNode");
    depth_.assign(n, 0);
    first_child_.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(objective_[i]))
        throw std::invalid_argument("ExplicitTree: the objective of node " + std::to_string(i) +
                                    " is not finite");
      if (i == 0) continue;
      if (parent_[i] >= i)
        throw std::invalid_argument(
            "ExplicitTree: node " + std::to_string(i) + " has parent " +
            (parent_[i] == kNoNode ? std::string("kNoNode") : std::to_string(parent_[i])) +
            "; a parent must have a smaller id than its child");
      depth_[i] = depth_[parent_[i]] + 1;
      ++first_child_[parent_[i] + 1];
    }
    for (std::size_t i = 0; i < n; ++i) first_child_[i + 1] += first_child_[i];
    child_.resize(n - 1);
    std::vector<NodeId> next(first_child_.begin(), first_child_.end() - 1);
    for (std::size_t i = 1; i < n; ++i) child_[next[parent_[i]]++] = static_cast<NodeId>(i);
  }

  // The number of nodes (at least 1).
  [[nodiscard]] std::size_t size() const noexcept { return parent_.size(); }

  // The parent of `n` (< size()), kNoNode for the root.
  [[nodiscard]] NodeId parent(NodeId n) const noexcept { return parent_[n]; }

  // The children of `n` (< size()), in increasing id order.
  [[nodiscard]] std::span<const NodeId> children(NodeId n) const noexcept {
    return std::span<const NodeId>(child_).subspan(first_child_[n],
                                                   first_child_[n + 1] - first_child_[n]);
  }

  // Edges from the root to `n` (< size()).
  [[nodiscard]] int depth(NodeId n) const noexcept { return depth_[n]; }

  // The objective value of `n` (< size()).
  [[nodiscard]] double objective(NodeId n) const noexcept { return objective_[n]; }

  // Replaces the objective value of `n` (< size()); throws std::invalid_argument when `value`
  // is not finite.
  void set_objective(NodeId n, double value) {
    if (!std::isfinite(value))
      throw std::invalid_argument("ExplicitTree: the objective of node " + std::to_string(n) +
                                  " is not finite");
    objective_[n] = value;
  }

 private:
  std::vector<NodeId> parent_;       // parent_[n], kNoNode for the root
  std::vector<double> objective_;    // objective_[n]
  std::vector<int> depth_;           // depth_[n], 0 for the root
  std::vector<NodeId> first_child_;  // children of n are child_[first_child_[n] .. [n + 1])
  std::vector<NodeId> child_;        // every non-root node once, grouped by parent
};

static_assert(TreeView<ExplicitTree>);

}  // namespace gsearch::sgga
