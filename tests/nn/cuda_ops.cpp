// The CPU references of the CUDA kernels (nn/cuda/ops.hpp) against the Eigen modules: run on
// every machine, so the kernels' arithmetic is checked even where no GPU is present.
#include "gsearch/nn/cuda/ops.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "gsearch/nn/conv.hpp"
#include "gsearch/nn/gat.hpp"
#include "support.hpp"

namespace nn = gsearch::nn;
namespace ops = gsearch::nn::cuda::ops;

TEST_CASE("the kernels' CPU reference of a GAT layer equals the Eigen layer, forward and back") {
  gsearch::Rng rng(31);
  const auto g = nn::CsrGraph::random_tree(23, rng);
  const int n = g.num_nodes();
  const nn::GatLayerConfig configs[] = {
      {.in = 5, .out = 4, .heads = 3, .activation = nn::Activation::elu()},
      {.in = 5, .out = 2, .heads = 2, .concat = false, .activation = nn::Activation::tanh()},
      {.in = 5, .out = 1, .bias = false, .activation = nn::Activation::leaky_relu(0.1)},
  };
  for (const auto& cfg : configs) {
    CAPTURE(cfg.heads);
    CAPTURE(cfg.concat);
    nn::GatLayer layer(cfg, rng);
    if (cfg.bias) layer.bias().setRandom();
    const nn::Matrix x = nn::Matrix::Random(n, 5);
    const nn::Matrix dy = nn::Matrix::Random(n, cfg.width());
    const nn::Matrix y = layer.forward(x, g);
    const nn::Matrix att = layer.attention();
    layer.zero_grad();
    const nn::Matrix dx = layer.backward(dy);

    const ops::GatShape s{.n = n,
                          .heads = int(cfg.heads),
                          .f = int(cfg.out),
                          .concat = cfg.concat,
                          .slope = float(cfg.negative_slope),
                          .act = cfg.activation.kind,
                          .act_slope = float(cfg.activation.slope)};
    const int hf = int(cfg.heads * cfg.out), w = s.width(), edges = g.num_edges() + n;
    const nn::Matrix z = x * layer.weight();
    nn::Matrix s_dst(n, s.heads), s_src(n, s.heads), alpha(edges, s.heads), out(n, w);
    ops::gat_forward_cpu(s, g.offsets().data(), g.indices().data(), z.data(),
                         layer.att_dst().data(), layer.att_src().data(),
                         cfg.bias ? layer.bias().data() : nullptr, s_dst.data(), s_src.data(),
                         alpha.data(), out.data());
    CHECK((out - y).cwiseAbs().maxCoeff() < 1e-5f);
    CHECK((alpha - att).cwiseAbs().maxCoeff() < 1e-6f);

    nn::Matrix g_pre(n, w), g_alpha(edges, s.heads), g_sdst(n, s.heads), g_ssrc(n, s.heads),
        g_z(n, hf);
    nn::Matrix g_bias = nn::Matrix::Zero(1, w), g_ad = nn::Matrix::Zero(s.heads, s.f),
               g_as = nn::Matrix::Zero(s.heads, s.f);
    ops::gat_backward_cpu(s, g.offsets().data(), g.indices().data(), z.data(),
                          layer.att_dst().data(), layer.att_src().data(), s_dst.data(),
                          s_src.data(), alpha.data(), out.data(), dy.data(), g_pre.data(),
                          g_alpha.data(), g_sdst.data(), g_ssrc.data(), g_z.data(),
                          cfg.bias ? g_bias.data() : nullptr, g_ad.data(), g_as.data());
    nn::ParamList params;
    layer.parameters(params, "");
    CHECK((x.transpose() * g_z - *params[0].grad).cwiseAbs().maxCoeff() < 1e-5f);
    CHECK((g_ad - *params[1].grad).cwiseAbs().maxCoeff() < 1e-5f);
    CHECK((g_as - *params[2].grad).cwiseAbs().maxCoeff() < 1e-5f);
    if (cfg.bias) CHECK((g_bias - *params[3].grad).cwiseAbs().maxCoeff() < 1e-5f);
    CHECK((g_z * layer.weight().transpose() - dx).cwiseAbs().maxCoeff() < 1e-5f);
  }
}

TEST_CASE("the kernels' activations equal nn::Activation") {
  const nn::Activation all[] = {nn::Activation::identity(),      nn::Activation::relu(),
                                nn::Activation::leaky_relu(0.3), nn::Activation::elu(),
                                nn::Activation::tanh(),          nn::Activation::shifted_tanh()};
  const nn::Matrix x = nn::Matrix::Random(3, 8) * 3.0f;
  const nn::Matrix dy = nn::Matrix::Random(3, 8);
  for (const auto& a : all) {
    CAPTURE(a.name());
    nn::Matrix y(3, 8), dx(3, 8);
    a.forward(x, y);
    a.backward(y, dy, dx);
    for (nn::Index k = 0; k < x.size(); ++k) {
      const float slope = float(a.slope);
      CHECK(ops::act_forward(a.kind, slope, x.data()[k]) == doctest::Approx(y.data()[k]));
      CHECK(ops::act_backward(a.kind, slope, y.data()[k], dy.data()[k]) ==
            doctest::Approx(dx.data()[k]));
    }
  }
}

TEST_CASE(
    "the kernels' CPU reference of Conv2d (im2col, col2im) equals nn::Conv2d, forward and back") {
  gsearch::Rng rng(41);
  for (const int k : {1, 3, 5}) {
    CAPTURE(k);
    nn::Conv2d conv(3, 4, k, 5, 6, rng);
    conv.bias().setRandom();
    const nn::Matrix x = nn::Matrix::Random(2, 5 * 6 * 3), dy = nn::Matrix::Random(2, 5 * 6 * 4);
    const nn::Matrix y = conv.forward(x);
    const nn::Matrix dx = conv.backward(dy);
    const ops::ConvShape s{.batch = 2, .h = 5, .w = 6, .c = 3, .k = k};
    nn::Matrix cols(2 * 5 * 6, k * k * 3);
    ops::im2col_cpu(s, x.data(), cols.data());
    nn::Matrix ours = cols * conv.weight();
    ours.rowwise() += conv.bias().row(0);
    CHECK((Eigen::Map<const nn::Matrix>(ours.data(), 2, 5 * 6 * 4) - y).cwiseAbs().maxCoeff() <
          1e-5f);
    const nn::Matrix dcols =
        Eigen::Map<const nn::Matrix>(dy.data(), 2 * 5 * 6, 4) * conv.weight().transpose();
    nn::Matrix back(2, 5 * 6 * 3);
    ops::col2im_cpu(s, dcols.data(), back.data());
    CHECK((back - dx).cwiseAbs().maxCoeff() < 1e-5f);
  }
}
