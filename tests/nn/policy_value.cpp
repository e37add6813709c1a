#include "gsearch/nn/policy_value.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <stdexcept>

#include "support.hpp"

namespace nn = gsearch::nn;

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
