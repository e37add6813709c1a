// gsearch/mcts/tree.hpp — the MCTS tree: nodes in one contiguous arena.
//
// Nodes live in one std::vector and refer to each other by index (NodeId), never by pointer,
// so the tree can grow, be copied, and be handed to later stages as a TreeView. The children
// of a node are one contiguous range [first_child, first_child + num_children): expansion
// appends all of a node's children at once (as "slots": a move and a prior, not yet visited),
// and a child joins the search tree proper when an iteration first visits it. Once the
// vector has grown to its working size (or after reserve()), an iteration allocates nothing.
//
// Values. A node's q is the mean of the values backed up through it, in [-1, 1], from the
// point of view of the node's `mover` — the player who chose the move leading to it (the
// player to move at the parent). Selection at a parent maximises its children's q, whatever
// the pattern of players: values are never negated blindly, they are read for the right
// player. This is what lets the Amazons decision model (one player, three plies) work
// unchanged.
#pragma once

#include <algorithm>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <span>
#include <type_traits>
#include <vector>

#include "gsearch/core/assert.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/tree_view.hpp"

namespace gsearch::mcts {

// The node ids [first, last): what std::views::iota(first, last) gives, which clang 14 cannot
// compile with libstdc++ 12 (llvm/llvm-project#52696).
class IdRange {
 public:
  class iterator {
   public:
    using iterator_concept = std::random_access_iterator_tag;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = NodeId;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(NodeId id) noexcept : id_(id) {}
    NodeId operator*() const noexcept { return id_; }
    NodeId operator[](difference_type k) const noexcept { return static_cast<NodeId>(id_ + k); }
    iterator& operator++() noexcept { return ++id_, *this; }
    iterator operator++(int) noexcept { return iterator(id_++); }
    iterator& operator--() noexcept { return --id_, *this; }
    iterator operator--(int) noexcept { return iterator(id_--); }
    iterator& operator+=(difference_type k) noexcept { return id_ = (*this)[k], *this; }
    iterator& operator-=(difference_type k) noexcept { return id_ = (*this)[-k], *this; }
    friend iterator operator+(iterator i, difference_type k) noexcept { return i += k; }
    friend iterator operator+(difference_type k, iterator i) noexcept { return i += k; }
    friend iterator operator-(iterator i, difference_type k) noexcept { return i -= k; }
    friend difference_type operator-(iterator a, iterator b) noexcept {
      return static_cast<difference_type>(a.id_) - static_cast<difference_type>(b.id_);
    }
    friend auto operator<=>(iterator, iterator) = default;

   private:
    NodeId id_ = 0;
  };
  IdRange(NodeId first, NodeId last) noexcept : first_(first), last_(last) {}
  [[nodiscard]] iterator begin() const noexcept { return iterator(first_); }
  [[nodiscard]] iterator end() const noexcept { return iterator(last_); }
  [[nodiscard]] std::size_t size() const noexcept { return last_ - first_; }
  [[nodiscard]] bool empty() const noexcept { return first_ == last_; }

 private:
  NodeId first_, last_;
};
static_assert(std::ranges::random_access_range<IdRange>);

// No per-node data beyond the driver's: the default Data of Node and Tree, and the NodeData
// of a backup policy that declares none. Takes no space in a node ([[no_unique_address]]).
struct NoData {
  void merge(const NoData&) noexcept {}
};

// Per-node data that a policy keeps (a backup policy's NodeData, read by its selection
// policy): RAVE's all-moves-as-first statistics, a variance, flags. Default-constructible
// and trivially copyable, with merge(other), which pools a tree grown by another thread
// into this one (root parallelism).
template <class D>
concept NodeData = std::default_initializable<D> && std::is_trivially_copyable_v<D> &&
    requires(D& d, const D& other) {
  d.merge(other);
};

template <MoveType Move, NodeData Data = NoData>
struct Node {
  // Set when the node is created (as a slot of its parent's expansion)---
  float prior = 0.0f;       // ordering/selection prior of the move (0 when none)
  NodeId parent = kNoNode;  // kNoNode for the root
  Move move{};              // the move from the parent (unused for the root)
  std::uint8_t mover = 0;   // the player who chose `move` (player to move at the parent)
  // Set when the node is expanded---
  std::uint8_t expanded = 0;  // 1 once its children slots exist (maybe zero of them)
  // Set when the subtree below holds nothing more to learn---
  std::uint8_t exhausted = 0;      // 1 for a terminal node, or an expanded one whose children are
                                   // all exhausted; a search stops once its root is
  std::uint16_t num_children = 0;  // child slots: [first_child, first_child + num_children)
  NodeId first_child = kNoNode;
  // Updated by every iteration through the node---
  std::uint32_t visits = 0;  // iterations that went through this node (0 = an unvisited slot)
  float q = 0.0f;            // mean backed-up value for `mover`, in [-1, 1]
  // The policies' own per-node data (NodeData; nothing by default)---
  [[no_unique_address]] Data data{};

  [[nodiscard]] bool visited() const noexcept { return visits != 0; }
};

template <MoveType Move, NodeData Data = NoData>
class Tree {
 public:
  using NodeType = Node<Move, Data>;

  Tree() { clear(); }

  // Back to a lone root, keeping the capacity.
  void clear() {
    nodes_.clear();
    nodes_.emplace_back();
    objective_.clear();
  }
  void reserve(std::size_t n) { nodes_.reserve(n); }

  [[nodiscard]] std::size_t size() const noexcept { return nodes_.size(); }
  [[nodiscard]] std::size_t capacity() const noexcept { return nodes_.capacity(); }
  [[nodiscard]] NodeType& operator[](NodeId n) noexcept { return nodes_[n]; }
  [[nodiscard]] const NodeType& operator[](NodeId n) const noexcept { return nodes_[n]; }
  [[nodiscard]] const NodeType& root() const noexcept { return nodes_[0]; }

  // The ids of n's child slots, visited or not.
  [[nodiscard]] auto children(NodeId n) const noexcept {
    const NodeType& node = nodes_[n];
    const NodeId first = node.num_children ? node.first_child : 0;
    return IdRange(first, first + node.num_children);
  }

  // Appends `count` child slots to `n` and returns the first id. `n` must not have any.
  NodeId add_children(NodeId n, std::size_t count, std::uint8_t mover) {
    GSEARCH_ASSERT(!nodes_[n].expanded);
    GSEARCH_ASSERT(count <= 0xffff);
    const auto first = static_cast<NodeId>(nodes_.size());
    nodes_.resize(nodes_.size() + count);
    for (std::size_t i = 0; i < count; ++i) {
      NodeType& c = nodes_[first + i];
      c.parent = n;
      c.mover = mover;
    }
    NodeType& node = nodes_[n];  // after resize: the reference may have moved
    node.expanded = 1;
    node.first_child = first;
    node.num_children = static_cast<std::uint16_t>(count);
    return first;
  }

  // Marks `n` exhausted, and then each ancestor whose children are now all exhausted.
  void mark_exhausted(NodeId n) {
    for (; n != kNoNode; n = nodes_[n].parent) {
      NodeType& node = nodes_[n];
      if (node.expanded)
        for (NodeId c = node.first_child; c < node.first_child + node.num_children; ++c)
          if (!nodes_[c].exhausted) return;
      node.exhausted = 1;
    }
  }

  // MCTS-Solver (Winands, Björnsson & Saito 2008): records that n's exact value for its mover
  // is `value` (a terminal result, or a game's proven outcome), then proves ancestors as far
  // as the minimax rule allows. A parent is proven when one child is a win for the player
  // choosing there (value +1: nothing can be better), or when all its children are proven
  // (value: the best of theirs for the chooser — a loss, a draw or any exact score). A proven
  // node is exhausted and its q is its exact value from then on: the driver stops an
  // iteration at it and backs up that value. With an expansion that lists fewer moves than
  // the rules (a filter, top-K), "all children" means all the listed ones.
  void prove(NodeId n, float value) {
    for (;;) {
      NodeType& node = nodes_[n];
      node.exhausted = 1;
      node.q = value;
      const NodeId p = node.parent;
      if (p == kNoNode) return;
      const std::uint8_t chooser = node.mover;  // every child of p has the same mover
      float best = 1.0f;
      if (value < 1.0f) {
        best = -1.0f;
        for (NodeId c : children(p)) {
          if (!nodes_[c].exhausted) return;
          best = std::max(best, nodes_[c].q);
        }
      }
      value = nodes_[p].mover == chooser ? best : -best;
      n = p;
    }
  }

  // Number of nodes visited at least once (the search tree proper, the paper's N + 1 root).
  [[nodiscard]] std::size_t visited_count() const noexcept {
    std::size_t n = 0;
    for (const auto& node : nodes_) n += node.visited();
    return n;
  }

  // The sum of every node's visits: the tree nodes the iterations so far went through (an
  // iteration whose leaf is d moves below the root counts d + 1). MCTS's count of nodes
  // searched, the number beside alpha-beta's nodes in a bench signature (`amazons bench`):
  // with a fixed iteration budget it changes whenever the shape of the search does.
  [[nodiscard]] std::uint64_t total_visits() const noexcept {
    std::uint64_t n = 0;
    for (const auto& node : nodes_) n += node.visits;
    return n;
  }

  // Makes the subtree below `new_root` the whole tree (tree reuse between moves). Nodes are
  // copied breadth-first into `scratch`, whose storage is then swapped in, so a search that
  // keeps its tree allocates nothing once both buffers are warm.
  void reroot(NodeId new_root, std::vector<NodeType>& scratch) {
    scratch.clear();
    scratch.push_back(nodes_[new_root]);
    scratch[0].parent = kNoNode;
    for (std::size_t i = 0; i < scratch.size(); ++i) {
      const NodeType old = scratch[i];
      if (!old.num_children) continue;
      const auto first = static_cast<NodeId>(scratch.size());
      for (NodeId c = old.first_child; c < old.first_child + old.num_children; ++c) {
        scratch.push_back(nodes_[c]);
        scratch.back().parent = static_cast<NodeId>(i);
      }
      scratch[i].first_child = first;
    }
    nodes_.swap(scratch);
    objective_.clear();
  }

  // The objective values written by a whole-tree pass (backup.hpp: depth_normalize), or empty.
  [[nodiscard]] std::vector<float>& objective() noexcept { return objective_; }
  [[nodiscard]] const std::vector<float>& objective() const noexcept { return objective_; }

 private:
  std::vector<NodeType> nodes_;
  std::vector<float> objective_;
};

// A read-only TreeView (core/tree_view.hpp) of the visited part of a tree, for SGGA, GAT-AE
// and the depth-normalising pass. It numbers the visited nodes 0..size()-1 breadth-first
// (the root is 0) and keeps, for each, its id in the tree (tree_id). objective(n) is the
// depth-normalised objective when the tree has one for the node (backup.hpp; a node added
// since the last pass has none), else q mapped to [0, 1] ((q + 1) / 2: the mover's expected
// score). Built in one pass, O(visited nodes).
//
// A view can leave out part of the visited tree: keep(tree, parent, child) (tree ids) is asked
// for every visited child of a node in the view, and a child it refuses is left out with its
// whole subtree — e.g. the children a search visited too rarely to trust (KeepVisitShare).
template <MoveType Move, NodeData Data = NoData>
class TreeViewOf {
 public:
  using TreeType = Tree<Move, Data>;

  explicit TreeViewOf(const TreeType& tree)
      : TreeViewOf(tree, [](const TreeType&, NodeId, NodeId) { return true; }) {}

  template <class Keep>
  TreeViewOf(const TreeType& tree, Keep keep) : tree_(&tree) {
    tree_id_.push_back(0);
    parent_.push_back(kNoNode);
    depth_.push_back(0);
    for (NodeId v = 0; v < tree_id_.size(); ++v) {
      offsets_.push_back(static_cast<NodeId>(children_.size()));
      for (NodeId c : tree.children(tree_id_[v])) {
        if (!tree[c].visited() || !keep(tree, tree_id_[v], c)) continue;
        children_.push_back(static_cast<NodeId>(tree_id_.size()));
        tree_id_.push_back(c);
        parent_.push_back(v);
        depth_.push_back(depth_[v] + 1);
      }
    }
    offsets_.push_back(static_cast<NodeId>(children_.size()));
  }
  [[nodiscard]] std::size_t size() const noexcept { return tree_id_.size(); }
  [[nodiscard]] NodeId parent(NodeId n) const noexcept { return parent_[n]; }
  [[nodiscard]] std::span<const NodeId> children(NodeId n) const noexcept {
    return {children_.data() + offsets_[n], children_.data() + offsets_[n + 1]};
  }
  [[nodiscard]] int depth(NodeId n) const noexcept { return depth_[n]; }
  [[nodiscard]] double objective(NodeId n) const noexcept {
    const auto& obj = tree_->objective();
    const NodeId t = tree_id_[n];
    // A node added since the last pass has no objective yet: its q, as without a pass.
    return t < obj.size() ? obj[t] : ((*tree_)[t].q + 1.0) / 2.0;
  }
  // The node's id in the tree, e.g. to read its move: view.tree()[view.tree_id(n)].move.
  [[nodiscard]] NodeId tree_id(NodeId n) const noexcept { return tree_id_[n]; }
  [[nodiscard]] const TreeType& tree() const noexcept { return *tree_; }

 private:
  const TreeType* tree_;
  std::vector<NodeId> tree_id_, parent_, offsets_, children_;
  std::vector<int> depth_;
};

// A TreeViewOf filter: keeps a child visited at least `share` times as often as its parent
// (and at least once), so that a later stage sees only the moves the search kept coming back
// to. share = 0 keeps every visited child.
struct KeepVisitShare {
  double share = 0.1;
  template <MoveType Move, NodeData Data>
  bool operator()(const Tree<Move, Data>& tree, NodeId parent, NodeId child) const noexcept {
    return static_cast<double>(tree[child].visits) >= share * tree[parent].visits;
  }
};

}  // namespace gsearch::mcts
