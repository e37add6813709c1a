// amazons/players/policy_value.hpp — a policy-value network over the decision model, as a
// batched evaluator for gsearch's MCTS (gsearch::mcts::PriorValueEvaluator).
//
// Encoding, one row of 5 × 128 inputs per position (squares as the bitboards number them):
// the mover's queens, the other queens, the arrows, the empty squares of the board, and the
// pending square of the turn (the chosen queen, or where it went). Each decision's action is
// the square it names (Decision::to: the queen, its destination, or the arrow), so the policy
// head has 128 logits and a decision's prior is the softmax over its stage's legal squares.
// The weights here are untrained (Glorot from a seed): what it is for today is measuring
// batched evaluation and exercising the batched search; nothing trains it yet.
//
// BasicDecisionNet<Net> runs any network with PolicyValueMlp's forward(): Net::forward(x)
// for a batch x (B, kInputs) returns `logits` (B, 128) and `values` (B, 1) on the host, valid
// until the next call. DecisionNet is it on the CPU; benchmarks/cuda_policy_value.hpp puts
// the same network on the GPU.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <utility>

#include "amazons/rules/decision.hpp"
#include "gsearch/nn/policy_value.hpp"

namespace amazons {

template <class Net>
class BasicDecisionNet {
 public:
  static constexpr int kSquares = 128;
  static constexpr int kPlanes = 5;
  static constexpr int kInputs = kPlanes * kSquares;

  explicit BasicDecisionNet(Net net) : net_(std::move(net)) {}

  // The CPU network of kInputs inputs, `layers` relu layers of `hidden` units and kSquares
  // logits, Glorot weights from `seed`.
  static gsearch::nn::PolicyValueMlp make_mlp(std::uint64_t seed, gsearch::nn::Index hidden = 256,
                                              int layers = 2) {
    gsearch::Rng rng(seed);
    return gsearch::nn::PolicyValueMlp(kInputs, hidden, kSquares, rng, layers);
  }

  // gsearch::mcts::PriorValueEvaluator: values and priors for a batch of positions.
  void evaluate_batch(std::span<const DecisionPosition> batch, std::span<float> values,
                      std::span<float> priors) {
    const auto rows = static_cast<gsearch::nn::Index>(batch.size());
    auto x = input_.view(rows, kInputs);
    x.setZero();
    for (std::size_t i = 0; i < batch.size(); ++i) encode(batch[i], x.row(static_cast<long>(i)));
    const auto out = net_.forward(x);
    std::array<int, DecisionPosition::max_moves> legal;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      values[i] = out.values(static_cast<long>(i), 0);
      gsearch::MoveListOf<DecisionPosition> moves;
      batch[i].legal_moves(moves);
      for (std::size_t k = 0; k < moves.size(); ++k) legal[k] = moves[k].to;
      gsearch::nn::softmax_over(
          std::span<const float>(out.logits.row(static_cast<long>(i)).data(), kSquares),
          std::span<const int>(legal.data(), moves.size()),
          priors.subspan(i * DecisionPosition::max_moves, moves.size()));
    }
  }

 private:
  template <class Row>
  static void encode(const DecisionPosition& d, Row&& row) {
    const Position& p = d.position();
    const Player me = p.to_move();
    const auto plane = [&](int k, Bitboard b) {
      while (b) row(k * kSquares + pop_lsb(b)) = 1.0f;
    };
    plane(0, p.queens(me));
    plane(1, p.queens(gsearch::opponent(me)));
    plane(2, p.arrows());
    plane(3, p.empty());
    if (d.stage() != Stage::kQueen) row(4 * kSquares + d.pending()) = 1.0f;
  }

  Net net_;
  gsearch::nn::Workspace<float> input_;
};

// The network on the CPU.
class DecisionNet : public BasicDecisionNet<gsearch::nn::PolicyValueMlp> {
 public:
  explicit DecisionNet(std::uint64_t seed, gsearch::nn::Index hidden = 256, int layers = 2)
      : BasicDecisionNet(make_mlp(seed, hidden, layers)) {}
};

}  // namespace amazons
