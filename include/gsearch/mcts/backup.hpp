// gsearch/mcts/backup.hpp — backing values up the tree, and the paper's depth-normalising
// update (eq. 10-12).
//
// The driver keeps the bookkeeping every search needs itself: each node on the path from the
// new leaf to the root counts the iteration and updates its mean q (record_visit), the value
// read for the node's own mover (negated when the mover is the other player). A backup
// policy adds what more a variant keeps, in per-node data of its own:
//     using NodeData = D;                        optional (NoData); see tree.hpp's NodeData
//     static constexpr bool kPlayoutMoves = true;   optional: be given the playout's moves
//     void backup(Tree<Move, NodeData>& tree, const Iteration<Move>& it) const
// called once per iteration, after the driver's update (under the search's lock when
// threads share one tree). MeanBackup adds nothing; RaveBackup (rave.hpp) keeps RAVE's
// all-moves-as-first statistics. A policy never touches visits or q: virtual loss, the
// solver's proofs and the merge of root-parallel trees rely on them meaning what they say.
//
// DepthNormalizer is the paper's update mechanism (§4.2.1), a whole-tree pass over the
// visited nodes that writes Tree::objective():
//   start    obj(n) = (q(n) + 1) / 2, the node's value for its mover in [0, 1];
//   Pass I   bottom-up, for each internal node, v̄(n) = mean of obj(c) over its visited
//            children (eq. 10), then obj(n) += v̄(n) at even depth and obj(n) += 2^(-v̄(n))
//            at odd depth (eq. 11; the root has depth 0) — Parity::kDepth, the paper's text.
//            The paper's trees alternate players with depth; where a game keeps one player
//            for several plies (the Amazons decision model) the parity that matches the
//            intent is the player's: Parity::kPlayer adds 2^(-v̄) where the player to move
//            at n differs from the player who moved into n, and v̄ where they are the same;
//   Pass II  obj(n) /= (H_max + 1 - depth(n)) (eq. 12), H_max the deepest visited node.
// With node values in [0, 1] every objective ends in [0, 1]: below depth d at most
// H_max - d terms of at most 1 were added, and the divisor is H_max + 1 - d.
//
// Those sums reward a node for the depth of its own subtree: a node with a deep subtree
// collects more terms than a sibling of equal value whose subtree is shallow, while both are
// divided by the same H_max + 1 - d. Accumulation::kMean is the size-neutral reading:
//   Pass I   obj(n) = (obj(n) + t) / 2, t = v̄(n), or 1 - v̄(n) where the player changes
//            below n (the opponent's mean value, seen from n's mover);
//   Pass II  none: every objective is already an average of values in [0, 1].
// docs/paper-mapping.md gives the measurements behind each reading.
// A search runs it every Params::normalize_every iterations and/or at the end; SGGA and
// GAT-AE read the objectives through TreeViewOf.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

#include "gsearch/mcts/params.hpp"
#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

// The driver's bookkeeping: `value` (in [-1, 1], for `perspective`) counted on every node from
// `leaf` to the root, as a visit and into the mean q for the node's mover.
template <MoveType Move, NodeData Data>
void record_visit(Tree<Move, Data>& tree, NodeId leaf, double value, Player perspective) {
  for (NodeId n = leaf; n != kNoNode; n = tree[n].parent) {
    auto& node = tree[n];
    ++node.visits;
    const double v = node.mover == perspective ? value : -value;
    node.q += static_cast<float>((v - node.q) / node.visits);
  }
}

// A move an evaluation policy played after the leaf, and who played it.
template <MoveType Move>
struct PlayoutStep {
  Move move;
  Player player;
};

// What a backup policy is told about one iteration.
template <MoveType Move>
struct Iteration {
  NodeId leaf = 0;         // where the descent ended (the path is its parent chain)
  double value = 0.0;      // the value backed up, in [-1, 1], for `perspective`
  Player perspective = 0;  // the root's player to move
  // With kPlayoutMoves, the moves the evaluation played from the leaf on, in order (empty
  // for an evaluation that plays none or does not record them: see evaluate.hpp).
  std::span<const PlayoutStep<Move>> playout{};
};

// Plain MCTS: the driver's means are all there is.
struct MeanBackup {
  template <MoveType Move, NodeData Data>
  void backup(Tree<Move, Data>&, const Iteration<Move>&) const noexcept {}
};

namespace detail {
template <class B>
auto node_data_of() {
  if constexpr (requires { typename B::NodeData; })
    return typename B::NodeData{};
  else
    return NoData{};
}
}  // namespace detail

// A backup policy's NodeData (NoData when it declares none).
template <class B>
using BackupData = decltype(detail::node_data_of<B>());

// Whether a backup policy asks for the playout's moves.
template <class B>
inline constexpr bool kWantsPlayout = requires {
  requires B::kPlayoutMoves;
};

// The depth-normalising pass, with its buffers kept between runs.
class DepthNormalizer {
 public:
  // Eq. 10–12 on a tree given as arrays: node 0 is the root (parent kNoNode) and every other
  // node's parent has a smaller id. obj[i] is the node's value in [0, 1] on entry and its
  // objective on return. Nodes for which included(i) is false take no part (their objective
  // is left at 0) — the visited part of an MCTS arena, for instance.
  //
  // flips(i) says whether node i's Pass I term is 2^(-v̄) (kMean: 1 - v̄), else v̄;
  // nullptr: odd depth.
  template <class Included, class Flips = std::nullptr_t>
  void run(std::span<const NodeId> parent, std::span<float> obj, Included included,
           Flips flips = nullptr, Accumulation accumulation = Accumulation::kSum) {
    const std::size_t n = parent.size();
    depth_.assign(n, 0);
    sum_.assign(n, 0.0);
    count_.assign(n, 0);
    int h_max = 0;
    for (NodeId i = 0; i < n; ++i) {
      if (!included(i)) {
        obj[i] = 0.0f;
        continue;
      }
      if (i != 0) depth_[i] = depth_[parent[i]] + 1;
      h_max = depth_[i] > h_max ? depth_[i] : h_max;
    }
    // Pass I: children have larger ids than their parent, so descending ids is bottom-up.
    for (NodeId i = static_cast<NodeId>(n); i-- > 0;) {
      if (!included(i)) continue;
      if (count_[i] > 0) {
        const double mean = sum_[i] / count_[i];  // eq. 10
        bool flip;
        if constexpr (std::is_null_pointer_v<Flips>)
          flip = depth_[i] % 2 == 1;
        else
          flip = flips(i);
        if (accumulation == Accumulation::kSum)
          obj[i] += static_cast<float>(flip ? std::exp2(-mean) : mean);  // eq. 11
        else
          obj[i] = static_cast<float>((obj[i] + (flip ? 1.0 - mean : mean)) / 2.0);
      }
      if (i != 0) {
        sum_[parent[i]] += obj[i];
        ++count_[parent[i]];
      }
    }
    // Pass II (eq. 12).
    if (accumulation == Accumulation::kMean) return;
    for (NodeId i = 0; i < n; ++i)
      if (included(i)) obj[i] /= static_cast<float>(h_max + 1 - depth_[i]);
  }

  // The pass over the visited nodes of an MCTS tree: each starts from (q + 1) / 2, its value
  // for its mover in [0, 1], and the objectives go to tree.objective().
  template <MoveType Move, NodeData Data>
  void run(Tree<Move, Data>& tree, Parity parity = Parity::kDepth,
           Accumulation accumulation = Accumulation::kSum) {
    const std::size_t n = tree.size();
    parent_.resize(n);
    auto& obj = tree.objective();
    obj.resize(n);
    for (NodeId i = 0; i < n; ++i) {
      parent_[i] = tree[i].parent;
      obj[i] = (tree[i].q + 1.0f) / 2.0f;
    }
    const auto included = [&](NodeId i) { return i == 0 || tree[i].visited(); };
    if (parity == Parity::kDepth) {
      run(parent_, obj, included, nullptr, accumulation);
    } else {  // the children's mover is the player to move at the node
      run(
          parent_, obj, included,
          [&](NodeId i) {
            return tree[i].num_children > 0 && tree[tree[i].first_child].mover != tree[i].mover;
          },
          accumulation);
    }
  }

 private:
  std::vector<NodeId> parent_;
  std::vector<int> depth_;
  std::vector<double> sum_;
  std::vector<int> count_;
};

// One depth-normalising pass over `tree` (see DepthNormalizer).
template <MoveType Move, NodeData Data>
void depth_normalize(Tree<Move, Data>& tree, Parity parity = Parity::kDepth,
                     Accumulation accumulation = Accumulation::kSum) {
  DepthNormalizer().run(tree, parity, accumulation);
}

template <class B, class Move>
concept BackupPolicy = NodeData<BackupData<B>> &&
    requires(const B& b, Tree<Move, BackupData<B>>& tree, const Iteration<Move>& it) {
  { b.backup(tree, it) } -> std::same_as<void>;
};

}  // namespace gsearch::mcts
