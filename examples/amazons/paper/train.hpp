// amazons/train.hpp — the paper's training stage (§4.2, §5.1–5.2): UCT-AE from the teacher's
// move scores, GAT-AE from SGGA's selection frequencies.
//
//   labels       whole moves of many positions, each with the teacher's move_score and
//                place_score in [0, 1] (amazons label; docs/labeler.md);
//   UCT-AE       AE1 + W1 learns move_score from the features of the destination decision,
//                AE2 + W2 learns place_score from the features of the arrow decision
//                (Adam, lr 0.01, MSE — §5.1);
//   GAT-AE       for each position, the label tree (label_search) with node values from the
//                labels, depth-normalised (eq. 10–12); SGGA runs many times on it and each
//                node's mean visit count (scaled so the most visited node of each depth has
//                1) is GAT-AE's target (RMSprop, lr 1e-4, SmoothL1 — §5.1);
//   curves       every training iteration's loss, written as CSV and drawn raw and as a
//                moving average over 50 (Fig. 7), with the §5.2 comparison of the two loss
//                variances after epoch 50 by an F-test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "amazons/label_store.hpp"
#include "amazons/paper.hpp"
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
  std::uint64_t seed = 1;         // initial weights, shuffling, SGGA runs
  std::uint64_t tree_seed = 1;    // label_search's seed (the labeler's --tree-seed)
  std::uint64_t tree_nodes = 60;  // label_search's node budget (the labeler's --tree-nodes)
  int ae_epochs = 100;            // passes over the UCT-AE training set
  int ae_batch = 32;
  double ae_lr = 0.01;  // Adam (§5.1)
  // UCT-AE's targets: each score less the mean score of its position's labelled moves, plus
  // ½ (true), or the scores as they are (false). See docs/paper-mapping.md, §5.1 readings.
  bool center_scores = true;
  int gat_epochs = 2000;          // passes over the GAT-AE training trees (one tree a step)
  double gat_lr = 1e-4;           // RMSprop (§5.1)
  int sgga_runs = 200;            // SGGA runs per tree for the selection frequencies
  double sgga_temperature = 0.1;  // SGGA softmax temperature (objectives lie in [0, 1])
  double validation = 0.1;        // fraction of positions held out
  int variance_after_epoch = 50;  // §5.2: loss variances are compared after this epoch
};

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
};

// Trains both networks from labels (label_store.hpp; the teacher is not looked at, every
// label counts). `log` receives progress lines.
TrainResult train(const std::vector<Label>& labels, const TrainOptions& options,
                  const std::function<void(const std::string&)>& log);

// Writes `text` to `path` through `path`.partial renamed over it, so that a reader never
// sees half a file and an interrupted run leaves the old one. Throws std::runtime_error.
void write_file(const std::filesystem::path& path, const std::string& text);

// Writes uctae.json, gatae.json, loss_*.csv, loss_*.svg and training.md into `dir`.
void write_training_outputs(TrainResult& result, const TrainOptions& options,
                            const std::string& dir, const std::string& command);

}  // namespace amazons::paper
