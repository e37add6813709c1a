// amazons/paper/train.hpp — the paper's training stage (§4.2, §5.1–5.2): UCT-AE from the
// teacher's move scores, GAT-AE from the tree, and (Reading::kRelative) a value scorer.
//
//   labels       whole moves of many positions, each with the teacher's move_score and
//                place_score in [0, 1] (amazons label; docs/labeler.md);
//   UCT-AE       AE1 + W1 learns move_score from the description of the destination decision,
//                AE2 + W2 learns place_score from that of the arrow decision (Adam, lr 0.01,
//                MSE — §5.1). Reading::kLiteral: absolute features, raw scores (the paper).
//                Reading::kRelative: what each decision changes (paper.hpp), scores centred
//                per position (score − the mean of the position's labels + ½);
//   value        Reading::kRelative: AE3 + W3 learns who wins from the absolute features of a
//                position for the player who just moved (Adam, MSE on 1 / 0), from games of
//                UCT-AE's own policy (the softmax of its standardised scores) once trained;
//   GAT-AE       for each position, the label tree (label_search). Reading::kLiteral: node
//                values from the labels, depth-normalised (eq. 10–12), SGGA run many times
//                on it, each node's visit share (scaled so the most visited node of each
//                depth has 1) the target. Reading::kRelative: the teacher's scores carried
//                through the tree — a whole move the mean of its two scores, a destination
//                the mean move_score of its labelled arrows, a queen its best destination —
//                centred per depth (RMSprop, lr 1e-4, SmoothL1 — §5.1);
//   curves       every training iteration's loss, written as CSV and drawn raw and as a
//                moving average over 50 (Fig. 7), with the §5.2 comparison of the two loss
//                variances after epoch 50 by an F-test;
//   ranking      on held-out positions, the within-position rank agreement (Spearman, pair
//                concordance) of every learned score with the teacher's scores and with an
//                independent evaluation the student never sees: a two-ply search with
//                Lieberum's evaluation (the opponent's best reply).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "amazons/paper/label_store.hpp"
#include "amazons/paper/paper.hpp"
#include "gsearch/core/stats.hpp"

namespace amazons::paper {

// The policies of label_search: the Lieberum evaluation of each decision's resulting state
// for the player who made it (queen choices: the queen's number of destinations / 35), and as
// the leaf value for the player to move.
struct LabelTreePrior {
  void operator()(const DecisionPosition& state, const gsearch::MoveListOf<DecisionPosition>& moves,
                  float* priors) const;
};
struct LabelTreeValue {
  double operator()(const DecisionPosition& state) const;
};
using LabelSearch = gsearch::mcts::Search<DecisionPosition, gsearch::mcts::PriorUcb,
                                          gsearch::mcts::Expansion<LabelTreePrior>,
                                          gsearch::mcts::StaticEvaluation<LabelTreeValue>>;

// The tree whose whole moves are labelled and on which GAT-AE is trained: MCTS over decisions
// for `nodes` nodes with a cheap handcrafted prior (the Lieberum evaluation after each
// decision; a queen's number of destinations for queen choices) and the same depth-focused
// widening as the paper's searches, seeded from the position and `seed`. Deterministic: the
// labeler and the trainer rebuild the same tree.
LabelSearch label_search(const Position& pos, std::uint64_t seed, std::uint64_t nodes);

// The whole moves present in label_search's tree (the labeler's candidates).
std::vector<Move> label_candidates(const Position& pos, std::uint64_t seed, std::uint64_t nodes);

struct TrainOptions {
  Reading reading = Reading::kRelative;  // what the networks learn from (paper.hpp)
  std::uint64_t seed = 1;                // initial weights, shuffling, SGGA runs
  std::uint64_t tree_seed = 1;           // label_search's seed (the labeler's --tree-seed)
  std::uint64_t tree_nodes = 60;         // label_search's node budget (--tree-nodes)
  int ae_epochs = 100;                   // passes over the UCT-AE (and value) training set
  int ae_batch = 32;
  double ae_lr = 0.01;    // Adam (§5.1)
  int value_games = 300;  // Reading::kRelative: games of UCT-AE's policy for the value scorer
  int value_opening = 6;  // random plies that open each of those games
  int gat_epochs = 300;   // passes over the GAT-AE training trees (one tree a step)
  double gat_lr = 1e-4;   // RMSprop (§5.1)
  int sgga_runs = 200;    // Reading::kLiteral: SGGA runs per tree (visit shares)
  double sgga_temperature = 0.1;  // SGGA softmax temperature (objectives lie in [0, 1])
  double validation = 0.1;        // fraction of positions held out
  int variance_after_epoch = 50;  // §5.2: loss variances are compared after this epoch
  // Held-out positions whose moves get the independent two-ply evaluation (it costs a few
  // milliseconds a move).
  std::size_t independent_positions = 100;
};

// Within-position rank agreement of one learned score, averaged over held-out positions.
struct RankAgreement {
  std::string score;  // e.g. "UCT-AE movement (AE1 + W1)"
  double spearman_teacher = 0, concordance_teacher = 0;
  double spearman_independent = 0, concordance_independent = 0;
  std::size_t positions = 0;              // positions with at least three labelled moves
  std::size_t independent_positions = 0;  // of those, the ones with the independent evaluation
};

// The independent evaluation of a move `m` legal in `pos`: two plies with Lieberum's
// evaluation — the value, in [-1, 1], for the mover of the position after the opponent's best
// reply (1 when the opponent cannot move, -1 when the mover then cannot). The student never
// sees it; training and `amazons reproduce` measure against it.
double two_ply_value(const Position& pos, const Move& m, LieberumEvaluator& eval);

// Spearman's rank correlation of two equally long samples (ties get their mean rank; 0 when
// either sample is constant), and the share of the pairs ordered alike in both (pairs tied
// in either are left out; ½ when none is left).
double spearman(const std::vector<double>& a, const std::vector<double>& b);
double concordance(const std::vector<double>& a, const std::vector<double>& b);

// A loss curve: one value per training iteration, and the validation loss per epoch.
struct Curve {
  std::string name;
  std::vector<double> train;           // per iteration (mini-batch)
  std::vector<double> validation;      // per epoch
  std::vector<std::size_t> epoch_end;  // iteration index at which each epoch ended
};

struct TrainResult {
  Networks nets;
  Curve movement, placement, gat;
  std::size_t positions = 0, labels = 0, train_labels = 0, validation_labels = 0, trees = 0;
  std::size_t skipped = 0;  // labels whose move is not legal in their position
  double movement_variance = 0, placement_variance = 0;  // of the training loss after epoch N
  gsearch::FTest variance_test;                          // movement vs placement
  Curve value;                                           // Reading::kRelative
  std::vector<RankAgreement> ranking;                    // held-out rank agreement per score
};

// Trains both networks from labels (label_store.hpp; the teacher is not looked at, every
// label counts). `log` receives progress lines.
TrainResult train(const std::vector<Label>& labels, const TrainOptions& options,
                  const std::function<void(const std::string&)>& log);

// Writes uctae.json, gatae.json (Reading::kRelative: and value.json), loss_*.csv, loss_*.svg
// and training.md into `dir`.
void write_training_outputs(TrainResult& result, const TrainOptions& options,
                            const std::string& dir, const std::string& command);

}  // namespace amazons::paper
