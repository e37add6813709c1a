// gsearch/mcts/params.hpp — every knob of the MCTS driver in one plain struct.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gsearch::mcts {

// Which nodes of the depth-normalising pass add 2^(-v̄) instead of v̄ (eq. 11, backup.hpp).
enum class Parity : std::uint8_t {
  kDepth,   // odd depth (the paper's text)
  kPlayer,  // where the player changes below the node (turns split into decisions)
};

// How Pass I of the depth-normalising pass combines a node with its children (backup.hpp).
enum class Accumulation : std::uint8_t {
  // The paper's eq. 11–12: obj(n) += v̄ (or 2^(-v̄)), then Pass II divides by
  // H_max + 1 - depth. A node's objective grows with the depth of its own subtree.
  kSum,
  // obj(n) = (obj(n) + t) / 2 with t = v̄, or 1 - v̄ where the player changes, and no Pass II:
  // every objective is an average of values in [0, 1], whatever the size of the subtree.
  kMean,
};

// How the search's move is chosen from the root's children once the budget is spent.
enum class FinalChoice : std::uint8_t {
  kMostVisits,  // the most visited child (ties: higher value, then generation order)
  kBestValue,   // the child with the highest mean value among visited children
};

// How several threads search (Params::threads > 1).
enum class Parallel : std::uint8_t {
  // Each thread grows its own tree from the root, with its own seed and its share of an
  // iteration budget; the trees are merged when the search ends. No lock; reproducible for a
  // seed and an iteration budget, as one thread is.
  kRoot,
  // The threads grow one tree, with virtual loss; selection, expansion and backup run under
  // one lock and the evaluations outside it. The tree depends on how the threads interleave.
  kTree,
};

struct Params {
  std::uint64_t seed = 0;  // seeds every random choice of the search
  FinalChoice final_choice = FinalChoice::kMostVisits;
  // Run the depth-normalising pass (backup.hpp, paper eq. 10-12) every this many iterations
  // during the search; 0 = never during the search.
  std::uint32_t normalize_every = 0;
  bool normalize_at_end = false;  // run the pass once more when a search ends
  // Which nodes add 2^(-v̄) in the pass (backup.hpp): odd depths, as the paper writes, or
  // where the player changes (for turns split into decisions).
  Parity normalize_parity = Parity::kDepth;
  // How Pass I accumulates (backup.hpp): the paper's sums (eq. 11–12) or size-neutral means.
  Accumulation normalize_accumulation = Accumulation::kSum;
  // MCTS-Solver (Tree::prove): back up proven wins, losses and draws as minimax values, sample
  // no proven child while an unproven one is open, let the final choice take a proven win
  // and avoid a proven loss. A search ends when its root is proven.
  bool solver = false;
  bool reuse_tree = true;         // advance() keeps the played child's subtree
  std::size_t reserve_nodes = 0;  // node slots to reserve up front (0 = grow on demand)
  // Never let the arena exceed this many node slots: a leaf that would push it over is
  // evaluated without being expanded (0 = no cap). A guard for long timed searches. The root
  // is expanded whatever the cap (a cap below its number of moves is exceeded by them alone).
  std::size_t max_nodes = 0;
  // A budget in nodes added also ends after this many iterations per node of the budget:
  // near the end of a game most iterations reach known terminal positions and add nothing,
  // and UCT reaches the last unexplored corners only after exponentially many visits.
  std::uint32_t iterations_per_node = 100;
  // Threads searching (Search::run), in one of two ways (Parallel). 1: one thread.
  unsigned threads = 1;
  Parallel parallel = Parallel::kRoot;
  // Root parallelism under a time budget: the share of the time kept for merging the trees.
  // The threads search for (1 − merge_share) of it; the merge then runs breadth first and
  // leaves what the rest of the time does not allow unmerged, below the root's children,
  // which are always merged. At most 0.9. (Merging takes about 0.2 µs per helper
  // iteration on one core: 1.3 s after a 3-second search on 16 threads, were it not bounded.)
  double merge_share = 0.05;
  // With a prior-value evaluator (mcts.hpp: PriorValueEvaluator): leaves valued per call.
  std::uint32_t batch = 1;
  // With a prior-value evaluator: Dirichlet noise mixed into the root's priors when the root
  // is expanded, P ← (1 − ε)·P + ε·Dir(α) (AlphaZero: α = 0.3 for chess, 0.03 for Go,
  // ε = 0.25). alpha = 0: none.
  double dirichlet_alpha = 0.0;
  double dirichlet_epsilon = 0.25;
};

// What one call of Search::run() did.
struct SearchStats {
  std::uint64_t iterations = 0;   // selection-to-backup passes
  std::uint64_t nodes_added = 0;  // nodes visited for the first time (the paper's N)
  double seconds = 0.0;
};

}  // namespace gsearch::mcts
