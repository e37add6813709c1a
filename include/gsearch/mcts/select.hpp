// gsearch/mcts/select.hpp — selection policies: which child an iteration descends into.
//
// A selection policy has one member,
//     NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first, std::uint32_t count)
// returning one of the children first .. first + count - 1 (count >= 1; the driver passes
// only the children that progressive widening has opened). Values in the tree are in
// [-1, 1] for each child's mover, the player choosing at `parent`, so a policy maximises
// q directly. Ties go to the lowest id, which is the expansion order (best prior first).
//
//   Uct          q + c·sqrt(ln N / n)                        (paper eq. 3; unvisited first)
//   Puct         q + c·P·sqrt(N) / (1 + n)                  (AlphaZero; FPU for unvisited)
//   PriorUcb     P + w_q·q + c·sqrt(ln N / (n + 1))         (paper eq. 13-14 with w_q = 0)
//   ScoreSelect  any user scorer f(tree, parent, child) -> double
// uct_select(tree, parent, first, count, c, value) is UCT's rule over any value of a child
// (ImplicitUct in implicit.hpp blends q with an implicit minimax value).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

namespace detail {
// 1 / sqrt(n) for the visit counts n below kInverseRoots, which most children have: a table
// read is several times cheaper than the division and square root it replaces, and a node
// with hundreds of open children computes one per child per iteration.
inline constexpr std::uint32_t kInverseRoots = 4096;
inline const std::array<double, kInverseRoots>& inverse_roots() {
  static const auto table = [] {
    std::array<double, kInverseRoots> t{};
    for (std::uint32_t n = 1; n < kInverseRoots; ++n) t[n] = 1.0 / std::sqrt(double(n));
    return t;
  }();
  return table;
}
inline double inverse_root(const std::array<double, kInverseRoots>& table,
                           std::uint32_t n) noexcept {
  return n < kInverseRoots ? table[n] : 1.0 / std::sqrt(static_cast<double>(n));
}
}  // namespace detail

// UCT's rule over any value of a child: unvisited children first, in order; then the child
// maximising value(child) + c·sqrt(ln N / n), computed as value(child) + c·sqrt(ln N)·(1 /
// sqrt(n)).
template <MoveType Move, NodeData Data, class Value>
NodeId uct_select(const Tree<Move, Data>& tree, NodeId parent, NodeId first, std::uint32_t count,
                  double c, Value value) {
  const double scale =
      c *
      std::sqrt(std::log(static_cast<double>(tree[parent].visits > 0 ? tree[parent].visits : 1)));
  const auto& roots = detail::inverse_roots();
  NodeId best = first;
  double best_score = -std::numeric_limits<double>::infinity();
  for (NodeId id = first; id < first + count; ++id) {
    const auto& child = tree[id];
    if (!child.visited()) return id;
    const double score = value(id) + scale * detail::inverse_root(roots, child.visits);
    if (score > best_score) best_score = score, best = id;
  }
  return best;
}

// UCT (Kocsis & Szepesvári 2006; the paper's eq. 3): unvisited children first, in order;
// then the child maximising q + c·sqrt(ln N / n). c applies to values in [-1, 1]; the usual
// c for rewards in [0, 1] corresponds to 2c here.
struct Uct {
  double c = 1.0;

  template <MoveType Move, NodeData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    return uct_select(tree, parent, first, count, c,
                      [&](NodeId id) { return static_cast<double>(tree[id].q); });
  }
};

// PUCT (Silver et al. 2017): q + c·P·sqrt(N) / (1 + n). An unvisited child's q is the
// parent's value for the chooser minus fpu_reduction ("first-play urgency"). With all priors
// 0 (no prior given) it reduces to picking by q, so give priors.
struct Puct {
  double c = 1.5;
  double fpu_reduction = 0.2;

  template <MoveType Move, NodeData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    const auto& p = tree[parent];
    const double sqrt_n = std::sqrt(static_cast<double>(p.visits > 0 ? p.visits : 1));
    // The parent's q is for the parent's mover; the chooser is the children's mover.
    const double parent_value = tree[first].mover == p.mover ? p.q : -p.q;
    const double fpu = parent_value - fpu_reduction;
    NodeId best = first;
    double best_score = -std::numeric_limits<double>::infinity();
    for (NodeId c = first; c < first + count; ++c) {
      const auto& child = tree[c];
      const double q = child.visited() ? child.q : fpu;
      const double score = q + this->c * child.prior * sqrt_n / (1.0 + child.visits);
      if (score > best_score) best_score = score, best = c;
    }
    return best;
  }
};

// A prior-led UCB: P + w_q·q + c·sqrt(ln N / (n + 1)). With w_q = 0 and c = sqrt(2) it is the
// paper's UCT-AE (eq. 13: UCB_j = AE1(v_j)W1 + sqrt(2 ln n / (n_j + 1)); eq. 14 when the
// prior is alpha·AE1(v_j)W1 + (1 - alpha)·AE2(v_j)W2), with the networks' score of each
// child computed once, at expansion, as its prior (see expand.hpp). n + 1 keeps the bonus
// finite, so unvisited children compete on their prior rather than being tried in order.
struct PriorUcb {
  double c = 1.4142135623730951;
  double w_q = 0.0;

  template <MoveType Move, NodeData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    const double log_n =
        std::log(static_cast<double>(tree[parent].visits > 0 ? tree[parent].visits : 1));
    NodeId best = first;
    double best_score = -std::numeric_limits<double>::infinity();
    for (NodeId c = first; c < first + count; ++c) {
      const auto& child = tree[c];
      const double score =
          child.prior + w_q * child.q + this->c * std::sqrt(log_n / (child.visits + 1.0));
      if (score > best_score) best_score = score, best = c;
    }
    return best;
  }
};

// Any scorer of (tree, parent, child): the child with the highest score is chosen.
template <class F>
struct ScoreSelect {
  F score;

  template <MoveType Move, NodeData Data>
  NodeId select(const Tree<Move, Data>& tree, NodeId parent, NodeId first,
                std::uint32_t count) const {
    NodeId best = first;
    double best_score = -std::numeric_limits<double>::infinity();
    for (NodeId c = first; c < first + count; ++c) {
      const double s = score(tree, parent, c);
      if (s > best_score) best_score = s, best = c;
    }
    return best;
  }
};
template <class F>
ScoreSelect(F) -> ScoreSelect<F>;

template <class S, class Tree>
concept SelectionPolicy = requires(const S& s, const Tree& tree, NodeId n, std::uint32_t k) {
  { s.select(tree, n, n, k) } -> std::convertible_to<NodeId>;
};

}  // namespace gsearch::mcts
