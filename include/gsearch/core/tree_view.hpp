// gsearch/core/tree_view.hpp — a read-only view of a search tree, for later stages.
//
// An MCTS search ends with a tree; the paper's later stages (SGGA, GAT-AE) read it without
// knowing how it is stored. A TreeView numbers its nodes 0..size()-1 with the root at 0 and
// answers, for any node n:
//   parent(n)     the parent's id, kNoNode for the root;
//   children(n)   a range of the children's ids (for MCTS trees a contiguous iota range);
//   depth(n)      edges from the root: 0 for the root (the paper's "height");
//   objective(n)  the node's objective value (the paper's obj(n); for MCTS, its value).
// Views are cheap to copy and valid while the tree they look at is not modified.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <ranges>

namespace gsearch {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = ~NodeId{0};

template <class T>
concept TreeView = requires(const T& view, NodeId n) {
  { view.size() } -> std::convertible_to<std::size_t>;
  { view.parent(n) } -> std::convertible_to<NodeId>;
  { view.children(n) } -> std::ranges::input_range;
  requires std::convertible_to<std::ranges::range_value_t<decltype(view.children(n))>, NodeId>;
  { view.depth(n) } -> std::convertible_to<int>;
  { view.objective(n) } -> std::convertible_to<double>;
};

// The largest depth of any node (the paper's H_max); 0 for a root-only tree.
template <TreeView V>
[[nodiscard]] int max_depth(const V& view) {
  int h = 0;
  for (NodeId n = 0; n < static_cast<NodeId>(view.size()); ++n)
    h = view.depth(n) > h ? static_cast<int>(view.depth(n)) : h;
  return h;
}

}  // namespace gsearch
