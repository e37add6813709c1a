// amazons/paper.hpp — the paper's framework on Amazons: the networks, the features of search
// tree nodes, the MCTS policies of UCT-AE, and the graph GAT-AE reads.
//
// The tree is the decision model's (decision.hpp): the root's children are the head nodes
// (the queens), then destinations, then arrows; a node at depth 3 is a whole move. Every node
// is described by the paper's five features (eval.hpp) of the position its decision leads
// to, for the player who made that decision:
//   a queen choice      the position as it is, the chosen queen as "the moved queen";
//   a destination       the queen on its new square, the arrow still to come;
//   an arrow            the position after the whole turn.
// UCT-AE (eq. 13–14) scores a node with AE1 + W1 (movement: destinations, and a queen by
// its best destination) or AE2 + W2 (placement: arrows); docs/paper-mapping.md gives every
// reading in detail.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "amazons/decision.hpp"
#include "amazons/eval.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "gsearch/nn/nn.hpp"

namespace amazons::paper {

namespace nn = gsearch::nn;
using DecisionTree = gsearch::mcts::Tree<Decision>;
using DecisionView = gsearch::mcts::TreeViewOf<Decision>;

// ---------------------------------------------------------------------------------------
// The networks

// UCT-AE (AE1 + W1, AE2 + W2) and GAT-AE, in float, with the shapes the paper gives.
struct Networks {
  nn::UctAe uctae;
  nn::GatAe gatae;

  static nn::UctAeConfig uctae_config() { return {}; }
  static nn::GatAeConfig gatae_config() { return {}; }

  // Freshly initialised from `seed` (for training).
  static Networks initial(std::uint64_t seed);
  // The trained weights shipped in examples/amazons/weights/, compiled into the program.
  static Networks shipped();
  // From weight files (written by `amazons train`); throws nn::WeightFileError.
  static Networks from_files(const std::string& uctae_path, const std::string& gatae_path);
};

// ---------------------------------------------------------------------------------------
// Features of decisions

// Whether a decision is scored by the movement network (queen, destination) or the
// placement network (arrow).
inline bool is_placement(const Decision& d) noexcept { return d.stage == Stage::kArrow; }

// The features of the state `after` reached by decision `d`, for the player who made it.
inline Features decision_features(const DecisionPosition& after, const Decision& d,
                                  DistanceMaps& maps) {
  const Position& pos = after.position();
  compute_distances(pos, maps);
  const Player mover =
      d.stage == Stage::kArrow ? gsearch::opponent(after.to_move()) : after.to_move();
  const Square moved = d.stage == Stage::kDestination ? d.to : d.from;
  return features(pos, maps, mover, moved);
}

// UCT-AE's score of each decision in `decisions` from `state` (eq. 13's AE1(v)·W1 for
// destinations, AE2(v)·W2 for arrows, and for a queen the best AE1(v)·W1 of its
// destinations; all decisions of one state are of one kind). Batched: one forward pass per
// state. `out` receives one score per decision.
void score_decisions(nn::UctAe& net, const DecisionPosition& state,
                     const gsearch::MoveListOf<DecisionPosition>& decisions, float* out);

// ---------------------------------------------------------------------------------------
// MCTS policies of UCT-AE

// The expansion prior: UCT-AE's score of each child (selection then reads it through
// gsearch::mcts::PriorUcb, eq. 13–14). The network is shared by the policies of one search.
struct UctAePrior {
  std::shared_ptr<Networks> nets;
  void operator()(const DecisionPosition& state, const gsearch::MoveListOf<DecisionPosition>& moves,
                  float* priors) const {
    score_decisions(nets->uctae, state, moves, priors);
  }
};

// The static evaluation of the paper's searches: the value, for the player to move, of a
// state inside the tree, from UCT-AE's scores mapped to [-1, 1] (2·score − 1, clamped).
//   before an arrow or a destination (mid-turn): the mover is to move; AE1 + W1 of the
//     position with the chosen queen as the moved queen;
//   between turns: AE2 + W2 of the player who just moved (their best-placed queen as the
//     moved queen), negated for the player to move.
struct UctAeStateValue {
  std::shared_ptr<Networks> nets;
  double operator()(const DecisionPosition& state) const;
};

// Depth-focused expansion (the paper's "depth-focused multi-round search", §1 and §4):
// progressive widening by prior keeps two children open at first and opens one more every
// four visits, so budgets of 20–50 nodes reach whole moves (depth 3) instead of spreading
// over the ~80 first decisions of a turn.
template <class Prior>
void make_depth_focused(gsearch::mcts::Expansion<Prior>& expansion) {
  expansion.widen_initial = 2;
  expansion.widen_step = 1;
  expansion.widen_every = 4;
}

// MCTS with UCT-AE (paper §4.2.1–4.2.2): prior-led UCB selection (eq. 13–14), every child
// scored at expansion, leaves valued by UctAeStateValue, and the depth-normalising update
// (eq. 10–12) at the end of the search.
using PaperSearch = gsearch::mcts::Search<DecisionPosition, gsearch::mcts::PriorUcb,
                                          gsearch::mcts::Expansion<UctAePrior>,
                                          gsearch::mcts::StaticEvaluation<UctAeStateValue>>;

// A PaperSearch sharing `nets`.
PaperSearch make_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed);

// ---------------------------------------------------------------------------------------
// The tree as data: states, features, whole moves, and GAT-AE's graph

struct TreeData {
  std::vector<DecisionPosition> states;      // per view node: the state its decision reached
  std::vector<Features> features;            // per view node: the decision's features (root: the
                                             // root position's, for the player to move)
  std::vector<Decision> decisions;           // per view node (root: unused)
  std::vector<gsearch::NodeId> parent;       // per view node
  std::vector<int> depth;                    // per view node
  std::vector<gsearch::NodeId> whole_moves;  // view nodes at depth 3 (complete turns)

  // The whole move of a depth-3 node.
  [[nodiscard]] Move move_of(gsearch::NodeId n) const {
    const Decision arrow = decisions[n];
    const Decision dest = decisions[parent[n]];
    return {dest.from, dest.to, arrow.to};
  }
};

// Describes the visited nodes of `view`, whose root holds `root`.
TreeData describe(const DecisionView& view, const DecisionPosition& root);

// GAT-AE's input for a tree: the visited nodes except the root, with the head nodes (the
// queens) merged into one super-node (paper §4.2.3) whose features are their mean; edges
// join each node to its parent (the super-node for a destination). row_of[n] is view node
// n's row (the heads share row 0; the root has none: -1).
struct GatInput {
  nn::CsrGraph graph;
  nn::Matrix x;             // (rows, 5)
  std::vector<int> row_of;  // view node -> row
};
GatInput gat_input(const TreeData& data);

}  // namespace amazons::paper
