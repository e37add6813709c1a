// amazons/paper/paper.hpp — the paper's framework on Amazons: the networks, the features of
// search tree nodes, the MCTS policies of UCT-AE, and the graph GAT-AE reads.
//
// The tree is the decision model's (rules/decision.hpp): the root's children are the head
// nodes (the queens), then destinations, then arrows; a node at depth 3 is a whole move.
//
// Two readings of the paper are implemented side by side (docs/paper-mapping.md lists every
// difference with the measurement behind it):
//
//   Reading::kLiteral   the paper as written. A node is described by the five features
//                       (eval.hpp) of the position its decision leads to, for the player who
//                       made it; UCT-AE learns the teacher's raw scores from them; selection
//                       is eq. 13 (the learned score plus exploration, no value term); leaves
//                       are valued by UCT-AE's scores; eq. 10–12 as printed; GAT-AE learns
//                       SGGA's visit shares.
//   Reading::kRelative  the default, the reading that plays best. A decision is described by
//                       what it changes: the features after it less the features before it,
//                       for its mover; UCT-AE learns the teacher's scores centred per position
//                       (what a search needs is the order of the moves of one position);
//                       selection is PUCT over those scores, standardised among siblings, with
//                       a learned value — a third scorer, AE3 + W3, on the absolute features
//                       of a position, trained on the teacher's absolute place scores — at the
//                       leaves; the final move by visits; eq. 10–12 as size-neutral means;
//                       GAT-AE learns the teacher's scores carried through the tree.
// In both, a queen is scored by its best destination.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "amazons/players/eval.hpp"
#include "amazons/rules/decision.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "gsearch/nn/nn.hpp"

namespace amazons::paper {

namespace nn = gsearch::nn;
using DecisionTree = gsearch::mcts::Tree<Decision>;
using DecisionView = gsearch::mcts::TreeViewOf<Decision>;

// ---------------------------------------------------------------------------------------
// Readings

enum class Reading : std::uint8_t { kRelative, kLiteral };

// "relative" / "literal".
[[nodiscard]] const char* reading_name(Reading r) noexcept;
// Parses reading_name()'s words; throws std::invalid_argument naming the text otherwise.
[[nodiscard]] Reading parse_reading(std::string_view text);

// ---------------------------------------------------------------------------------------
// The networks

// UCT-AE (AE1 + W1, AE2 + W2), GAT-AE and the value scorer (AE3 + W3, Reading::kRelative
// only), in float, with the shapes the paper gives.
struct Networks {
  Reading reading = Reading::kRelative;
  nn::UctAe uctae;
  nn::GatAe gatae;
  nn::Scorer value;  // 5 → 3 → 5 → 1 with a bias: the absolute features of a position → the
                     // teacher's place score of the move that led to it

  static nn::UctAeConfig uctae_config() { return {}; }
  static nn::GatAeConfig gatae_config() { return {}; }

  // Freshly initialised from `seed` (for training).
  static Networks initial(Reading reading, std::uint64_t seed);
  // The trained weights shipped in examples/amazons/paper/weights/ (Reading::kLiteral:
  // weights/literal/), compiled into the program.
  static Networks shipped(Reading reading);
  // The shipped weights with those named replaced from files (written by `amazons train`);
  // an empty path keeps the shipped network. Throws nn::WeightFileError.
  static Networks from_files(Reading reading, const std::string& uctae_path,
                             const std::string& gatae_path, const std::string& value_path);
};

// ---------------------------------------------------------------------------------------
// Features of decisions

// Whether a decision is scored by the movement network (queen, destination) or the
// placement network (arrow).
inline bool is_placement(const Decision& d) noexcept { return d.stage == Stage::kArrow; }

// The player who made decision `d`, which led to `after`.
inline Player mover_of(const DecisionPosition& after, const Decision& d) noexcept {
  return d.stage == Stage::kArrow ? gsearch::opponent(after.to_move()) : after.to_move();
}

// The features of the state `after` reached by decision `d`, for the player who made it
// (Reading::kLiteral's description of a decision).
inline Features decision_features(const DecisionPosition& after, const Decision& d,
                                  DistanceMaps& maps) {
  const Position& pos = after.position();
  compute_distances(pos, maps);
  const Square moved = d.stage == Stage::kDestination ? d.to : d.from;
  return features(pos, maps, mover_of(after, d), moved);
}

// The features of `state`, the state in which decision `d` is about to be made, for its
// mover, with the queen the decision concerns as "the moved queen" (d.from).
inline Features state_features(const DecisionPosition& state, const Decision& d,
                               DistanceMaps& maps) {
  compute_distances(state.position(), maps);
  return features(state.position(), maps, state.to_move(), d.from);
}

// Reading::kRelative's description of a decision: what it changes, for its mover,
//   kRelativeScale[k] · (decision_features(after)[k] − state_features(before)[k]),
// so that a decision that changes nothing sits at 0 in every feature. One decision changes a
// territory share by a few hundredths but the moved queen's free neighbours by up to one; the
// scales bring each change to a root-mean-square of about ¼ over the candidate moves of the
// shipped label set (docs/paper-mapping.md).
inline constexpr std::array<float, 5> kRelativeScale = {6.0f, 6.0f, 1.0f, 6.0f, 20.0f};
inline Features relative_features(const Features& before, const Features& after) noexcept {
  Features f;
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = kRelativeScale[k] * (after[k] - before[k]);
  return f;
}

// The description of decision `d` from `before` (reaching `after`) under `reading`.
inline Features describe_decision(Reading reading, const DecisionPosition& before,
                                  const DecisionPosition& after, const Decision& d,
                                  DistanceMaps& maps) {
  const Features a = decision_features(after, d, maps);
  if (reading == Reading::kLiteral) return a;
  return relative_features(state_features(before, d, maps), a);
}

// The value scorer's input: the absolute features of `pos` for `me`, who has just moved (or
// is in the middle of moving `moved`; 0: no queen in particular).
inline Features position_features(const Position& pos, Player me, Square moved,
                                  DistanceMaps& maps) {
  compute_distances(pos, maps);
  return features(pos, maps, me, moved);
}

// UCT-AE's score of each decision in `decisions` from `state` (eq. 13's AE1(v)·W1 for
// destinations, AE2(v)·W2 for arrows, and for a queen the best AE1(v)·W1 of its
// destinations; all decisions of one state are of one kind), each decision described as
// `nets.reading` says. Batched: one forward pass per state. `out` receives one score per
// decision.
void score_decisions(Networks& nets, const DecisionPosition& state,
                     const gsearch::MoveListOf<DecisionPosition>& decisions, float* out);

// The value scorer's estimate, in [-1, 1], of `state` for its player to move (between turns:
// the position as the player who just moved left it, negated; mid-turn: the position as the
// mover has it now, the chosen queen as the moved queen).
double learned_value(Networks& nets, const DecisionPosition& state);

// The scores `values[0..n)` of sibling decisions turned into a distribution over them, in
// place: each standardised among the siblings (z = (v − mean) / sd; all 0 when sd is 0) and
// p ∝ exp(sharpness · z). Reading::kRelative's prior and policy.
void standardized_softmax(float* values, std::size_t n, double sharpness);

// ---------------------------------------------------------------------------------------
// MCTS policies of UCT-AE

// The expansion prior. Reading::kLiteral: UCT-AE's score of each child, which
// gsearch::mcts::PriorUcb adds to the exploration term (eq. 13–14). Reading::kRelative: the
// scores standardised among the siblings (z-scores) and turned into a distribution by a
// softmax with `sharpness` (p ∝ exp(sharpness · z)), for gsearch::mcts::Puct. The networks
// are shared by the policies of one search.
struct UctAePrior {
  std::shared_ptr<Networks> nets;
  double sharpness = 1.0;
  void operator()(const DecisionPosition& state, const gsearch::MoveListOf<DecisionPosition>& moves,
                  float* priors) const;
};

// Reading::kLiteral's static evaluation: the value, for the player to move, of a state
// inside the tree, from UCT-AE's scores mapped to [-1, 1] (2·score − 1, clamped).
//   before an arrow or a destination (mid-turn): the mover is to move; AE1 + W1 of the
//     position with the chosen queen as the moved queen;
//   between turns: AE2 + W2 of the player who just moved (their best-placed queen as the
//     moved queen), negated for the player to move.
struct UctAeStateValue {
  std::shared_ptr<Networks> nets;
  double operator()(const DecisionPosition& state) const;
};

// Reading::kRelative's static evaluation: learned_value().
struct LearnedValue {
  std::shared_ptr<Networks> nets;
  double operator()(const DecisionPosition& state) const { return learned_value(*nets, state); }
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

// Reading::kLiteral — MCTS with UCT-AE as printed (§4.2.1–4.2.2): prior-led UCB selection
// (eq. 13–14, no value term), every child scored at expansion, leaves valued by
// UctAeStateValue, and eq. 10–12 at the end of the search.
using LiteralSearch = gsearch::mcts::Search<DecisionPosition, gsearch::mcts::PriorUcb,
                                            gsearch::mcts::Expansion<UctAePrior>,
                                            gsearch::mcts::StaticEvaluation<UctAeStateValue>>;

// Reading::kRelative — PUCT over UCT-AE's standardised scores, leaves valued by the value
// scorer, the same depth-focused widening, and eq. 10–12 as size-neutral means at the end.
using RelativeSearch = gsearch::mcts::Search<DecisionPosition, gsearch::mcts::Puct,
                                             gsearch::mcts::Expansion<UctAePrior>,
                                             gsearch::mcts::StaticEvaluation<LearnedValue>>;

// The knobs of Reading::kRelative's search.
struct RelativeKnobs {
  double c = 1.5;             // PUCT's exploration constant (values lie in [-1, 1])
  double sharpness = 1.0;     // the prior's softmax sharpness (standardized_softmax)
  bool depth_focused = true;  // make_depth_focused() widening (false: every child open)
  // The decision stage (SGGA, GAT-AE) reads only the children visited at least this share of
  // their parent's visits (gsearch::mcts::KeepVisitShare): the part the search endorsed.
  double visit_share = 0.3;
};

// The searches sharing `nets` (whose reading must match).
LiteralSearch make_literal_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed);
RelativeSearch make_relative_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed,
                                    const RelativeKnobs& knobs = {});

// ---------------------------------------------------------------------------------------
// The tree as data: states, features, whole moves, and GAT-AE's graph

struct TreeData {
  std::vector<DecisionPosition> states;      // per view node: the state its decision reached
  std::vector<Features> features;            // per view node: the decision's description
                                             // (root: the root position's, for the player
                                             // to move)
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

// Describes the visited nodes of `view`, whose root holds `root`, as `reading` says.
TreeData describe(const DecisionView& view, const DecisionPosition& root, Reading reading);

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
