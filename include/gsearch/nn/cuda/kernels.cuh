// gsearch/nn/cuda/kernels.cuh — the CUDA kernels of the neural modules, and their launchers.
//
// Each kernel runs one function of ops.hpp per thread; ops.hpp also holds the CPU reference
// that runs the same functions in loops. Launchers take a stream and check the launch. Shapes
// as in ops.hpp: z (N, H·F), s_dst/s_src (N, H), alpha (E', H), out (N, W).
//
//   kernel                       one thread per     writes
//   bias_act_kernel              element (r, c)     y = f(y + b)
//   act_backward_kernel          element            dx = dy·f'(y)
//   column_sum_kernel            column             sum += Σ_r m[r, ·]
//   gat_scores_kernel            (node, head)       s_dst, s_src           (eq. 6, the a·[..])
//   gat_softmax_kernel           (node, head)       alpha                  (eq. 6–7)
//   gat_aggregate_kernel         (node, channel)    out                    (eq. 8)
//   gat_aggregate_backward_kernel (node, head)      g_alpha, g_z (atomic)
//   gat_softmax_backward_kernel  (node, head)       g_sdst, g_ssrc (atomic)
//   gat_scores_backward_z_kernel (node, channel)    g_z
//   gat_scores_backward_att_kernel (head·channel)   g_att_dst, g_att_src
//   im2col_kernel                element of cols    cols = im2col(x)       (Conv2d)
//   col2im_kernel                element of dx      dx = col2im(dcols)     (gather, no atomics)
#pragma once

#include <cuda_runtime.h>

#include "gsearch/nn/cuda/check.cuh"
#include "gsearch/nn/cuda/ops.hpp"

namespace gsearch::nn::cuda {

namespace kernels {

inline constexpr int kBlock = 256;

inline int blocks_for(long long n) { return static_cast<int>((n + kBlock - 1) / kBlock); }

// Kernels are templates (with an unused parameter) so that a header included by several
// translation units defines each of them once, as inline functions are.

// Scatter-adds from many threads into one address.
struct AtomicAdd {
  __device__ void operator()(float* p, float v) const { atomicAdd(p, v); }
};

template <int Unused = 0>
__global__ void bias_act_kernel(float* y, const float* bias, int rows, int cols,
                                ActivationKind kind, float slope) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= static_cast<long long>(rows) * cols) return;
  ops::bias_act(y, bias, cols, kind, slope, static_cast<int>(t / cols), static_cast<int>(t % cols));
}

template <int Unused = 0>
__global__ void act_backward_kernel(const float* y, const float* dy, float* dx, long long n,
                                    ActivationKind kind, float slope) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t < n) dx[t] = ops::act_backward(kind, slope, y[t], dy[t]);
}

template <int Unused = 0>
__global__ void column_sum_kernel(const float* m, int rows, int cols, float* sum) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) ops::column_sum(m, rows, cols, c, sum);
}

template <int Unused = 0>
__global__ void gat_scores_kernel(const float* z, const float* att_dst, const float* att_src, int n,
                                  int heads, int f, float* s_dst, float* s_src) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * heads)
    ops::gat_scores(z, att_dst, att_src, heads, f, t / heads, t % heads, s_dst, s_src);
}

template <int Unused = 0>
__global__ void gat_softmax_kernel(const int* offsets, const int* indices, const float* s_dst,
                                   const float* s_src, int n, int heads, float slope,
                                   float* alpha) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * heads)
    ops::gat_softmax(offsets, indices, s_dst, s_src, heads, slope, t / heads, t % heads, alpha);
}

template <int Unused = 0>
__global__ void gat_aggregate_kernel(const int* offsets, const int* indices, const float* alpha,
                                     const float* z, int n, int heads, int f, bool concat,
                                     float* out) {
  const int w = concat ? heads * f : f;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * w)
    out[t] = ops::gat_aggregate(offsets, indices, alpha, z, heads, f, concat, t / w, t % w);
}

template <int Unused = 0>
__global__ void gat_aggregate_backward_kernel(const int* offsets, const int* indices,
                                              const float* alpha, const float* z,
                                              const float* g_pre, int n, int heads, int f,
                                              bool concat, float* g_alpha, float* g_z) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * heads)
    ops::gat_aggregate_backward(offsets, indices, alpha, z, g_pre, heads, f, concat, t / heads,
                                t % heads, g_alpha, g_z, AtomicAdd{});
}

template <int Unused = 0>
__global__ void gat_softmax_backward_kernel(const int* offsets, const int* indices,
                                            const float* alpha, const float* g_alpha,
                                            const float* s_dst, const float* s_src, int n,
                                            int heads, float slope, float* g_sdst, float* g_ssrc) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * heads)
    ops::gat_softmax_backward(offsets, indices, alpha, g_alpha, s_dst, s_src, heads, slope,
                              t / heads, t % heads, g_sdst, g_ssrc, AtomicAdd{});
}

template <int Unused = 0>
__global__ void gat_scores_backward_z_kernel(const float* g_sdst, const float* g_ssrc,
                                             const float* att_dst, const float* att_src, int n,
                                             int heads, int f, float* g_z) {
  const int hf = heads * f;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * hf)
    ops::gat_scores_backward_z(g_sdst, g_ssrc, att_dst, att_src, heads, f, t / hf, t % hf, g_z);
}

template <int Unused = 0>
__global__ void gat_scores_backward_att_kernel(const float* z, const float* g_sdst,
                                               const float* g_ssrc, int n, int heads, int f,
                                               float* g_att_dst, float* g_att_src) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < heads * f)
    ops::gat_scores_backward_att(z, g_sdst, g_ssrc, n, heads, f, c, g_att_dst, g_att_src);
}

template <int Unused = 0>
__global__ void im2col_kernel(ops::ConvShape s, const float* x, float* cols) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t < s.cols_size()) cols[t] = ops::im2col(s, x, t);
}

template <int Unused = 0>
__global__ void col2im_kernel(ops::ConvShape s, const float* dcols, float* dx) {
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t < s.x_size()) dx[t] = ops::col2im(s, dcols, t);
}

}  // namespace kernels

// --- Launchers: the same arguments as the ops.hpp references, device pointers, a stream ----

// y (rows, cols) = f(y + bias) in place; bias (cols) may be null.
inline void bias_act(float* y, const float* bias, int rows, int cols, const Activation& act,
                     cudaStream_t stream) {
  const long long n = static_cast<long long>(rows) * cols;
  if (n == 0) return;
  kernels::bias_act_kernel<><<<kernels::blocks_for(n), kernels::kBlock, 0, stream>>>(
      y, bias, rows, cols, act.kind, static_cast<float>(act.slope));
  GSEARCH_CUDA_CHECK_LAUNCH();
}

// dx (n) = dy ⊙ f'(·) from the forward output y; dx may be dy.
inline void act_backward(const float* y, const float* dy, float* dx, long long n,
                         const Activation& act, cudaStream_t stream) {
  if (n == 0) return;
  kernels::act_backward_kernel<><<<kernels::blocks_for(n), kernels::kBlock, 0, stream>>>(
      y, dy, dx, n, act.kind, static_cast<float>(act.slope));
  GSEARCH_CUDA_CHECK_LAUNCH();
}

// sum (cols) += Σ_rows m (rows, cols).
inline void column_sum(const float* m, int rows, int cols, float* sum, cudaStream_t stream) {
  if (cols == 0) return;
  kernels::column_sum_kernel<>
      <<<kernels::blocks_for(cols), kernels::kBlock, 0, stream>>>(m, rows, cols, sum);
  GSEARCH_CUDA_CHECK_LAUNCH();
}

// The attention part of one GAT layer's forward pass: ops::gat_forward_cpu on the GPU.
inline void gat_forward(const ops::GatShape& s, const int* offsets, const int* indices,
                        const float* z, const float* att_dst, const float* att_src,
                        const float* bias, float* s_dst, float* s_src, float* alpha, float* out,
                        cudaStream_t stream) {
  const int nh = s.n * s.heads, w = s.width();
  if (s.n == 0) return;
  kernels::gat_scores_kernel<><<<kernels::blocks_for(nh), kernels::kBlock, 0, stream>>>(
      z, att_dst, att_src, s.n, s.heads, s.f, s_dst, s_src);
  GSEARCH_CUDA_CHECK_LAUNCH();
  kernels::gat_softmax_kernel<><<<kernels::blocks_for(nh), kernels::kBlock, 0, stream>>>(
      offsets, indices, s_dst, s_src, s.n, s.heads, s.slope, alpha);
  GSEARCH_CUDA_CHECK_LAUNCH();
  kernels::gat_aggregate_kernel<>
      <<<kernels::blocks_for(static_cast<long long>(s.n) * w), kernels::kBlock, 0, stream>>>(
          offsets, indices, alpha, z, s.n, s.heads, s.f, s.concat, out);
  GSEARCH_CUDA_CHECK_LAUNCH();
  bias_act(out, bias, s.n, w, Activation{.kind = s.act, .slope = s.act_slope}, stream);
}

// The attention part of one GAT layer's backward pass: ops::gat_backward_cpu on the GPU.
// g_z (N, H·F) is overwritten; g_bias, g_att_dst, g_att_src accumulate.
inline void gat_backward(const ops::GatShape& s, const int* offsets, const int* indices,
                         const float* z, const float* att_dst, const float* att_src,
                         const float* s_dst, const float* s_src, const float* alpha,
                         const float* out, const float* dy, float* g_pre, float* g_alpha,
                         float* g_sdst, float* g_ssrc, float* g_z, float* g_bias, float* g_att_dst,
                         float* g_att_src, cudaStream_t stream) {
  const int w = s.width(), hf = s.heads * s.f, nh = s.n * s.heads;
  if (s.n == 0) return;
  act_backward(out, dy, g_pre, static_cast<long long>(s.n) * w,
               Activation{.kind = s.act, .slope = s.act_slope}, stream);
  if (g_bias != nullptr) column_sum(g_pre, s.n, w, g_bias, stream);
  GSEARCH_CUDA_CHECK(cudaMemsetAsync(g_z, 0, sizeof(float) * s.n * hf, stream));
  GSEARCH_CUDA_CHECK(cudaMemsetAsync(g_sdst, 0, sizeof(float) * nh, stream));
  GSEARCH_CUDA_CHECK(cudaMemsetAsync(g_ssrc, 0, sizeof(float) * nh, stream));
  kernels::gat_aggregate_backward_kernel<><<<kernels::blocks_for(nh), kernels::kBlock, 0, stream>>>(
      offsets, indices, alpha, z, g_pre, s.n, s.heads, s.f, s.concat, g_alpha, g_z);
  GSEARCH_CUDA_CHECK_LAUNCH();
  kernels::gat_softmax_backward_kernel<><<<kernels::blocks_for(nh), kernels::kBlock, 0, stream>>>(
      offsets, indices, alpha, g_alpha, s_dst, s_src, s.n, s.heads, s.slope, g_sdst, g_ssrc);
  GSEARCH_CUDA_CHECK_LAUNCH();
  kernels::gat_scores_backward_z_kernel<>
      <<<kernels::blocks_for(static_cast<long long>(s.n) * hf), kernels::kBlock, 0, stream>>>(
          g_sdst, g_ssrc, att_dst, att_src, s.n, s.heads, s.f, g_z);
  GSEARCH_CUDA_CHECK_LAUNCH();
  kernels::gat_scores_backward_att_kernel<>
      <<<kernels::blocks_for(hf), kernels::kBlock, 0, stream>>>(z, g_sdst, g_ssrc, s.n, s.heads,
                                                                s.f, g_att_dst, g_att_src);
  GSEARCH_CUDA_CHECK_LAUNCH();
}

// cols = im2col(x) and dx = col2im(dcols) of ops.hpp (Conv2d), one thread per element.
inline void im2col(const ops::ConvShape& s, const float* x, float* cols, cudaStream_t stream) {
  const long long n = s.cols_size();
  if (n == 0) return;
  kernels::im2col_kernel<><<<kernels::blocks_for(n), kernels::kBlock, 0, stream>>>(s, x, cols);
  GSEARCH_CUDA_CHECK_LAUNCH();
}
inline void col2im(const ops::ConvShape& s, const float* dcols, float* dx, cudaStream_t stream) {
  const long long n = s.x_size();
  if (n == 0) return;
  kernels::col2im_kernel<><<<kernels::blocks_for(n), kernels::kBlock, 0, stream>>>(s, dcols, dx);
  GSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace gsearch::nn::cuda
