// gsearch/nn/conv.hpp — 2-D convolution over board-shaped inputs, forward and backward.
//
// A batch of B images of C channels on an H×W grid is a (B, H·W·C) matrix, channels last:
// row b, column (y·W + x)·C + c. That is the layout of every tensor in gsearch::nn (rows are
// samples), and it makes a convolution one matrix product.
//
// BasicConv2d<T> is a k×k convolution (k odd), stride 1, zero padding r = (k − 1)/2, so the
// output keeps the grid ("same" padding), from C_in to C_out channels:
//   y[b, (py, px), o] = b_o + Σ_{dy, dx < k, c < C_in} W[(dy·k + dx)·C_in + c, o] ·
//                              x[b, (py + dy − r, px + dx − r), c]           (0 off the grid)
// computed as im2col and one product: cols (B·H·W, k²·C_in) · W (k²·C_in, C_out), whose rows
// are the output positions, (B·H·W, C_out) — the output (B, H·W·C_out) in the same layout.
// Backward, given dY: dW += colsᵀ·dY, db += Σ_rows dY, and dX = col2im(dY·Wᵀ), each column
// of cols added back to the input cell it was copied from. A 1×1 convolution is the same
// Linear layer applied at every cell.
//
// W is Glorot-uniform with fan_in = k²·C_in and fan_out = k²·C_out, b zero. As every module
// here, buffers grow to the largest batch seen and are reused (tensor.hpp).
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

template <class T>
class BasicConv2d {
 public:
  BasicConv2d() = default;

  // A k×k convolution from `in` to `out` channels on a height × width grid. Throws
  // std::invalid_argument for a non-positive size or an even k.
  BasicConv2d(Index in, Index out, Index kernel, Index height, Index width, Rng& rng,
              bool bias = true)
      : in_(in), out_(out), k_(kernel), h_(height), w_(width) {
    if (in <= 0 || out <= 0 || kernel <= 0 || kernel % 2 == 0 || height <= 0 || width <= 0)
      throw std::invalid_argument("conv2d: " + std::to_string(in) + "->" + std::to_string(out) +
                                  " channels, kernel " + std::to_string(kernel) + " on " +
                                  shape_string(height, width) +
                                  ": sizes must be positive and the kernel odd");
    weight_ = MatrixT<T>(kernel * kernel * in, out);
    glorot_uniform(weight_, kernel * kernel * in, kernel * kernel * out, rng);
    bias_ = MatrixT<T>::Zero(1, bias ? out : 0);
    dweight_ = MatrixT<T>::Zero(weight_.rows(), weight_.cols());
    dbias_ = MatrixT<T>::Zero(1, bias_.cols());
  }

  [[nodiscard]] Index in_channels() const noexcept { return in_; }
  [[nodiscard]] Index out_channels() const noexcept { return out_; }
  [[nodiscard]] Index kernel() const noexcept { return k_; }
  [[nodiscard]] Index cells() const noexcept { return h_ * w_; }
  [[nodiscard]] Index in_features() const noexcept { return h_ * w_ * in_; }
  [[nodiscard]] Index out_features() const noexcept { return h_ * w_ * out_; }
  [[nodiscard]] bool has_bias() const noexcept { return bias_.cols() > 0; }

  // (B, H·W·C_out) from x (B, H·W·C_in). Keeps the im2col of x for backward().
  ConstView<T> forward(const ConstRef<T>& x) {
    detail::check_shape("conv2d", "input", x.rows(), x.cols(), -1, in_features());
    batch_ = x.rows();
    const Index taps = k_ * k_ * in_, r = k_ / 2;
    auto cols = cols_.view(batch_ * cells(), taps);
    for (Index b = 0; b < batch_; ++b) {
      const T* src = x.row(b).data();
      for (Index py = 0; py < h_; ++py)
        for (Index px = 0; px < w_; ++px) {
          T* dst = cols.row((b * h_ + py) * w_ + px).data();
          for (Index dy = 0; dy < k_; ++dy) {
            const Index sy = py + dy - r;
            for (Index dx = 0; dx < k_; ++dx, dst += in_) {
              const Index sx = px + dx - r;
              if (sy < 0 || sy >= h_ || sx < 0 || sx >= w_)
                std::fill(dst, dst + in_, T(0));
              else
                std::copy(src + (sy * w_ + sx) * in_, src + (sy * w_ + sx + 1) * in_, dst);
            }
          }
        }
    }
    auto y = y_.view(batch_ * cells(), out_);
    y.noalias() = cols * weight_;
    if (has_bias()) y.rowwise() += bias_.row(0);
    return ConstView<T>(y.data(), batch_, out_features());
  }

  // Given dL/dy (B, H·W·C_out) for the last forward(): accumulates dL/dW and dL/db, and
  // returns dL/dx (B, H·W·C_in).
  ConstView<T> backward(const ConstRef<T>& dy) {
    detail::check_shape("conv2d backward", "gradient", dy.rows(), dy.cols(), batch_,
                        out_features());
    const Index taps = k_ * k_ * in_, r = k_ / 2;
    auto g = dy_.view(batch_ * cells(), out_);
    for (Index b = 0; b < batch_; ++b)  // rows of dy may be strided: one copy, as positions
      Eigen::Map<MatrixT<T>>(g.row(b * cells()).data(), 1, out_features()) = dy.row(b);
    const ConstView<T> cols(cols_.view(batch_ * cells(), taps).data(), batch_ * cells(), taps);
    dweight_.noalias() += cols.transpose() * g;
    if (has_bias()) dbias_ += g.colwise().sum();
    auto dcols = dcols_.view(batch_ * cells(), taps);
    dcols.noalias() = g * weight_.transpose();
    auto dx = dx_.view(batch_, in_features());
    dx.setZero();
    for (Index b = 0; b < batch_; ++b) {
      T* dst = dx.row(b).data();
      for (Index py = 0; py < h_; ++py)
        for (Index px = 0; px < w_; ++px) {
          const T* src = dcols.row((b * h_ + py) * w_ + px).data();
          for (Index dyk = 0; dyk < k_; ++dyk) {
            const Index sy = py + dyk - r;
            for (Index dxk = 0; dxk < k_; ++dxk, src += in_) {
              const Index sx = px + dxk - r;
              if (sy < 0 || sy >= h_ || sx < 0 || sx >= w_) continue;
              T* cell = dst + (sy * w_ + sx) * in_;
              for (Index c = 0; c < in_; ++c) cell[c] += src[c];
            }
          }
        }
    }
    return const_view(dx);
  }

  // Appends "<prefix>W" (and "<prefix>b") to `out`.
  void parameters(ParamListT<T>& out, const std::string& prefix) {
    out.push_back({prefix + "W", &weight_, &dweight_});
    if (has_bias()) out.push_back({prefix + "b", &bias_, &dbias_});
  }
  void zero_grad() {
    dweight_.setZero();
    dbias_.setZero();
  }

  MatrixT<T>& weight() noexcept { return weight_; }  // (k²·C_in, C_out)
  MatrixT<T>& bias() noexcept { return bias_; }      // (1, C_out), or (1, 0) without bias
  const MatrixT<T>& weight_grad() const noexcept { return dweight_; }
  const MatrixT<T>& bias_grad() const noexcept { return dbias_; }

 private:
  Index in_ = 0, out_ = 0, k_ = 1, h_ = 0, w_ = 0;
  MatrixT<T> weight_, bias_, dweight_, dbias_;
  Workspace<T> cols_, y_, dy_, dcols_, dx_;
  Index batch_ = 0;  // B of the last forward()
};

using Conv2d = BasicConv2d<float>;

}  // namespace gsearch::nn
