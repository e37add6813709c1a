#include "gsearch/nn/tensor.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "support.hpp"

namespace nn = gsearch::nn;

TEST_CASE("Workspace grows to the largest size asked for and never shrinks") {
  nn::Workspace<float> ws;
  auto a = ws.view(4, 8);
  CHECK(a.rows() == 4);
  CHECK(a.cols() == 8);
  CHECK(ws.capacity() == 32);
  a(3, 7) = 5.0f;
  const float* data = a.data();
  {
    nn_test::NoEigenMalloc guard;  // smaller and equal views reuse the storage
    auto b = ws.view(2, 3);
    CHECK(b.data() == data);
    auto c = ws.view(8, 4);
    CHECK(c(7, 3) == 5.0f);  // same storage, contents kept
  }
  ws.view(5, 8);
  CHECK(ws.capacity() == 40);
}

TEST_CASE("glorot_uniform draws from U(-a, a), a = sqrt(6 / (fan_in + fan_out)), by seed") {
  gsearch::Rng r1(5), r2(5);
  nn::Matrix w(40, 60);
  nn::MatrixT<double> wd(40, 60);
  nn::glorot_uniform(w, 40, 60, r1);
  nn::glorot_uniform(wd, 40, 60, r2);
  const double a = std::sqrt(6.0 / 100.0);
  CHECK(w.cwiseAbs().maxCoeff() <= a);
  CHECK(w.cwiseAbs().maxCoeff() > 0.95 * a);  // 2,400 draws reach the edge of the range
  CHECK(std::abs(w.mean()) < 0.02);
  // U(-a, a) has variance a²/3; the sample variance of 2,400 draws is within 10 %.
  const double var = (w.array() - w.mean()).square().mean();
  CHECK(var == doctest::Approx(a * a / 3).epsilon(0.1));
  CHECK((w.cast<double>() - wd).cwiseAbs().maxCoeff() < 1e-7);  // same seed, same draws
}

TEST_CASE("shape_string and const_view") {
  CHECK(nn::shape_string(5, 32) == "5x32");
  nn::Workspace<float> ws;
  auto v = ws.view(2, 2);
  v.setConstant(1.5f);
  const nn::ConstView<float> c = nn::const_view(v);
  CHECK(c.data() == v.data());
  CHECK(c.sum() == 6.0f);
}
