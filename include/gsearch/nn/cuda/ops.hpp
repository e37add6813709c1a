// gsearch/nn/cuda/ops.hpp — the per-thread arithmetic of the CUDA kernels, shared with their
// CPU references.
//
// Each function below computes what ONE CUDA thread computes: one element, or one (node,
// head) pair. kernels.cuh launches them on the GPU; the *_cpu functions at the end run the
// same functions in plain loops on the CPU, in the same order as the kernel launches. The
// CPU loops are checked against the Eigen layers of gsearch::nn (tests/nn/cuda_ops.cpp, on
// any machine), and the kernels against the CPU loops (tests/nn_cuda/, on a GPU), in the
// spirit of llm.c's "CPU reference next to each kernel".
//
// This header is plain C++: compiled by nvcc the functions are __host__ __device__, compiled
// by a C++ compiler they are ordinary inline functions.
//
// Layout (row-major, float, int sizes), for N nodes, H heads, F channels per head, E stored
// edges and E' = E + N edges with the self loops:
//   z       (N, H·F)   s_dst, s_src (N, H)   att_dst, att_src (H, F)   alpha (E', H)
//   out     (N, W)     W = H·F (concat) or F (mean); g_pre is dL/d(pre-activation), (N, W)
// Node i's edges are [offsets[i] + i, offsets[i+1] + i + 1) of alpha: its self loop, then
// indices[offsets[i] .. offsets[i+1]).
#pragma once

#include <math.h>

#include "gsearch/nn/layers.hpp"

#if defined(__CUDACC__)
#define GSEARCH_HD __host__ __device__
#else
#define GSEARCH_HD
#endif

namespace gsearch::nn::cuda::ops {

// An accumulation that one thread owns alone (CPU loops, or entries no other thread writes).
struct PlainAdd {
  GSEARCH_HD void operator()(float* p, float v) const { *p += v; }
};

GSEARCH_HD inline float leaky(float v, float slope) { return v > 0.0f ? v : slope * v; }

// f(x) of Activation `kind` (layers.hpp).
GSEARCH_HD inline float act_forward(ActivationKind kind, float slope, float x) {
  switch (kind) {
    case ActivationKind::kIdentity:
      return x;
    case ActivationKind::kRelu:
      return x > 0.0f ? x : 0.0f;
    case ActivationKind::kLeakyRelu:
      return x > 0.0f ? x : slope * x;
    case ActivationKind::kElu:
      return x > 0.0f ? x : expm1f(x);
    case ActivationKind::kTanh:
      return tanhf(x);
    case ActivationKind::kShiftedTanh:
      return 0.5f * tanhf(x) + 0.5f;
  }
  return x;
}

// dy·f'(x) from the output y = f(x).
GSEARCH_HD inline float act_backward(ActivationKind kind, float slope, float y, float dy) {
  switch (kind) {
    case ActivationKind::kIdentity:
      return dy;
    case ActivationKind::kRelu:
      return y > 0.0f ? dy : 0.0f;
    case ActivationKind::kLeakyRelu:
      return y > 0.0f ? dy : slope * dy;
    case ActivationKind::kElu:
      return y > 0.0f ? dy : dy * (y + 1.0f);
    case ActivationKind::kTanh:
      return dy * (1.0f - y * y);
    case ActivationKind::kShiftedTanh:
      return dy * 2.0f * y * (1.0f - y);
  }
  return dy;
}

// Element (r, c) of a (rows, cols) matrix: y = f(y + bias[c]) (bias may be null).
GSEARCH_HD inline void bias_act(float* y, const float* bias, int cols, ActivationKind kind,
                                float slope, int r, int c) {
  const int at = r * cols + c;
  y[at] = act_forward(kind, slope, y[at] + (bias != nullptr ? bias[c] : 0.0f));
}

// Column c of a (rows, cols) matrix: sum[c] += Σ_r m[r, c].
GSEARCH_HD inline void column_sum(const float* m, int rows, int cols, int c, float* sum) {
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += m[r * cols + c];
  sum[c] += s;
}

// Node i, head k: s_dst[i, k] = Z_k[i]·att_dst[k], s_src[i, k] = Z_k[i]·att_src[k].
GSEARCH_HD inline void gat_scores(const float* z, const float* att_dst, const float* att_src,
                                  int heads, int f, int i, int k, float* s_dst, float* s_src) {
  const float* zi = z + (i * heads + k) * f;
  float d = 0.0f, s = 0.0f;
  for (int c = 0; c < f; ++c) {
    d += zi[c] * att_dst[k * f + c];
    s += zi[c] * att_src[k * f + c];
  }
  s_dst[i * heads + k] = d;
  s_src[i * heads + k] = s;
}

// Node i, head k: α over {i} ∪ N(i) of e_ij = LeakyReLU(s_dst[i] + s_src[j]) (eq. 6–7), the
// segment's maximum subtracted before exp.
GSEARCH_HD inline void gat_softmax(const int* offsets, const int* indices, const float* s_dst,
                                   const float* s_src, int heads, float slope, int i, int k,
                                   float* alpha) {
  const int b = offsets[i], e = offsets[i + 1], base = b + i;
  const float sd = s_dst[i * heads + k];
  float m = leaky(sd + s_src[i * heads + k], slope);
  alpha[base * heads + k] = m;
  for (int p = b; p < e; ++p) {
    const float score = leaky(sd + s_src[indices[p] * heads + k], slope);
    alpha[(base + 1 + p - b) * heads + k] = score;
    m = score > m ? score : m;
  }
  float sum = 0.0f;
  for (int q = base; q <= base + e - b; ++q) {
    const float v = expf(alpha[q * heads + k] - m);
    alpha[q * heads + k] = v;
    sum += v;
  }
  const float inv = 1.0f / sum;
  for (int q = base; q <= base + e - b; ++q) alpha[q * heads + k] *= inv;
}

// Output entry (i, c) before bias and activation (eq. 8): Σ_j α_ij Z_k[j, c] for head
// k = c / F (concat), or the mean over the heads of Σ_j α_ij Z_k[j, c] (mean, c < F).
GSEARCH_HD inline float gat_aggregate(const int* offsets, const int* indices, const float* alpha,
                                      const float* z, int heads, int f, bool concat, int i, int c) {
  const int b = offsets[i], e = offsets[i + 1], base = b + i, hf = heads * f;
  const int k0 = concat ? c / f : 0, k1 = concat ? k0 + 1 : heads, cf = concat ? c % f : c;
  float acc = 0.0f;
  for (int k = k0; k < k1; ++k)
    for (int q = 0; q <= e - b; ++q) {
      const int j = q == 0 ? i : indices[b + q - 1];
      acc += alpha[(base + q) * heads + k] * z[j * hf + k * f + cf];
    }
  return concat ? acc : acc / static_cast<float>(heads);
}

// dL/d(aggregate) at (i, head k, channel c) from g_pre (N, W).
GSEARCH_HD inline float gat_grad_agg(const float* g_pre, int heads, int f, bool concat, int i,
                                     int k, int c) {
  return concat ? g_pre[(i * heads + k) * f + c] : g_pre[i * f + c] / static_cast<float>(heads);
}

// Node i, head k, through the aggregation: g_alpha[q, k] = g_agg_k[i]·Z_k[j] for each edge
// q = (i, j), and g_z[j, k·F + c] += α_q g_agg_k[i, c] through `add` (atomic on the GPU: many
// nodes write the same row j).
template <class Add>
GSEARCH_HD void gat_aggregate_backward(const int* offsets, const int* indices, const float* alpha,
                                       const float* z, const float* g_pre, int heads, int f,
                                       bool concat, int i, int k, float* g_alpha, float* g_z,
                                       Add add) {
  const int b = offsets[i], e = offsets[i + 1], base = b + i, hf = heads * f;
  for (int q = 0; q <= e - b; ++q) {
    const int j = q == 0 ? i : indices[b + q - 1];
    const float a = alpha[(base + q) * heads + k];
    float dot = 0.0f;
    for (int c = 0; c < f; ++c) {
      const float g = gat_grad_agg(g_pre, heads, f, concat, i, k, c);
      dot += g * z[j * hf + k * f + c];
      add(&g_z[j * hf + k * f + c], a * g);
    }
    g_alpha[(base + q) * heads + k] = dot;
  }
}

// Node i, head k, through the softmax and the LeakyReLU: dL/de_ij = α_ij (g_α_ij − Σ α g_α),
// then g_sdst[i, k] += Σ_j dL/d(s_dst[i] + s_src[j]) (owned by this thread) and
// g_ssrc[j, k] += the same term for each j through `add`.
template <class Add>
GSEARCH_HD void gat_softmax_backward(const int* offsets, const int* indices, const float* alpha,
                                     const float* g_alpha, const float* s_dst, const float* s_src,
                                     int heads, float slope, int i, int k, float* g_sdst,
                                     float* g_ssrc, Add add) {
  const int b = offsets[i], e = offsets[i + 1], base = b + i;
  float dot = 0.0f;
  for (int q = base; q <= base + e - b; ++q) dot += alpha[q * heads + k] * g_alpha[q * heads + k];
  const float sd = s_dst[i * heads + k];
  float own = 0.0f;
  for (int q = 0; q <= e - b; ++q) {
    const int j = q == 0 ? i : indices[b + q - 1];
    const float ge = alpha[(base + q) * heads + k] * (g_alpha[(base + q) * heads + k] - dot);
    const float gs = sd + s_src[j * heads + k] > 0.0f ? ge : slope * ge;
    own += gs;
    add(&g_ssrc[j * heads + k], gs);
  }
  add(&g_sdst[i * heads + k], own);
}

// Entry (i, c) of g_z (N, H·F), through s = Z_k·a_k: += g_sdst[i, k] a_dst[k, c'] +
// g_ssrc[i, k] a_src[k, c'] with k = c / F, c' = c % F. Run after every scatter into g_ssrc.
GSEARCH_HD inline void gat_scores_backward_z(const float* g_sdst, const float* g_ssrc,
                                             const float* att_dst, const float* att_src, int heads,
                                             int f, int i, int c, float* g_z) {
  const int k = c / f;
  g_z[i * heads * f + c] += g_sdst[i * heads + k] * att_dst[c] + g_ssrc[i * heads + k] * att_src[c];
}

// Entry c = k·F + c' of the attention gradients (H, F): g_att_dst[c] += Σ_i g_sdst[i, k]
// Z[i, c], and the same for src.
GSEARCH_HD inline void gat_scores_backward_att(const float* z, const float* g_sdst,
                                               const float* g_ssrc, int n, int heads, int f, int c,
                                               float* g_att_dst, float* g_att_src) {
  const int k = c / f, hf = heads * f;
  float d = 0.0f, s = 0.0f;
  for (int i = 0; i < n; ++i) {
    d += g_sdst[i * heads + k] * z[i * hf + c];
    s += g_ssrc[i * heads + k] * z[i * hf + c];
  }
  g_att_dst[c] += d;
  g_att_src[c] += s;
}

// --- CPU references: the kernel sequence of one GAT layer, on the CPU ----------------------

// The shapes of one GAT layer's attention part (the dense products Z = X·W, dW, dX are left
// to the caller: Eigen on the CPU, cuBLAS on the GPU).
struct GatShape {
  int n = 0;      // nodes
  int heads = 1;  // H
  int f = 1;      // channels per head
  bool concat = true;
  float slope = 0.2f;  // LeakyReLU slope of the scores
  ActivationKind act = ActivationKind::kIdentity;
  float act_slope = 0.2f;
  [[nodiscard]] int width() const { return concat ? heads * f : f; }
};

// From z (N, H·F): s_dst, s_src (N, H), alpha (E', H) and out (N, W) = σ(aggregate + bias).
inline void gat_forward_cpu(const GatShape& s, const int* offsets, const int* indices,
                            const float* z, const float* att_dst, const float* att_src,
                            const float* bias, float* s_dst, float* s_src, float* alpha,
                            float* out) {
  for (int i = 0; i < s.n; ++i)
    for (int k = 0; k < s.heads; ++k)
      gat_scores(z, att_dst, att_src, s.heads, s.f, i, k, s_dst, s_src);
  for (int i = 0; i < s.n; ++i)
    for (int k = 0; k < s.heads; ++k)
      gat_softmax(offsets, indices, s_dst, s_src, s.heads, s.slope, i, k, alpha);
  const int w = s.width();
  for (int i = 0; i < s.n; ++i)
    for (int c = 0; c < w; ++c)
      out[i * w + c] = gat_aggregate(offsets, indices, alpha, z, s.heads, s.f, s.concat, i, c);
  for (int i = 0; i < s.n; ++i)
    for (int c = 0; c < w; ++c) bias_act(out, bias, w, s.act, s.act_slope, i, c);
}

// From dy (N, W) and the forward buffers: accumulates g_bias (W) (when bias is used), g_att_dst
// and g_att_src (H, F), and writes g_z (N, H·F) = dL/dZ. Scratch: g_pre (N, W),
// g_alpha (E', H), g_sdst and g_ssrc (N, H).
inline void gat_backward_cpu(const GatShape& s, const int* offsets, const int* indices,
                             const float* z, const float* att_dst, const float* att_src,
                             const float* s_dst, const float* s_src, const float* alpha,
                             const float* out, const float* dy, float* g_pre, float* g_alpha,
                             float* g_sdst, float* g_ssrc, float* g_z, float* g_bias,
                             float* g_att_dst, float* g_att_src) {
  const int w = s.width(), hf = s.heads * s.f;
  for (int t = 0; t < s.n * w; ++t) g_pre[t] = act_backward(s.act, s.act_slope, out[t], dy[t]);
  if (g_bias != nullptr)
    for (int c = 0; c < w; ++c) column_sum(g_pre, s.n, w, c, g_bias);
  for (int t = 0; t < s.n * hf; ++t) g_z[t] = 0.0f;
  for (int t = 0; t < s.n * s.heads; ++t) g_sdst[t] = g_ssrc[t] = 0.0f;
  for (int i = 0; i < s.n; ++i)
    for (int k = 0; k < s.heads; ++k)
      gat_aggregate_backward(offsets, indices, alpha, z, g_pre, s.heads, s.f, s.concat, i, k,
                             g_alpha, g_z, PlainAdd{});
  for (int i = 0; i < s.n; ++i)
    for (int k = 0; k < s.heads; ++k)
      gat_softmax_backward(offsets, indices, alpha, g_alpha, s_dst, s_src, s.heads, s.slope, i, k,
                           g_sdst, g_ssrc, PlainAdd{});
  for (int i = 0; i < s.n; ++i)
    for (int c = 0; c < hf; ++c)
      gat_scores_backward_z(g_sdst, g_ssrc, att_dst, att_src, s.heads, s.f, i, c, g_z);
  for (int c = 0; c < hf; ++c)
    gat_scores_backward_att(z, g_sdst, g_ssrc, s.n, s.heads, s.f, c, g_att_dst, g_att_src);
}

// --- Conv2d (nn/conv.hpp): im2col and col2im, one element per thread ---------------------
//
// For a batch of B images on an H×W grid, C channels, a k×k kernel with zero padding
// r = (k − 1)/2, channels last: x (B, H·W·C), cols (B·H·W, k²·C), element
// ((b·H + py)·W + px, (dy·k + dx)·C + c) = x[b, (py + dy − r, px + dx − r), c], 0 off the grid.
struct ConvShape {
  int batch = 0, h = 0, w = 0, c = 0, k = 1;
  GSEARCH_HD long long cols_size() const {
    return static_cast<long long>(batch) * h * w * k * k * c;
  }
  GSEARCH_HD long long x_size() const { return static_cast<long long>(batch) * h * w * c; }
};

// Element t of cols.
GSEARCH_HD inline float im2col(const ConvShape& s, const float* x, long long t) {
  const int ch = static_cast<int>(t % s.c);
  const int tap = static_cast<int>((t / s.c) % (s.k * s.k));
  const long long pos = t / (static_cast<long long>(s.c) * s.k * s.k);
  const int p = static_cast<int>(pos % (s.h * s.w));
  const long long b = pos / (s.h * s.w);
  const int sy = p / s.w + tap / s.k - s.k / 2, sx = p % s.w + tap % s.k - s.k / 2;
  if (sy < 0 || sy >= s.h || sx < 0 || sx >= s.w) return 0.0f;
  return x[((b * s.h + sy) * s.w + sx) * s.c + ch];
}

// Element t of dx (B, H·W·C) = col2im(dcols): the sum of the cols entries copied from it.
GSEARCH_HD inline float col2im(const ConvShape& s, const float* dcols, long long t) {
  const int ch = static_cast<int>(t % s.c);
  const int cell = static_cast<int>((t / s.c) % (s.h * s.w));
  const long long b = t / (static_cast<long long>(s.c) * s.h * s.w);
  const int sy = cell / s.w, sx = cell % s.w, r = s.k / 2;
  float sum = 0.0f;
  for (int dy = 0; dy < s.k; ++dy) {
    const int py = sy - dy + r;
    if (py < 0 || py >= s.h) continue;
    for (int dx = 0; dx < s.k; ++dx) {
      const int px = sx - dx + r;
      if (px < 0 || px >= s.w) continue;
      sum += dcols[((b * s.h + py) * s.w + px) * s.k * s.k * s.c + (dy * s.k + dx) * s.c + ch];
    }
  }
  return sum;
}

// The CPU references: every element, in order.
inline void im2col_cpu(const ConvShape& s, const float* x, float* cols) {
  for (long long t = 0; t < s.cols_size(); ++t) cols[t] = im2col(s, x, t);
}
inline void col2im_cpu(const ConvShape& s, const float* dcols, float* dx) {
  for (long long t = 0; t < s.x_size(); ++t) dx[t] = col2im(s, dcols, t);
}

}  // namespace gsearch::nn::cuda::ops
