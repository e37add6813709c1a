// gsearch/nn/cuda/backend.cuh — the CUDA backend of gsearch::nn: GAT-AE and its parts on the
// GPU, with forward and backward passes that match the Eigen modules (the reference).
//
//   Context            a stream and a cuBLAS handle (cublas.cuh)
//   DeviceGraph        a CsrGraph (or a GraphBatch's graph) on the device
//   Dense              Linear + activation: y = f(x·W + b)    cuBLAS + bias_act_kernel
//   Conv2d             nn::Conv2d + activation: y = f(im2col(x)·W + b)   im2col, cuBLAS,
//                      bias_act; backward with cuBLAS and col2im
//   AutoEncoder        two Dense layers (relu, tanh by default)
//   GatLayer           eq. 6–8: cuBLAS for Z = X·W, dW, dX; kernels for scores, softmax,
//                      aggregation and their backward passes (kernels.cuh)
//   GatAe              eq. 14 refinement → GAT layers → eq. 15, built from an nn::GatAe
//   PolicyValueMlp     nn::PolicyValueMlp (policy_value.hpp): relu trunk of Dense layers,
//                      a policy head and a tanh value head; forward only
//
// Device modules are built from their CPU counterpart (same weights) and can copy weights
// from it again (copy_weights_from) and their gradients back into it
// (copy_gradients_to), so training may run on either side. Pointers taken and returned are
// device pointers; forward() remembers its input pointer for backward(), so the input must
// stay unchanged until then. Buffers grow to the largest batch seen and never shrink.
//
// Batched inference: put many graphs in one nn::GraphBatch, stack their feature rows in the
// same order, and call GatAe::infer once: one upload, one launch sequence, one download.
// PolicyValueMlp::infer does the same for a batch of positions, one row each.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/nn/autoencoder.hpp"
#include "gsearch/nn/conv.hpp"
#include "gsearch/nn/cuda/buffer.cuh"
#include "gsearch/nn/cuda/check.cuh"
#include "gsearch/nn/cuda/cublas.cuh"
#include "gsearch/nn/cuda/kernels.cuh"
#include "gsearch/nn/gat.hpp"
#include "gsearch/nn/graph.hpp"
#include "gsearch/nn/layers.hpp"
#include "gsearch/nn/policy_value.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn::cuda {

// One learnable tensor on the device, named as on the CPU.
struct DeviceParam {
  std::string name;
  DeviceBuffer<float>* value = nullptr;
  DeviceBuffer<float>* grad = nullptr;
  int rows = 0, cols = 0;
};
using DeviceParamList = std::vector<DeviceParam>;

namespace detail {

inline void upload_matrix(DeviceBuffer<float>& buf, const Matrix& m, cudaStream_t stream) {
  buf.upload(std::span<const float>(m.data(), static_cast<std::size_t>(m.size())), stream);
}

}  // namespace detail

// Copies the values of the CPU parameters `cpu` into `dev` (same names, order and shapes) and
// zeroes the device gradients. Throws std::invalid_argument when the lists do not match.
inline void copy_weights(const Context& ctx, const ParamList& cpu, const DeviceParamList& dev) {
  if (cpu.size() != dev.size())
    throw std::invalid_argument("cuda: the device model has " + std::to_string(dev.size()) +
                                " parameters, the CPU model " + std::to_string(cpu.size()));
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (cpu[i].name != dev[i].name || cpu[i].value->rows() != dev[i].rows ||
        cpu[i].value->cols() != dev[i].cols)
      throw std::invalid_argument("cuda: parameter \"" + cpu[i].name + "\" " +
                                  shape_string(cpu[i].value->rows(), cpu[i].value->cols()) +
                                  " does not match the device's \"" + dev[i].name + "\" " +
                                  shape_string(dev[i].rows, dev[i].cols));
    detail::upload_matrix(*dev[i].value, *cpu[i].value, ctx.stream());
    dev[i].grad->zero(static_cast<std::size_t>(dev[i].rows) * dev[i].cols, ctx.stream());
  }
  ctx.synchronize();  // the host matrices may change once this returns
}

// Overwrites the gradients of the CPU parameters `cpu` with those of `dev` (same order).
inline void copy_gradients(const Context& ctx, const DeviceParamList& dev, const ParamList& cpu) {
  for (std::size_t i = 0; i < cpu.size() && i < dev.size(); ++i)
    dev[i].grad->download(
        std::span<float>(cpu[i].grad->data(), static_cast<std::size_t>(cpu[i].grad->size())),
        ctx.stream());
}

namespace detail {

// r (n) = a·p + b·q, element by element; r may be p or q.
template <int Unused = 0>
__global__ void axpby_kernel(float* r, float a, const float* p, float b, const float* q,
                             long long n) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t < n) r[t] = a * p[t] + b * q[t];
}

inline void axpby(float* r, float a, const float* p, float b, const float* q, long long n,
                  cudaStream_t stream) {
  if (n == 0) return;
  axpby_kernel<><<<kernels::blocks_for(n), kernels::kBlock, 0, stream>>>(r, a, p, b, q, n);
  GSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace detail

// A CsrGraph on the device.
class DeviceGraph {
 public:
  // Copies `g` to the device, growing the buffers when needed.
  void upload(const CsrGraph& g, const Context& ctx) {
    offsets_.upload(std::span<const std::int32_t>(g.offsets()), ctx.stream());
    indices_.upload(std::span<const std::int32_t>(g.indices()), ctx.stream());
    n_ = g.num_nodes();
    e_ = g.num_edges();
  }
  [[nodiscard]] const int* offsets() const noexcept { return offsets_.data(); }
  [[nodiscard]] const int* indices() const noexcept { return indices_.data(); }
  [[nodiscard]] int num_nodes() const noexcept { return n_; }
  [[nodiscard]] int num_edges() const noexcept { return e_; }

 private:
  DeviceBuffer<std::int32_t> offsets_, indices_;
  int n_ = 0, e_ = 0;
};

// y = f(x·W + b): an nn::Linear followed by an activation.
class Dense {
 public:
  Dense() = default;
  Dense(const Linear& cpu, const Activation& act) : act_(act) {
    in_ = static_cast<int>(cpu.in());
    out_ = static_cast<int>(cpu.out());
    bias_ = cpu.has_bias();
  }
  Dense(int in, int out, bool bias, const Activation& act)
      : act_(act), in_(in), out_(out), bias_(bias) {}

  [[nodiscard]] int in() const noexcept { return in_; }
  [[nodiscard]] int out() const noexcept { return out_; }

  // x (rows, in) → y (rows, out), device pointers.
  const float* forward(const Context& ctx, const float* x, int rows) {
    x_ = x;
    rows_ = rows;
    float* y = y_.reserve(static_cast<std::size_t>(rows) * out_);
    gemm(ctx, false, false, rows, out_, in_, 1.0f, x, in_, w_.data(), out_, 0.0f, y, out_);
    bias_act(y, bias_ ? b_.data() : nullptr, rows, out_, act_, ctx.stream());
    return y;
  }

  // dL/dy (rows, out) → dL/dx (rows, in); accumulates dW and db.
  const float* backward(const Context& ctx, const float* dy) {
    const auto n = static_cast<std::size_t>(rows_);
    float* g = g_.reserve(n * out_);
    act_backward(y_.data(), dy, g, static_cast<long long>(n) * out_, act_, ctx.stream());
    if (bias_) column_sum(g, rows_, out_, db_.data(), ctx.stream());
    gemm(ctx, true, false, in_, out_, rows_, 1.0f, x_, in_, g, out_, 1.0f, dw_.data(), out_);
    float* dx = dx_.reserve(n * in_);
    gemm(ctx, false, true, rows_, in_, out_, 1.0f, g, out_, w_.data(), out_, 0.0f, dx, in_);
    return dx;
  }

  // "<prefix>W" (, "<prefix>b"), as nn::Linear names them.
  void parameters(DeviceParamList& out, const std::string& prefix) {
    out.push_back({prefix + "W", &w_, &dw_, in_, out_});
    if (bias_) out.push_back({prefix + "b", &b_, &db_, 1, out_});
  }

 private:
  Activation act_;
  int in_ = 0, out_ = 0, rows_ = 0;
  bool bias_ = false;
  const float* x_ = nullptr;
  DeviceBuffer<float> w_, b_, dw_, db_, y_, g_, dx_;  // y, g (rows, out), dx (rows, in)
};

// y = f(conv(x)): an nn::Conv2d followed by an activation, channels last (conv.hpp).
class Conv2d {
 public:
  Conv2d() = default;
  Conv2d(const nn::Conv2d& cpu, const Activation& act, int height, int width) : act_(act) {
    shape_ = {.batch = 0,
              .h = height,
              .w = width,
              .c = static_cast<int>(cpu.in_channels()),
              .k = static_cast<int>(cpu.kernel())};
    out_ = static_cast<int>(cpu.out_channels());
    bias_ = cpu.has_bias();
    if (cpu.cells() != static_cast<Index>(height) * width)
      throw std::invalid_argument("cuda conv2d: the layer is for " + std::to_string(cpu.cells()) +
                                  " cells, not " + shape_string(height, width));
  }

  // x (batch, H·W·C_in) → y (batch, H·W·C_out), device pointers.
  const float* forward(const Context& ctx, const float* x, int batch) {
    shape_.batch = batch;
    const int rows = batch * shape_.h * shape_.w, taps = shape_.k * shape_.k * shape_.c;
    float* cols = cols_.reserve(static_cast<std::size_t>(shape_.cols_size()));
    im2col(shape_, x, cols, ctx.stream());
    float* y = y_.reserve(static_cast<std::size_t>(rows) * out_);
    gemm(ctx, false, false, rows, out_, taps, 1.0f, cols, taps, w_.data(), out_, 0.0f, y, out_);
    bias_act(y, bias_ ? b_.data() : nullptr, rows, out_, act_, ctx.stream());
    return y;
  }

  // dL/dy (batch, H·W·C_out) → dL/dx (batch, H·W·C_in); accumulates dW and db.
  const float* backward(const Context& ctx, const float* dy) {
    const int rows = shape_.batch * shape_.h * shape_.w, taps = shape_.k * shape_.k * shape_.c;
    float* g = g_.reserve(static_cast<std::size_t>(rows) * out_);
    act_backward(y_.data(), dy, g, static_cast<long long>(rows) * out_, act_, ctx.stream());
    if (bias_) column_sum(g, rows, out_, db_.data(), ctx.stream());
    gemm(ctx, true, false, taps, out_, rows, 1.0f, cols_.data(), taps, g, out_, 1.0f, dw_.data(),
         out_);
    float* dcols = dcols_.reserve(static_cast<std::size_t>(shape_.cols_size()));
    gemm(ctx, false, true, rows, taps, out_, 1.0f, g, out_, w_.data(), out_, 0.0f, dcols, taps);
    float* dx = dx_.reserve(static_cast<std::size_t>(shape_.x_size()));
    col2im(shape_, dcols, dx, ctx.stream());
    return dx;
  }

  // "<prefix>W" (, "<prefix>b"), as nn::Conv2d names them.
  void parameters(DeviceParamList& out, const std::string& prefix) {
    out.push_back({prefix + "W", &w_, &dw_, shape_.k * shape_.k * shape_.c, out_});
    if (bias_) out.push_back({prefix + "b", &b_, &db_, 1, out_});
  }

 private:
  Activation act_;
  ops::ConvShape shape_;
  int out_ = 0;
  bool bias_ = false;
  DeviceBuffer<float> w_, b_, dw_, db_, cols_, y_, g_, dcols_, dx_;
};

// The autoencoder n → p → n of nn::AutoEncoder.
class AutoEncoder {
 public:
  AutoEncoder() = default;
  explicit AutoEncoder(BasicAutoEncoder<float>& cpu)
      : enc_(cpu.encoder(), cpu.config().encoder), dec_(cpu.decoder(), cpu.config().decoder) {}

  const float* forward(const Context& ctx, const float* x, int rows) {
    return dec_.forward(ctx, enc_.forward(ctx, x, rows), rows);
  }
  const float* backward(const Context& ctx, const float* dy) {
    return enc_.backward(ctx, dec_.backward(ctx, dy));
  }
  void parameters(DeviceParamList& out, const std::string& prefix) {
    enc_.parameters(out, prefix + "enc.");
    dec_.parameters(out, prefix + "dec.");
  }

 private:
  Dense enc_, dec_;
};

// The GAT layer of nn::GatLayer.
class GatLayer {
 public:
  GatLayer() = default;
  explicit GatLayer(const nn::GatLayer& cpu) : cfg_(cpu.config()) {}

  [[nodiscard]] const GatLayerConfig& config() const noexcept { return cfg_; }

  // x (N, in) on `graph` → h' (N, width), device pointers.
  const float* forward(const Context& ctx, const float* x, const DeviceGraph& graph) {
    x_ = x;
    graph_ = &graph;
    const auto s = shape(graph.num_nodes());
    const auto n = static_cast<std::size_t>(s.n), hf = static_cast<std::size_t>(s.heads * s.f);
    const auto edges = static_cast<std::size_t>(graph.num_edges()) + n;
    float* z = z_.reserve(n * hf);
    gemm(ctx, false, false, s.n, int(hf), int(cfg_.in), 1.0f, x, int(cfg_.in), w_.data(), int(hf),
         0.0f, z, int(hf));
    gat_forward(s, graph.offsets(), graph.indices(), z, att_dst_.data(), att_src_.data(),
                cfg_.bias ? bias_.data() : nullptr, s_dst_.reserve(n * s.heads),
                s_src_.reserve(n * s.heads), alpha_.reserve(edges * s.heads),
                out_.reserve(n * s.width()), ctx.stream());
    return out_.data();
  }

  // dL/dh' (N, width) → dL/dx (N, in); accumulates every gradient.
  const float* backward(const Context& ctx, const float* dy) {
    const auto s = shape(graph_->num_nodes());
    const auto n = static_cast<std::size_t>(s.n);
    const int hf = s.heads * s.f, in = int(cfg_.in);
    const auto edges = static_cast<std::size_t>(graph_->num_edges()) + n;
    float* g_z = g_z_.reserve(n * hf);
    gat_backward(s, graph_->offsets(), graph_->indices(), z_.data(), att_dst_.data(),
                 att_src_.data(), s_dst_.data(), s_src_.data(), alpha_.data(), out_.data(), dy,
                 g_pre_.reserve(n * s.width()), g_alpha_.reserve(edges * s.heads),
                 g_sdst_.reserve(n * s.heads), g_ssrc_.reserve(n * s.heads), g_z,
                 cfg_.bias ? dbias_.data() : nullptr, datt_dst_.data(), datt_src_.data(),
                 ctx.stream());
    gemm(ctx, true, false, in, hf, s.n, 1.0f, x_, in, g_z, hf, 1.0f, dw_.data(), hf);
    float* dx = dx_.reserve(n * in);
    gemm(ctx, false, true, s.n, in, hf, 1.0f, g_z, hf, w_.data(), hf, 0.0f, dx, in);
    return dx;
  }

  // Names and shapes as nn::GatLayer::parameters().
  void parameters(DeviceParamList& out, const std::string& prefix) {
    const int h = int(cfg_.heads), f = int(cfg_.out);
    out.push_back({prefix + "W", &w_, &dw_, int(cfg_.in), h * f});
    out.push_back({prefix + "att_dst", &att_dst_, &datt_dst_, h, f});
    out.push_back({prefix + "att_src", &att_src_, &datt_src_, h, f});
    if (cfg_.bias) out.push_back({prefix + "bias", &bias_, &dbias_, 1, int(cfg_.width())});
  }

 private:
  [[nodiscard]] ops::GatShape shape(int n) const {
    return {.n = n,
            .heads = int(cfg_.heads),
            .f = int(cfg_.out),
            .concat = cfg_.concat,
            .slope = float(cfg_.negative_slope),
            .act = cfg_.activation.kind,
            .act_slope = float(cfg_.activation.slope)};
  }

  GatLayerConfig cfg_;
  const float* x_ = nullptr;
  const DeviceGraph* graph_ = nullptr;
  DeviceBuffer<float> w_, att_dst_, att_src_, bias_, dw_, datt_dst_, datt_src_, dbias_;
  // z (N, H·F), s_dst/s_src (N, H), alpha (E', H), out (N, W), and their gradients.
  DeviceBuffer<float> z_, s_dst_, s_src_, alpha_, out_;
  DeviceBuffer<float> g_pre_, g_alpha_, g_sdst_, g_ssrc_, g_z_, dx_;
};

// nn::GatAe on the GPU.
class GatAe {
 public:
  // The architecture and the weights of `cpu`. Throws Error when CUDA fails.
  GatAe(const Context& ctx, nn::GatAe& cpu) : cfg_(cpu.config()) {
    if (cfg_.refinement != Refinement::kNone) {
      ae1_ = AutoEncoder(cpu.ae1());
      ae2_ = AutoEncoder(cpu.ae2());
    }
    if (cfg_.refinement == Refinement::kScores) {
      w1_ = Dense(cpu.w1(), Activation::identity());
      w2_ = Dense(cpu.w2(), Activation::identity());
    }
    for (const auto& layer : cpu.layers()) layers_.emplace_back(layer);
    copy_weights_from(ctx, cpu);
  }

  // Loads the current weights of `cpu` (same configuration) and zeroes the gradients.
  void copy_weights_from(const Context& ctx, nn::GatAe& cpu) {
    copy_weights(ctx, cpu.parameters(), parameters());
  }
  // Writes the accumulated device gradients into `cpu`'s gradients (overwriting them).
  void copy_gradients_to(const Context& ctx, nn::GatAe& cpu) {
    copy_gradients(ctx, parameters(), cpu.parameters());
  }
  // Sets every device gradient to zero.
  void zero_grad(const Context& ctx) {
    for (const auto& p : parameters())
      p.grad->zero(static_cast<std::size_t>(p.rows) * p.cols, ctx.stream());
  }

  // Node features x (N, features) on the device, `graph` on the device → scores (N, 1) on the
  // device, in [0, 1]. Asynchronous on ctx's stream.
  const float* forward(const Context& ctx, const float* x, const DeviceGraph& graph) {
    const int n = graph.num_nodes(), feat = int(cfg_.autoencoder.inputs);
    const auto a = float(cfg_.alpha);
    n_ = n;
    const float* h = x;
    if (cfg_.refinement == Refinement::kFeatures) {
      float* r = refined_.reserve(static_cast<std::size_t>(n) * feat);
      const float* r1 = ae1_.forward(ctx, x, n);
      const float* r2 = ae2_.forward(ctx, x, n);
      detail::axpby(r, a, r1, 1.0f - a, r2, static_cast<long long>(n) * feat, ctx.stream());
      h = r;
    } else if (cfg_.refinement == Refinement::kScores) {
      float* r = refined_.reserve(static_cast<std::size_t>(n));
      const float* r1 = w1_.forward(ctx, ae1_.forward(ctx, x, n), n);
      const float* r2 = w2_.forward(ctx, ae2_.forward(ctx, x, n), n);
      detail::axpby(r, a, r1, 1.0f - a, r2, n, ctx.stream());
      h = r;
    }
    for (auto& layer : layers_) h = layer.forward(ctx, h, graph);
    float* y = y_.reserve(static_cast<std::size_t>(n));
    if (n > 0)
      GSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(y, h, sizeof(float) * n, cudaMemcpyDeviceToDevice, ctx.stream()));
    bias_act(y, nullptr, n, 1, Activation::shifted_tanh(), ctx.stream());
    return y;
  }

  // dL/dscores (N, 1) on the device → dL/dx (N, features) on the device (zero when the
  // refinement is frozen); accumulates every gradient.
  const float* backward(const Context& ctx, const float* dy) {
    const int n = n_, feat = int(cfg_.autoencoder.inputs);
    const auto a = float(cfg_.alpha);
    float* g = g_.reserve(static_cast<std::size_t>(n));
    act_backward(y_.data(), dy, g, n, Activation::shifted_tanh(), ctx.stream());
    const float* gh = g;
    for (auto l = layers_.rbegin(); l != layers_.rend(); ++l) gh = l->backward(ctx, gh);
    const auto nf = static_cast<long long>(n) * feat;
    float* dx = dx_.reserve(static_cast<std::size_t>(nf));
    if (cfg_.refinement == Refinement::kNone) {
      GSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(dx, gh, sizeof(float) * nf, cudaMemcpyDeviceToDevice, ctx.stream()));
      return dx;
    }
    if (!cfg_.train_refinement) {
      dx_.zero(static_cast<std::size_t>(nf), ctx.stream());
      return dx;
    }
    const long long width = cfg_.refinement == Refinement::kScores ? n : nf;
    float* gr = g_refined_.reserve(static_cast<std::size_t>(width));
    detail::axpby(gr, a, gh, 0.0f, gh, width, ctx.stream());
    const float* d1 = cfg_.refinement == Refinement::kScores
                          ? ae1_.backward(ctx, w1_.backward(ctx, gr))
                          : ae1_.backward(ctx, gr);
    detail::axpby(dx, 1.0f, d1, 0.0f, d1, nf, ctx.stream());
    detail::axpby(gr, 1.0f - a, gh, 0.0f, gh, width, ctx.stream());
    const float* d2 = cfg_.refinement == Refinement::kScores
                          ? ae2_.backward(ctx, w2_.backward(ctx, gr))
                          : ae2_.backward(ctx, gr);
    detail::axpby(dx, 1.0f, dx, 1.0f, d2, nf, ctx.stream());
    return dx;
  }

  // Scores of every node of `graph` (one graph, or a GraphBatch's graph) for host features x
  // (N, features): uploads x and the graph, runs forward(), and downloads. The result is
  // valid until the next call.
  const Matrix& infer(const Context& ctx, const ConstRef<float>& x, const CsrGraph& graph) {
    nn::detail::check_shape("cuda gat_ae", "input", x.rows(), x.cols(), graph.num_nodes(),
                            cfg_.autoencoder.inputs);
    staging_ = x;  // contiguous rows for the copy
    graph_.upload(graph, ctx);
    const float* dx = x_dev_.upload(
        std::span<const float>(staging_.data(), static_cast<std::size_t>(staging_.size())),
        ctx.stream());
    forward(ctx, dx, graph_);
    scores_.resize(x.rows(), 1);
    y_.download(std::span<float>(scores_.data(), static_cast<std::size_t>(scores_.size())),
                ctx.stream());
    return scores_;
  }

  // Names, shapes and order as nn::GatAe::parameters().
  DeviceParamList parameters() {
    DeviceParamList out;
    if (cfg_.refinement != Refinement::kNone) {
      ae1_.parameters(out, "ae1.");
      ae2_.parameters(out, "ae2.");
    }
    if (cfg_.refinement == Refinement::kScores) {
      w1_.parameters(out, "w1.");
      w2_.parameters(out, "w2.");
    }
    for (std::size_t l = 0; l < layers_.size(); ++l)
      layers_[l].parameters(out, "gat." + std::to_string(l) + ".");
    return out;
  }

 private:
  GatAeConfig cfg_;
  AutoEncoder ae1_, ae2_;
  Dense w1_, w2_;
  std::vector<GatLayer> layers_;
  int n_ = 0;
  DeviceBuffer<float> refined_, y_, g_, g_refined_, dx_, x_dev_;
  DeviceGraph graph_;
  Matrix staging_, scores_;
};

// nn::PolicyValueMlp on the GPU, forward only: a batch of positions (one row of inputs each)
// in one upload, one cuBLAS product and one bias-and-activation launch per layer, and one
// download of the logits and one of the values.
class PolicyValueMlp {
 public:
  // The two heads' outputs for the last batch, on the host: valid until the next infer().
  struct Output {
    const Matrix& logits;  // (B, actions)
    const Matrix& values;  // (B, 1), in [-1, 1]
  };

  // The architecture and the weights of `cpu`, read from its parameter list ("trunk.<l>.W",
  // "trunk.<l>.b", ..., "policy.W", "policy.b", "value.W", "value.b"). Throws Error when
  // CUDA fails.
  PolicyValueMlp(const Context& ctx, nn::PolicyValueMlp& cpu) {
    ParamList params;
    cpu.parameters(params);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const std::string& name = params[i].name;
      const std::string prefix = name.substr(0, name.size() - 1);  // "trunk.0.", "policy."
      const bool bias = i + 1 < params.size() && params[i + 1].name == prefix + "b";
      Dense dense(static_cast<int>(params[i].value->rows()),
                  static_cast<int>(params[i].value->cols()), bias,
                  prefix == "policy."  ? Activation::identity()
                  : prefix == "value." ? Activation::tanh()
                                       : Activation::relu());
      if (prefix == "policy.")
        policy_ = std::move(dense);
      else if (prefix == "value.")
        value_ = std::move(dense);
      else
        trunk_.push_back(std::move(dense));
      if (bias) ++i;
    }
    copy_weights(ctx, params, parameters());
  }

  [[nodiscard]] int inputs() const noexcept { return trunk_.front().in(); }
  [[nodiscard]] int actions() const noexcept { return policy_.out(); }

  // Inputs x (rows, inputs) on the device → logits (rows, actions) and values (rows, 1) on
  // the device. Asynchronous on ctx's stream.
  std::pair<const float*, const float*> forward(const Context& ctx, const float* x, int rows) {
    const float* h = x;
    for (auto& layer : trunk_) h = layer.forward(ctx, h, rows);
    return {policy_.forward(ctx, h, rows), value_.forward(ctx, h, rows)};
  }

  // Both heads for host inputs x (B, inputs): uploads x, runs forward(), downloads.
  Output infer(const Context& ctx, const ConstRef<float>& x) {
    nn::detail::check_shape("cuda policy-value network", "input", x.rows(), x.cols(), -1, inputs());
    staging_ = x;  // contiguous rows for the copy
    const float* dx = x_dev_.upload(
        std::span<const float>(staging_.data(), static_cast<std::size_t>(staging_.size())),
        ctx.stream());
    const auto rows = static_cast<int>(x.rows());
    const auto [logits, values] = forward(ctx, dx, rows);
    logits_.resize(rows, actions());
    values_.resize(rows, 1);
    download(ctx, logits, logits_);
    download(ctx, values, values_);
    return {logits_, values_};
  }

  // Names, shapes and order as nn::PolicyValueMlp::parameters().
  DeviceParamList parameters() {
    DeviceParamList out;
    for (std::size_t l = 0; l < trunk_.size(); ++l)
      trunk_[l].parameters(out, "trunk." + std::to_string(l) + ".");
    policy_.parameters(out, "policy.");
    value_.parameters(out, "value.");
    return out;
  }

 private:
  static void download(const Context& ctx, const float* from, Matrix& to) {
    if (to.size() == 0) return;
    GSEARCH_CUDA_CHECK(cudaMemcpyAsync(to.data(), from, sizeof(float) * to.size(),
                                       cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
  }

  std::vector<Dense> trunk_;
  Dense policy_, value_;
  DeviceBuffer<float> x_dev_;
  Matrix staging_, logits_, values_;
};

}  // namespace gsearch::nn::cuda
