// The logistic fit of evaluation weights to outcomes: recovers the weights that generated
// the outcomes, takes draws, agrees with the loss by hand, and refuses bad input.
#include "gsearch/nn/logistic_fit.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "gsearch/core/rng.hpp"

namespace nn = gsearch::nn;

namespace {

// n positions with three terms (the last a constant 1), outcomes drawn from σ(w·x): won,
// lost, or — with probability `draws` — drawn.
void generate(int n, const Eigen::Vector3d& w, double draws, Eigen::MatrixXd& x,
              Eigen::VectorXd& z) {
  gsearch::Rng rng(7);
  x.resize(n, 3);
  z.resize(n);
  for (int i = 0; i < n; ++i) {
    x(i, 0) = 4.0 * rng.uniform() - 2.0;
    x(i, 1) = 2.0 * rng.uniform() - 1.0;
    x(i, 2) = 1.0;
    const double p = 1.0 / (1.0 + std::exp(-x.row(i).dot(w)));
    z[i] = rng.uniform() < draws ? 0.5 : rng.uniform() < p ? 1.0 : 0.0;
  }
}

}  // namespace

TEST_CASE("logistic fit: the loss by hand") {
  Eigen::MatrixXd x(2, 1);
  x << 1.0, -2.0;
  Eigen::VectorXd z(2), w(1), w0(1);
  z << 1.0, 0.5;
  w << 0.5;
  w0 << 0.0;
  // -(log σ(0.5)) and -(0.5 log σ(-1) + 0.5 log σ(1)), averaged; plus λ/2 · 0.25.
  const auto log_sigmoid = [](double t) { return -std::log1p(std::exp(-t)); };
  const double want =
      (-log_sigmoid(0.5) - 0.5 * (log_sigmoid(-1.0) + log_sigmoid(1.0))) / 2 + 0.5 * 0.1 * 0.25;
  CHECK(nn::logistic_loss(x, z, w, 0.1, w0) == doctest::Approx(want).epsilon(1e-12));
}

TEST_CASE("logistic fit: recovers the weights the outcomes were drawn from") {
  const Eigen::Vector3d truth(1.5, -0.8, 0.3);
  Eigen::MatrixXd x;
  Eigen::VectorXd z;
  generate(40000, truth, 0.0, x, z);
  const nn::LogisticFit fit = nn::fit_logistic(x, z, Eigen::VectorXd::Zero(3), {.l2 = 0.0});
  CHECK(fit.converged);
  CHECK(fit.iterations < 15);
  CHECK(fit.loss_after < fit.loss_before);
  for (int j = 0; j < 3; ++j) CHECK(fit.weights[j] == doctest::Approx(truth[j]).epsilon(0.08));
  // Draws count half: with a share of them the weights shrink but keep their signs and ratio.
  generate(40000, truth, 0.3, x, z);
  const auto drawn = nn::fit_logistic(x, z, Eigen::VectorXd::Zero(3), {.l2 = 0.0});
  CHECK(drawn.weights[0] > 0.5);
  CHECK(drawn.weights[0] < truth[0]);
  CHECK(drawn.weights[0] / drawn.weights[1] == doctest::Approx(truth[0] / truth[1]).epsilon(0.15));
}

TEST_CASE("logistic fit: the ridge holds a term the games do not inform") {
  Eigen::MatrixXd x;
  Eigen::VectorXd z;
  generate(2000, Eigen::Vector3d(1.0, 0.0, 0.0), 0.0, x, z);
  x.col(1).setZero();  // the second term never varies: only the ridge decides it
  Eigen::VectorXd start(3);
  start << 0.0, 2.5, 0.0;
  const auto fit = nn::fit_logistic(x, z, start, {.l2 = 1e-3});
  CHECK(fit.weights[1] == doctest::Approx(2.5));
  CHECK(fit.weights[0] > 0.5);
}

TEST_CASE("logistic fit: bad input is refused with the reason") {
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 2);
  Eigen::VectorXd z = Eigen::VectorXd::Constant(3, 0.5), w = Eigen::VectorXd::Zero(2);
  const auto message = [&](const Eigen::MatrixXd& xx, const Eigen::VectorXd& zz,
                           const Eigen::VectorXd& ww, double l2) -> std::string {
    try {
      (void)nn::fit_logistic(xx, zz, ww, {.l2 = l2});
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message(Eigen::MatrixXd(0, 2), Eigen::VectorXd(0), w, 0) == "logistic fit: no samples");
  CHECK(message(x, Eigen::VectorXd::Zero(2), w, 0) == "logistic fit: 3 samples but 2 outcomes");
  CHECK(message(x, z, Eigen::VectorXd::Zero(3), 0) ==
        "logistic fit: 2 terms but 3 starting weights");
  Eigen::VectorXd bad = z;
  bad[1] = 1.5;
  CHECK(message(x, bad, w, 0) == "logistic fit: outcome 1 is not in [0, 1]");
  bad[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK(message(x, bad, w, 0) == "logistic fit: outcome 1 is not in [0, 1]");
  Eigen::MatrixXd inf = x;
  inf(2, 1) = std::numeric_limits<double>::infinity();
  CHECK(message(inf, z, w, 0) == "logistic fit: a term or starting weight is not finite");
  CHECK(message(x, z, w, -1) == "logistic fit: l2 must be >= 0");
}
