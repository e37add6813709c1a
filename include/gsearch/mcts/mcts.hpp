// gsearch/mcts/mcts.hpp — Monte Carlo Tree Search: the driver, and the index of its parts.
//
// MCTS grows a tree from the current position, one iteration at a time (Browne et al. 2012,
// "A Survey of Monte Carlo Tree Search Methods"; the paper's §3.2):
//   1. selection    from the root, repeatedly pick a child with the selection policy,
//                   until reaching a node not visited before (or a terminal one);
//   2. expansion    a leaf visited often enough gets its children (as unvisited slots);
//   3. evaluation   the new node is valued by the evaluation policy (a random playout,
//                   a cut-off playout with an evaluation, or an evaluation alone);
//   4. backup       the value is recorded on every node of the path.
// Each iteration adds at most one node to the search tree — exactly one unless it ends on a
// terminal node — so an iteration budget is the paper's node budget N.
//
// Search<G, Select, Expand, Evaluate, Backup> is the one driver; everything that varies
// between MCTS variants is a policy chosen at compile time:
//   tree.hpp       Node, Tree (the arena), TreeViewOf (the read-only view for SGGA, GAT-AE)
//   params.hpp     Params (all knobs), FinalChoice, SearchStats
//   select.hpp     Uct (eq. 3), Puct, PriorUcb (eq. 13-14), ScoreSelect (any scorer)
//   expand.hpp     Expansion: all children, filters, priors, top-K pruning, progressive
//                  widening, expansion threshold
//   evaluate.hpp   RandomPlayout, CutoffPlayout (with the parity adjustment), StaticEvaluation
//   backup.hpp     MeanBackup, DepthNormalizer (the paper's update mechanism, eq. 10-12)
//
// Values are never negated blindly: each node stores its value for the player who chose it,
// so games whose player to move stays the same for several plies (the Amazons decision model)
// need nothing special. Same seed, same root and same iteration budget give the same tree and
// the same move.
//
// Example — plain UCT with random playouts, 10,000 iterations:
//   gsearch::mcts::Search<amazons::DecisionPosition> search({.seed = 1});
//   search.set_root(state);
//   search.run(gsearch::Budget::iters(10000));
//   auto move = search.best_move();
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/mcts/backup.hpp"
#include "gsearch/mcts/evaluate.hpp"
#include "gsearch/mcts/expand.hpp"
#include "gsearch/mcts/params.hpp"
#include "gsearch/mcts/select.hpp"
#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

template <Game G, class Select = Uct, class Expand = ExpandAll, class Evaluate = RandomPlayout,
          class Backup = MeanBackup>
requires SelectionPolicy<Select, typename G::Move> && ExpansionPolicy<Expand, G> &&
    EvaluationPolicy<Evaluate, G> && BackupPolicy<Backup, typename G::Move>
class Search {
 public:
  using Move = typename G::Move;
  using TreeType = Tree<Move>;

  // One root child as seen after a search.
  struct ChildStats {
    Move move;
    std::uint32_t visits;
    float q;  // mean value for the player to move at the root, in [-1, 1]
    float prior;
  };

  explicit Search(const Params& params = {}, Select select = {}, Expand expand = {},
                  Evaluate evaluate = {}, Backup backup = {})
      : params_(params),
        select_(std::move(select)),
        expand_(std::move(expand)),
        evaluate_(std::move(evaluate)),
        backup_(std::move(backup)),
        rng_(params.seed) {
    if (params_.reserve_nodes) tree_.reserve(params_.reserve_nodes);
  }

  // Restarts the random numbers from `seed` (e.g. one search object reused for every move of
  // a game, keeping its arena's capacity, with a seed per move).
  void reseed(std::uint64_t seed) noexcept {
    params_.seed = seed;
    rng_.reseed(seed);
  }

  // Starts a new tree at `state` (the arena keeps its capacity).
  void set_root(const G& state) {
    root_.emplace(state);
    tree_.clear();
    tree_[0].mover = static_cast<std::uint8_t>(opponent(state.to_move()));
  }

  // Moves the root to the child reached by `m` (a legal move at the root). With
  // Params::reuse_tree and a visited child, its subtree is kept; otherwise the tree starts
  // afresh. Returns true when a subtree was kept.
  bool advance(const Move& m) {
    G next = *root_;
    next.apply(m);
    if (params_.reuse_tree) {
      for (NodeId c : tree_.children(0)) {
        if (tree_[c].move == m && tree_[c].visited()) {
          tree_.reroot(c, scratch_);
          root_.emplace(next);
          return true;
        }
      }
    }
    set_root(next);
    return false;
  }

  // Searches until the budget is spent (iterations, nodes added, or time; at least one
  // limit must be set; a node budget without an iteration budget also stops after
  // Params::iterations_per_node iterations per node), or until the whole game tree below the
  // root has been explored to its terminal positions. Continues the existing tree. Does nothing at
  // a terminal root. set_root() must have been called.
  SearchStats run(const Budget& budget) {
    GSEARCH_ASSERT(!budget.unlimited());
    GSEARCH_ASSERT(root_.has_value());
    SearchStats stats;
    Budget limits = budget;
    if (limits.nodes && !limits.iterations)
      limits.iterations = limits.nodes * params_.iterations_per_node;
    // The clock is read every iteration: an iteration costs microseconds (an expansion with
    // priors can cost milliseconds), a clock read tens of nanoseconds.
    BudgetTracker tracker(limits, 1);
    if (root_->is_terminal()) return stats;
    while (!tree_.root().exhausted && !tracker.exhausted(stats.iterations, stats.nodes_added)) {
      stats.nodes_added += iterate();
      ++stats.iterations;
      if (params_.normalize_every && stats.iterations % params_.normalize_every == 0)
        normalizer_.run(tree_, params_.normalize_parity, params_.normalize_accumulation);
    }
    if (params_.normalize_at_end)
      normalizer_.run(tree_, params_.normalize_parity, params_.normalize_accumulation);
    stats.seconds = tracker.elapsed();
    return stats;
  }

  // The chosen move (Params::final_choice). The root must have a visited child, i.e. run()
  // must have done at least one iteration at a non-terminal root.
  [[nodiscard]] Move best_move() const {
    const NodeId best = best_child(0);
    GSEARCH_ASSERT(best != kNoNode);
    return tree_[best].move;
  }

  // The line of most-visited children from the root, at most max_length moves.
  [[nodiscard]] std::vector<Move> principal_variation(std::size_t max_length = 64) const {
    std::vector<Move> pv;
    for (NodeId n = best_child(0); n != kNoNode && pv.size() < max_length; n = best_child(n))
      pv.push_back(tree_[n].move);
    return pv;
  }

  // The root's visited children, most visited first.
  [[nodiscard]] std::vector<ChildStats> root_children() const {
    std::vector<ChildStats> out;
    for (NodeId c : tree_.children(0)) {
      const auto& node = tree_[c];
      if (node.visited()) out.push_back({node.move, node.visits, node.q, node.prior});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const ChildStats& a, const ChildStats& b) { return a.visits > b.visits; });
    return out;
  }

  [[nodiscard]] const TreeType& tree() const noexcept { return tree_; }
  [[nodiscard]] TreeType& tree() noexcept { return tree_; }
  [[nodiscard]] const G& root_state() const noexcept { return *root_; }
  [[nodiscard]] const Params& params() const noexcept { return params_; }
  [[nodiscard]] Select& selection() noexcept { return select_; }
  [[nodiscard]] Expand& expansion() noexcept { return expand_; }
  [[nodiscard]] Evaluate& evaluation() noexcept { return evaluate_; }

 private:
  // The child of n chosen by the final-choice rule, or kNoNode when none was visited.
  [[nodiscard]] NodeId best_child(NodeId n) const {
    NodeId best = kNoNode;
    for (NodeId c : tree_.children(n)) {
      const auto& node = tree_[c];
      if (!node.visited()) continue;
      if (best == kNoNode) {
        best = c;
        continue;
      }
      const auto& b = tree_[best];
      const bool better = params_.final_choice == FinalChoice::kMostVisits
                              ? node.visits > b.visits || (node.visits == b.visits && node.q > b.q)
                              : node.q > b.q || (node.q == b.q && node.visits > b.visits);
      if (better) best = c;
    }
    return best;
  }

  // Lists n's children with the expansion policy and appends them as slots. Returns false
  // when the arena cap (Params::max_nodes) leaves no room.
  bool expand(NodeId n, const G& state) {
    MoveListOf<G> moves;
    std::array<float, G::max_moves> priors;
    expand_.children(state, moves, priors.data());
    if (params_.max_nodes && tree_.size() + moves.size() > params_.max_nodes) return false;
    const NodeId first =
        tree_.add_children(n, moves.size(), static_cast<std::uint8_t>(state.to_move()));
    for (std::size_t i = 0; i < moves.size(); ++i) {
      tree_[first + static_cast<NodeId>(i)].move = moves[i];
      tree_[first + static_cast<NodeId>(i)].prior = priors[i];
    }
    return true;
  }

  // One iteration; returns 1 when it added a node to the search tree.
  int iterate() {
    G state = *root_;
    const Player perspective = state.to_move();
    NodeId n = 0;
    int added = 0;
    bool terminal = false;
    for (;;) {
      if (!tree_[n].expanded) {
        terminal = state.is_terminal();
        const bool ready = n == 0 || tree_[n].visits >= expand_.expand_threshold();
        if (!ready || terminal || !expand(n, state)) break;
      }
      const auto& node = tree_[n];
      const std::uint32_t open =
          std::max<std::uint32_t>(1, expand_.open(node.visits, node.num_children));
      const NodeId c = select_.select(tree_, n, node.first_child, open);
      state.apply(tree_[c].move);
      n = c;
      if (!tree_[c].visited()) {
        added = 1;
        terminal = state.is_terminal();
        break;
      }
    }
    // The leaf's value; the evaluation may play on `state`, so terminality was read first.
    const double value = evaluate_.evaluate(state, perspective, rng_);
    if (terminal) tree_.mark_exhausted(n);
    backup_.backup(tree_, n, value, perspective);
    return added;
  }

  Params params_;
  Select select_;
  Expand expand_;
  Evaluate evaluate_;
  Backup backup_;
  Rng rng_;
  std::optional<G> root_;  // set by set_root()
  TreeType tree_;
  std::vector<Node<Move>> scratch_;
  DepthNormalizer normalizer_;
};

}  // namespace gsearch::mcts
