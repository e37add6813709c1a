#include "gsearch/nn/optim.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

namespace nn = gsearch::nn;

namespace {

// One scalar parameter θ with its gradient.
struct Scalar {
  nn::MatrixT<double> value = nn::MatrixT<double>::Constant(1, 1, 1.0);
  nn::MatrixT<double> grad = nn::MatrixT<double>::Zero(1, 1);
  nn::ParamListT<double> params() { return {{"theta", &value, &grad}}; }
};

}  // namespace

// θ = 1, lr 0.1, gradients 0.5 then −1.
// Step 1: m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25; θ = 1 − 0.1·0.5/(0.5 + 1e-8) = 0.900000002.
// Step 2: m = 0.9·0.05 − 0.1 = −0.055, v = 0.999·0.00025 + 0.001 = 0.00124975;
//         m̂ = −0.055/0.19 = −0.2894737, v̂ = 0.00124975/0.001999 = 0.6251876;
//         θ = 0.900000002 + 0.1·0.2894737/(0.7906880 + 1e-8) = 0.9366103542.
TEST_CASE("Adam: two steps against hand-computed values") {
  Scalar s;
  nn::BasicAdam<double> adam(s.params(), {.lr = 0.1});
  s.grad(0, 0) = 0.5;
  adam.step();
  CHECK(s.value(0, 0) == doctest::Approx(0.900000002).epsilon(1e-12));
  s.grad(0, 0) = -1.0;
  adam.step();
  CHECK(s.value(0, 0) == doctest::Approx(0.9366103542405654).epsilon(1e-12));
  CHECK(adam.steps() == 2);
}

// θ = 1, lr 0.01, alpha 0.99, gradients 0.5 then −1.
// Step 1: v = 0.01·0.25 = 0.0025; θ = 1 − 0.01·0.5/(0.05 + 1e-8) = 0.90000002.
// Step 2: v = 0.99·0.0025 + 0.01 = 0.012475; θ += 0.01/(0.1116915 + 1e-8) = 0.9895323082.
TEST_CASE("RMSprop: two steps against hand-computed values") {
  Scalar s;
  nn::BasicRmsProp<double> rms(s.params(), {.lr = 0.01});
  s.grad(0, 0) = 0.5;
  rms.step();
  CHECK(s.value(0, 0) == doctest::Approx(0.900000019999996).epsilon(1e-12));
  s.grad(0, 0) = -1.0;
  rms.step();
  CHECK(s.value(0, 0) == doctest::Approx(0.9895323081911337).epsilon(1e-12));
}

TEST_CASE("optimisers read gradients and leave them; zero_grad clears them") {
  Scalar s;
  nn::BasicAdam<double> adam(s.params(), {});
  s.grad(0, 0) = 2.0;
  adam.step();
  CHECK(s.grad(0, 0) == 2.0);
  adam.zero_grad();
  CHECK(s.grad(0, 0) == 0.0);
  adam.step();  // a zero gradient after a non-zero one still moves θ (momentum)
  CHECK(s.value(0, 0) < 1.0 - 1e-3);
}

TEST_CASE("clip_grad_norm scales to the global norm over every parameter") {
  nn::Matrix a = nn::Matrix::Zero(1, 1), b = nn::Matrix::Zero(1, 1);
  nn::Matrix ga(1, 1), gb(1, 1);
  ga << 3.0f;
  gb << 4.0f;
  const nn::ParamList params = {{"a", &a, &ga}, {"b", &b, &gb}};
  CHECK(nn::clip_grad_norm(params, 10.0) == doctest::Approx(5.0));
  CHECK(ga(0, 0) == 3.0f);  // below the bound: unchanged
  CHECK(nn::clip_grad_norm(params, 1.0) == doctest::Approx(5.0));
  CHECK(ga(0, 0) == doctest::Approx(0.6).epsilon(1e-6));
  CHECK(gb(0, 0) == doctest::Approx(0.8).epsilon(1e-6));
  CHECK_THROWS_AS(nn::clip_grad_norm(params, 0.0), std::invalid_argument);
}

TEST_CASE("bad optimiser settings are refused") {
  Scalar s;
  CHECK_THROWS_AS(nn::BasicAdam<double>(s.params(), {.lr = 0}), std::invalid_argument);
  CHECK_THROWS_AS(nn::BasicAdam<double>(s.params(), {.beta1 = 1.0}), std::invalid_argument);
  CHECK_THROWS_AS(nn::BasicRmsProp<double>(s.params(), {.alpha = -0.5}), std::invalid_argument);
}

// θ = 1, lr 0.1, weight decay 0.5, gradient 0: the step sees g = 0.5·θ = 0.5, as in
// "Adam: two steps" above, so θ = 0.900000002; the gradient itself stays 0.
TEST_CASE("Adam: weight decay adds wd·θ to the gradient it reads") {
  Scalar s;
  nn::BasicAdam<double> adam(s.params(), {.lr = 0.1, .weight_decay = 0.5});
  s.grad(0, 0) = 0.0;
  adam.step();
  CHECK(s.value(0, 0) == doctest::Approx(0.900000002).epsilon(1e-12));
  CHECK(s.grad(0, 0) == 0.0);
  CHECK_THROWS_AS(nn::BasicAdam<double>(s.params(), {.weight_decay = -1}), std::invalid_argument);
}

TEST_CASE("Adam: the learning rate and the moments can be set, as a checkpoint does") {
  Scalar a, b;
  nn::BasicAdam<double> first(a.params(), {.lr = 0.1});
  a.grad(0, 0) = 0.5;
  first.step();
  first.set_lr(0.05);
  CHECK(first.lr() == 0.05);
  CHECK_THROWS_AS(first.set_lr(0), std::invalid_argument);
  // A second optimiser given the first's state takes the same next step.
  nn::BasicAdam<double> second(b.params(), {.lr = 0.05});
  b.value = a.value;
  second.first_moments() = first.first_moments();
  second.second_moments() = first.second_moments();
  second.set_steps(first.steps());
  a.grad(0, 0) = b.grad(0, 0) = -1.0;
  first.step();
  second.step();
  CHECK(a.value(0, 0) == b.value(0, 0));
}
