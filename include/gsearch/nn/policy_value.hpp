// gsearch/nn/policy_value.hpp — a small policy-value network: AlphaZero's two heads on a
// fully connected trunk, evaluated a batch of positions at a time.
//
//   h_0 = x                               (B, inputs): one row per position
//   h_l = relu(h_{l-1} · W_l + b_l)       l = 1 .. layers, (B, hidden)
//   logits = h_L · W_p + b_p              (B, actions): the policy head, before the softmax
//   value  = tanh(h_L · W_v + b_v)        (B, 1): the value head, in [-1, 1]
//
// A batch is one matrix product per layer, so B positions cost less than B single calls
// (1.6× fewer seconds per position at B = 32 on one CPU core, docs/benchmarks.md; more where
// a call has a fixed cost, as on a GPU): that is what a batched search (mcts.hpp,
// PriorValueEvaluator) is for. How positions become rows of x and actions become moves is the
// game's (an encoder); softmax_over() turns a row of logits into priors over the legal moves'
// actions. Forward only: there is no training for it yet.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/layers.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

class PolicyValueMlp {
 public:
  // The two heads' outputs for the last batch: views valid until the next forward().
  struct Output {
    ConstView<float> logits;  // (B, actions)
    ConstView<float> values;  // (B, 1), in [-1, 1]
  };

  // inputs → `layers` hidden layers of `hidden` units → `actions` logits and a value, Glorot
  // weights from `rng`. Throws std::invalid_argument for a non-positive size.
  PolicyValueMlp(Index inputs, Index hidden, Index actions, Rng& rng, int layers = 2)
      : policy_(hidden > 0 ? hidden : 1, actions > 0 ? actions : 1, rng),
        value_(hidden > 0 ? hidden : 1, 1, rng) {
    if (inputs <= 0 || hidden <= 0 || actions <= 0 || layers <= 0)
      throw std::invalid_argument("policy-value network: sizes " + std::to_string(inputs) + ", " +
                                  std::to_string(hidden) + ", " + std::to_string(actions) +
                                  " and " + std::to_string(layers) + " layers must be positive");
    trunk_.reserve(static_cast<std::size_t>(layers));
    for (int l = 0; l < layers; ++l) trunk_.emplace_back(l == 0 ? inputs : hidden, hidden, rng);
    hidden_.resize(trunk_.size());
  }

  [[nodiscard]] Index inputs() const noexcept { return trunk_.front().in(); }
  [[nodiscard]] Index actions() const noexcept { return policy_.out(); }

  // Both heads for a batch x (B, inputs).
  Output forward(const ConstRef<float>& x) {
    detail::check_shape("policy-value network", "input", x.rows(), x.cols(), -1, inputs());
    const Index rows = x.rows(), width = trunk_.front().out();
    const float* h = relu(0, trunk_.front().forward(x)).data();
    for (std::size_t l = 1; l < trunk_.size(); ++l)
      h = relu(l, trunk_[l].forward_borrowed(ConstView<float>(h, rows, width))).data();
    const ConstView<float> top(h, rows, width);
    const ConstView<float> logits = policy_.forward_borrowed(top);
    const ConstView<float> raw = value_.forward_borrowed(top);
    auto v = values_.view(raw.rows(), 1);
    v = raw.array().tanh().matrix();
    return {logits, const_view(v)};
  }

  // Appends the parameters ("trunk.0.W", ..., "policy.W", "value.b") for nn/io.hpp.
  void parameters(ParamList& out) {
    for (std::size_t l = 0; l < trunk_.size(); ++l)
      trunk_[l].parameters(out, "trunk." + std::to_string(l) + ".");
    policy_.parameters(out, "policy.");
    value_.parameters(out, "value.");
  }

 private:
  // relu(z) into hidden layer l's buffer.
  ConstView<float> relu(std::size_t l, const ConstView<float>& z) {
    auto a = hidden_[l].view(z.rows(), z.cols());
    a = z.array().max(0.0f).matrix();
    return const_view(a);
  }

  std::vector<Linear> trunk_;
  Linear policy_, value_;
  std::vector<Workspace<float>> hidden_;  // each hidden layer's relu output
  Workspace<float> values_;
};

// Priors from one row of logits: out[k] = softmax over the actions `legal[k]` (the legal
// moves' actions, in move order) of logits[legal[k]]. Numerically stable (max subtracted).
inline void softmax_over(std::span<const float> logits, std::span<const int> legal,
                         std::span<float> out) {
  float top = -INFINITY;
  for (int a : legal) top = std::max(top, logits[static_cast<std::size_t>(a)]);
  double total = 0;
  for (std::size_t k = 0; k < legal.size(); ++k) {
    out[k] = std::exp(logits[static_cast<std::size_t>(legal[k])] - top);
    total += out[k];
  }
  for (std::size_t k = 0; k < legal.size(); ++k) out[k] = static_cast<float>(out[k] / total);
}

}  // namespace gsearch::nn
