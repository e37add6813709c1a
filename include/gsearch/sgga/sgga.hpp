// gsearch/sgga/sgga.hpp — the Stochastic Graph Genetic Algorithm over any TreeView.
//
// SGGA (paper §4.2.4, eq. 16; Algorithm 1, lines 12–18) picks a node of a search tree by a
// genetic procedure over the tree seen as a graph. It keeps a repository, a multiset of nodes
// that starts with two candidates, and a visit count per node (the paper's NodeCount). Each
// generation:
//   1. selection — two candidates are drawn from the repository, independently, each entry with
//      probability proportional to exp(objective / T) (a softmax over the entries);
//   2. mutation — each candidate takes a biased random-walk step: down to a child with
//      probability σ, up to its parent with probability 1 − σ (a leaf must go up, the root must
//      go down). The child is drawn by softmax of the children's objectives (Step::kSoftmax) or
//      uniformly (Step::kUniform). Every arrival adds one to the count of the node arrived at
//      (Count::kSelections counts the draws of step 1 instead), and joins the repository;
//   3. crossover — when the two candidates arrive at the same node, that node joins the
//      repository once more.
// A run stops as soon as a node n other than the root reaches
//      count(n) >= 2^(H_max − depth(n) + 1)                                          (eq. 16)
// with H_max = gsearch::max_depth of the tree, and returns n and its path from the root; or it
// stops after max_generations generations (Algorithm 1, line 17) and returns a fallback node
// (Params::on_cap). Deep nodes need few visits (a node at depth H_max needs 2), shallow ones
// many (a root child needs 2^H_max), so a run ends on a node the walks keep coming back to.
//
// With Params::join_heads (the paper: "the four head nodes corresponding to the four amazons
// are connected with undirected edges"), the root's children — the head nodes — form a clique:
// the up-step of a head node goes to another head node (drawn like a child, among the heads
// other than itself) instead of the root. The root is then only ever a starting point.
//
// Every place where the paper leaves a choice open, and the reading taken here, is listed in
// docs/sgga.md ("Readings of the paper"), with the parameter that selects the alternative.
//
// Cost: prepare(view) copies the tree into flat arrays in O(n). A generation costs O(log n)
// (the repository is sampled through a FenwickSampler over the n nodes, whatever its size) plus
// a binary search among one node's children, and allocates nothing. A run starts by clearing
// only what the previous run touched, so repeated runs on a large tree cost what they walk.
//
//   gsearch::sgga::Sgga sgga({.sigma = 0.8, .join_heads = true});
//   sgga.prepare(tree);                       // any gsearch::TreeView
//   const auto& result = sgga.run(/*seed=*/42);
//   // result.node, result.path (root first), result.generations, result.stop, result.visits
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gsearch/core/rng.hpp"
#include "gsearch/core/tree_view.hpp"
#include "gsearch/sgga/sampler.hpp"

namespace gsearch::sgga {

// How a walk step picks the child it goes down to (and, with join_heads, the head node it goes
// across to).
enum class Step : std::uint8_t {
  kSoftmax,  // with probability proportional to exp(objective / temperature)
  kUniform,  // uniformly
};

// The two candidates the repository starts with.
enum class Init : std::uint8_t {
  kSampleHeads,  // two independent draws among the root's children, by the Step rule
  kBestHeads,    // the two root children of highest objective (the earlier child on ties); the
                 // only one twice if the root has one child
  kRoot,         // the root, twice
};

// The node a run returns when it stops at the generation cap.
enum class OnCap : std::uint8_t {
  kClosest,        // the node (not the root) whose count is the largest fraction of its
                   // eq. 16 threshold; ties to the deeper, then higher objective, then lower id
  kLastCandidate,  // the last candidate generated (Algorithm 1's n_new when the loop ends)
  kNone,           // no node: Result::node is kNoNode and Result::path is empty
};

// What adds one to a node's count (the paper's NodeCount, checked against eq. 16).
enum class Count : std::uint8_t {
  kArrivals,    // a mutation step arriving at the node (Algorithm 1 checks the new candidate)
  kSelections,  // the node being drawn from the repository as one of a generation's two
};

// Why a run stopped.
enum class Stop : std::uint8_t {
  kCountRule,      // a node's visit count reached 2^(H_max − depth + 1) (eq. 16)
  kGenerationCap,  // max_generations generations ran (Algorithm 1, line 17)
};

// Every knob of SGGA. Defaults follow the paper where it gives a value.
struct Params {
  double sigma = 0.8;                      // P(step down to a child); 1 − σ: up. In [0, 1]
  double temperature = 1.0;                // softmax temperature T, finite and > 0
  std::uint64_t max_generations = 50'000;  // stop after this many generations; >= 1
  std::uint32_t walk_length = 1;           // walk steps per mutation (each counts a visit); >= 1
  bool join_heads = true;                  // join the root's children by undirected edges
  Step step = Step::kSoftmax;              // how a step chooses among children (or heads)
  Count count = Count::kArrivals;          // what counts as a visit
  Init init = Init::kSampleHeads;          // the repository's first two candidates
  OnCap on_cap = OnCap::kClosest;          // the node returned when the generation cap stops
};

namespace detail {
// A double as printf's %g writes it ("1.5", "nan", "1e-300"), for error messages.
inline std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}
}  // namespace detail

// Throws std::invalid_argument naming the first field of `params` that is out of range.
inline void validate(const Params& params) {
  if (!(params.sigma >= 0.0 && params.sigma <= 1.0))
    throw std::invalid_argument("sgga: sigma must be in [0, 1], got " +
                                detail::number(params.sigma));
  if (!(params.temperature > 0.0) || !std::isfinite(params.temperature))
    throw std::invalid_argument("sgga: temperature must be finite and > 0, got " +
                                detail::number(params.temperature));
  if (params.max_generations == 0)
    throw std::invalid_argument("sgga: max_generations must be at least 1");
  if (params.walk_length == 0) throw std::invalid_argument("sgga: walk_length must be at least 1");
  if (params.step != Step::kSoftmax && params.step != Step::kUniform)
    throw std::invalid_argument("sgga: step is not a Step value");
  if (params.count != Count::kArrivals && params.count != Count::kSelections)
    throw std::invalid_argument("sgga: count is not a Count value");
  if (params.init != Init::kSampleHeads && params.init != Init::kBestHeads &&
      params.init != Init::kRoot)
    throw std::invalid_argument("sgga: init is not an Init value");
  if (params.on_cap != OnCap::kClosest && params.on_cap != OnCap::kLastCandidate &&
      params.on_cap != OnCap::kNone)
    throw std::invalid_argument("sgga: on_cap is not an OnCap value");
}

// What one run found. Returned by reference from Sgga::run(), valid until the next run() or
// prepare() on the same object.
struct Result {
  NodeId node = kNoNode;              // the chosen node; kNoNode with OnCap::kNone at the cap, or
                                      // when the cap stops a run that visited only the root
  std::vector<NodeId> path;           // root, ..., node by parent links; empty for kNoNode
  std::uint64_t generations = 0;      // generations run, the stopping one included
  Stop stop = Stop::kCountRule;       // the rule that stopped the run
  std::uint64_t crossovers = 0;       // generations whose two candidates met
  std::uint64_t repository_size = 0;  // entries in the repository when the run stopped
  std::vector<std::uint64_t> visits;  // visits[n]: node n's count (the paper's NodeCount):
                                      // arrivals at n, or draws of n with Count::kSelections
};

// What many runs found, node by node: SGGA's selection frequencies.
struct Frequencies {
  std::uint64_t runs = 0;      // runs made
  std::uint64_t capped = 0;    // runs stopped by the generation cap
  std::vector<double> chosen;  // chosen[n]: the fraction of runs that returned node n
  std::vector<double> visits;  // visits[n]: node n's mean visit count per run
};

// SGGA bound to one prepared tree, and the workspace its runs reuse: after prepare(), run()
// allocates nothing, and prepare() on another tree allocates only when that tree is larger.
// Not safe to share between threads; give each thread its own Sgga (they may prepare the same
// tree).
class Sgga {
 public:
  // Throws std::invalid_argument when `params` is out of range (see validate()).
  explicit Sgga(const Params& params = {}) : params_(params) { validate(params_); }

  [[nodiscard]] const Params& params() const noexcept { return params_; }

  // Copies the structure and objectives of `view` (n nodes, root 0) into this object, in O(n).
  // Later changes to the tree are not seen until the next prepare(). Throws
  // std::invalid_argument, leaving nothing prepared, when the view is empty or only a root, is
  // not a tree rooted at 0 with consistent parent, children and depth, or has an objective
  // that is not finite (or overflows when divided by the temperature).
  template <TreeView V>
  void prepare(const V& view);

  // The number of nodes of the prepared tree; 0 before a successful prepare().
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

  // H_max, the depth of the deepest node of the prepared tree.
  [[nodiscard]] int max_depth() const noexcept { return h_max_; }

  // The eq. 16 threshold of node `n`: 2^(H_max − depth(n) + 1), saturated at the largest
  // uint64 value; the root, which never stops a run, has that largest value. Throws
  // std::out_of_range when `n` is not a node of the prepared tree.
  [[nodiscard]] std::uint64_t threshold(NodeId n) const { return threshold_.at(n); }

  // One mutation step from node `from` (< size()) of the prepared tree, exactly as a run takes
  // it: the root goes down, a leaf goes up, any other node goes down with probability sigma
  // and up otherwise; with join_heads, "up" from a head node is another head node when there
  // is one. Throws std::invalid_argument when `from` is not a node, std::logic_error when no
  // tree is prepared. For tests and for studying the walk; runs do not call it.
  [[nodiscard]] NodeId step(NodeId from, Rng& rng) const {
    if (n_ == 0) throw std::logic_error("sgga: step() before a successful prepare()");
    if (from >= n_)
      throw std::invalid_argument("sgga: step() from " + std::to_string(from) +
                                  ", which is not a node of the prepared tree");
    return walk(from, rng);
  }

  // One run with the given seed. The same seed on the same prepared tree and params gives the
  // same result. Throws std::logic_error when no tree is prepared. Allocates nothing.
  const Result& run(std::uint64_t seed);

  // `runs` runs, run r with seed `seed + r`, summarised per node into `out` (which is resized
  // to size(); reuse it to avoid allocating). Throws std::invalid_argument when runs is 0 and
  // std::logic_error when no tree is prepared.
  void frequencies(std::uint64_t runs, std::uint64_t seed, Frequencies& out);

  // As above, returning a new Frequencies.
  [[nodiscard]] Frequencies frequencies(std::uint64_t runs, std::uint64_t seed) {
    Frequencies out;
    frequencies(runs, seed, out);
    return out;
  }

 private:
  // Above this gap between a new entry's logit and the reference logit, the repository's
  // weights are recomputed against the new entry (see enter()).
  static constexpr double kRebaseGap = 64.0;

  void begin_run();
  void touch(NodeId n);
  bool visit(NodeId n);
  void enter(NodeId n);
  void rebase(NodeId n);
  [[nodiscard]] NodeId select(Rng& rng) const;
  [[nodiscard]] NodeId walk(NodeId n, Rng& rng) const;
  [[nodiscard]] NodeId down(NodeId n, Rng& rng) const;
  [[nodiscard]] NodeId up(NodeId n, Rng& rng) const;
  [[nodiscard]] NodeId pick_in(std::uint32_t begin, std::uint32_t end, Rng& rng) const;
  [[nodiscard]] NodeId fallback(NodeId last) const;
  const Result& finish(NodeId node, std::uint64_t generations, Stop stop);

  Params params_;

  // The prepared tree (constant between prepare() calls).
  std::size_t n_ = 0;                       // nodes; 0 = nothing prepared
  int h_max_ = 0;                           // H_max
  std::vector<NodeId> parent_;              // parent_[n], kNoNode for the root
  std::vector<int> depth_;                  // depth_[n]
  std::vector<double> objective_;           // objective_[n]
  std::vector<double> logit_;               // objective_[n] / temperature
  std::vector<std::uint32_t> first_child_;  // children of n: child_[first_child_[n] .. [n + 1])
  std::vector<NodeId> child_;               // children grouped by parent
  std::vector<std::uint32_t> slot_;         // slot_[c]: the index of c in child_
  std::vector<double> cumulative_;          // Step::kSoftmax: running sum of exp(logit − max
                                            // logit among the siblings) within each group
  std::vector<std::uint64_t> threshold_;    // eq. 16 threshold per node

  // One run (reset by begin_run() for the nodes the previous run touched).
  Result result_;                       // result_.visits is the visit count of every node
  std::vector<std::uint32_t> entries_;  // entries_[n]: copies of n in the repository
  std::vector<double> weight_;          // weight_[n] = exp(logit_[n] − reference_), if entered
  std::vector<std::uint8_t> touched_;   // touched_[n]: n is in touched_list_
  std::vector<NodeId> touched_list_;    // nodes visited or entered in this run
  FenwickSampler repository_;           // entries_[n] · weight_[n] per node
  double reference_ = 0.0;              // the logit that weight 1 stands for
  NodeId best_entry_ = kNoNode;         // the entered node of highest logit
};

// ---------------------------------------------------------------------------------------------
// Preparing a tree

template <TreeView V>
void Sgga::prepare(const V& view) {
  using std::to_string;
  n_ = 0;
  const std::size_t size = view.size();
  if (size == 0) throw std::invalid_argument("sgga: the tree is empty (no root)");
  if (size == 1)
    throw std::invalid_argument("sgga: the tree is only a root; there is no node to walk to");
  if (size >= static_cast<std::size_t>(kNoNode))
    throw std::invalid_argument("sgga: too many nodes for a 32-bit NodeId");
  const auto n = static_cast<NodeId>(size);
  if (static_cast<NodeId>(view.parent(0)) != kNoNode)
    throw std::invalid_argument("sgga: the root (node 0) has a parent");
  if (static_cast<int>(view.depth(0)) != 0)
    throw std::invalid_argument("sgga: the root (node 0) has depth " +
                                to_string(static_cast<int>(view.depth(0))) + ", not 0");

  parent_.resize(n);
  depth_.resize(n);
  objective_.resize(n);
  logit_.resize(n);
  first_child_.resize(std::size_t{n} + 1);
  child_.resize(n - 1);
  slot_.assign(n, kNoNode);
  cumulative_.resize(n - 1);
  threshold_.resize(n);

  std::uint32_t links = 0;
  h_max_ = 0;
  for (NodeId v = 0; v < n; ++v) {
    const double objective = view.objective(v);
    if (!std::isfinite(objective))
      throw std::invalid_argument("sgga: the objective of node " + to_string(v) + " is not finite");
    objective_[v] = objective;
    logit_[v] = objective / params_.temperature;
    if (!std::isfinite(logit_[v]))
      throw std::invalid_argument("sgga: the objective of node " + to_string(v) +
                                  " overflows when divided by the temperature");
    parent_[v] = static_cast<NodeId>(view.parent(v));
    depth_[v] = static_cast<int>(view.depth(v));
    h_max_ = std::max(h_max_, depth_[v]);
    first_child_[v] = links;
    for (const auto c : view.children(v)) {
      const auto child = static_cast<NodeId>(c);
      if (child == 0 || child >= n)
        throw std::invalid_argument("sgga: node " + to_string(v) + " lists child " +
                                    to_string(child) + ", which is the root or not a node");
      if (slot_[child] != kNoNode)
        throw std::invalid_argument("sgga: node " + to_string(child) +
                                    " is listed as a child twice");
      if (static_cast<NodeId>(view.parent(child)) != v)
        throw std::invalid_argument("sgga: node " + to_string(v) + " lists child " +
                                    to_string(child) + ", whose parent is another node");
      if (static_cast<int>(view.depth(child)) != static_cast<int>(view.depth(v)) + 1)
        throw std::invalid_argument("sgga: node " + to_string(child) +
                                    " is not one deeper than its parent " + to_string(v));
      slot_[child] = links;
      child_[links++] = child;
    }
  }
  first_child_[n] = links;
  if (links != n - 1)
    throw std::invalid_argument("sgga: only " + to_string(links) + " of the " + to_string(n - 1) +
                                " non-root nodes are someone's child");

  // Children's softmax weights, relative to the best sibling: every group sums to >= 1.
  for (NodeId v = 0; v < n; ++v) {
    const std::uint32_t b = first_child_[v], e = first_child_[v + 1];
    double top = -std::numeric_limits<double>::infinity();
    for (std::uint32_t k = b; k < e; ++k) top = std::max(top, logit_[child_[k]]);
    double sum = 0.0;
    for (std::uint32_t k = b; k < e; ++k) cumulative_[k] = sum += std::exp(logit_[child_[k]] - top);
  }
  for (NodeId v = 0; v < n; ++v) {
    const int exponent = h_max_ - depth_[v] + 1;
    threshold_[v] = v == 0 || exponent >= 64 ? std::numeric_limits<std::uint64_t>::max()
                                             : std::uint64_t{1} << exponent;
  }

  result_.visits.assign(n, 0);
  result_.path.clear();
  result_.path.reserve(static_cast<std::size_t>(h_max_) + 1);
  entries_.assign(n, 0);
  weight_.assign(n, 0.0);
  touched_.assign(n, 0);
  touched_list_.clear();
  touched_list_.reserve(n);
  repository_.reset(n);
  n_ = n;
}

// ---------------------------------------------------------------------------------------------
// One run

inline const Result& Sgga::run(std::uint64_t seed) {
  if (n_ == 0) throw std::logic_error("sgga: run() before a successful prepare()");
  begin_run();
  Rng rng(seed);

  // The first two candidates.
  NodeId first = 0, second = 0;
  const std::uint32_t heads_begin = first_child_[0], heads_end = first_child_[1];
  switch (params_.init) {
    case Init::kSampleHeads:
      first = pick_in(heads_begin, heads_end, rng);
      second = pick_in(heads_begin, heads_end, rng);
      break;
    case Init::kBestHeads:
      first = second = child_[heads_begin];
      for (std::uint32_t k = heads_begin + 1; k < heads_end; ++k) {
        const NodeId h = child_[k];
        if (objective_[h] > objective_[first]) {
          second = first;
          first = h;
        } else if (second == first || objective_[h] > objective_[second]) {
          second = h;
        }
      }
      break;
    case Init::kRoot:
      break;
  }
  enter(first);
  enter(second);

  const bool count_arrivals = params_.count == Count::kArrivals;
  const bool count_selections = params_.count == Count::kSelections;
  NodeId last = second;
  for (std::uint64_t generation = 1; generation <= params_.max_generations; ++generation) {
    // 1. Selection.
    const NodeId a = select(rng);
    if (count_selections && visit(a)) return finish(a, generation, Stop::kCountRule);
    const NodeId b = select(rng);
    if (count_selections && visit(b)) return finish(b, generation, Stop::kCountRule);
    // 2. Mutation.
    NodeId x = a;
    for (std::uint32_t s = 0; s < params_.walk_length; ++s) {
      x = walk(x, rng);
      if (count_arrivals && visit(x)) return finish(x, generation, Stop::kCountRule);
    }
    enter(x);
    NodeId y = b;
    for (std::uint32_t s = 0; s < params_.walk_length; ++s) {
      y = walk(y, rng);
      if (count_arrivals && visit(y)) return finish(y, generation, Stop::kCountRule);
    }
    enter(y);
    // 3. Crossover.
    if (x == y) {
      enter(x);
      ++result_.crossovers;
    }
    last = y;
  }
  return finish(fallback(last), params_.max_generations, Stop::kGenerationCap);
}

inline void Sgga::frequencies(std::uint64_t runs, std::uint64_t seed, Frequencies& out) {
  if (n_ == 0) throw std::logic_error("sgga: frequencies() before a successful prepare()");
  if (runs == 0) throw std::invalid_argument("sgga: frequencies() needs at least one run");
  out.runs = runs;
  out.capped = 0;
  out.chosen.assign(n_, 0.0);
  out.visits.assign(n_, 0.0);
  for (std::uint64_t r = 0; r < runs; ++r) {
    const Result& result = run(seed + r);
    if (result.node != kNoNode) out.chosen[result.node] += 1.0;
    if (result.stop == Stop::kGenerationCap) ++out.capped;
    for (const NodeId t : touched_list_) out.visits[t] += static_cast<double>(result.visits[t]);
  }
  const double scale = 1.0 / static_cast<double>(runs);
  for (double& f : out.chosen) f *= scale;
  for (double& v : out.visits) v *= scale;
}

// Clears what the previous run touched: O(touched · log n), not O(n).
inline void Sgga::begin_run() {
  repository_.clear(std::span<const NodeId>(touched_list_));
  for (const NodeId t : touched_list_) {
    result_.visits[t] = 0;
    entries_[t] = 0;
    touched_[t] = 0;
  }
  touched_list_.clear();
  result_.node = kNoNode;
  result_.path.clear();
  result_.generations = 0;
  result_.stop = Stop::kCountRule;
  result_.crossovers = 0;
  result_.repository_size = 0;
  best_entry_ = kNoNode;
}

inline void Sgga::touch(NodeId n) {
  if (touched_[n] == 0) {
    touched_[n] = 1;
    touched_list_.push_back(n);  // capacity n_ was reserved: never allocates
  }
}

// Adds one to the count of `n`; true when eq. 16 now holds for `n`.
inline bool Sgga::visit(NodeId n) {
  touch(n);
  return ++result_.visits[n] >= threshold_[n];
}

// Adds one entry of `n` to the repository. Weights are exp(logit − reference_), with the
// reference the logit of the run's first entry; the entry of highest logit therefore has
// weight >= 1 and the total never underflows. Entries far below the best round to weight 0,
// which is their probability to double precision. When an entry exceeds the reference by more
// than kRebaseGap, every weight is recomputed against it, so no weight overflows.
inline void Sgga::enter(NodeId n) {
  touch(n);
  ++result_.repository_size;
  if (best_entry_ == kNoNode) {
    reference_ = logit_[n];
    best_entry_ = n;
  }
  if (entries_[n]++ == 0) {
    if (logit_[n] > logit_[best_entry_]) best_entry_ = n;
    if (logit_[n] - reference_ > kRebaseGap) {
      rebase(n);
      return;
    }
    weight_[n] = std::exp(logit_[n] - reference_);
  }
  repository_.add(n, weight_[n]);
}

// Makes `n` (just entered) the reference and rebuilds the repository's weights.
inline void Sgga::rebase(NodeId n) {
  reference_ = logit_[n];
  repository_.clear(std::span<const NodeId>(touched_list_));
  for (const NodeId t : touched_list_) {
    if (entries_[t] == 0) continue;
    weight_[t] = std::exp(logit_[t] - reference_);
    repository_.add(t, static_cast<double>(entries_[t]) * weight_[t]);
  }
}

// A repository entry drawn by softmax. Should rounding in the partial sums land on an empty
// slot (a probability of order 1e-16), the best entry is taken instead.
inline NodeId Sgga::select(Rng& rng) const {
  const auto n = static_cast<NodeId>(repository_.find(rng.uniform() * repository_.total()));
  return entries_[n] != 0 && weight_[n] > 0.0 ? n : best_entry_;
}

// One walk step from `n`: the root goes down, a leaf goes up, any other node goes down with
// probability σ and up otherwise.
inline NodeId Sgga::walk(NodeId n, Rng& rng) const {
  if (first_child_[n] == first_child_[n + 1]) return up(n, rng);
  if (n == 0) return down(n, rng);
  return rng.bernoulli(params_.sigma) ? down(n, rng) : up(n, rng);
}

inline NodeId Sgga::down(NodeId n, Rng& rng) const {
  return pick_in(first_child_[n], first_child_[n + 1], rng);
}

// The parent of `n` (not the root); with join_heads, a head node goes to another head node
// instead, unless it is the only one.
inline NodeId Sgga::up(NodeId n, Rng& rng) const {
  const std::uint32_t b = first_child_[0], e = first_child_[1];
  if (!params_.join_heads || parent_[n] != 0 || e - b < 2) return parent_[n];
  const std::uint32_t s = slot_[n];
  std::uint32_t k = 0;
  if (params_.step == Step::kUniform) {
    k = b + static_cast<std::uint32_t>(rng.below(e - b - 1));
    if (k >= s) ++k;
  } else {
    // Draw from the heads' weights with n's own weight taken out.
    const double before = s > b ? cumulative_[s - 1] : 0.0;
    const double own = cumulative_[s] - before;
    double u = rng.uniform() * (cumulative_[e - 1] - own);
    if (u >= before) u += own;
    k = static_cast<std::uint32_t>(
        std::upper_bound(cumulative_.begin() + b, cumulative_.begin() + e, u) -
        cumulative_.begin());
    if (k >= e) k = e - 1;
    if (k == s) k = s + 1 < e ? s + 1 : s - 1;  // a rounding edge: never stay in place
  }
  return child_[k];
}

// A node of child_[begin .. end) (not empty), drawn by the Step rule.
inline NodeId Sgga::pick_in(std::uint32_t begin, std::uint32_t end, Rng& rng) const {
  if (params_.step == Step::kUniform)
    return child_[begin + static_cast<std::uint32_t>(rng.below(end - begin))];
  const double u = rng.uniform() * cumulative_[end - 1];
  auto k = static_cast<std::uint32_t>(
      std::upper_bound(cumulative_.begin() + begin, cumulative_.begin() + end, u) -
      cumulative_.begin());
  return child_[k < end ? k : end - 1];
}

// The node returned at the generation cap (Params::on_cap).
inline NodeId Sgga::fallback(NodeId last) const {
  switch (params_.on_cap) {
    case OnCap::kNone:
      return kNoNode;
    case OnCap::kLastCandidate:
      return last;
    case OnCap::kClosest:
      break;
  }
  NodeId best = kNoNode;
  double best_ratio = 0.0;
  for (const NodeId t : touched_list_) {
    if (t == 0 || result_.visits[t] == 0) continue;
    // Thresholds are powers of two, so the ratio is exact.
    const double ratio =
        static_cast<double>(result_.visits[t]) / static_cast<double>(threshold_[t]);
    const bool better =
        best == kNoNode || ratio > best_ratio ||
        (ratio == best_ratio &&
         (depth_[t] > depth_[best] ||
          (depth_[t] == depth_[best] &&
           (objective_[t] > objective_[best] || (objective_[t] == objective_[best] && t < best)))));
    if (better) {
      best = t;
      best_ratio = ratio;
    }
  }
  return best;
}

inline const Result& Sgga::finish(NodeId node, std::uint64_t generations, Stop stop) {
  result_.node = node;
  result_.generations = generations;
  result_.stop = stop;
  result_.path.clear();
  for (NodeId x = node; x != kNoNode; x = parent_[x]) result_.path.push_back(x);
  std::reverse(result_.path.begin(), result_.path.end());
  return result_;
}

// ---------------------------------------------------------------------------------------------
// One-call helpers

// One run of SGGA on `view`: prepares a fresh Sgga and returns a copy of its result. Throws as
// Sgga's constructor and prepare() do. For many runs, keep an Sgga and call run().
template <TreeView V>
[[nodiscard]] Result run(const V& view, const Params& params, std::uint64_t seed) {
  Sgga sgga(params);
  sgga.prepare(view);
  return sgga.run(seed);
}

// SGGA's selection frequencies on `view`: `runs` runs with seeds seed, seed + 1, ...; the tree
// is prepared once. Throws as Sgga's constructor, prepare() and frequencies() do.
template <TreeView V>
[[nodiscard]] Frequencies selection_frequencies(const V& view, const Params& params,
                                                std::uint64_t runs, std::uint64_t seed) {
  Sgga sgga(params);
  sgga.prepare(view);
  return sgga.frequencies(runs, seed);
}

// The decision `depth` plies deep that `node` stands for: the path root, ..., node, cut after
// `depth` edges when node is deeper, or extended while it is shallower by stepping to the child
// of highest objective (ties broken uniformly with `rng`) until `depth` or a leaf is reached
// (paper §4.3: "the final decision is made according to the overall objective value of the
// candidate node, with random tie-breaking"). Throws std::invalid_argument when `node` is not a
// node of `view` or `depth` is negative.
template <TreeView V>
[[nodiscard]] std::vector<NodeId> decision_path(const V& view, NodeId node, int depth, Rng& rng) {
  if (node >= view.size())
    throw std::invalid_argument("sgga: decision_path: node " + std::to_string(node) +
                                " is not a node of the tree");
  if (depth < 0) throw std::invalid_argument("sgga: decision_path: depth must be >= 0");
  std::vector<NodeId> path;
  for (NodeId x = node; x != kNoNode; x = static_cast<NodeId>(view.parent(x))) {
    if (path.size() == view.size())
      throw std::invalid_argument("sgga: decision_path: the parent links of the tree form a cycle");
    path.push_back(x);
  }
  std::reverse(path.begin(), path.end());
  if (path.size() > static_cast<std::size_t>(depth) + 1) path.resize(depth + 1);
  while (path.size() < static_cast<std::size_t>(depth) + 1) {
    NodeId best = kNoNode;
    double best_objective = 0.0;
    std::uint64_t ties = 0;
    for (const auto c : view.children(path.back())) {
      const auto child = static_cast<NodeId>(c);
      const double objective = view.objective(child);
      if (best == kNoNode || objective > best_objective) {
        best = child;
        best_objective = objective;
        ties = 1;
      } else if (objective == best_objective && rng.below(++ties) == 0) {
        best = child;  // reservoir sampling: each of the tied children with probability 1/ties
      }
    }
    if (best == kNoNode) break;  // a leaf
    path.push_back(best);
  }
  return path;
}

}  // namespace gsearch::sgga
