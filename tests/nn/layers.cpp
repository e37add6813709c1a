#include "gsearch/nn/layers.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "support.hpp"

namespace nn = gsearch::nn;
using nn_test::MatD;

namespace {

// Each activation's forward pass at a few points, against its formula.
double reference(const nn::Activation& a, double x) {
  switch (a.kind) {
    case nn::ActivationKind::kIdentity:
      return x;
    case nn::ActivationKind::kRelu:
      return x > 0 ? x : 0;
    case nn::ActivationKind::kLeakyRelu:
      return x > 0 ? x : a.slope * x;
    case nn::ActivationKind::kElu:
      return x > 0 ? x : std::exp(x) - 1;
    case nn::ActivationKind::kTanh:
      return std::tanh(x);
    case nn::ActivationKind::kShiftedTanh:
      return (std::tanh(x) + 1) / 2;
  }
  return 0;
}

const nn::Activation kAll[] = {nn::Activation::identity(),      nn::Activation::relu(),
                               nn::Activation::leaky_relu(0.2), nn::Activation::elu(),
                               nn::Activation::tanh(),          nn::Activation::shifted_tanh()};

}  // namespace

TEST_CASE("activations: forward matches the formula, backward matches finite differences") {
  gsearch::Rng rng(11);
  const MatD x = nn_test::random_matrix(rng, 6, 7, -3, 3);
  for (const auto& act : kAll) {
    CAPTURE(act.name());
    MatD y(6, 7);
    act.forward(x, y);
    for (nn::Index k = 0; k < x.size(); ++k)
      CHECK(y.data()[k] == doctest::Approx(reference(act, x.data()[k])).epsilon(1e-12));
    const MatD dy = nn_test::random_matrix(rng, 6, 7);
    MatD dx(6, 7);
    act.backward(y, dy, dx);
    const double h = 1e-6;
    for (nn::Index k = 0; k < x.size(); ++k) {
      const double numeric =
          (reference(act, x.data()[k] + h) - reference(act, x.data()[k] - h)) / (2 * h);
      CHECK(dx.data()[k] == doctest::Approx(dy.data()[k] * numeric).epsilon(1e-6));
    }
  }
}

TEST_CASE("shifted tanh (eq. 15) maps into [0, 1] and is 1/2 at 0") {
  nn::Matrix x(1, 3);
  x << -20.0f, 0.0f, 20.0f;
  nn::Matrix y(1, 3);
  nn::Activation::shifted_tanh().forward(x, y);
  CHECK(y(0, 0) == doctest::Approx(0.0));
  CHECK(y(0, 1) == 0.5f);
  CHECK(y(0, 2) == doctest::Approx(1.0));
}

TEST_CASE("a negative LeakyReLU slope is refused") {
  CHECK_THROWS_AS(nn::Activation::leaky_relu(-0.1).validate(), std::invalid_argument);
  CHECK_NOTHROW(nn::Activation::leaky_relu(0.0).validate());
}

TEST_CASE("Linear: y = xW + b, gradients by finite differences, with and without bias") {
  for (const bool bias : {true, false}) {
    CAPTURE(bias);
    gsearch::Rng rng(3);
    nn::BasicLinear<double> lin(4, 3, rng, bias);
    lin.bias().setConstant(0.25);
    MatD x = nn_test::random_matrix(rng, 5, 4);
    const MatD y = lin.forward(x);
    MatD want = x * lin.weight();
    if (bias) want.array() += 0.25;
    CHECK((y - want).cwiseAbs().maxCoeff() < 1e-12);
    nn::ParamListT<double> params;
    lin.parameters(params, "lin.");
    CHECK(params.size() == (bias ? 2u : 1u));
    const auto r = nn_test::grad_check(
        params, x, [&](const MatD& in) { return MatD(lin.forward(in)); },
        [&](const MatD& dy) { return MatD(lin.backward(dy)); }, 17);
    CAPTURE(r.worst);
    CHECK(r.checked == (bias ? 12 + 3 : 12) + 20);
    CHECK(r.max_error < 1e-7);
  }
}

TEST_CASE("Linear: backward accumulates until zero_grad; shapes are checked") {
  gsearch::Rng rng(1);
  nn::Linear lin(2, 2, rng);
  nn::Matrix x = nn::Matrix::Ones(3, 2), dy = nn::Matrix::Ones(3, 2);
  lin.forward(x);
  lin.backward(dy);
  lin.backward(dy);
  CHECK(lin.weight_grad()(0, 0) == 6.0f);  // twice Σ_rows x·dy = 2 · 3
  CHECK(lin.bias_grad()(0, 1) == 6.0f);
  lin.zero_grad();
  CHECK(lin.weight_grad().isZero());
  CHECK_THROWS_AS(lin.forward(nn::Matrix::Ones(3, 5)), std::invalid_argument);
  CHECK_THROWS_AS(lin.backward(nn::Matrix::Ones(2, 2)), std::invalid_argument);
  CHECK_THROWS_AS(nn::Linear(0, 3, rng), std::invalid_argument);
  try {
    lin.forward(nn::Matrix::Ones(3, 5));
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "linear: input has shape 3x5, expected Nx2");
  }
}

TEST_CASE("Linear: no allocation after the first call at a size") {
  gsearch::Rng rng(1);
  nn::Linear lin(5, 3, rng);
  nn::Matrix x = nn::Matrix::Ones(16, 5), dy = nn::Matrix::Ones(16, 3);
  lin.forward(x);
  lin.backward(dy);
  const auto before = nn_test::allocations();
  {
    nn_test::NoEigenMalloc guard;
    lin.forward(x.topRows(7));  // smaller batches reuse the buffers
    lin.backward(dy.topRows(7));
    lin.forward(x);
    lin.backward(dy);
  }
  CHECK(nn_test::allocations() == before);
}

TEST_CASE("Linear: the shapes compiled as fixed-size products equal the general product") {
  // float runs the fixed-size path for 5→3, 3→5 and 5→1; double always the general one.
  const nn::Index shapes[][2] = {{5, 3}, {3, 5}, {5, 1}, {4, 3}};
  for (const auto& [in, out] : shapes) {
    CAPTURE(in);
    CAPTURE(out);
    for (const bool bias : {true, false}) {
      gsearch::Rng r1(9), r2(9);
      nn::Linear f(in, out, r1, bias);
      nn::BasicLinear<double> d(in, out, r2, bias);
      if (bias) {
        f.bias().setConstant(0.5f);
        d.bias().setConstant(0.5);
      }
      d.weight() = f.weight().cast<double>();
      gsearch::Rng rng(4);
      const MatD x = nn_test::random_matrix(rng, 7, in);
      for (const nn::Index rows : {7, 1}) {
        const nn::Matrix yf = f.forward(x.topRows(rows).cast<float>());
        const MatD yd = d.forward(x.topRows(rows));
        CHECK((yf.cast<double>() - yd).cwiseAbs().maxCoeff() < 1e-6);
      }
    }
  }
}
