// gsearch/mcts/rave.hpp — RAVE (Gelly & Silver 2007; 2011, "Monte-Carlo tree search and rapid
// action value estimation in computer Go"): all-moves-as-first statistics kept in every node
// and blended into the selection. It is the node-extension mechanism at work: RaveBackup
// declares its NodeData (AmafStats) and keeps it; RaveSelect reads it; the driver keeps the
// visits and means as for any search.
//
// AMAF. After an iteration through node n, every child c of n whose move c's mover (the player
// choosing at n) played later in the same iteration — further down the tree path, or in the
// playout — records the iteration's value as if c had been played first. Each child counts at
// most once per iteration, and unvisited slots count too: a child has an AMAF value before it
// is ever tried. Where a move means the same thing wherever it is played (a cell in Go,
// Gomoku or Hex), this estimates every move's value from every playout — quickly, with a bias.
//
// Selection. score = (1 − β)·q + β·q̃ + c·sqrt(ln N / max(n, 1)), with n, q the child's visits
// and mean, ñ, q̃ its AMAF count and mean, and the minimum-MSE schedule (Gelly & Silver 2011)
//     β = ñ / (n + ñ + 4·b²·n·ñ)
// (1 with n = 0: the AMAF value alone until the child is tried). A child with neither n nor ñ
// is tried first, in order, as in UCT. The bias b says how far AMAF values are trusted: the
// smaller, the longer. Gelly & Silver searched with c = 0, the AMAF values doing the
// exploring.
//
// Usage:
//   using namespace gsearch::mcts;
//   Search<MyGame, RaveSelect, ExpandAll, RandomPlayout, RaveBackup> search({.seed = 1});
// The playout must report its moves (RandomPlayout and CutoffPlayout do; see evaluate.hpp);
// with a prior-value evaluator, which plays none, AMAF sees the tree path only.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "gsearch/mcts/backup.hpp"
#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

// A node's all-moves-as-first statistics: iterations that played its move later (as its
// mover) and their mean value for the mover. Derive from it to keep more per node.
struct AmafStats {
  std::uint32_t amaf_visits = 0;
  float amaf_q = 0.0f;  // in [-1, 1], for the node's mover

  void merge(const AmafStats& other) noexcept {
    const std::uint32_t n = amaf_visits + other.amaf_visits;
    if (n)
      amaf_q = static_cast<float>((static_cast<double>(amaf_q) * amaf_visits +
                                   static_cast<double>(other.amaf_q) * other.amaf_visits) /
                                  n);
    amaf_visits = n;
  }
  void record(double value) noexcept {
    ++amaf_visits;
    amaf_q += static_cast<float>((value - amaf_q) / amaf_visits);
  }
};

template <class D>
concept AmafData = NodeData<D> && std::derived_from<D, AmafStats>;

// Keeps the AMAF statistics (see the top of this file). O(path × children + playout) per
// iteration: each child is looked up in a hash set of the moves played after its parent (for
// moves whose bytes do not identify them, e.g. with padding, in a linear scan instead).
template <AmafData Data = AmafStats>
struct RaveBackupOf {
  using NodeData = Data;
  static constexpr bool kPlayoutMoves = true;

  template <MoveType Move>
  void backup(Tree<Move, Data>& tree, const Iteration<Move>& it) const {
    // The set of (move, player) played after the node being updated: the playout's moves,
    // then the path's, added from the leaf up as the walk passes them.
    if constexpr (std::has_unique_object_representations_v<Move>) {
      std::size_t depth = 0;
      for (NodeId n = it.leaf; n != kNoNode; n = tree[n].parent) ++depth;
      later_.start(it.playout.size() + depth);
      for (const auto& step : it.playout) later_.insert(bytes(step.move), step.player);
      for (NodeId n = it.leaf; n != kNoNode; n = tree[n].parent) {
        for (NodeId c : tree.children(n)) {
          auto& child = tree[c];
          if (later_.contains(bytes(child.move), child.mover))
            child.data.record(child.mover == it.perspective ? it.value : -it.value);
        }
        later_.insert(bytes(tree[n].move), tree[n].mover);
      }
    } else {  // moves whose bytes do not identify them: compared with ==
      const auto played_later = [&](const Move& m, Player p, NodeId below) {
        for (NodeId x = it.leaf; x != below; x = tree[x].parent)
          if (tree[x].mover == p && tree[x].move == m) return true;
        for (const auto& step : it.playout)
          if (step.player == p && step.move == m) return true;
        return false;
      };
      for (NodeId n = it.leaf; n != kNoNode; n = tree[n].parent)
        for (NodeId c : tree.children(n)) {
          auto& child = tree[c];
          if (played_later(child.move, child.mover, n))
            child.data.record(child.mover == it.perspective ? it.value : -it.value);
        }
    }
  }

 private:
  template <MoveType Move>
  static std::uint64_t bytes(const Move& m) noexcept {
    std::uint64_t b = 0;
    std::memcpy(&b, &m, sizeof(Move));
    return b;
  }

  // A set of (move bytes, player), emptied in O(1) by a new stamp; open addressing at most
  // half full. Kept between calls (no allocation once warm). A search calls backup() from
  // one thread at a time; root-parallel helpers work on copies.
  class MoveSet {
   public:
    void start(std::size_t count) {
      std::size_t size = 64;
      while (size < 2 * count) size *= 2;
      if (size > slots_.size() || ++stamp_ == 0) {
        slots_.assign(std::max(size, slots_.size()), Slot{});
        stamp_ = 1;
      }
      mask_ = slots_.size() - 1;
    }
    void insert(std::uint64_t move, Player p) noexcept {
      for (std::size_t i = hash(move, p);; i = (i + 1) & mask_) {
        Slot& s = slots_[i];
        if (s.stamp != stamp_) {
          s = {move, stamp_, static_cast<std::uint32_t>(p)};
          return;
        }
        if (s.move == move && s.player == static_cast<std::uint32_t>(p)) return;
      }
    }
    [[nodiscard]] bool contains(std::uint64_t move, Player p) const noexcept {
      for (std::size_t i = hash(move, p);; i = (i + 1) & mask_) {
        const Slot& s = slots_[i];
        if (s.stamp != stamp_) return false;
        if (s.move == move && s.player == static_cast<std::uint32_t>(p)) return true;
      }
    }

   private:
    struct Slot {
      std::uint64_t move = 0;
      std::uint32_t stamp = 0;
      std::uint32_t player = 0;
    };
    [[nodiscard]] std::size_t hash(std::uint64_t move, Player p) const noexcept {
      return static_cast<std::size_t>(
                 ((move + static_cast<std::uint64_t>(p)) * 0x9e3779b97f4a7c15ULL) >> 32) &
             mask_;
    }
    std::vector<Slot> slots_;
    std::uint32_t stamp_ = 0;
    std::size_t mask_ = 0;
  };
  mutable MoveSet later_;
};

using RaveBackup = RaveBackupOf<>;

// UCT blended with AMAF values (see the top of this file).
struct RaveSelect {
  double c = 0.0;     // UCT's exploration constant (values in [-1, 1])
  double bias = 0.1;  // b in β's schedule: the AMAF values' assumed bias

  template <MoveType Move, AmafData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    const double log_n =
        std::log(static_cast<double>(tree[parent].visits > 0 ? tree[parent].visits : 1));
    const double b2 = 4.0 * bias * bias;
    NodeId best = first;
    double best_score = -std::numeric_limits<double>::infinity();
    for (NodeId c = first; c < first + count; ++c) {
      const auto& child = tree[c];
      const double n = child.visits, amaf_n = child.data.amaf_visits;
      if (n == 0 && amaf_n == 0) return c;
      const double beta = n == 0 ? 1.0 : amaf_n / (n + amaf_n + b2 * n * amaf_n);
      const double score = (1.0 - beta) * child.q + beta * child.data.amaf_q +
                           this->c * std::sqrt(log_n / std::max(n, 1.0));
      if (score > best_score) best_score = score, best = c;
    }
    return best;
  }
};

}  // namespace gsearch::mcts
