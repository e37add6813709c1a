#include "gsearch/nn/loss.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "support.hpp"

namespace nn = gsearch::nn;
using nn_test::MatD;

// pred − target = d = [1, 0, 2.5, −0.5], M = 4.
//   MSE       = (1 + 0 + 6.25 + 0.25) / 4 = 1.875;  grad = 2d/4 = [0.5, 0, 1.25, −0.25]
//   SmoothL1  = (0.5 + 0 + 2.0 + 0.125) / 4 = 0.65625  (|d| ≥ 1: |d| − 0.5; else d²/2)
//             grad = [1, 0, 1, −0.5] / 4
TEST_CASE("MSE and SmoothL1 (beta = 1) by hand") {
  nn::Matrix pred(2, 2), target(2, 2), grad;
  pred << 1, 2, 3.5f, 0;
  target << 0, 2, 1, 0.5f;
  CHECK(nn::mse_loss<float>(pred, target, grad) == doctest::Approx(1.875));
  CHECK(grad(0, 0) == doctest::Approx(0.5));
  CHECK(grad(0, 1) == 0.0f);
  CHECK(grad(1, 0) == doctest::Approx(1.25));
  CHECK(grad(1, 1) == doctest::Approx(-0.25));
  CHECK(nn::smooth_l1_loss<float>(pred, target, grad) == doctest::Approx(0.65625));
  CHECK(grad(0, 0) == doctest::Approx(0.25));
  CHECK(grad(0, 1) == 0.0f);
  CHECK(grad(1, 0) == doctest::Approx(0.25));
  CHECK(grad(1, 1) == doctest::Approx(-0.125));
}

TEST_CASE("loss gradients match finite differences") {
  gsearch::Rng rng(21);
  const MatD target = nn_test::random_matrix(rng, 5, 3, -2, 2);
  MatD pred = nn_test::random_matrix(rng, 5, 3, -2, 2);
  for (const int which : {0, 1}) {
    CAPTURE(which);
    auto loss = [&](const MatD& p, MatD& g) {
      return which == 0 ? nn::mse_loss<double>(p, target, g)
                        : nn::smooth_l1_loss<double>(p, target, g);
    };
    MatD grad, scratch;
    loss(pred, grad);
    const double h = 1e-6;
    for (nn::Index k = 0; k < pred.size(); ++k) {
      const double saved = pred.data()[k];
      pred.data()[k] = saved + h;
      const double up = loss(pred, scratch);
      pred.data()[k] = saved - h;
      const double down = loss(pred, scratch);
      pred.data()[k] = saved;
      CHECK(grad.data()[k] == doctest::Approx((up - down) / (2 * h)).epsilon(1e-6));
    }
  }
}

TEST_CASE("losses refuse shapes that differ and empty input") {
  nn::Matrix grad;
  CHECK_THROWS_AS(nn::mse_loss<float>(nn::Matrix::Zero(2, 1), nn::Matrix::Zero(1, 2), grad),
                  std::invalid_argument);
  CHECK_THROWS_AS(nn::smooth_l1_loss<float>(nn::Matrix(0, 1), nn::Matrix(0, 1), grad),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      nn::smooth_l1_loss<float>(nn::Matrix::Zero(1, 1), nn::Matrix::Zero(1, 1), grad, 0.0f),
      std::invalid_argument);
}

// Row 0: logits [0, ln 2, ln 2·?] masked to the first two columns: p = [1/3, 2/3, 0];
// target [0, 1, 0]: loss −log(2/3); entropy −(1/3 log 1/3 + 2/3 log 2/3). Row 1: one legal
// column, p = 1, loss 0, entropy 0.
TEST_CASE("masked softmax cross-entropy by hand, and its gradient by finite differences") {
  MatD logits(2, 3), target(2, 3), mask(2, 3), grad, probs;
  logits << 0, std::log(2.0), 5, 1, 2, 3;
  target << 0, 1, 0, 0, 0, 1;
  mask << 1, 1, 0, 0, 0, 1;
  const auto r = nn::softmax_cross_entropy<double>(logits, target, mask, grad, &probs);
  const double l0 = -std::log(2.0 / 3.0);
  CHECK(r.loss == doctest::Approx(l0 / 2));
  CHECK(r.entropy == doctest::Approx(-(std::log(1.0 / 3) / 3 + 2 * std::log(2.0 / 3) / 3) / 2));
  CHECK(probs(0, 0) == doctest::Approx(1.0 / 3));
  CHECK(probs(0, 2) == 0.0);
  CHECK(probs(1, 2) == 1.0);
  CHECK(grad(0, 0) == doctest::Approx((1.0 / 3) / 2));
  CHECK(grad(0, 1) == doctest::Approx((2.0 / 3 - 1) / 2));
  CHECK(grad(0, 2) == 0.0);
  CHECK(grad(1, 2) == 0.0);
  // Finite differences on the unmasked logits.
  gsearch::Rng rng(5);
  MatD x = nn_test::random_matrix(rng, 3, 4), t(3, 4), m = MatD::Ones(3, 4);
  m(1, 3) = 0;
  t << 0.5, 0.5, 0, 0, 0.1, 0.2, 0.7, 0, 0, 0, 0, 1;
  MatD g, scratch;
  (void)nn::softmax_cross_entropy<double>(x, t, m, g);
  for (nn::Index k = 0; k < x.size(); ++k) {
    if (m.data()[k] == 0) continue;
    MatD up = x, down = x;
    up.data()[k] += 1e-6;
    down.data()[k] -= 1e-6;
    const double numeric = (nn::softmax_cross_entropy<double>(up, t, m, scratch).loss -
                            nn::softmax_cross_entropy<double>(down, t, m, scratch).loss) /
                           2e-6;
    CHECK(g.data()[k] == doctest::Approx(numeric).epsilon(1e-6));
  }
  MatD no(1, 2), none = MatD::Zero(1, 2);
  no << 1, 2;
  CHECK_THROWS_AS((void)nn::softmax_cross_entropy<double>(no, none, none, g),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)nn::softmax_cross_entropy<double>(no, t, m, g), std::invalid_argument);
}
