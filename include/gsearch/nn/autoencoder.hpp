// gsearch/nn/autoencoder.hpp — the autoencoder of §3.3 and the UCT-AE evaluation of §4.2.2.
//
//   AutoEncoder  n → p → n:  x' = tanh(relu(x·A + a)·B + b)          (paper eq. 4–5; 5→3→5)
//   Scorer       an AutoEncoder followed by a linear head W (n→1):  s = AE(x)·W
//   UctAe        two scorers and alpha (eq. 13–14):
//                  movement(v)  = AE1(v)·W1                                   (eq. 13)
//                  evaluate(v)  = α·AE1(v)·W1 + (1 − α)·AE2(v)·W2             (eq. 14)
// The exploration term sqrt(2 ln n / (n_j + 1)) of eq. 13–14 depends on visit counts and
// belongs to MCTS selection; these modules compute the learned evaluation term only.
//
// Rows are samples: a batch of B feature vectors is (B, n); scores are (B, 1).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/layers.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

struct AutoEncoderConfig {
  Index inputs = 5;                         // n: features in and out
  Index latent = 3;                         // p: the bottleneck
  Activation encoder = Activation::relu();  // after the first Linear
  Activation decoder = Activation::tanh();  // after the second Linear
  bool bias = true;                         // biases in both Linear layers
};

template <class T>
class BasicAutoEncoder {
 public:
  BasicAutoEncoder() = default;
  BasicAutoEncoder(const AutoEncoderConfig& cfg, Rng& rng)
      : cfg_(cfg),
        enc_(cfg.inputs, cfg.latent, rng, cfg.bias),
        dec_(cfg.latent, cfg.inputs, rng, cfg.bias) {
    cfg.encoder.validate();
    cfg.decoder.validate();
  }

  [[nodiscard]] const AutoEncoderConfig& config() const noexcept { return cfg_; }

  // x (B, n) → x' (B, n).
  ConstView<T> forward(const ConstRef<T>& x) {
    detail::check_shape("autoencoder", "input", x.rows(), x.cols(), -1, cfg_.inputs);
    const Index b = x.rows();
    auto h = h_.view(b, cfg_.latent);  // (B, p)
    cfg_.encoder.forward(enc_.forward(x), h);
    auto y = y_.view(b, cfg_.inputs);  // (B, n)
    cfg_.decoder.forward(dec_.forward_borrowed(const_view(h)), y);
    rows_ = b;
    return const_view(y);
  }

  // dL/dx' (B, n) → dL/dx (B, n); accumulates the gradients of both layers.
  ConstView<T> backward(const ConstRef<T>& dy) {
    detail::check_shape("autoencoder backward", "gradient", dy.rows(), dy.cols(), rows_,
                        cfg_.inputs);
    auto g_out = g_out_.view(rows_, cfg_.inputs);  // (B, n)
    cfg_.decoder.backward(y_.view(rows_, cfg_.inputs), dy, g_out);
    auto g_h = g_h_.view(rows_, cfg_.latent);  // (B, p)
    cfg_.encoder.backward(h_.view(rows_, cfg_.latent), dec_.backward(g_out), g_h);
    return enc_.backward(g_h);
  }

  // "<prefix>enc.W", "<prefix>enc.b", "<prefix>dec.W", "<prefix>dec.b".
  void parameters(ParamListT<T>& out, const std::string& prefix) {
    enc_.parameters(out, prefix + "enc.");
    dec_.parameters(out, prefix + "dec.");
  }
  void zero_grad() {
    enc_.zero_grad();
    dec_.zero_grad();
  }

  BasicLinear<T>& encoder() noexcept { return enc_; }
  BasicLinear<T>& decoder() noexcept { return dec_; }

  static constexpr std::string_view kind = "autoencoder";  // weight-file model kind
  ParamListT<T> parameters() {
    ParamListT<T> out;
    parameters(out, "");
    return out;
  }

 private:
  AutoEncoderConfig cfg_;
  BasicLinear<T> enc_, dec_;
  Workspace<T> h_, y_, g_out_, g_h_;
  Index rows_ = 0;
};

// An autoencoder followed by a linear head: s = AE(x)·W (+ c). AE1 + W1 and AE2 + W2 of
// eq. 13–14 are two Scorers.
template <class T>
class BasicScorer {
 public:
  BasicScorer() = default;
  BasicScorer(const AutoEncoderConfig& ae, bool head_bias, Rng& rng)
      : ae_(ae, rng), head_(ae.inputs, 1, rng, head_bias) {}

  // x (B, n) → s (B, 1).
  ConstView<T> forward(const ConstRef<T>& x) { return head_.forward_borrowed(ae_.forward(x)); }
  // dL/ds (B, 1) → dL/dx (B, n).
  ConstView<T> backward(const ConstRef<T>& ds) { return ae_.backward(head_.backward(ds)); }

  // "<ae_prefix>enc.W" … and "<head_prefix>W" (, "<head_prefix>b").
  void parameters(ParamListT<T>& out, const std::string& ae_prefix,
                  const std::string& head_prefix) {
    ae_.parameters(out, ae_prefix);
    head_.parameters(out, head_prefix);
  }
  void zero_grad() {
    ae_.zero_grad();
    head_.zero_grad();
  }

  BasicAutoEncoder<T>& autoencoder() noexcept { return ae_; }
  BasicLinear<T>& head() noexcept { return head_; }
  const BasicAutoEncoder<T>& autoencoder() const noexcept { return ae_; }
  // A Scorer saved on its own: "ae.enc.W" … "w.W" (, "w.b").
  static constexpr std::string_view kind = "scorer";  // weight-file model kind
  ParamListT<T> parameters() {
    ParamListT<T> out;
    parameters(out, "ae.", "w.");
    return out;
  }

 private:
  BasicAutoEncoder<T> ae_;
  BasicLinear<T> head_;
};

struct UctAeConfig {
  AutoEncoderConfig autoencoder = {};  // the shape of AE1 and AE2 (paper: 5→3→5)
  double alpha = 0.5;                  // α of eq. 14, in [0, 1]
  bool head_bias = false;              // eq. 13–14 write AE(v)·W: no bias by default
};

template <class T>
class BasicUctAe {
 public:
  BasicUctAe() = default;
  // AE1, W1, AE2, W2 drawn from `rng` in that order. Throws std::invalid_argument for α
  // outside [0, 1].
  BasicUctAe(const UctAeConfig& cfg, Rng& rng) : cfg_(cfg) {
    detail::check_alpha("uct_ae", cfg.alpha);
    movement_ = BasicScorer<T>(cfg.autoencoder, cfg.head_bias, rng);
    placement_ = BasicScorer<T>(cfg.autoencoder, cfg.head_bias, rng);
  }

  [[nodiscard]] const UctAeConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] double alpha() const noexcept { return cfg_.alpha; }

  // AE1 + W1 (movement, eq. 13) and AE2 + W2 (placement). Each can be run and trained on its
  // own: movement().forward(v) is the evaluation term of eq. 13.
  BasicScorer<T>& movement() noexcept { return movement_; }
  BasicScorer<T>& placement() noexcept { return placement_; }

  // v (B, n) → α·AE1(v)·W1 + (1 − α)·AE2(v)·W2 (B, 1): eq. 14 without the exploration term.
  ConstView<T> evaluate(const ConstRef<T>& v) {
    const auto s1 = movement_.forward(v);
    const auto s2 = placement_.forward(v);
    auto out = out_.view(v.rows(), 1);
    out = T(cfg_.alpha) * s1 + T(1 - cfg_.alpha) * s2;
    return const_view(out);
  }

  // dL/d evaluate (B, 1) → dL/dv (B, n); accumulates the gradients of both scorers.
  ConstView<T> backward(const ConstRef<T>& dy) {
    auto g = g_.view(dy.rows(), 1);
    g = T(cfg_.alpha) * dy;
    auto dv = dv_.view(dy.rows(), cfg_.autoencoder.inputs);
    dv = movement_.backward(g);
    g = T(1 - cfg_.alpha) * dy;
    dv += placement_.backward(g);
    return const_view(dv);
  }

  static constexpr std::string_view kind = "uct_ae";  // weight-file model kind
  // "ae1.enc.W" … "w1.W", "ae2.enc.W" … "w2.W": the paper's names.
  ParamListT<T> parameters() {
    ParamListT<T> out;
    movement_.parameters(out, "ae1.", "w1.");
    placement_.parameters(out, "ae2.", "w2.");
    return out;
  }
  void zero_grad() {
    movement_.zero_grad();
    placement_.zero_grad();
  }

 private:
  UctAeConfig cfg_;
  BasicScorer<T> movement_, placement_;
  Workspace<T> out_, g_, dv_;
};

using AutoEncoder = BasicAutoEncoder<float>;
using Scorer = BasicScorer<float>;
using UctAe = BasicUctAe<float>;

}  // namespace gsearch::nn
