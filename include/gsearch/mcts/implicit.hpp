// gsearch/mcts/implicit.hpp — implicit minimax backups (Lanctot, Winands, Pepels and
// Sturtevant, "Monte Carlo Tree Search with Heuristic Evaluations using Implicit Minimax
// Backups", CIG 2014): every node keeps, next to its mean q, the minimax value of the
// heuristic evaluations in its subtree, and selection blends the two.
//
// The heuristic values are the expansion's priors: the Expand policy must give each child the
// evaluation of the position after its move, as a value in [-1, 1] for the child's mover (the
// player choosing the move) — a prior outside [-1, 1] counts as -1 or 1, so a game may score a
// winning move 2 to rank it first. An expansion that scores every child anyway (INVADERMC's
// forward pruning does) gives the implicit minimax value for free: no further evaluation runs.
//
// Backup. On the path of each iteration, from the leaf up, every expanded node n updates
//     tau(n) = max over the children c of n of v(c), read for n's mover,
// where v(c) is tau(c) once c has been expanded and c's prior before. The children are all the
// node's kept children (top_k), opened by widening or not. Only the path's child changed, so a
// node rescans its children only when it is first updated or when its best child's value falls;
// otherwise the update is O(1).
//
// Selection. score = (1 − α)·q + α·v(c) + c_uct·sqrt(ln N / n): α = 0 is UCT exactly; the
// unvisited children are tried first, in order (best prior first), as in UCT. With `fade` = F
// > 0 the weight falls with the child's visits n, α·F / (F + n), so that the implicit value
// steers the children the playouts have barely sampled and the mean rules the well-sampled
// ones (not in the paper, which keeps α fixed; F = 0, the default, is the paper's rule).
//
// Usage:
//   using namespace gsearch::mcts;
//   Search<MyGame, ImplicitUct, Expansion<MyEvalPrior>, CutoffPlayout<MyEval>, ImplicitBackup>
//       search({.seed = 1}, ImplicitUct{.c = 0.3, .alpha = 0.3});
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>

#include "gsearch/mcts/backup.hpp"
#include "gsearch/mcts/select.hpp"
#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

// A node's implicit minimax value. Derive from it to keep more per node.
struct MinimaxStats {
  float tau = 0.0f;              // for the node's mover, in [-1, 1]; meaningful when `known`
  float best = 0.0f;             // the best child's value, read for the children's mover
  std::uint16_t best_index = 0;  // the best child's place among the node's children (an
                                 // index, not a node id: tree reuse renumbers the nodes)
  std::uint8_t known = 0;        // 1 once a backup has scanned the node's children

  // Root parallelism pools another tree's statistics into this one; the child ids of the
  // other tree are not this tree's, so the node is rescanned on its next backup (until then
  // its parent reads its prior).
  void merge(const MinimaxStats&) noexcept { known = 0; }
};

template <class D>
concept MinimaxData = NodeData<D> && std::derived_from<D, MinimaxStats>;

// The heuristic value of node `c` for its own mover: its implicit minimax value once known,
// else its prior, clamped to [-1, 1].
template <MoveType Move, MinimaxData Data>
[[nodiscard]] double implicit_value(const Tree<Move, Data>& tree, NodeId c) noexcept {
  const auto& node = tree[c];
  if (node.data.known) return node.data.tau;
  return std::clamp(static_cast<double>(node.prior), -1.0, 1.0);
}

// Keeps the implicit minimax values (see the top of this file).
template <MinimaxData Data = MinimaxStats>
struct ImplicitBackupOf {
  using NodeData = Data;

  template <MoveType Move>
  void backup(Tree<Move, Data>& tree, const Iteration<Move>& it) const {
    NodeId below = kNoNode;  // the path's child of the node being updated
    for (NodeId n = it.leaf; n != kNoNode; below = n, n = tree[n].parent) {
      auto& node = tree[n];
      if (!node.expanded || node.num_children == 0) continue;  // its prior (or result) stands
      auto& d = node.data;
      const bool rescan = [&] {
        if (!d.known || below == kNoNode) return true;
        const auto v = static_cast<float>(implicit_value(tree, below));
        const auto index = static_cast<std::uint16_t>(below - node.first_child);
        if (v >= d.best) {
          d.best = v, d.best_index = index;
          return false;
        }
        return index == d.best_index;  // the best child fell: another may now be best
      }();
      if (rescan) {
        d.best = -std::numeric_limits<float>::infinity();
        for (std::uint16_t i = 0; i < node.num_children; ++i) {
          const auto v = static_cast<float>(implicit_value(tree, node.first_child + i));
          if (v > d.best) d.best = v, d.best_index = i;
        }
        d.known = 1;
      }
      d.tau = tree[node.first_child].mover == node.mover ? d.best : -d.best;
    }
  }
};

using ImplicitBackup = ImplicitBackupOf<>;

// UCT over (1 − α)·q + α·(implicit minimax value) (see the top of this file).
struct ImplicitUct {
  double c = 1.0;      // UCT's exploration constant (values in [-1, 1])
  double alpha = 0.3;  // the implicit minimax value's weight, in [0, 1]
  double fade = 0.0;   // > 0: the weight is alpha·fade / (fade + visits of the child)

  // The implicit value's weight for a child visited `visits` times.
  [[nodiscard]] double weight(std::uint32_t visits) const noexcept {
    return fade > 0 ? alpha * fade / (fade + visits) : alpha;
  }

  template <MoveType Move, MinimaxData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    if (alpha == 0)  // UCT: the implicit value has no weight
      return uct_select(tree, parent, first, count, c,
                        [&](NodeId id) { return static_cast<double>(tree[id].q); });
    return uct_select(tree, parent, first, count, c, [&](NodeId id) {
      const double w = weight(tree[id].visits);
      return (1.0 - w) * tree[id].q + w * implicit_value(tree, id);
    });
  }
};

}  // namespace gsearch::mcts
