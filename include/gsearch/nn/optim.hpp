// gsearch/nn/optim.hpp — optimisers over a parameter list, and gradient clipping.
//
// Both follow PyTorch's definitions and defaults exactly (torch.optim.Adam, torch.optim.RMSprop
// with no momentum, no weight decay, not centred), with t the step count starting at 1:
//   Adam     m ← β1 m + (1 − β1) g;   v ← β2 v + (1 − β2) g²
//            θ ← θ − lr · (m / (1 − β1^t)) / (sqrt(v / (1 − β2^t)) + ε)
//   RMSprop  v ← a v + (1 − a) g²;    θ ← θ − lr · g / (sqrt(v) + ε)
//   clip_grad_norm: n = sqrt(Σ g²) over every gradient; if n > max, g ← g · max / (n + 1e-6)
// They read the gradients that backward() accumulated and never clear them: call zero_grad()
// before the next backward. No randomness: the same gradients give the same parameters.
// The paper trains UCT-AE with Adam (lr 0.01) and GAT-AE with RMSprop (lr 1e-4).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

struct AdamConfig {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  // L2 penalty (torch.optim.Adam's weight_decay): g ← g + weight_decay · θ before the update,
  // the gradient of (weight_decay / 2)·‖θ‖². The gradients themselves are left as they were.
  double weight_decay = 0;
};

struct RmsPropConfig {
  double lr = 1e-2;
  double alpha = 0.99;  // smoothing constant of the running mean of g²
  double eps = 1e-8;
};

template <class T>
class BasicAdam {
 public:
  // Optimises `params` (pointers into a model that must outlive the optimiser). Throws
  // std::invalid_argument for a non-positive lr or betas outside [0, 1).
  BasicAdam(ParamListT<T> params, const AdamConfig& cfg) : params_(std::move(params)), cfg_(cfg) {
    if (!(cfg.lr > 0) || !(cfg.beta1 >= 0 && cfg.beta1 < 1) || !(cfg.beta2 >= 0 && cfg.beta2 < 1) ||
        !(cfg.eps >= 0) || !(cfg.weight_decay >= 0))
      throw std::invalid_argument(
          "adam: lr must be > 0, betas in [0, 1), eps and weight_decay >= 0");
    for (const auto& p : params_) {
      m_.push_back(MatrixT<T>::Zero(p.value->rows(), p.value->cols()));
      v_.push_back(MatrixT<T>::Zero(p.value->rows(), p.value->cols()));
    }
  }

  // One update of every parameter from its current gradient.
  void step() {
    ++t_;
    const double c1 = 1.0 - std::pow(cfg_.beta1, static_cast<double>(t_));
    const double c2 = 1.0 - std::pow(cfg_.beta2, static_cast<double>(t_));
    const T b1 = T(cfg_.beta1), b2 = T(cfg_.beta2), step = T(cfg_.lr / c1);
    const T inv_sqrt_c2 = T(1.0 / std::sqrt(c2)), eps = T(cfg_.eps), wd = T(cfg_.weight_decay);
    for (std::size_t i = 0; i < params_.size(); ++i) {
      const auto g = params_[i].grad->array() + wd * params_[i].value->array();
      m_[i].array() = b1 * m_[i].array() + (T(1) - b1) * g;
      v_[i].array() = b2 * v_[i].array() + (T(1) - b2) * g.square();
      params_[i].value->array() -=
          step * m_[i].array() / (v_[i].array().sqrt() * inv_sqrt_c2 + eps);
    }
  }
  void zero_grad() { nn::zero_grad(params_); }
  [[nodiscard]] long steps() const noexcept { return t_; }
  [[nodiscard]] const ParamListT<T>& params() const noexcept { return params_; }

  // The learning rate of the next steps (a schedule sets it between steps). Throws
  // std::invalid_argument unless lr > 0.
  void set_lr(double lr) {
    if (!(lr > 0)) throw std::invalid_argument("adam: lr must be > 0");
    cfg_.lr = lr;
  }
  [[nodiscard]] double lr() const noexcept { return cfg_.lr; }

  // The optimiser's state — first and second moments, one per parameter, and the step count —
  // for checkpoints: saved with the model, restored before training resumes.
  [[nodiscard]] std::vector<MatrixT<T>>& first_moments() noexcept { return m_; }
  [[nodiscard]] std::vector<MatrixT<T>>& second_moments() noexcept { return v_; }
  void set_steps(long t) noexcept { t_ = t; }

 private:
  ParamListT<T> params_;
  AdamConfig cfg_;
  std::vector<MatrixT<T>> m_, v_;
  long t_ = 0;
};

template <class T>
class BasicRmsProp {
 public:
  BasicRmsProp(ParamListT<T> params, const RmsPropConfig& cfg)
      : params_(std::move(params)), cfg_(cfg) {
    if (!(cfg.lr > 0) || !(cfg.alpha >= 0 && cfg.alpha < 1) || !(cfg.eps >= 0))
      throw std::invalid_argument("rmsprop: lr must be > 0, alpha in [0, 1), eps >= 0");
    for (const auto& p : params_) v_.push_back(MatrixT<T>::Zero(p.value->rows(), p.value->cols()));
  }

  void step() {
    ++t_;
    const T a = T(cfg_.alpha), lr = T(cfg_.lr), eps = T(cfg_.eps);
    for (std::size_t i = 0; i < params_.size(); ++i) {
      const auto g = params_[i].grad->array();
      v_[i].array() = a * v_[i].array() + (T(1) - a) * g.square();
      params_[i].value->array() -= lr * g / (v_[i].array().sqrt() + eps);
    }
  }
  void zero_grad() { nn::zero_grad(params_); }
  [[nodiscard]] long steps() const noexcept { return t_; }
  [[nodiscard]] const ParamListT<T>& params() const noexcept { return params_; }

 private:
  ParamListT<T> params_;
  RmsPropConfig cfg_;
  std::vector<MatrixT<T>> v_;
  long t_ = 0;
};

// Scales every gradient in `params` so that their global L2 norm is at most max_norm (as
// torch.nn.utils.clip_grad_norm_). Returns the norm before clipping.
template <class T>
double clip_grad_norm(const ParamListT<T>& params, double max_norm) {
  if (!(max_norm > 0)) throw std::invalid_argument("clip_grad_norm: max_norm must be > 0");
  double sq = 0;
  for (const auto& p : params) sq += static_cast<double>(p.grad->squaredNorm());
  const double norm = std::sqrt(sq);
  if (norm > max_norm) {
    const T scale = T(max_norm / (norm + 1e-6));
    for (const auto& p : params) *p.grad *= scale;
  }
  return norm;
}

using Adam = BasicAdam<float>;
using RmsProp = BasicRmsProp<float>;

}  // namespace gsearch::nn
