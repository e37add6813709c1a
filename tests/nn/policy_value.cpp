#include "gsearch/nn/policy_value.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <stdexcept>

#include "gsearch/nn/io.hpp"
#include "support.hpp"

namespace nn = gsearch::nn;
using nn_test::MatD;

TEST_CASE("policy-value network: a batch gives what its rows give one by one") {
  gsearch::Rng rng(3);
  nn::PolicyValueMlp net(12, 16, 7, rng);
  CHECK(net.inputs() == 12);
  CHECK(net.actions() == 7);
  nn::Matrix x(5, 12);
  for (nn::Index r = 0; r < x.rows(); ++r)
    for (nn::Index c = 0; c < x.cols(); ++c) x(r, c) = static_cast<float>(rng.uniform() * 2 - 1);
  const auto out = net.forward(x);
  const nn::Matrix logits = out.logits, values = out.values;
  REQUIRE(logits.rows() == 5);
  REQUIRE(logits.cols() == 7);
  REQUIRE(values.rows() == 5);
  for (nn::Index r = 0; r < x.rows(); ++r) {
    const auto one = net.forward(x.row(r));
    for (nn::Index a = 0; a < 7; ++a) CHECK(one.logits(0, a) == doctest::Approx(logits(r, a)));
    CHECK(one.values(0, 0) == doctest::Approx(values(r, 0)));
    CHECK(std::abs(values(r, 0)) <= 1.0f);
  }
  // The value is tanh(h·W_v + b_v) and the logits h·W_p + b_p of the same trunk: recomputed
  // here from the parameters, with relu layers.
  nn::ParamList params;
  net.parameters(params);
  REQUIRE(params.size() == 8);  // trunk.0.W/b, trunk.1.W/b, policy.W/b, value.W/b
  CHECK(params[0].name == "trunk.0.W");
  CHECK(params[7].name == "value.b");
  const nn::Matrix h1 = ((x * *params[0].value).rowwise() + params[1].value->row(0)).cwiseMax(0.0f);
  const nn::Matrix h2 =
      ((h1 * *params[2].value).rowwise() + params[3].value->row(0)).cwiseMax(0.0f);
  const nn::Matrix p = (h2 * *params[4].value).rowwise() + params[5].value->row(0);
  const nn::Matrix v = ((h2 * *params[6].value).rowwise() + params[7].value->row(0)).array().tanh();
  CHECK((p - logits).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((v - values).cwiseAbs().maxCoeff() < 1e-6f);
}

TEST_CASE("policy-value network: no allocation once warm; bad shapes are refused") {
  gsearch::Rng rng(4);
  nn::PolicyValueMlp net(6, 8, 3, rng, 3);
  nn::Matrix x = nn::Matrix::Ones(32, 6);
  (void)net.forward(x);
  {
    nn_test::NoEigenMalloc guard;
    (void)net.forward(x.topRows(8));
  }
  CHECK_THROWS_AS((void)net.forward(nn::Matrix::Ones(2, 5)), std::invalid_argument);
  CHECK_THROWS_AS(nn::PolicyValueMlp(0, 8, 3, rng), std::invalid_argument);
  CHECK_THROWS_AS(nn::PolicyValueMlp(6, 8, 3, rng, 0), std::invalid_argument);
}

TEST_CASE("softmax_over: priors over the legal actions, summing to 1, stable") {
  const std::array<float, 5> logits{1.0f, 1000.0f, -3.0f, 1000.0f, 2.0f};
  const std::array<int, 3> legal{1, 3, 4};
  std::array<float, 3> priors{};
  nn::softmax_over(logits, legal, priors);
  CHECK(priors[0] == doctest::Approx(0.5));
  CHECK(priors[1] == doctest::Approx(0.5));
  CHECK(priors[2] == doctest::Approx(0.0));
}

TEST_CASE(
    "policy-value conv network: shapes, a batch row by row, gradients by finite differences") {
  gsearch::Rng rng(5);
  const nn::PolicyValueConvShape shape{.planes = 2,
                                       .height = 3,
                                       .width = 4,
                                       .trunk = {3, 2},
                                       .policy_channels = 2,
                                       .value_channels = 1,
                                       .value_hidden = 3};
  nn::BasicPolicyValueConv<double> net(shape, rng);
  CHECK(net.inputs() == 24);
  CHECK(net.actions() == 12);
  auto params = net.parameters();
  REQUIRE(params.size() == 14);
  CHECK(params[0].name == "trunk.0.W");
  CHECK(params[13].name == "value.fc2.b");
  // Biases off zero: a cell where every trunk channel is 0 would otherwise sit exactly on a
  // relu's kink in the heads, where finite differences see half a slope.
  for (const auto& p : params)
    if (p.name.back() == 'b') *p.value = nn_test::random_matrix(rng, 1, p.value->cols(), -0.5, 0.5);
  MatD x = nn_test::random_matrix(rng, 3, 24);
  const auto out = net.forward(x);
  const MatD logits = out.logits, values = out.values;
  for (nn::Index r = 0; r < 3; ++r) {
    const auto one = net.forward(x.row(r));
    CHECK((MatD(one.logits) - logits.row(r)).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(one.values(0, 0) == doctest::Approx(values(r, 0)));
    CHECK(std::abs(values(r, 0)) < 1.0);
  }
  // Both heads as one output (B, 13): logits, then the value.
  const auto both = [&](const MatD& in) {
    const auto o = net.forward(in);
    MatD y(in.rows(), 13);
    y << MatD(o.logits), MatD(o.values);
    return y;
  };
  const auto back = [&](const MatD& dy) {
    return MatD(net.backward(dy.leftCols(12), dy.rightCols(1)));
  };
  const auto r = nn_test::grad_check(params, x, both, back, 31);
  CAPTURE(r.worst);
  CHECK(r.max_error < 1e-6);
  CHECK_THROWS_AS((void)net.backward(MatD::Ones(2, 12), MatD::Ones(2, 1)), std::invalid_argument);
  CHECK_THROWS_AS(nn::PolicyValueConv(nn::PolicyValueConvShape{.trunk = {}}, rng),
                  std::invalid_argument);
}

TEST_CASE("policy-value conv network: weights save and load; no allocation once warm") {
  gsearch::Rng rng(6);
  nn::PolicyValueConv net({.height = 6, .width = 6, .trunk = {8, 8}}, rng);
  nn::Matrix x = nn::Matrix::Random(8, net.inputs());
  const nn::Matrix before = net.forward(x).logits;
  (void)net.backward(nn::Matrix::Ones(8, 36), nn::Matrix::Ones(8, 1));
  const nn::Matrix dlogits = nn::Matrix::Ones(2, 36), dvalues = nn::Matrix::Ones(2, 1);
  {
    nn_test::NoEigenMalloc guard;
    (void)net.forward(x.topRows(2));
    (void)net.backward(dlogits, dvalues);
  }
  const auto text =
      nn::detail::weights_to_json(nn::PolicyValueConv::kind, net.parameters(), "net.json").dump();
  gsearch::Rng other(99);
  nn::PolicyValueConv copy({.height = 6, .width = 6, .trunk = {8, 8}}, other);
  nn::parse_weights(text, copy, "net.json");
  CHECK((nn::Matrix(copy.forward(x).logits) - before).cwiseAbs().maxCoeff() == 0.0f);
}
