// gsearch/nn/gat.hpp — the graph attention layer (paper eq. 6–8; Veličković et al., 2018)
// and the GAT-AE model of §4.2.3.
//
// GatLayer, per head k = 0..H−1 with F output channels each, on a graph whose node i
// aggregates from N(i) (see graph.hpp):
//   Z     = X·W                                         X (N, in), W (in, H·F), Z (N, H·F)
//   s_dst = Z_k·a_dst,k   s_src = Z_k·a_src,k           (N, H) each; Z_k = columns kF..kF+F
//   e_ij  = LeakyReLU_0.2(s_dst[i] + s_src[j])          eq. 6 with α(Wh_i, Wh_j) = a·[Wh_i ‖ Wh_j]
//   α_ij  = softmax over j ∈ {i} ∪ N(i) of e_ij         eq. 7, the self loop added here
//   h'_i  = σ(Σ_j α_ij·Z_k[j] (+ b))                    eq. 8; heads concatenated (N, H·F)
//                                                       or averaged (N, F)
// The attention vector of head k is a = [a_dst ‖ a_src]: its FIRST half multiplies the node
// i that aggregates, its second half the neighbour j. PyTorch Geometric's GATConv calls these
// halves att_dst and att_src (a_dst = att_dst); swap them when comparing with a model that
// puts the neighbour first.
//
// Edge storage: node i's segment is edges [offsets[i] + i, offsets[i+1] + i + 1) of the
// per-edge buffers, its self loop first, then its neighbours in CSR order. E' = E + N.
//
// GatAe (§4.2.3): node features X (N, 5) → the feature refinement of eq. 14 → a stack of GAT
// layers → the shifted tanh of eq. 15 → one score in [0, 1] per node. See docs/nn.md,
// "Readings of the paper", for how eq. 14 is read here and the alternatives kept as options.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/autoencoder.hpp"
#include "gsearch/nn/graph.hpp"
#include "gsearch/nn/layers.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

struct GatLayerConfig {
  Index in = 5;                 // input channels per node
  Index out = 8;                // F: output channels per head
  Index heads = 1;              // H
  bool concat = true;           // concatenate the heads (H·F outputs) or average them (F)
  bool bias = true;             // a bias after the aggregation
  Activation activation = {};   // σ of eq. 8, after the bias
  double negative_slope = 0.2;  // of the LeakyReLU in the attention score (eq. 6)

  // The number of output channels: H·F when concatenating, F when averaging.
  [[nodiscard]] constexpr Index width() const noexcept { return concat ? heads * out : out; }
};

template <class T>
class BasicGatLayer {
 public:
  BasicGatLayer() = default;

  // W Glorot-uniform (fans in and H·F), a_dst and a_src Glorot-uniform per head (fans F and
  // 1), bias zero; drawn from `rng` in that order. Throws std::invalid_argument for
  // non-positive sizes or a negative slope.
  BasicGatLayer(const GatLayerConfig& cfg, Rng& rng) : cfg_(cfg) {
    if (cfg.in <= 0 || cfg.out <= 0 || cfg.heads <= 0)
      throw std::invalid_argument("gat layer: in, out and heads must be positive (got " +
                                  std::to_string(cfg.in) + ", " + std::to_string(cfg.out) + ", " +
                                  std::to_string(cfg.heads) + ")");
    cfg.activation.validate();
    Activation::leaky_relu(cfg.negative_slope).validate();
    const Index hf = cfg.heads * cfg.out;
    w_.resize(cfg.in, hf);
    glorot_uniform(w_, cfg.in, hf, rng);
    att_dst_.resize(cfg.heads, cfg.out);
    att_src_.resize(cfg.heads, cfg.out);
    glorot_uniform(att_dst_, cfg.out, 1, rng);
    glorot_uniform(att_src_, cfg.out, 1, rng);
    bias_ = MatrixT<T>::Zero(1, cfg.bias ? cfg.width() : 0);
    dw_ = MatrixT<T>::Zero(w_.rows(), w_.cols());
    datt_dst_ = MatrixT<T>::Zero(cfg.heads, cfg.out);
    datt_src_ = MatrixT<T>::Zero(cfg.heads, cfg.out);
    dbias_ = MatrixT<T>::Zero(1, bias_.cols());
    s_max_.resize(1, cfg.heads);
  }

  [[nodiscard]] const GatLayerConfig& config() const noexcept { return cfg_; }

  // x (N, in) on `graph` (N nodes) → h' (N, width()). Keeps copies of x and of the graph's
  // structure for backward(). Throws std::invalid_argument on a shape mismatch.
  ConstView<T> forward(const ConstRef<T>& x, const CsrGraph& graph) {
    detail::check_shape("gat layer", "input", x.rows(), x.cols(), graph.num_nodes(), cfg_.in);
    auto xs = x_.view(x.rows(), cfg_.in);  // (N, in)
    xs = x;
    return forward_borrowed(const_view(xs), graph);
  }

  // As forward(), but backward() will read x where it is: x must stay alive and unchanged
  // until then (the graph's structure is still copied).
  ConstView<T> forward_borrowed(const ConstView<T>& x, const CsrGraph& graph) {
    detail::check_shape("gat layer", "input", x.rows(), x.cols(), graph.num_nodes(), cfg_.in);
    const Index n = x.rows(), h = cfg_.heads, f = cfg_.out, hf = h * f;
    offsets_.assign(graph.offsets().begin(), graph.offsets().end());
    indices_.assign(graph.indices().begin(), graph.indices().end());
    n_ = n;
    input_ = x.data();
    const Index edges = static_cast<Index>(indices_.size()) + n;  // E' = E + N self loops
    auto z = z_.view(n, hf);                                      // (N, H·F)
    z.noalias() = x * w_;
    auto s_dst = s_dst_.view(n, h);      // (N, H)
    auto s_src = s_src_.view(n, h);      // (N, H)
    auto alpha = alpha_.view(edges, h);  // (E', H)
    auto y = y_.view(n, cfg_.width());   // (N, width)
    // Head and channel counts the float code is compiled for (the default GAT-AE uses 4×8
    // and 1×1); any other shape runs the same code with run-time sizes.
    if constexpr (std::is_same_v<T, float>) {
      if (h == 4 && f == 8) {
        attend<4, 8>(z, s_dst, s_src, alpha, y);
      } else if (h == 1 && f == 1) {
        attend<1, 1>(z, s_dst, s_src, alpha, y);
      } else if (h == 8 && f == 8) {
        attend<8, 8>(z, s_dst, s_src, alpha, y);
      } else if (h == 1 && f == 8) {
        attend<1, 8>(z, s_dst, s_src, alpha, y);
      } else {
        attend<0, 0>(z, s_dst, s_src, alpha, y);
      }
    } else {
      attend<0, 0>(z, s_dst, s_src, alpha, y);
    }
    if (cfg_.bias) y.rowwise() += bias_.row(0);
    cfg_.activation.forward(y, y);
    return const_view(y);
  }

  // dL/dh' (N, width()) for the last forward() → dL/dx (N, in). Accumulates the gradients of
  // W, a_dst, a_src and the bias.
  ConstView<T> backward(const ConstRef<T>& dy) {
    const Index n = n_, h = cfg_.heads, f = cfg_.out, hf = h * f;
    detail::check_shape("gat layer backward", "gradient", dy.rows(), dy.cols(), n, cfg_.width());
    const Index edges = static_cast<Index>(indices_.size()) + n;
    auto g_pre = g_pre_.view(n, cfg_.width());  // (N, width): dL/d(pre-activation)
    cfg_.activation.backward(y_.view(n, cfg_.width()), dy, g_pre);
    if (cfg_.bias) dbias_ += g_pre.colwise().sum();
    auto g_agg = g_agg_.view(n, hf);  // (N, H·F)
    if (cfg_.concat) {
      g_agg = g_pre;
    } else {
      for (Index k = 0; k < h; ++k) g_agg.middleCols(k * f, f) = g_pre * (T(1) / T(h));
    }
    const auto z = z_.view(n, hf);
    const auto s_dst = s_dst_.view(n, h);
    const auto s_src = s_src_.view(n, h);
    const auto alpha = alpha_.view(edges, h);
    auto g_alpha = g_alpha_.view(edges, h);  // (E', H): dL/dα, then dL/d(LeakyReLU input)
    auto g_z = g_z_.view(n, hf);             // (N, H·F)
    auto g_sdst = g_sdst_.view(n, h);        // (N, H)
    auto g_ssrc = g_ssrc_.view(n, h);        // (N, H)
    g_z.setZero();
    g_sdst.setZero();
    g_ssrc.setZero();
    const T slope = T(cfg_.negative_slope);
    for (Index i = 0; i < n; ++i) {
      const Index b = offsets_[i], e = offsets_[i + 1], base = b + i;
      const auto gi = g_agg.row(i);
      // Through the aggregation: dL/dα_ij = g_i·Z[j], dL/dZ[j] += α_ij g_i.
      for (Index q = 0; q <= e - b; ++q) {
        const Index j = q == 0 ? i : indices_[b + q - 1];
        const auto zj = z.row(j);
        auto gzj = g_z.row(j);
        for (Index k = 0; k < h; ++k) {
          g_alpha(base + q, k) = gi.segment(k * f, f).dot(zj.segment(k * f, f));
          gzj.segment(k * f, f) += alpha(base + q, k) * gi.segment(k * f, f);
        }
      }
      // Through the softmax, dL/de_ij = α_ij (dL/dα_ij − Σ_j' α_ij' dL/dα_ij'), and the
      // LeakyReLU, into the two halves of the score.
      for (Index k = 0; k < h; ++k) {
        T dot = 0;
        for (Index q = base; q <= base + e - b; ++q) dot += alpha(q, k) * g_alpha(q, k);
        const T sd = s_dst(i, k);
        for (Index q = 0; q <= e - b; ++q) {
          const Index j = q == 0 ? i : indices_[b + q - 1];
          const T ge = alpha(base + q, k) * (g_alpha(base + q, k) - dot);
          const T gs = sd + s_src(j, k) > T(0) ? ge : slope * ge;
          g_sdst(i, k) += gs;
          g_ssrc(j, k) += gs;
        }
      }
    }
    // Through s = Z_k·a_k into Z and a.
    for (Index k = 0; k < h; ++k) {
      g_z.middleCols(k * f, f).noalias() += g_sdst.col(k) * att_dst_.row(k);
      g_z.middleCols(k * f, f).noalias() += g_ssrc.col(k) * att_src_.row(k);
      datt_dst_.row(k).noalias() += g_sdst.col(k).transpose() * z.middleCols(k * f, f);
      datt_src_.row(k).noalias() += g_ssrc.col(k).transpose() * z.middleCols(k * f, f);
    }
    // Through Z = X·W.
    const ConstView<T> x(input_, n, cfg_.in);
    dw_.noalias() += x.transpose() * g_z;
    auto dx = dx_.view(n, cfg_.in);
    dx.noalias() = g_z * w_.transpose();
    return const_view(dx);
  }

  // The attention coefficients α of the last forward(): (E', H), node i's segment at rows
  // [offsets[i] + i, offsets[i+1] + i + 1), self loop first.
  [[nodiscard]] ConstView<T> attention() {
    return const_view(alpha_.view(static_cast<Index>(indices_.size()) + n_, cfg_.heads));
  }

  // "<prefix>W" (in, H·F), "<prefix>att_dst" (H, F), "<prefix>att_src" (H, F),
  // "<prefix>bias" (1, width) when present.
  void parameters(ParamListT<T>& out, const std::string& prefix) {
    out.push_back({prefix + "W", &w_, &dw_});
    out.push_back({prefix + "att_dst", &att_dst_, &datt_dst_});
    out.push_back({prefix + "att_src", &att_src_, &datt_src_});
    if (cfg_.bias) out.push_back({prefix + "bias", &bias_, &dbias_});
  }
  void zero_grad() {
    dw_.setZero();
    datt_dst_.setZero();
    datt_src_.setZero();
    dbias_.setZero();
  }

  MatrixT<T>& weight() noexcept { return w_; }
  MatrixT<T>& att_dst() noexcept { return att_dst_; }
  MatrixT<T>& att_src() noexcept { return att_src_; }
  MatrixT<T>& bias() noexcept { return bias_; }
  const MatrixT<T>& weight() const noexcept { return w_; }
  const MatrixT<T>& att_dst() const noexcept { return att_dst_; }
  const MatrixT<T>& att_src() const noexcept { return att_src_; }
  const MatrixT<T>& bias() const noexcept { return bias_; }

 private:
  static T leaky(T v, T slope) noexcept { return v > T(0) ? v : slope * v; }

  // eq. 6–8 for every node, from z (N, H·F): writes the score halves s_dst, s_src (N, H),
  // alpha (E', H) and y (N, width) = Σ_j α_ij Z[j] (heads side by side, or their mean). kH
  // and kF are the head and channel counts when known at compile time (0: read them from the
  // configuration). The loops run on raw rows: their sizes (H, F, degree) are too small for
  // Eigen expressions to pay for themselves.
  template <int kH, int kF>
  void attend(const View<T>& z, View<T>& s_dst, View<T>& s_src, View<T>& alpha, View<T>& y) {
    const Index n = n_;
    const Index h = kH > 0 ? kH : cfg_.heads, f = kF > 0 ? kF : cfg_.out;
    const T slope = T(cfg_.negative_slope);
    // One head's F channels, of compile-time length when F is known (Eigen then vectorises
    // them without the aliasing checks a raw loop would need).
    constexpr int kLen = kF > 0 ? kF : Eigen::Dynamic;
    using Vec = Eigen::Map<Eigen::Matrix<T, 1, kLen>>;
    using CVec = Eigen::Map<const Eigen::Matrix<T, 1, kLen>>;
    // s_dst[i, k] = Z_k[i]·a_dst[k], s_src[i, k] = Z_k[i]·a_src[k].
    const T* ad = att_dst_.data();
    const T* as = att_src_.data();
    for (Index i = 0; i < n; ++i) {
      for (Index k = 0; k < h; ++k) {
        const CVec zk(&z(i, k * f), f);
        s_dst(i, k) = zk.dot(CVec(ad + k * f, f));
        s_src(i, k) = zk.dot(CVec(as + k * f, f));
      }
    }
    // A segment's maximum score, then 1 / its sum: in registers when H is known.
    T m_fixed[kH > 0 ? kH : 1];
    T* m = kH > 0 ? m_fixed : s_max_.data();
    // eq. 6, and eq. 7 made numerically stable: each segment's maximum score is subtracted
    // before one vectorised exp over every edge.
    for (Index i = 0; i < n; ++i) {
      const Index b = offsets_[i], e = offsets_[i + 1], base = b + i;  // segment of node i
      const T* sd = &s_dst(i, 0);
      T* row = &alpha(base, 0);
      for (Index k = 0; k < h; ++k) m[k] = row[k] = leaky(sd[k] + s_src(i, k), slope);
      for (Index p = b; p < e; ++p) {
        const T* sj = &s_src(indices_[p], 0);
        row = &alpha(base + 1 + p - b, 0);
        for (Index k = 0; k < h; ++k) {
          row[k] = leaky(sd[k] + sj[k], slope);
          m[k] = std::max(m[k], row[k]);
        }
      }
      for (row = &alpha(base, 0); row != &alpha(base, 0) + (e - b + 1) * h; row += h)
        for (Index k = 0; k < h; ++k) row[k] -= m[k];
    }
    alpha = alpha.array().exp().matrix();
    // Normalise each segment, then eq. 8: y_i = Σ_j α_ij Z[j] per head (concat), or the mean
    // of the heads' sums.
    y.setZero();
    const T scale = cfg_.concat ? T(1) : T(1) / T(h);
    for (Index i = 0; i < n; ++i) {
      const Index b = offsets_[i], e = offsets_[i + 1], base = b + i;
      T* const first = &alpha(base, 0);
      T* const last = first + (e - b + 1) * h;
      for (Index k = 0; k < h; ++k) m[k] = 0;
      for (const T* row = first; row != last; row += h)
        for (Index k = 0; k < h; ++k) m[k] += row[k];
      for (Index k = 0; k < h; ++k) m[k] = T(1) / m[k];
      T* acc = &y(i, 0);
      for (Index q = 0; q <= e - b; ++q) {
        T* a = first + q * h;
        const T* zj = &z(q == 0 ? i : indices_[b + q - 1], 0);
        for (Index k = 0; k < h; ++k) {
          const T ak = a[k] *= m[k];
          Vec(cfg_.concat ? acc + k * f : acc, f) += (scale * ak) * CVec(zj + k * f, f);
        }
      }
    }
  }

  GatLayerConfig cfg_;
  MatrixT<T> w_, att_dst_, att_src_, bias_;      // (in, H·F), (H, F), (H, F), (1, width)
  MatrixT<T> dw_, datt_dst_, datt_src_, dbias_;  // same shapes
  std::vector<std::int32_t> offsets_, indices_;  // the graph of the last forward()
  Index n_ = 0;
  const T* input_ = nullptr;  // the input (N, in) of the last forward(): x_ or borrowed rows
  MatrixT<T> s_max_;          // (1, H) scratch: a segment's maximum score, then 1 / its sum
  Workspace<T> x_, z_, s_dst_, s_src_, alpha_, y_;
  Workspace<T> g_pre_, g_agg_, g_alpha_, g_z_, g_sdst_, g_ssrc_, dx_;
};

// How GatAe applies eq. 14 before the GAT layers (docs/nn.md, "Readings of the paper").
enum class Refinement {
  kNone,      // X goes to the GAT layers unchanged
  kFeatures,  // X' = α·AE1(X) + (1 − α)·AE2(X): refined 5-vectors (the default)
  kScores     // X' = α·AE1(X)·W1 + (1 − α)·AE2(X)·W2: one refined score per node
};

struct GatAeConfig {
  AutoEncoderConfig autoencoder = {};  // AE1 and AE2 of the refinement (paper: 5→3→5)
  double alpha = 0.5;                  // α of eq. 14, in [0, 1]
  Refinement refinement = Refinement::kFeatures;
  bool train_refinement = true;  // false: backward() stops at the GAT input, so AE1/AE2 (e.g.
                                 // copied from a trained UctAe) keep their values
  // The GAT stack; layer 0 takes the refined features (5, or 1 for Refinement::kScores) and
  // the last layer has width 1. Default: 5 → 8 channels × 4 heads (concat, ELU) → 1 (mean).
  std::vector<GatLayerConfig> layers = {
      {.in = 5, .out = 8, .heads = 4, .concat = true, .activation = Activation::elu()},
      {.in = 32, .out = 1, .heads = 1, .concat = false}};
};

template <class T>
class BasicGatAe {
 public:
  BasicGatAe() = default;

  // AE1, AE2 (and W1, W2 for Refinement::kScores), then the GAT layers, drawn from `rng` in
  // that order. Throws std::invalid_argument when the layer widths do not chain, the last
  // width is not 1, or α is outside [0, 1].
  BasicGatAe(const GatAeConfig& cfg, Rng& rng) : cfg_(cfg) {
    detail::check_alpha("gat_ae", cfg.alpha);
    if (cfg.layers.empty()) throw std::invalid_argument("gat_ae: no GAT layers");
    ae1_ = BasicAutoEncoder<T>(cfg.autoencoder, rng);
    ae2_ = BasicAutoEncoder<T>(cfg.autoencoder, rng);
    if (cfg.refinement == Refinement::kScores) {
      w1_ = BasicLinear<T>(cfg.autoencoder.inputs, 1, rng, false);
      w2_ = BasicLinear<T>(cfg.autoencoder.inputs, 1, rng, false);
    }
    Index width = cfg.refinement == Refinement::kScores ? 1 : cfg.autoencoder.inputs;
    for (std::size_t l = 0; l < cfg.layers.size(); ++l) {
      if (cfg.layers[l].in != width)
        throw std::invalid_argument("gat_ae: layer " + std::to_string(l) + " takes " +
                                    std::to_string(cfg.layers[l].in) + " channels but receives " +
                                    std::to_string(width));
      layers_.emplace_back(cfg.layers[l], rng);
      width = cfg.layers[l].width();
    }
    if (width != 1)
      throw std::invalid_argument("gat_ae: the last layer has width " + std::to_string(width) +
                                  ", expected 1 (one score per node)");
  }

  [[nodiscard]] const GatAeConfig& config() const noexcept { return cfg_; }

  // Node features x (N, features) on `graph` → scores (N, 1) in [0, 1] (eq. 15).
  ConstView<T> forward(const ConstRef<T>& x, const CsrGraph& graph) {
    detail::check_shape("gat_ae", "input", x.rows(), x.cols(), graph.num_nodes(),
                        cfg_.autoencoder.inputs);
    const Index n = x.rows();
    const T a = T(cfg_.alpha);
    auto r = refined_.view(n, cfg_.refinement == Refinement::kScores ? 1 : x.cols());
    switch (cfg_.refinement) {
      case Refinement::kNone:
        r = x;
        break;
      case Refinement::kFeatures:  // (N, 5)
        r = a * ae1_.forward(x);
        r += (T(1) - a) * ae2_.forward(x);
        break;
      case Refinement::kScores:  // (N, 1)
        r = a * w1_.forward_borrowed(ae1_.forward(x));
        r += (T(1) - a) * w2_.forward_borrowed(ae2_.forward(x));
        break;
    }
    // Each layer returns a view of its own buffer; the next one reads it.
    const T* h = r.data();
    Index width = r.cols();
    for (auto& layer : layers_) {  // each reads the previous one's buffer in place
      const auto out = layer.forward_borrowed(ConstView<T>(h, n, width), graph);
      h = out.data();
      width = out.cols();
    }
    auto y = y_.view(n, 1);  // (N, 1)
    Activation::shifted_tanh().forward(ConstView<T>(h, n, 1), y);
    n_ = n;
    return const_view(y);
  }

  // dL/dscores (N, 1) for the last forward() → dL/dx (N, features) (zero when the refinement
  // is not trained, or absent). Accumulates every gradient.
  ConstView<T> backward(const ConstRef<T>& dy) {
    detail::check_shape("gat_ae backward", "gradient", dy.rows(), dy.cols(), n_, 1);
    const Index n = n_, feat = cfg_.autoencoder.inputs;
    auto g = g_.view(n, 1);
    Activation::shifted_tanh().backward(y_.view(n, 1), dy, g);
    const T* gp = g.data();
    Index width = 1;
    for (auto l = layers_.rbegin(); l != layers_.rend(); ++l) {
      const auto gin = l->backward(ConstView<T>(gp, n, width));
      gp = gin.data();
      width = gin.cols();
    }
    const ConstView<T> gh(gp, n, width);  // dL/d(refined features)
    auto dx = dx_.view(n, feat);          // (N, 5)
    const T a = T(cfg_.alpha);
    if (cfg_.refinement == Refinement::kNone) {
      dx = gh;
    } else if (!cfg_.train_refinement) {
      dx.setZero();
    } else {
      auto gr = g_refined_.view(n, gh.cols());
      gr = a * gh;
      dx = cfg_.refinement == Refinement::kScores ? ae1_.backward(w1_.backward(gr))
                                                  : ae1_.backward(gr);
      gr = (T(1) - a) * gh;
      dx += cfg_.refinement == Refinement::kScores ? ae2_.backward(w2_.backward(gr))
                                                   : ae2_.backward(gr);
    }
    return const_view(dx);
  }

  static constexpr std::string_view kind = "gat_ae";  // weight-file model kind
  // "ae1.enc.W" … "ae2.dec.b" (not with Refinement::kNone), "w1.W", "w2.W" (with
  // Refinement::kScores), then "gat.<l>.W", "gat.<l>.att_dst", "gat.<l>.att_src",
  // "gat.<l>.bias".
  ParamListT<T> parameters() {
    ParamListT<T> out;
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
  void zero_grad() {
    ae1_.zero_grad();
    ae2_.zero_grad();
    w1_.zero_grad();
    w2_.zero_grad();
    for (auto& l : layers_) l.zero_grad();
  }

  BasicAutoEncoder<T>& ae1() noexcept { return ae1_; }
  BasicAutoEncoder<T>& ae2() noexcept { return ae2_; }
  BasicLinear<T>& w1() noexcept { return w1_; }
  BasicLinear<T>& w2() noexcept { return w2_; }
  std::vector<BasicGatLayer<T>>& layers() noexcept { return layers_; }
  const std::vector<BasicGatLayer<T>>& layers() const noexcept { return layers_; }

 private:
  GatAeConfig cfg_;
  BasicAutoEncoder<T> ae1_, ae2_;
  BasicLinear<T> w1_, w2_;
  std::vector<BasicGatLayer<T>> layers_;
  Index n_ = 0;
  Workspace<T> refined_, y_, g_, g_refined_, dx_;
};

using GatLayer = BasicGatLayer<float>;
using GatAe = BasicGatAe<float>;

}  // namespace gsearch::nn
