// The CUDA backend (nn/cuda/kernels.cuh, backend.cuh) against the CPU: each kernel sequence
// against its CPU reference in ops.hpp, each device module against its Eigen module, forward
// and backward, with a tolerance per comparison (ggml's test-backend-ops habit):
//   forward values                    max |gpu − cpu| ≤ 1e-5 · max(1, max |cpu|)
//   gradients (atomic scatter-adds)   max |gpu − cpu| ≤ 1e-4 · max(1, max |cpu|)
// Sums on the GPU run in another order than on the CPU (and atomics in no fixed order), so
// results agree to float rounding, not bit for bit.
//
// Without a CUDA device the program prints one line and exits with 77, which ctest reports as
// skipped (SKIP_RETURN_CODE).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "gsearch/nn/cuda/backend.cuh"
#include "gsearch/nn/gat.hpp"
#include "gsearch/nn/policy_value.hpp"

namespace nn = gsearch::nn;
namespace cu = gsearch::nn::cuda;

namespace {

constexpr double kForwardTol = 1e-5;
constexpr double kGradTol = 1e-4;

// max |a − b| / max(1, max |b|).
double rel_error(const nn::Matrix& a, const nn::Matrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  if (a.size() == 0) return 0.0;
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0f, b.cwiseAbs().maxCoeff());
}

nn::Matrix download(const cu::Context& ctx, const float* p, nn::Index rows, nn::Index cols) {
  nn::Matrix m(rows, cols);
  if (m.size() > 0) {
    GSEARCH_CUDA_CHECK(cudaMemcpyAsync(m.data(), p, sizeof(float) * m.size(),
                                       cudaMemcpyDeviceToHost, ctx.stream()));
  }
  ctx.synchronize();
  return m;
}

struct DeviceMatrix {
  cu::DeviceBuffer<float> buf;
  DeviceMatrix(const cu::Context& ctx, const nn::Matrix& m) {
    buf.upload(std::span<const float>(m.data(), std::size_t(m.size())), ctx.stream());
    ctx.synchronize();
  }
  const float* get() const { return buf.data(); }
};

}  // namespace

TEST_CASE("GAT kernels equal their CPU reference (ops.hpp), forward and backward") {
  cu::Context ctx;
  gsearch::Rng rng(1);
  const auto g = nn::CsrGraph::random_tree(300, rng);
  cu::DeviceGraph dg;
  dg.upload(g, ctx);
  const int n = g.num_nodes(), edges = g.num_edges() + n;
  for (const bool concat : {true, false}) {
    CAPTURE(concat);
    const cu::ops::GatShape s{
        .n = n, .heads = 4, .f = 8, .concat = concat, .act = nn::ActivationKind::kElu};
    const int hf = s.heads * s.f, w = s.width();
    const nn::Matrix z = nn::Matrix::Random(n, hf), ad = nn::Matrix::Random(s.heads, s.f),
                     as = nn::Matrix::Random(s.heads, s.f), bias = nn::Matrix::Random(1, w),
                     dy = nn::Matrix::Random(n, w);
    nn::Matrix s_dst(n, s.heads), s_src(n, s.heads), alpha(edges, s.heads), out(n, w);
    cu::ops::gat_forward_cpu(s, g.offsets().data(), g.indices().data(), z.data(), ad.data(),
                             as.data(), bias.data(), s_dst.data(), s_src.data(), alpha.data(),
                             out.data());
    nn::Matrix g_pre(n, w), g_alpha(edges, s.heads), g_sdst(n, s.heads), g_ssrc(n, s.heads),
        g_z(n, hf), g_bias = nn::Matrix::Zero(1, w), g_ad = nn::Matrix::Zero(s.heads, s.f),
                    g_as = nn::Matrix::Zero(s.heads, s.f);
    cu::ops::gat_backward_cpu(s, g.offsets().data(), g.indices().data(), z.data(), ad.data(),
                              as.data(), s_dst.data(), s_src.data(), alpha.data(), out.data(),
                              dy.data(), g_pre.data(), g_alpha.data(), g_sdst.data(), g_ssrc.data(),
                              g_z.data(), g_bias.data(), g_ad.data(), g_as.data());

    const DeviceMatrix dz(ctx, z), dad(ctx, ad), das(ctx, as), dbias(ctx, bias), ddy(ctx, dy);
    cu::DeviceBuffer<float> d_sdst(n * s.heads), d_ssrc(n * s.heads), d_alpha(edges * s.heads),
        d_out(n * w), d_gpre(n * w), d_galpha(edges * s.heads), d_gsdst(n * s.heads),
        d_gssrc(n * s.heads), d_gz(n * hf);
    const nn::Matrix zeros_w = nn::Matrix::Zero(1, w), zeros_a = nn::Matrix::Zero(s.heads, s.f);
    DeviceMatrix d_gbias(ctx, zeros_w), d_gad(ctx, zeros_a), d_gas(ctx, zeros_a);
    cu::gat_forward(s, dg.offsets(), dg.indices(), dz.get(), dad.get(), das.get(), dbias.get(),
                    d_sdst.data(), d_ssrc.data(), d_alpha.data(), d_out.data(), ctx.stream());
    CHECK(rel_error(download(ctx, d_sdst.data(), n, s.heads), s_dst) < kForwardTol);
    CHECK(rel_error(download(ctx, d_alpha.data(), edges, s.heads), alpha) < kForwardTol);
    CHECK(rel_error(download(ctx, d_out.data(), n, w), out) < kForwardTol);
    cu::gat_backward(s, dg.offsets(), dg.indices(), dz.get(), dad.get(), das.get(), d_sdst.data(),
                     d_ssrc.data(), d_alpha.data(), d_out.data(), ddy.get(), d_gpre.data(),
                     d_galpha.data(), d_gsdst.data(), d_gssrc.data(), d_gz.data(),
                     d_gbias.buf.data(), d_gad.buf.data(), d_gas.buf.data(), ctx.stream());
    CHECK(rel_error(download(ctx, d_galpha.data(), edges, s.heads), g_alpha) < kGradTol);
    CHECK(rel_error(download(ctx, d_gssrc.data(), n, s.heads), g_ssrc) < kGradTol);
    CHECK(rel_error(download(ctx, d_gz.data(), n, hf), g_z) < kGradTol);
    CHECK(rel_error(download(ctx, d_gbias.get(), 1, w), g_bias) < kGradTol);
    CHECK(rel_error(download(ctx, d_gad.get(), s.heads, s.f), g_ad) < kGradTol);
    CHECK(rel_error(download(ctx, d_gas.get(), s.heads, s.f), g_as) < kGradTol);
  }
}

TEST_CASE("Dense (cuBLAS + activation) equals nn::Linear + Activation, forward and backward") {
  cu::Context ctx;
  gsearch::Rng rng(2);
  for (const auto act : {nn::Activation::relu(), nn::Activation::tanh()}) {
    CAPTURE(act.name());
    nn::Linear lin(5, 3, rng);
    lin.bias().setRandom();
    cu::Dense dense(lin, act);
    cu::DeviceParamList dp;
    dense.parameters(dp, "");
    nn::ParamList cp;
    lin.parameters(cp, "");
    cu::copy_weights(ctx, cp, dp);
    const nn::Matrix x = nn::Matrix::Random(37, 5), dy = nn::Matrix::Random(37, 3);
    nn::Matrix y(37, 3), g(37, 3);
    act.forward(lin.forward(x), y);
    act.backward(y, dy, g);
    const nn::Matrix dx = lin.backward(g);
    const DeviceMatrix dxm(ctx, x), ddy(ctx, dy);
    CHECK(rel_error(download(ctx, dense.forward(ctx, dxm.get(), 37), 37, 3), y) < kForwardTol);
    CHECK(rel_error(download(ctx, dense.backward(ctx, ddy.get()), 37, 5), dx) < kGradTol);
    const nn::Matrix dw = lin.weight_grad(), db = lin.bias_grad();
    cu::copy_gradients(ctx, dp, cp);
    CHECK(rel_error(lin.weight_grad(), dw) < kGradTol);
    CHECK(rel_error(lin.bias_grad(), db) < kGradTol);
  }
}

TEST_CASE("Conv2d (im2col, cuBLAS, col2im) equals nn::Conv2d + Activation, forward and backward") {
  cu::Context ctx;
  gsearch::Rng rng(4);
  for (const int k : {1, 3}) {
    CAPTURE(k);
    nn::Conv2d conv(4, 8, k, 6, 7, rng);
    conv.bias().setRandom();
    const auto act = nn::Activation::relu();
    cu::Conv2d dev(conv, act, 6, 7);
    cu::DeviceParamList dp;
    dev.parameters(dp, "");
    nn::ParamList cp;
    conv.parameters(cp, "");
    cu::copy_weights(ctx, cp, dp);
    const nn::Matrix x = nn::Matrix::Random(5, 6 * 7 * 4), dy = nn::Matrix::Random(5, 6 * 7 * 8);
    nn::Matrix y(5, 6 * 7 * 8), g(5, 6 * 7 * 8);
    act.forward(conv.forward(x), y);
    act.backward(y, dy, g);
    const nn::Matrix dx = conv.backward(g);
    const DeviceMatrix dxm(ctx, x), ddy(ctx, dy);
    CHECK(rel_error(download(ctx, dev.forward(ctx, dxm.get(), 5), 5, 6 * 7 * 8), y) < kForwardTol);
    CHECK(rel_error(download(ctx, dev.backward(ctx, ddy.get()), 5, 6 * 7 * 4), dx) < kGradTol);
    const nn::Matrix dw = conv.weight_grad(), db = conv.bias_grad();
    cu::copy_gradients(ctx, dp, cp);
    CHECK(rel_error(conv.weight_grad(), dw) < kGradTol);
    CHECK(rel_error(conv.bias_grad(), db) < kGradTol);
  }
}

TEST_CASE("GatAe on the GPU equals nn::GatAe, forward and backward, for each refinement") {
  cu::Context ctx;
  gsearch::Rng rng(3);
  const auto g = nn::CsrGraph::random_tree(64, rng);
  cu::DeviceGraph dg;
  dg.upload(g, ctx);
  for (const auto refinement :
       {nn::Refinement::kFeatures, nn::Refinement::kScores, nn::Refinement::kNone}) {
    CAPTURE(static_cast<int>(refinement));
    nn::GatAeConfig cfg{.alpha = 0.3, .refinement = refinement};
    if (refinement == nn::Refinement::kScores) cfg.layers[0].in = 1;
    nn::GatAe cpu(cfg, rng);
    for (auto& l : cpu.layers()) l.bias().setRandom();
    cu::GatAe gpu(ctx, cpu);
    const nn::Matrix x = nn::Matrix::Random(64, 5), dy = nn::Matrix::Random(64, 1);
    cpu.zero_grad();
    const nn::Matrix y = cpu.forward(x, g);
    const nn::Matrix dx = cpu.backward(dy);
    std::vector<nn::Matrix> grads;
    for (const auto& p : cpu.parameters()) grads.push_back(*p.grad);

    const DeviceMatrix dxm(ctx, x), ddy(ctx, dy);
    CHECK(rel_error(download(ctx, gpu.forward(ctx, dxm.get(), dg), 64, 1), y) < kForwardTol);
    CHECK(rel_error(download(ctx, gpu.backward(ctx, ddy.get()), 64, 5), dx) < kGradTol);
    gpu.copy_gradients_to(ctx, cpu);
    const auto params = cpu.parameters();
    for (std::size_t i = 0; i < params.size(); ++i) {
      CAPTURE(params[i].name);
      CHECK(rel_error(*params[i].grad, grads[i]) < kGradTol);
    }
  }
}

TEST_CASE("batched inference: one launch sequence over many graphs equals the CPU per graph") {
  cu::Context ctx;
  gsearch::Rng rng(4);
  nn::GatAe cpu({}, rng);
  cu::GatAe gpu(ctx, cpu);
  std::vector<nn::CsrGraph> graphs;
  for (int k = 0; k < 50; ++k)
    graphs.push_back(nn::CsrGraph::random_tree(1 + std::int32_t(rng.below(80)), rng));
  const nn::GraphBatch batch(graphs);
  const nn::Matrix x = nn::Matrix::Random(batch.graph().num_nodes(), 5);
  const nn::Matrix scores = gpu.infer(ctx, x, batch.graph());
  for (std::int32_t k = 0; k < batch.size(); ++k) {
    const auto [first, count] = batch.nodes_of(k);
    const nn::Matrix want = cpu.forward(x.middleRows(first, count), graphs[std::size_t(k)]);
    CHECK(rel_error(scores.middleRows(first, count), want) < kForwardTol);
  }
  // A smaller batch reuses the device buffers: the same answers for its first graph.
  const nn::Matrix again = gpu.infer(ctx, x.topRows(graphs[0].num_nodes()), graphs[0]);
  CHECK(rel_error(again, scores.topRows(graphs[0].num_nodes())) < kForwardTol);
}

TEST_CASE("PolicyValueMlp on the GPU equals nn::PolicyValueMlp, batch by batch") {
  cu::Context ctx;
  gsearch::Rng rng(6);
  nn::PolicyValueMlp cpu(640, 96, 128, rng, 3);
  cu::PolicyValueMlp gpu(ctx, cpu);
  CHECK(gpu.inputs() == 640);
  CHECK(gpu.actions() == 128);
  // Growing and shrinking batches: the device buffers are reused.
  for (const nn::Index rows : {1, 7, 300, 5}) {
    CAPTURE(rows);
    const nn::Matrix x = nn::Matrix::Random(rows, 640);
    const auto want = cpu.forward(x);
    const nn::Matrix want_logits = want.logits, want_values = want.values;
    const auto got = gpu.infer(ctx, x);
    CHECK(rel_error(got.logits, want_logits) < kForwardTol);
    CHECK(rel_error(got.values, want_values) < kForwardTol);
    CHECK(got.values.cwiseAbs().maxCoeff() <= 1.0f);
  }
  CHECK_THROWS_WITH_AS(gpu.infer(ctx, nn::Matrix::Zero(2, 639)),
                       "cuda policy-value network: input has shape 2x639, expected Nx640",
                       std::invalid_argument);
}

TEST_CASE("device buffers grow and never shrink; CUDA failures become exceptions") {
  cu::DeviceBuffer<float> b;
  float* p = b.reserve(1000);
  CHECK(b.capacity() == 1000);
  CHECK(b.reserve(10) == p);
  CHECK(b.capacity() == 1000);
  try {
    b.reserve(std::size_t{1} << 50);  // 4 PiB
    FAIL("no exception");
  } catch (const cu::Error& e) {
    MESSAGE(e.what());
    CHECK(std::string(e.what()).find("cudaMalloc") != std::string::npos);
  }
}

int main(int argc, char** argv) {
  if (cu::device_count() == 0) {
    std::printf("nn_cuda_tests: no CUDA device found; the GPU parity tests are skipped\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
