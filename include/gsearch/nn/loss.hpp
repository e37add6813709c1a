// gsearch/nn/loss.hpp — the training losses of §5.1, each with its gradient.
//
// Both average over every element of the (B, K) prediction, as PyTorch's reduction="mean":
//   mse        L = (1/M) Σ (p − t)²                                  dL/dp = 2 (p − t) / M
//   smooth_l1  L = (1/M) Σ ℓ(p − t),  ℓ(d) = d²/(2β) if |d| < β     dL/dp = d/(β M) if |d| < β
//                                          |d| − β/2 otherwise              sign(d)/M otherwise
// with M = B·K and β = 1 by default (PyTorch's SmoothL1Loss). The paper trains UCT-AE with MSE
// and GAT-AE with SmoothL1.
//
// AlphaZero's policy loss is a masked softmax cross-entropy, averaged over the B rows:
//   p_b = softmax of row b of the logits over the columns where mask_b > 0 (0 elsewhere)
//   L = −(1/B) Σ_b Σ_a t_ba · log p_ba                     dL/dlogits_ba = (p_ba − t_ba) / B
// for targets t that are 0 outside the mask and sum to 1 in each row (a search's visit
// shares); it also gives the mean entropy −Σ p log p of the predictions.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
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

// What softmax_cross_entropy() returns: the loss and the predictions' mean entropy.
template <class T>
struct CrossEntropy {
  T loss = 0;
  T entropy = 0;
};

// The masked softmax cross-entropy above; writes dL/dlogits into `grad` (resized to the logits'
// shape) and, when given, the probabilities into `probs` (resized too). Throws
// std::invalid_argument when the shapes differ, are empty, or a row's mask is all zero.

template <class T>
CrossEntropy<T> softmax_cross_entropy(const ConstRef<T>& logits, const ConstRef<T>& target,
                                      const ConstRef<T>& mask, MatrixT<T>& grad,
                                      MatrixT<T>* probs = nullptr) {
  detail::check_loss_shapes("softmax_cross_entropy", logits, target);
  detail::check_loss_shapes("softmax_cross_entropy", logits, mask);
  const Index rows = logits.rows(), cols = logits.cols();
  grad.resize(rows, cols);
  if (probs) probs->resize(rows, cols);
  CrossEntropy<T> out;
  for (Index b = 0; b < rows; ++b) {
    T top = -std::numeric_limits<T>::infinity();
    for (Index a = 0; a < cols; ++a)
      if (mask(b, a) > T(0)) top = std::max(top, logits(b, a));
    if (top == -std::numeric_limits<T>::infinity())
      throw std::invalid_argument("softmax_cross_entropy: row " + std::to_string(b) +
                                  " has no unmasked column");
    T total = 0;
    for (Index a = 0; a < cols; ++a) {
      const T e = mask(b, a) > T(0) ? std::exp(logits(b, a) - top) : T(0);
      grad(b, a) = e;
      total += e;
    }
    const T log_total = std::log(total);
    for (Index a = 0; a < cols; ++a) {
      if (mask(b, a) <= T(0)) {
        grad(b, a) = T(0);
        continue;
      }
      const T log_p = logits(b, a) - top - log_total;
      const T p = grad(b, a) / total;
      out.loss -= target(b, a) * log_p;
      out.entropy -= p * log_p;
      grad(b, a) = (p - target(b, a)) / T(rows);
      if (probs) (*probs)(b, a) = p;
    }
    if (probs)
      for (Index a = 0; a < cols; ++a)
        if (mask(b, a) <= T(0)) (*probs)(b, a) = T(0);
  }
  out.loss /= T(rows);
  out.entropy /= T(rows);
  return out;
}

}  // namespace gsearch::nn
