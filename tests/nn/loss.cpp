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
