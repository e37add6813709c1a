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
// actions. Forward only.
//
// BasicPolicyValueConv<T> is AlphaZero's network for board games whose actions are the cells
// (Gomoku, Hex, Go without pass), on board-shaped inputs in the channels-last layout of
// conv.hpp, with a backward pass for training (AlphaZero_Gomoku's shape by default):
//   h_0 = x                                  (B, H·W·planes)
//   h_l = relu(conv3x3_l(h_{l-1}))           l = 1 .. L, trunk channels c_l
//   p   = relu(conv1x1_p(h_L))               (B, H·W·policy_channels)
//   logits = p · W_p + b_p                   (B, H·W): one per cell
//   q   = relu(conv1x1_v(h_L))               (B, H·W·value_channels)
//   value  = tanh(relu(q · W_1 + b_1) · W_2 + b_2)    (B, 1), in [-1, 1]
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/conv.hpp"
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

// The shape of a BasicPolicyValueConv.
struct PolicyValueConvShape {
  Index planes = 4;                          // input channels
  Index height = 8, width = 8;               // the board
  std::vector<Index> trunk = {32, 64, 128};  // channels of the 3×3 trunk layers
  Index policy_channels = 4;                 // the policy head's 1×1 convolution
  Index value_channels = 2;                  // the value head's 1×1 convolution
  Index value_hidden = 64;                   // the value head's hidden layer
  friend bool operator==(const PolicyValueConvShape&, const PolicyValueConvShape&) = default;
};

template <class T>
class BasicPolicyValueConv {
 public:
  static constexpr std::string_view kind = "policy_value_conv";

  // The heads' outputs for the last batch: views valid until the next forward().
  struct Output {
    ConstView<T> logits;  // (B, H·W)
    ConstView<T> values;  // (B, 1), in [-1, 1]
  };

  // Glorot weights from `rng`. Throws std::invalid_argument for a non-positive size or an
  // empty trunk.
  BasicPolicyValueConv(const PolicyValueConvShape& shape, Rng& rng) : shape_(shape) {
    const auto positive = [](Index v) { return v > 0; };
    if (shape.trunk.empty() || !std::all_of(shape.trunk.begin(), shape.trunk.end(), positive) ||
        !positive(shape.planes) || !positive(shape.height) || !positive(shape.width) ||
        !positive(shape.policy_channels) || !positive(shape.value_channels) ||
        !positive(shape.value_hidden))
      throw std::invalid_argument(
          "policy-value conv network: every size must be positive and the trunk not empty");
    const Index h = shape.height, w = shape.width, cells = h * w;
    Index in = shape.planes;
    for (const Index c : shape.trunk) {
      trunk_.emplace_back(in, c, 3, h, w, rng);
      in = c;
    }
    policy_conv_ = BasicConv2d<T>(in, shape.policy_channels, 1, h, w, rng);
    policy_fc_ = BasicLinear<T>(cells * shape.policy_channels, cells, rng);
    value_conv_ = BasicConv2d<T>(in, shape.value_channels, 1, h, w, rng);
    value_fc1_ = BasicLinear<T>(cells * shape.value_channels, shape.value_hidden, rng);
    value_fc2_ = BasicLinear<T>(shape.value_hidden, 1, rng);
    act_.resize(trunk_.size());
  }

  [[nodiscard]] const PolicyValueConvShape& shape() const noexcept { return shape_; }
  [[nodiscard]] Index inputs() const noexcept {
    return shape_.height * shape_.width * shape_.planes;
  }
  [[nodiscard]] Index actions() const noexcept { return shape_.height * shape_.width; }

  // Both heads for a batch x (B, H·W·planes). Keeps what backward() needs.
  Output forward(const ConstRef<T>& x) {
    detail::check_shape("policy-value conv network", "input", x.rows(), x.cols(), -1, inputs());
    const Index rows = rows_ = x.rows();
    const Index cells = actions();
    const T* a = relu(act_[0], trunk_[0].forward(x)).data();
    for (std::size_t l = 1; l < trunk_.size(); ++l)
      a = relu(act_[l], trunk_[l].forward(ConstView<T>(a, rows, cells * shape_.trunk[l - 1])))
              .data();
    const ConstView<T> h(a, rows, cells * shape_.trunk.back());
    const ConstView<T> p = relu(policy_act_, policy_conv_.forward(h));
    const ConstView<T> logits = policy_fc_.forward_borrowed(p);
    const ConstView<T> q = relu(value_act_, value_conv_.forward(h));
    const ConstView<T> hidden = relu(value_hidden_, value_fc1_.forward_borrowed(q));
    const ConstView<T> raw = value_fc2_.forward_borrowed(hidden);
    auto v = values_.view(rows, 1);
    v = raw.array().tanh().matrix();
    return {logits, const_view(v)};
  }

  // Given dL/dlogits (B, H·W) and dL/dvalues (B, 1) for the last forward(): accumulates every
  // parameter's gradient and returns dL/dx (B, H·W·planes).
  ConstView<T> backward(const ConstRef<T>& dlogits, const ConstRef<T>& dvalues) {
    const Index rows = rows_;
    detail::check_shape("policy-value conv network backward", "value gradient", dvalues.rows(),
                        dvalues.cols(), rows, 1);
    detail::check_shape("policy-value conv network backward", "policy gradient", dlogits.rows(),
                        dlogits.cols(), rows, actions());
    const auto relu_grad = [](const ConstView<T>& y, const ConstView<T>& dy, Workspace<T>& out) {
      auto dx = out.view(y.rows(), y.cols());
      Activation::relu().backward(y, dy, dx);
      return const_view(dx);
    };
    const ConstView<T> v(values_.view(rows, 1).data(), rows, 1);
    auto draw = grad_raw_.view(rows, 1);
    draw = (dvalues.array() * (T(1) - v.array().square())).matrix();
    const ConstView<T> dhidden = value_fc2_.backward(const_view(draw));
    const ConstView<T> dq = value_fc1_.backward(
        relu_grad(view_of(value_hidden_, rows, shape_.value_hidden), dhidden, grad_hidden_));
    const Index cells = actions();
    const ConstView<T> dtop_v = value_conv_.backward(
        relu_grad(view_of(value_act_, rows, cells * shape_.value_channels), dq, grad_q_));
    auto dtop = grad_top_.view(rows, cells * shape_.trunk.back());
    dtop = dtop_v;
    const ConstView<T> dp = policy_fc_.backward(dlogits);
    dtop += policy_conv_.backward(
        relu_grad(view_of(policy_act_, rows, cells * shape_.policy_channels), dp, grad_p_));
    const T* d = dtop.data();
    for (std::size_t l = trunk_.size(); l-- > 0;) {
      const Index width = cells * shape_.trunk[l];
      d = trunk_[l]
              .backward(
                  relu_grad(view_of(act_[l], rows, width), ConstView<T>(d, rows, width), grad_act_))
              .data();
    }
    return ConstView<T>(d, rows, inputs());
  }

  // The parameters ("trunk.0.W", ..., "policy.conv.W", "policy.fc.W", "value.conv.W",
  // "value.fc1.W", "value.fc2.b"), for nn/io.hpp and the optimisers.
  ParamListT<T> parameters() {
    ParamListT<T> out;
    for (std::size_t l = 0; l < trunk_.size(); ++l)
      trunk_[l].parameters(out, "trunk." + std::to_string(l) + ".");
    policy_conv_.parameters(out, "policy.conv.");
    policy_fc_.parameters(out, "policy.fc.");
    value_conv_.parameters(out, "value.conv.");
    value_fc1_.parameters(out, "value.fc1.");
    value_fc2_.parameters(out, "value.fc2.");
    return out;
  }

 private:
  // relu(z) into `buffer`.
  static ConstView<T> relu(Workspace<T>& buffer, const ConstView<T>& z) {
    auto a = buffer.view(z.rows(), z.cols());
    a = z.array().max(T(0)).matrix();
    return const_view(a);
  }
  static ConstView<T> view_of(Workspace<T>& buffer, Index rows, Index cols) {
    return const_view(buffer.view(rows, cols));
  }

  PolicyValueConvShape shape_;
  std::vector<BasicConv2d<T>> trunk_;
  BasicConv2d<T> policy_conv_, value_conv_;
  BasicLinear<T> policy_fc_, value_fc1_, value_fc2_;
  std::vector<Workspace<T>> act_;  // each trunk layer's relu output
  Workspace<T> policy_act_, value_act_, value_hidden_, values_;
  Workspace<T> grad_raw_, grad_hidden_, grad_q_, grad_top_, grad_p_, grad_act_;
  Index rows_ = 0;  // B of the last forward()
};

using PolicyValueConv = BasicPolicyValueConv<float>;

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
