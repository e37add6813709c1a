// gsearch/nn/logistic_fit.hpp — fitting an evaluation's weights to game outcomes.
//
// An evaluation linear in its terms, s = w·x, predicts a game's outcome through the logistic
// function: P(the side to move wins) = σ(w·x). Given positions from recorded games — each
// one's terms x_i and the outcome z_i for its side to move (1 won, 0 lost, ½ drawn) — the fit
// finds the weights that minimise the cross-entropy, with a ridge towards the starting weights
// w0 (so that a term the games say little about keeps its value):
//
//   L(w) = -(1/n) Σ_i [z_i log σ(w·x_i) + (1 - z_i) log(1 - σ(w·x_i))] + (λ/2) |w - w0|².
//
// L is convex; Newton's method (each step solves H d = -g, H = Xᵀ S X / n + λ I with S the
// diagonal of σ(1 - σ)) reaches its minimum in a few steps, each halved until it lowers L.
// This is "Texel tuning" (tuning an evaluation on the outcomes of games) with the
// cross-entropy instead of the squared error many tuners use: both are minimised by the same
// weights when the model fits, and the cross-entropy is convex, so the answer does not depend
// on where the search starts. Eigen does the linear algebra.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gsearch::nn {

struct LogisticFitOptions {
  double l2 = 1e-4;          // λ: the ridge towards the starting weights
  int max_iterations = 50;   // Newton steps at most
  double tolerance = 1e-10;  // stop when a step lowers the loss by less than this
};

struct LogisticFit {
  Eigen::VectorXd weights;
  double loss_before = 0.0;  // L at the starting weights
  double loss_after = 0.0;   // L at the fitted weights
  int iterations = 0;
  bool converged = false;  // the last step changed the loss by less than the tolerance
};

namespace detail {
// log(1 + e^t), without overflow for large |t|.
inline double softplus(double t) noexcept {
  return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}
}  // namespace detail

// L(w) for samples x (one row per position), outcomes z, the ridge λ towards w0.
[[nodiscard]] inline double logistic_loss(const Eigen::MatrixXd& x, const Eigen::VectorXd& z,
                                          const Eigen::VectorXd& w, double l2,
                                          const Eigen::VectorXd& w0) {
  const Eigen::VectorXd s = x * w;
  double sum = 0.0;
  // -[z log σ(s) + (1-z) log(1-σ(s))] = softplus(s) - z s
  for (Eigen::Index i = 0; i < s.size(); ++i) sum += detail::softplus(s[i]) - z[i] * s[i];
  return sum / static_cast<double>(s.size()) + 0.5 * l2 * (w - w0).squaredNorm();
}

// Fits the weights, starting from (and drawn towards) `start`. Throws std::invalid_argument
// for inputs that cannot be fitted: no samples, sizes that disagree, outcomes outside [0, 1],
// values that are not finite, a negative λ.
[[nodiscard]] inline LogisticFit fit_logistic(const Eigen::MatrixXd& x, const Eigen::VectorXd& z,
                                              const Eigen::VectorXd& start,
                                              const LogisticFitOptions& options = {}) {
  if (x.rows() == 0) throw std::invalid_argument("logistic fit: no samples");
  if (z.size() != x.rows())
    throw std::invalid_argument("logistic fit: " + std::to_string(x.rows()) + " samples but " +
                                std::to_string(z.size()) + " outcomes");
  if (start.size() != x.cols())
    throw std::invalid_argument("logistic fit: " + std::to_string(x.cols()) + " terms but " +
                                std::to_string(start.size()) + " starting weights");
  if (!x.allFinite() || !start.allFinite())
    throw std::invalid_argument("logistic fit: a term or starting weight is not finite");
  for (Eigen::Index i = 0; i < z.size(); ++i)
    if (!(z[i] >= 0.0 && z[i] <= 1.0))
      throw std::invalid_argument("logistic fit: outcome " + std::to_string(i) +
                                  " is not in [0, 1]");
  if (!(options.l2 >= 0.0)) throw std::invalid_argument("logistic fit: l2 must be >= 0");

  const double n = static_cast<double>(x.rows());
  LogisticFit fit;
  fit.weights = start;
  fit.loss_before = logistic_loss(x, z, start, options.l2, start);
  double loss = fit.loss_before;
  for (fit.iterations = 0; fit.iterations < options.max_iterations;) {
    const Eigen::VectorXd s = x * fit.weights;
    Eigen::VectorXd p(s.size()), curvature(s.size());
    for (Eigen::Index i = 0; i < s.size(); ++i) {
      p[i] = 1.0 / (1.0 + std::exp(-s[i]));
      curvature[i] = p[i] * (1.0 - p[i]);
    }
    const Eigen::VectorXd gradient =
        x.transpose() * (p - z) / n + options.l2 * (fit.weights - start);
    Eigen::MatrixXd hessian = x.transpose() * curvature.asDiagonal() * x / n;
    hessian.diagonal().array() += options.l2 + 1e-12;  // (positive definite even at λ = 0)
    const Eigen::VectorXd step = hessian.ldlt().solve(-gradient);
    ++fit.iterations;
    double t = 1.0, next = loss;
    Eigen::VectorXd w = fit.weights;
    for (int halving = 0; halving < 40; ++halving, t /= 2) {
      w = fit.weights + t * step;
      next = logistic_loss(x, z, w, options.l2, start);
      if (next <= loss) break;
    }
    if (!(next <= loss)) {  // no step lowers the loss: at the minimum, to rounding
      fit.converged = true;
      break;
    }
    const double gain = loss - next;
    fit.weights = w;
    loss = next;
    if (gain < options.tolerance) {
      fit.converged = true;
      break;
    }
  }
  fit.loss_after = loss;
  return fit;
}

}  // namespace gsearch::nn
