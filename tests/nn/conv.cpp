#include "gsearch/nn/conv.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "support.hpp"

namespace nn = gsearch::nn;
using nn_test::MatD;

namespace {

// The convolution written as its formula, one output at a time.
MatD direct_conv(nn::BasicConv2d<double>& conv, const MatD& x, nn::Index h, nn::Index w) {
  const nn::Index in = conv.in_channels(), out = conv.out_channels(), k = conv.kernel(), r = k / 2;
  MatD y = MatD::Zero(x.rows(), h * w * out);
  for (nn::Index b = 0; b < x.rows(); ++b)
    for (nn::Index py = 0; py < h; ++py)
      for (nn::Index px = 0; px < w; ++px)
        for (nn::Index o = 0; o < out; ++o) {
          double s = conv.has_bias() ? conv.bias()(0, o) : 0.0;
          for (nn::Index dy = 0; dy < k; ++dy)
            for (nn::Index dx = 0; dx < k; ++dx)
              for (nn::Index c = 0; c < in; ++c) {
                const nn::Index sy = py + dy - r, sx = px + dx - r;
                if (sy < 0 || sy >= h || sx < 0 || sx >= w) continue;
                s += conv.weight()((dy * k + dx) * in + c, o) * x(b, (sy * w + sx) * in + c);
              }
          y(b, (py * w + px) * out + o) = s;
        }
  return y;
}

}  // namespace

TEST_CASE("Conv2d: the output is the formula, 3x3 and 1x1, on a non-square grid") {
  for (const nn::Index k : {1, 3, 5}) {
    CAPTURE(k);
    gsearch::Rng rng(7);
    nn::BasicConv2d<double> conv(3, 4, k, 4, 5, rng);
    conv.bias() = nn_test::random_matrix(rng, 1, 4);
    const MatD x = nn_test::random_matrix(rng, 2, 4 * 5 * 3);
    const MatD y = conv.forward(x);
    CHECK(y.rows() == 2);
    CHECK(y.cols() == 4 * 5 * 4);
    CHECK((y - direct_conv(conv, x, 4, 5)).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("Conv2d: gradients by finite differences") {
  for (const bool bias : {true, false}) {
    CAPTURE(bias);
    gsearch::Rng rng(9);
    nn::BasicConv2d<double> conv(2, 3, 3, 3, 4, rng, bias);
    MatD x = nn_test::random_matrix(rng, 2, 3 * 4 * 2);
    nn::ParamListT<double> params;
    conv.parameters(params, "conv.");
    CHECK(params.size() == (bias ? 2u : 1u));
    const auto r = nn_test::grad_check(
        params, x, [&](const MatD& in) { return MatD(conv.forward(in)); },
        [&](const MatD& dy) { return MatD(conv.backward(dy)); }, 21);
    CAPTURE(r.worst);
    CHECK(r.checked == 9 * 2 * 3 + (bias ? 3 : 0) + 2 * 24);
    CHECK(r.max_error < 1e-7);
  }
}

TEST_CASE("Conv2d: no allocation once warm; bad shapes are refused") {
  gsearch::Rng rng(2);
  nn::Conv2d conv(4, 8, 3, 6, 6, rng);
  nn::Matrix x = nn::Matrix::Ones(16, 6 * 6 * 4);
  (void)conv.forward(x);
  (void)conv.backward(nn::Matrix::Ones(16, 6 * 6 * 8));
  const nn::Matrix dy = nn::Matrix::Ones(3, 6 * 6 * 8);
  {
    nn_test::NoEigenMalloc guard;
    (void)conv.forward(x.topRows(3));
    (void)conv.backward(dy);
  }
  CHECK_THROWS_AS((void)conv.forward(nn::Matrix::Ones(2, 10)), std::invalid_argument);
  CHECK_THROWS_AS((void)conv.backward(nn::Matrix::Ones(2, 6 * 6 * 8)), std::invalid_argument);
  CHECK_THROWS_AS(nn::Conv2d(4, 8, 2, 6, 6, rng), std::invalid_argument);
  CHECK_THROWS_AS(nn::Conv2d(0, 8, 3, 6, 6, rng), std::invalid_argument);
}
