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
// Three switches change how the steps run (Params):
//   solver     MCTS-Solver: terminal and game-proven leaves are proven, proofs are backed up
//              as minimax values (Tree::prove), selection samples no proven child while an
//              unproven one is open, the final choice takes a proven win, never a proven loss;
//   threads    root parallelism (a tree per thread, merged; reproducible) or tree
//              parallelism (one tree, virtual loss, a lock) — Params::parallel;
//   Evaluate   a PriorValueEvaluator (AlphaZero) instead of an evaluation policy: leaves are
//              gathered in batches of Params::batch under virtual loss, valued and given
//              their priors in one call, and expanded at once; Dirichlet noise at the root;
//              root_policy() and sample_move() for self-play.
//
// Search<G, Select, Expand, Evaluate, Backup> is the one driver; everything that varies
// between MCTS variants is a policy chosen at compile time:
//   tree.hpp       Node, Tree (the arena), TreeViewOf (the read-only view for SGGA, GAT-AE)
//   params.hpp     Params (all knobs), FinalChoice, SearchStats
//   select.hpp     Uct (eq. 3), Puct, PriorUcb (eq. 13-14), ScoreSelect (any scorer)
//   expand.hpp     Expansion: all children, filters, priors, top-K pruning, progressive
//                  widening, expansion threshold
//   evaluate.hpp   RandomPlayout, CutoffPlayout (with the parity adjustment), StaticEvaluation
//   backup.hpp     the driver's bookkeeping (record_visit), MeanBackup, the backup policy's
//                  node data (node extension), DepthNormalizer (the paper's eq. 10-12)
//   rave.hpp       RaveBackup and RaveSelect: RAVE/AMAF as a pair of policies on node data
//
// Values are never negated blindly: each node stores its value for the player who chose it,
// so games whose player to move stays the same for several plies (the Amazons decision model)
// need nothing special. Same seed, same root and same iteration budget give the same tree and
// the same move (except with Parallel::kTree and more than one thread).
//
// Example — plain UCT with random playouts, 10,000 iterations:
//   gsearch::mcts::Search<amazons::DecisionPosition> search({.seed = 1});
//   search.set_root(state);
//   search.run(gsearch::Budget::iters(10000));
//   auto move = search.best_move();
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "gsearch/core/budget.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/mcts/backup.hpp"
#include "gsearch/mcts/evaluate.hpp"
#include "gsearch/mcts/expand.hpp"
#include "gsearch/mcts/params.hpp"
#include "gsearch/mcts/rave.hpp"
#include "gsearch/mcts/select.hpp"
#include "gsearch/mcts/tree.hpp"

namespace gsearch::mcts {

namespace detail {
// The lock of a parallel search: held for microseconds at a time (a descent, a backup), by
// few threads, so it spins — briefly, then yielding — rather than sleeping in the kernel.
class SpinLock {
 public:
  void lock() noexcept {
    for (int spins = 0; locked_.exchange(true, std::memory_order_acquire);)
      while (locked_.load(std::memory_order_relaxed))
        if (++spins > 64) std::this_thread::yield();
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};
}  // namespace detail

// A prior-value evaluator (AlphaZero: Silver et al. 2017) values a batch of states in one
// call — a network runs once per batch — and gives, with each value, the priors of the
// state's moves:
//     void evaluate_batch(std::span<const G> states, std::span<float> values,
//                         std::span<float> priors)
// For each i, states[i] is not terminal; values[i] is its value in [-1, 1] for its player to
// move; priors[i * G::max_moves + k] is the prior of the k-th move that states[i].legal_moves()
// lists. Given as Search's Evaluate, it replaces both the expansion's priors and the playouts:
// a new leaf is expanded at once with its priors (so an evaluator runs once per leaf, never
// twice), up to Params::batch leaves are gathered under virtual loss before each call, and
// the Expand policy is used for progressive widening (open()) and, when it has one
// (Expansion's restrict_priors), to restrict the children: its candidate filter and top_k
// applied to the evaluator's priors, as the Gomoku report's restricted AlphaZero does.
template <class E, class G>
concept PriorValueEvaluator = Game<G> &&
    requires(E& e, std::span<const G> states, std::span<float> values, std::span<float> p) {
  { e.evaluate_batch(states, values, p) } -> std::same_as<void>;
};

// What Search takes as Evaluate: an evaluation policy (evaluate.hpp) or a prior-value
// evaluator.
template <class E, class G>
concept LeafEvaluator = EvaluationPolicy<E, G> || PriorValueEvaluator<E, G>;

template <Game G, class Select = Uct, class Expand = ExpandAll, class Evaluate = RandomPlayout,
          class Backup = MeanBackup>
requires SelectionPolicy<Select, Tree<typename G::Move, BackupData<Backup>>> &&
    ExpansionPolicy<Expand, G> && LeafEvaluator<Evaluate, G> &&
    BackupPolicy<Backup, typename G::Move>
class Search {
  static_assert(G::max_moves <= 0xffff,
                "gsearch::mcts: a node holds at most 65,535 children (Node::num_children)");

 public:
  using Move = typename G::Move;
  using TreeType = Tree<Move, BackupData<Backup>>;  // the backup policy's node data in each node
  using NodeType = typename TreeType::NodeType;

  // One root child as seen after a search.
  struct ChildStats {
    Move move;
    std::uint32_t visits;
    float q;  // mean value for the player to move at the root, in [-1, 1]
    float prior;
  };

  // Policies that cannot be default-constructed (e.g. an evaluator holding a network) are
  // passed in; the default constructor exists only when all of them can be.
  explicit Search() requires std::default_initializable<Select> &&
      std::default_initializable<Expand> && std::default_initializable<Evaluate> &&
      std::default_initializable<Backup> : Search(Params{}) {}

  explicit Search(const Params& params, Select select = {}, Expand expand = {},
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
    if (root_->is_terminal()) return stats;
    if (params_.threads <= 1) {
      stats = run_one(limits);
    } else if constexpr (kCopyablePolicies) {
      if (params_.parallel == Parallel::kRoot) {
        stats = run_root_parallel(limits);
      } else if constexpr (!kPriorValue) {
        stats = run_tree_parallel(limits);
      } else {
        throw std::invalid_argument(
            "gsearch::mcts: a prior-value evaluator batches leaves on one tree; use "
            "Parallel::kRoot for threads");
      }
    } else {
      throw std::invalid_argument("gsearch::mcts: threads > 1 needs copyable policies");
    }
    if (params_.normalize_at_end)
      normalizer_.run(tree_, params_.normalize_parity, params_.normalize_accumulation);
    return stats;
  }

  // The chosen move (Params::final_choice) among the root's visited children. Before any
  // iteration has visited a child it is still a legal move: the root's child slot with the
  // highest prior (the first of equals), or the first legal move when the root has not been
  // expanded. At a terminal root there is none: throws std::logic_error.
  [[nodiscard]] Move best_move() const {
    GSEARCH_ASSERT(root_.has_value());
    if (const NodeId best = best_child(0); best != kNoNode) return tree_[best].move;
    NodeId slot = kNoNode;
    for (NodeId c : tree_.children(0))
      if (slot == kNoNode || tree_[c].prior > tree_[slot].prior) slot = c;
    if (slot != kNoNode) return tree_[slot].move;
    MoveListOf<G> moves;
    if (!root_->is_terminal()) root_->legal_moves(moves);
    if (moves.empty())
      throw std::logic_error("gsearch::mcts::Search::best_move: the root is terminal, no move");
    return moves[0];
  }

  // The root's visit distribution, the AlphaZero policy target: every root child slot in
  // order with its share of the children's visits (0 for unvisited ones; all 0 before any
  // child was visited).
  [[nodiscard]] std::vector<std::pair<Move, float>> root_policy() const {
    std::vector<std::pair<Move, float>> out;
    double total = 0;
    for (NodeId c : tree_.children(0)) total += tree_[c].visits;
    for (NodeId c : tree_.children(0))
      out.emplace_back(tree_[c].move, total > 0 ? static_cast<float>(tree_[c].visits / total) : 0);
    return out;
  }

  // A move drawn with probability proportional to visits^(1 / temperature) among the root's
  // visited children (AlphaZero's move choice in the first moves of self-play games, for
  // variety); temperature 0 is best_move().
  [[nodiscard]] Move sample_move(double temperature, Rng& rng) const {
    if (temperature <= 0) return best_move();
    double max_visits = 0;
    for (NodeId c : tree_.children(0))
      max_visits = std::max(max_visits, static_cast<double>(tree_[c].visits));
    if (max_visits == 0) return best_move();
    const auto weight = [&](NodeId c) {  // (visits / max)^(1/T): no overflow for small T
      return tree_[c].visits ? std::pow(tree_[c].visits / max_visits, 1.0 / temperature) : 0.0;
    };
    double total = 0;
    for (NodeId c : tree_.children(0)) total += weight(c);
    double x = rng.uniform() * total;
    NodeId last = kNoNode;
    for (NodeId c : tree_.children(0)) {
      if (!tree_[c].visits) continue;
      last = c;
      if ((x -= weight(c)) < 0) return tree_[c].move;
    }
    return tree_[last].move;  // rounding
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

  // Adds the statistics of `others`, trees grown from the same root with the same expansion
  // policy, to this one: matching nodes (the same moves from the root) pool their visits and
  // means, and their policies' node data (NodeData::merge; every slot's, visited or not); a
  // node expanded there but not here gets its child slots (within Params::max_nodes), from
  // the first of `others` that expanded it. A proven value (with the solver) stays exact; an
  // exhausted subtree stays exhausted. The objectives of a normalising pass are dropped
  // (Params::normalize_at_end runs it again). Breadth first, every tree level by level: once
  // the root's children are merged, the merge stops as soon as time_up() says so (checked
  // every 64 nodes), leaving the deeper nodes unmerged (whose parents' visits then count more
  // than their children's). Root parallelism merges its threads' trees with it; trees grown
  // in other processes (same root, same policies) can be merged the same way.
  template <class TimeUp>
  void merge_from(std::span<const TreeType* const> others, TimeUp&& time_up) {
    GSEARCH_ASSERT(root_.has_value());
    tree_.objective().clear();  // the pooled statistics make every objective stale
    struct Pair {
      std::uint32_t tree;
      NodeId there, here;
    };
    std::vector<Pair> level, next;
    for (std::uint32_t k = 0; k < others.size(); ++k) level.push_back({k, 0, 0});
    for (int depth = 0; !level.empty(); ++depth) {
      for (std::size_t i = 0; i < level.size(); ++i) {
        if (depth >= 2 && (i & 63) == 0 && time_up()) return;
        const auto [k, o, h] = level[i];
        const TreeType& other = *others[k];
        const auto& from = other[o];
        auto& to = tree_[h];
        const std::uint32_t visits = to.visits + from.visits;
        if (params_.solver && (to.exhausted || from.exhausted)) {
          to.q = to.exhausted ? to.q : from.q;
        } else if (visits) {
          to.q = static_cast<float>(
              (static_cast<double>(to.q) * to.visits + static_cast<double>(from.q) * from.visits) /
              visits);
        }
        to.visits = visits;
        to.exhausted |= from.exhausted;
        to.data.merge(from.data);
        if (!from.expanded) continue;
        if (!tree_[h].expanded) {
          if (params_.max_nodes && tree_.size() + from.num_children > params_.max_nodes) continue;
          const NodeId first =
              tree_.add_children(h, from.num_children, other[from.first_child].mover);
          for (std::uint16_t c = 0; c < from.num_children; ++c) {
            tree_[first + c].move = other[from.first_child + c].move;
            tree_[first + c].prior = other[from.first_child + c].prior;
          }
        }
        if (tree_[h].num_children != from.num_children) continue;  // another expansion: ours
        for (std::uint16_t c = 0; c < from.num_children; ++c) {
          const NodeId oc = from.first_child + c, hc = tree_[h].first_child + c;
          if (other[oc].move != tree_[hc].move) continue;
          if (other[oc].visited())
            next.push_back({k, oc, hc});
          else  // an unvisited slot's data (RAVE's counts) is pooled all the same
            tree_[hc].data.merge(other[oc].data);
        }
      }
      level.swap(next);
      next.clear();
    }
  }

  void merge_from(std::span<const TreeType* const> others) {
    merge_from(others, [] { return false; });
  }

 private:
  // The child of n chosen by the final-choice rule, or kNoNode when none was visited. With
  // the solver, a proven win comes first and a proven loss last, whatever the visits, and a
  // proven child against another is chosen by value (proven children are no longer visited).
  [[nodiscard]] NodeId best_child(NodeId n) const {
    const auto rank = [&](const NodeType& x) {
      if (!params_.solver || !x.exhausted) return 1;
      return x.q >= 1.0f ? 2 : x.q <= -1.0f ? 0 : 1;
    };
    NodeId best = kNoNode;
    for (NodeId c : tree_.children(n)) {
      const auto& node = tree_[c];
      if (!node.visited()) continue;
      if (best == kNoNode) {
        best = c;
        continue;
      }
      const auto& b = tree_[best];
      bool better = params_.final_choice == FinalChoice::kMostVisits
                        ? node.visits > b.visits || (node.visits == b.visits && node.q > b.q)
                        : node.q > b.q || (node.q == b.q && node.visits > b.visits);
      if (rank(node) != rank(b))
        better = rank(node) > rank(b);
      else if (params_.solver && (node.exhausted || b.exhausted) && node.q != b.q)
        better = node.q > b.q;  // an exact value against a value or an estimate
      if (better) best = c;
    }
    return best;
  }

  // Lists n's children with the expansion policy and appends them as slots. Returns false
  // when the arena cap (Params::max_nodes) leaves no room; the root is expanded whatever the
  // cap, so that a search always has its moves to choose from.
  bool expand(NodeId n, const G& state) {
    MoveListOf<G> moves;
    std::array<float, G::max_moves> priors;
    expand_.children(state, moves, priors.data());
    return attach_children(n, state, moves, priors.data());
  }

  // Appends the children an expansion policy listed (`moves`, with their `priors`) to n.
  // Returns false when the arena cap leaves no room (the root excepted).
  bool attach_children(NodeId n, const G& state, const MoveListOf<G>& moves, const float* priors) {
    if (n != 0 && params_.max_nodes && tree_.size() + moves.size() > params_.max_nodes)
      return false;
    const NodeId first =
        tree_.add_children(n, moves.size(), static_cast<std::uint8_t>(state.to_move()));
    for (std::size_t i = 0; i < moves.size(); ++i) {
      tree_[first + static_cast<NodeId>(i)].move = moves[i];
      tree_[first + static_cast<NodeId>(i)].prior = priors[i];
    }
    return true;
  }

  // MCTS-Solver with score bounds (Cazenave & Saffidine 2010, reduced to proofs): a proven
  // child cannot raise its parent above the best proven value, which every unproven child
  // still may, so none is sampled while the parent has an unproven open child — the one
  // with the best value, unvisited ones first. Otherwise `c` (the parent is about to be
  // proven by its last children).
  [[nodiscard]] NodeId instead_of_proven(NodeId n, std::uint32_t open, NodeId c) const noexcept {
    NodeId best = c;
    const NodeId first = tree_[n].first_child;
    for (NodeId k = first; k < first + open; ++k) {
      if (tree_[k].exhausted) continue;
      if (!tree_[k].visited()) return k;
      if (best == c || tree_[k].q > tree_[best].q) best = k;
    }
    return best;
  }

  // Where one iteration's descent ended.
  struct Leaf {
    NodeId node = 0;
    int added = 0;             // 1 when the leaf joined the search tree in this iteration
    bool terminal = false;     // the leaf's state is terminal
    bool exact = false;        // with the solver: the leaf's value is known exactly,
    float exact_value = 0.0f;  // this, for the leaf's mover
  };

  // Selection and expansion from the root: plays the path's moves on `state` (the root's
  // state on entry) and says where it ended. `expand_node(n, state)` expands a node that is
  // ready (expand() unless a parallel search lists the children outside its lock) and
  // returns false when n stays a leaf.
  Leaf descend(G& state) {
    return descend(state, [this](NodeId n, const G& s) { return expand(n, s); });
  }
  template <class ExpandNode>
  Leaf descend(G& state, ExpandNode&& expand_node) {
    Leaf leaf;
    NodeId& n = leaf.node;
    for (;;) {
      if (!tree_[n].expanded) {
        leaf.terminal = state.is_terminal();
        if constexpr (kPriorValue) break;  // expanded when its evaluation comes back
        const bool ready = n == 0 || tree_[n].visits >= expand_.expand_threshold();
        if (!ready || leaf.terminal || !expand_node(n, state)) break;
      }
      const auto& node = tree_[n];
      const std::uint32_t open =
          std::max<std::uint32_t>(1, expand_.open(node.visits, node.num_children));
      NodeId c = select_.select(tree_, n, node.first_child, open);
      if (params_.solver && tree_[c].exhausted) c = instead_of_proven(n, open, c);
      state.apply(tree_[c].move);
      n = c;
      if (!tree_[c].visited()) {
        leaf.added = 1;
        leaf.terminal = state.is_terminal();
        break;
      }
      if (params_.solver && tree_[c].exhausted) break;  // proven: its value is known
    }
    // With the solver, a leaf whose value is known exactly is not evaluated: a proven node
    // (its q), a terminal one (its result), or one the game proves (ProvableGame).
    if (params_.solver) {
      const auto& node = tree_[n];
      if (node.exhausted) {
        leaf.exact = true, leaf.exact_value = node.q;
      } else if (leaf.terminal) {
        leaf.exact = true, leaf.exact_value = static_cast<float>(state.result(node.mover));
      } else if constexpr (ProvableGame<G>) {
        if (leaf.added) {
          if (const int outcome = state.proven_outcome(); outcome != 0) {
            leaf.exact = true;
            leaf.exact_value =
                static_cast<float>(state.to_move() == node.mover ? outcome : -outcome);
          }
        }
      }
    }
    return leaf;
  }

  // The leaf's value for `perspective`: its exact value, or the evaluation policy's (which
  // may play on `state`; terminality was read first). With a backup policy that asks for the
  // playout's moves, they are appended to `playout` (cleared first).
  template <class E>
  double leaf_value(const Leaf& leaf, G& state, Player perspective, const E& evaluate, Rng& rng,
                    std::vector<PlayoutStep<Move>>& playout) {
    playout.clear();
    if (leaf.exact) return exact_for(leaf, perspective);
    if constexpr (kWantsPlayout<Backup> && RecordingEvaluation<E, G>) {
      return evaluate.evaluate(state, perspective, rng, [&playout](const Move& m, Player p) {
        playout.push_back({m, p});
      });
    } else {
      return evaluate.evaluate(state, perspective, rng);
    }
  }
  [[nodiscard]] double exact_for(const Leaf& leaf, Player perspective) const noexcept {
    return tree_[leaf.node].mover == perspective ? leaf.exact_value : -leaf.exact_value;
  }

  // Records the leaf's value on the tree: the driver's bookkeeping, then the backup policy's.
  void finish(const Leaf& leaf, double value, Player perspective,
              std::span<const PlayoutStep<Move>> playout = {}) {
    if (leaf.terminal && !params_.solver) tree_.mark_exhausted(leaf.node);
    record_visit(tree_, leaf.node, value, perspective);
    backup_.backup(tree_, Iteration<Move>{leaf.node, value, perspective, playout});
    // After the backup, which would average a proven value into the means again.
    if (leaf.exact && !tree_[leaf.node].exhausted) tree_.prove(leaf.node, leaf.exact_value);
  }

  // One iteration; returns 1 when it added a node to the search tree.
  int iterate() {
    G state = *root_;
    const Player perspective = state.to_move();
    const Leaf leaf = descend(state);
    const double value = leaf_value(leaf, state, perspective, evaluate_, rng_, playout_);
    finish(leaf, value, perspective, playout_);
    return leaf.added;
  }

  // Virtual loss: while an iteration evaluates its leaf, every node on its path counts one
  // more visit, valued as a loss for the node's mover, so that other threads look elsewhere.
  // undo_virtual_loss() takes it back exactly (up to rounding) before the real backup.
  // A proven node's q is its exact value and is left alone.
  void add_virtual_loss(NodeId leaf) {
    for (NodeId n = leaf; n != kNoNode; n = tree_[n].parent) {
      auto& node = tree_[n];
      ++node.visits;
      if (!(params_.solver && node.exhausted))
        node.q += static_cast<float>((-1.0 - node.q) / node.visits);
    }
  }
  void undo_virtual_loss(NodeId leaf) {
    for (NodeId n = leaf; n != kNoNode; n = tree_[n].parent) {
      auto& node = tree_[n];
      const double sum = static_cast<double>(node.q) * node.visits + 1.0;
      --node.visits;
      if (params_.solver && node.exhausted) continue;
      node.q = node.visits ? std::clamp(static_cast<float>(sum / node.visits), -1.0f, 1.0f) : 0.0f;
    }
  }

  // With the solver and several threads, a node on an iteration's path may have been proven
  // by another thread while this one evaluated: its exact value is kept through the backup.
  void finish_keeping_proofs(const Leaf& leaf, double value, Player perspective,
                             std::vector<std::pair<NodeId, float>>& proofs,
                             std::span<const PlayoutStep<Move>> playout) {
    proofs.clear();
    for (NodeId n = tree_[leaf.node].parent; n != kNoNode; n = tree_[n].parent)
      if (tree_[n].exhausted) proofs.emplace_back(n, tree_[n].q);
    finish(leaf, value, perspective, playout);
    for (const auto& [n, q] : proofs) tree_[n].q = q;
  }

  static constexpr bool kPriorValue = PriorValueEvaluator<Evaluate, G>;
  // Whether tree parallelism lists a node's children outside its lock (expand.hpp).
  static constexpr bool kListUnlocked = [] {
    if constexpr (requires { Expand::list_unlocked; })
      return static_cast<bool>(Expand::list_unlocked);
    else
      return true;
  }();

  SearchStats run_one(const Budget& limits) {
    if constexpr (kPriorValue)
      return run_batched(limits);
    else
      return run_serial(limits);
  }

  // Expands `n` with the legal moves of `state` and the priors an evaluator gave them
  // (row: the priors in legal_moves() order), best prior first — restricted by the Expand
  // policy when it offers restrict_priors() (expand.hpp); at the root, mixed with Dirichlet
  // noise when Params::dirichlet_alpha > 0. Within Params::max_nodes (the root always).
  void expand_with_priors(NodeId n, const G& state, const float* row) {
    MoveListOf<G> moves;
    state.legal_moves(moves);
    if constexpr (requires(MoveListOf<G> & m, float* p) { expand_.restrict_priors(state, m, p); }) {
      std::copy(row, row + moves.size(), restricted_.begin());
      expand_.restrict_priors(state, moves, restricted_.data());
      row = restricted_.data();
    }
    if (n != 0 && params_.max_nodes && tree_.size() + moves.size() > params_.max_nodes) return;
    std::array<std::uint16_t, G::max_moves> order;
    for (std::size_t i = 0; i < moves.size(); ++i) order[i] = static_cast<std::uint16_t>(i);
    std::stable_sort(order.begin(), order.begin() + moves.size(),
                     [&](std::uint16_t a, std::uint16_t b) { return row[a] > row[b]; });
    const NodeId first =
        tree_.add_children(n, moves.size(), static_cast<std::uint8_t>(state.to_move()));
    for (std::size_t i = 0; i < moves.size(); ++i) {
      tree_[first + static_cast<NodeId>(i)].move = moves[order[i]];
      tree_[first + static_cast<NodeId>(i)].prior = row[order[i]];
    }
    if (n == 0) add_root_noise();
  }

  // AlphaZero's exploration at the root: P ← (1 − ε)·P + ε·η, η ~ Dirichlet(α, ..., α).
  void add_root_noise() {
    if (params_.dirichlet_alpha <= 0 || params_.dirichlet_epsilon <= 0) return;
    double total = 0;
    for (std::size_t k = tree_.root().num_children; k > 0; --k) {
      const double g = rng_.gamma(params_.dirichlet_alpha);
      noise_.push_back(g);
      total += g;
    }
    std::size_t i = 0;
    for (NodeId c : tree_.children(0)) {
      const double eta = total > 0 ? noise_[i++] / total : 0.0;
      tree_[c].prior = static_cast<float>((1.0 - params_.dirichlet_epsilon) * tree_[c].prior +
                                          params_.dirichlet_epsilon * eta);
    }
    noise_.clear();
  }

  // The prior-value search: leaves are gathered under virtual loss, up to Params::batch of
  // them (fewer when a descent reaches a leaf already gathered), then valued and given
  // their priors in one evaluator call, expanded, and backed up. Terminal (and, with the
  // solver, proven) leaves need no evaluator and are backed up at once. One thread: the
  // same seed and iteration budget give the same tree, whatever the batch size's timing.
  SearchStats run_batched(const Budget& limits) {
    SearchStats stats;
    BudgetTracker tracker(limits, 1);
    const std::size_t batch = std::max<std::size_t>(1, params_.batch);
    const Player perspective = root_->to_move();
    batch_states_.clear();
    batch_leaves_.clear();
    batch_values_.resize(batch);
    batch_priors_.resize(batch * G::max_moves);
    const auto evaluate_gathered = [&] {
      const std::size_t k = batch_states_.size();
      evaluate_.evaluate_batch(std::span<const G>(batch_states_.data(), k),
                               std::span<float>(batch_values_.data(), k),
                               std::span<float>(batch_priors_.data(), k * G::max_moves));
      for (std::size_t i = 0; i < k; ++i) {
        const Leaf& leaf = batch_leaves_[i];
        const G& state = batch_states_[i];
        if (leaf.node != 0) undo_virtual_loss(leaf.node);
        expand_with_priors(leaf.node, state, batch_priors_.data() + i * G::max_moves);
        const double v = batch_values_[i];
        finish(leaf, state.to_move() == perspective ? v : -v, perspective);
        ++stats.iterations;
        stats.nodes_added += leaf.added;
      }
      batch_states_.clear();
      batch_leaves_.clear();
    };
    if (!tree_[0].expanded) {  // the root first, alone: every descent starts from its children
      batch_states_.push_back(*root_);
      batch_leaves_.push_back(Leaf{});
      evaluate_gathered();
    }
    while (!tree_.root().exhausted &&
           !tracker.exhausted(stats.iterations + batch_leaves_.size(), stats.nodes_added)) {
      G state = *root_;
      const Leaf leaf = descend(state);
      const bool gathered = std::any_of(batch_leaves_.begin(), batch_leaves_.end(),
                                        [&](const Leaf& l) { return l.node == leaf.node; });
      if (leaf.terminal || leaf.exact) {
        finish(leaf, leaf.exact ? exact_for(leaf, perspective) : state.result(perspective),
               perspective);
        ++stats.iterations;
        stats.nodes_added += leaf.added;
      } else if (!gathered) {
        add_virtual_loss(leaf.node);
        batch_states_.push_back(state);
        batch_leaves_.push_back(leaf);
      }
      if (batch_leaves_.size() == batch || gathered) evaluate_gathered();
    }
    if (!batch_leaves_.empty()) evaluate_gathered();
    stats.seconds = tracker.elapsed();
    return stats;
  }

  static constexpr bool kCopyablePolicies =
      std::copy_constructible<Select> && std::copy_constructible<Expand> &&
      std::copy_constructible<Evaluate> && std::copy_constructible<Backup>;

  SearchStats run_serial(const Budget& limits) {
    SearchStats stats;
    // The clock is read every iteration: an iteration costs microseconds (an expansion with
    // priors can cost milliseconds), a clock read tens of nanoseconds.
    BudgetTracker tracker(limits, 1);
    while (!tree_.root().exhausted && !tracker.exhausted(stats.iterations, stats.nodes_added)) {
      stats.nodes_added += iterate();
      ++stats.iterations;
      if (params_.normalize_every && stats.iterations % params_.normalize_every == 0)
        normalizer_.run(tree_, params_.normalize_parity, params_.normalize_accumulation);
    }
    stats.seconds = tracker.elapsed();
    return stats;
  }

  // Root parallelism (Chaslot, Winands & van den Herik 2008; Cazenave & Jouandeau 2007): each
  // helper thread grows a tree of its own from the root — a one-thread Search with copies of
  // the policies, seeded derive_seed(seed, thread) — while this thread goes on with the
  // search's own tree; iteration and node budgets are shared out. The helpers' trees are then
  // merged into this one (merge_from), so every statistic, deep ones included, counts every
  // thread's iterations. Nothing is shared while searching: no lock, and the result depends
  // only on the seed and an iteration budget, as with one thread. Under a time budget the
  // merge is part of the time (Params::merge_share).
  SearchStats run_root_parallel(const Budget& limits) {
    const unsigned threads = params_.threads;
    Budget search_limits = limits;
    if (limits.seconds > 0.0)
      search_limits.seconds = limits.seconds * (1.0 - std::clamp(params_.merge_share, 0.0, 0.9));
    const auto share = [&](unsigned t) {
      Budget b = search_limits;
      const auto part = [&](std::uint64_t n) { return n / threads + (t < n % threads ? 1 : 0); };
      if (b.iterations) b.iterations = part(b.iterations);
      if (b.nodes) b.nodes = part(b.nodes);
      return b;
    };
    // A thread whose share of an iteration or node budget is nothing does not run.
    const auto runs = [&](const Budget& b) {
      return !((limits.iterations && !b.iterations) || (limits.nodes && !b.nodes));
    };
    Params helper_params = params_;
    helper_params.threads = 1;
    helper_params.normalize_at_end = false;
    helper_params.reserve_nodes = 0;
    std::vector<std::optional<Search>> helpers(threads - 1);
    std::vector<SearchStats> helper_stats(threads - 1);
    std::vector<std::exception_ptr> errors(threads - 1);
    SearchStats stats;
    Stopwatch watch;
    {
      std::vector<std::jthread> workers;
      workers.reserve(threads - 1);
      for (unsigned t = 1; t < threads; ++t) {
        if (!runs(share(t))) continue;
        helper_params.seed = derive_seed(params_.seed, t);
        helpers[t - 1].emplace(helper_params, select_, expand_, evaluate_, backup_);
        workers.emplace_back([&, t] {
          try {
            helpers[t - 1]->set_root(*root_);
            helper_stats[t - 1] = helpers[t - 1]->run(share(t));
          } catch (...) {
            errors[t - 1] = std::current_exception();
          }
        });
      }
      if (runs(share(0))) stats = run_one(share(0));
    }
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    std::vector<const TreeType*> trees;
    for (unsigned t = 1; t < threads; ++t) {
      if (!helpers[t - 1]) continue;
      trees.push_back(&helpers[t - 1]->tree());
      stats.iterations += helper_stats[t - 1].iterations;
      stats.nodes_added += helper_stats[t - 1].nodes_added;
    }
    merge_from(trees, [&] { return limits.seconds > 0.0 && watch.seconds() >= limits.seconds; });
    stats.seconds = watch.seconds();
    return stats;
  }

  // Tree parallelism (Chaslot, Winands & van den Herik 2008) with virtual loss: each thread
  // descends and backs up under one lock, and evaluates its leaf — the playout, the bulk of
  // an iteration — outside it, on its own copy of the evaluation policy with its own random
  // numbers (derive_seed(seed, thread)). Unless the expansion policy says its listing is
  // cheap (list_unlocked, expand.hpp), an expansion lists and scores its children outside
  // the lock too, on the thread's copy of the policy: with a prior that evaluates every
  // child (INVADERMC's) that is most of the work. A thread that reaches a node another
  // thread is expanding evaluates it as a leaf instead of expanding it twice. The root is
  // expanded first, before the threads start: a thread waiting for it would otherwise spend
  // its iterations on playouts from the root, which inform no move (all of them, when the
  // expanding thread is descheduled). Iterations are counted when they start, so an
  // iteration budget is met exactly.
  SearchStats run_tree_parallel(const Budget& limits) {
    SearchStats stats;
    BudgetTracker tracker(limits, 1);
    if (!tree_[0].expanded) expand(0, *root_);
    detail::SpinLock mutex;
    std::uint64_t started = 0, added = 0, finished = 0;
    std::vector<NodeId> expanding;  // the nodes being expanded, one at most per thread
    expanding.reserve(params_.threads);
    const auto work = [&](unsigned thread) {
      Evaluate evaluate = evaluate_;
      Expand expansion = expand_;
      Rng rng(derive_seed(params_.seed, thread));
      const Player perspective = root_->to_move();
      std::vector<std::pair<NodeId, float>> proofs;
      std::vector<PlayoutStep<Move>> playout;
      MoveListOf<G> moves;
      std::array<float, G::max_moves> priors;
      std::unique_lock lock(mutex);
      const auto expand_unlocked = [&](NodeId n, const G& s) {
        if (std::find(expanding.begin(), expanding.end(), n) != expanding.end()) return false;
        expanding.push_back(n);
        lock.unlock();
        expansion.children(s, moves, priors.data());
        lock.lock();
        std::erase(expanding, n);
        return attach_children(n, s, moves, priors.data());
      };
      while (!tree_.root().exhausted && !tracker.exhausted(started, added)) {
        ++started;
        G state = *root_;
        const Leaf leaf = kListUnlocked ? descend(state, expand_unlocked) : descend(state);
        added += leaf.added;
        add_virtual_loss(leaf.node);
        lock.unlock();
        // The exact value is read under the lock (another thread may be proving the node).
        double value = 0.0;
        playout.clear();
        if (!leaf.exact) value = leaf_value(leaf, state, perspective, evaluate, rng, playout);
        lock.lock();
        undo_virtual_loss(leaf.node);
        if (leaf.exact) value = exact_for(leaf, perspective);
        if (params_.solver)
          finish_keeping_proofs(leaf, value, perspective, proofs, playout);
        else
          finish(leaf, value, perspective, playout);
        ++finished;
        if (params_.normalize_every && finished % params_.normalize_every == 0)
          normalizer_.run(tree_, params_.normalize_parity, params_.normalize_accumulation);
      }
    };
    {
      std::vector<std::jthread> helpers;
      helpers.reserve(params_.threads - 1);
      for (unsigned t = 1; t < params_.threads; ++t) helpers.emplace_back(work, t);
      work(0);
    }
    stats.iterations = finished;
    stats.nodes_added = added;
    stats.seconds = tracker.elapsed();
    return stats;
  }

  Params params_;
  Select select_;
  Expand expand_;
  Evaluate evaluate_;
  Backup backup_;
  Rng rng_;
  std::optional<G> root_;  // set by set_root()
  TreeType tree_;
  std::vector<NodeType> scratch_;
  std::vector<PlayoutStep<Move>> playout_;  // the playout's moves, for a backup that wants them
  DepthNormalizer normalizer_;
  // The prior-value search's batch (kept between runs: no allocation once warm).
  std::vector<G> batch_states_;
  std::vector<Leaf> batch_leaves_;
  std::vector<float> batch_values_, batch_priors_;
  std::vector<double> noise_;
  std::array<float, G::max_moves> restricted_{};  // the priors Expand::restrict_priors keeps
};

}  // namespace gsearch::mcts
