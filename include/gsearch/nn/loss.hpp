// gsearch/nn/loss.hpp — the training losses of §5.1, each with its gradient.
//
// Both average over every element of the (B, K) prediction, as PyTorch's reduction="mean":
//   mse        L = (1/M) Σ (p − t)²                                  dL/dp = 2 (p − t) / M
//   smooth_l1  L = (1/M) Σ ℓ(p − t),  ℓ(d) = d²/(2β) if |d| < β     dL/dp = d/(β M) if |d| < β
//                                          |d| − β/2 otherwise              sign(d)/M otherwise
// with M = B·K and β = 1 by default (PyTorch's SmoothL1Loss). The paper trains UCT-AE with MSE
// and GAT-AE with SmoothL1.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

namespace detail {

template <class T>
void check_loss_shapes(const char* who, const ConstRef<T>& pred, const ConstRef<T>& target) {
  if (pred.rows() != target.rows() || pred.cols() != target.cols())
    throw std::invalid_argument(std::string(who) + ": prediction " +
                                shape_string(pred.rows(), pred.cols()) + " and target " +
                                shape_string(target.rows(), target.cols()) + " differ in shape");
  if (pred.size() == 0) throw std::invalid_argument(std::string(who) + ": empty prediction");
}

}  // namespace detail

// The mean squared error; writes dL/dpred into `grad` (resized to pred's shape). Throws
// std::invalid_argument when the shapes differ or are empty.
template <class T>
T mse_loss(const ConstRef<T>& pred, const ConstRef<T>& target, MatrixT<T>& grad) {
  detail::check_loss_shapes("mse_loss", pred, target);
  const T m = T(pred.size());
  grad = pred - target;
  const T loss = grad.squaredNorm() / m;
  grad *= T(2) / m;
  return loss;
}

// The smooth L1 (Huber-like) loss with threshold beta > 0; writes dL/dpred into `grad`.
template <class T>
T smooth_l1_loss(const ConstRef<T>& pred, const ConstRef<T>& target, MatrixT<T>& grad,
                 T beta = T(1)) {
  detail::check_loss_shapes("smooth_l1_loss", pred, target);
  if (!(beta > T(0))) throw std::invalid_argument("smooth_l1_loss: beta must be > 0");
  const T m = T(pred.size());
  grad = pred - target;
  const auto d = grad.array();
  const auto small = d.abs() < beta;
  const T loss = small.select(d.square() / (T(2) * beta), d.abs() - beta / T(2)).sum() / m;
  grad = (small.select(d / beta, d.sign()) / m).matrix();
  return loss;
}

}  // namespace gsearch::nn
