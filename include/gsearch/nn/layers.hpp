// gsearch/nn/layers.hpp — activations and the Linear layer, forward and backward.
//
// Activation is a small value (a kind and, for LeakyReLU, a slope) that maps a matrix element
// by element. Its backward pass needs only the forward OUTPUT, so modules keep y and not x:
//   identity      y = x                       dy/dx = 1
//   relu          y = max(x, 0)               dy/dx = [y > 0]
//   leaky_relu    y = x if x > 0 else s·x     dy/dx = 1 if y > 0 else s        (s >= 0)
//   elu           y = x if x > 0 else e^x − 1 dy/dx = 1 if y > 0 else y + 1
//   tanh          y = tanh x                  dy/dx = 1 − y²
//   shifted_tanh  y = (tanh x + 1) / 2        dy/dx = (1 − tanh² x)/2 = 2y(1 − y)   (eq. 15)
//
// BasicLinear<T> is y = x·W + b with W of shape (in, out) and b of shape (1, out), so a batch
// of row vectors x (B, in) maps to (B, out). W is initialised Glorot-uniform from a seed, b to
// zero.
#pragma once

#include <Eigen/Core>

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

enum class ActivationKind { kIdentity, kRelu, kLeakyRelu, kElu, kTanh, kShiftedTanh };

struct Activation {
  ActivationKind kind = ActivationKind::kIdentity;
  double slope = 0.2;  // the negative slope of leaky_relu; unused by the other kinds

  static constexpr Activation identity() noexcept { return {}; }
  static constexpr Activation relu() noexcept { return {.kind = ActivationKind::kRelu}; }
  static constexpr Activation leaky_relu(double s) noexcept {
    return {.kind = ActivationKind::kLeakyRelu, .slope = s};
  }
  static constexpr Activation elu() noexcept { return {.kind = ActivationKind::kElu}; }
  static constexpr Activation tanh() noexcept { return {.kind = ActivationKind::kTanh}; }
  static constexpr Activation shifted_tanh() noexcept {
    return {.kind = ActivationKind::kShiftedTanh};
  }

  // The name used in messages and docs ("leaky_relu").
  [[nodiscard]] constexpr std::string_view name() const noexcept {
    switch (kind) {
      case ActivationKind::kIdentity:
        return "identity";
      case ActivationKind::kRelu:
        return "relu";
      case ActivationKind::kLeakyRelu:
        return "leaky_relu";
      case ActivationKind::kElu:
        return "elu";
      case ActivationKind::kTanh:
        return "tanh";
      case ActivationKind::kShiftedTanh:
        return "shifted_tanh";
    }
    return "?";
  }

  // Throws std::invalid_argument for a negative or non-finite leaky_relu slope (a negative
  // slope would make the backward pass ambiguous from the output alone).
  void validate() const {
    if (kind == ActivationKind::kLeakyRelu && !(slope >= 0.0 && slope < 1e30))
      throw std::invalid_argument("activation leaky_relu: slope " + std::to_string(slope) +
                                  " is not a finite number >= 0");
  }

  // y = f(x), element by element; y may be x itself. Same shapes.
  template <class X, class Y>
  void forward(const X& x, Y&& y) const {
    using T = typename std::decay_t<X>::Scalar;
    switch (kind) {
      case ActivationKind::kIdentity:
        y = x;
        break;
      case ActivationKind::kRelu:
        y = x.array().max(T(0)).matrix();
        break;
      // Written without select(), which Eigen 3.4 does not vectorise:
      // leaky(x) = max(x, 0) + s·min(x, 0), elu(x) = max(x, 0) + exp(min(x, 0)) − 1.
      case ActivationKind::kLeakyRelu:
        y = (x.array().max(T(0)) + T(slope) * x.array().min(T(0))).matrix();
        break;
      case ActivationKind::kElu:
        y = (x.array().max(T(0)) + x.array().min(T(0)).exp() - T(1)).matrix();
        break;
      case ActivationKind::kTanh:
        y = x.array().tanh().matrix();
        break;
      case ActivationKind::kShiftedTanh:
        y = (T(0.5) * x.array().tanh() + T(0.5)).matrix();
        break;
    }
  }

  // dx = dy ⊙ f'(x), computed from the forward output y; dx may be dy itself.
  template <class Y, class DY, class DX>
  void backward(const Y& y, const DY& dy, DX&& dx) const {
    using T = typename std::decay_t<Y>::Scalar;
    const auto a = y.array();
    switch (kind) {
      case ActivationKind::kIdentity:
        dx = dy;
        break;
      case ActivationKind::kRelu:
        dx = (a > T(0)).select(dy.array(), T(0)).matrix();
        break;
      case ActivationKind::kLeakyRelu:
        dx = (a > T(0)).select(dy.array(), T(slope) * dy.array()).matrix();
        break;
      case ActivationKind::kElu:  // 1 if y > 0, else y + 1
        dx = (dy.array() * (a.min(T(0)) + T(1))).matrix();
        break;
      case ActivationKind::kTanh:
        dx = (dy.array() * (T(1) - a.square())).matrix();
        break;
      case ActivationKind::kShiftedTanh:
        dx = (dy.array() * (T(2) * a * (T(1) - a))).matrix();
        break;
    }
  }
};

// y = x·W + b.
template <class T>
class BasicLinear {
 public:
  // An empty 0→0 layer (a placeholder to assign to).
  BasicLinear() = default;

  // An in→out layer, W Glorot-uniform from `rng`, b zero (absent when !bias).
  BasicLinear(Index in, Index out, Rng& rng, bool bias = true)
      : w_(in, out), b_(MatrixT<T>::Zero(1, bias ? out : 0)) {
    if (in <= 0 || out <= 0)
      throw std::invalid_argument("linear: shape " + shape_string(in, out) + " must be positive");
    glorot_uniform(w_, in, out, rng);
    dw_ = MatrixT<T>::Zero(in, out);
    db_ = MatrixT<T>::Zero(1, b_.cols());
  }

  [[nodiscard]] Index in() const noexcept { return w_.rows(); }
  [[nodiscard]] Index out() const noexcept { return w_.cols(); }
  [[nodiscard]] bool has_bias() const noexcept { return b_.cols() > 0; }

  // (B, out) = x (B, in) · W + b. Keeps a copy of x for backward().
  ConstView<T> forward(const ConstRef<T>& x) {
    detail::check_shape("linear", "input", x.rows(), x.cols(), -1, in());
    auto xs = x_.view(x.rows(), x.cols());
    xs = x;
    return forward_borrowed(const_view(xs));
  }

  // As forward(), but backward() will read x where it is: x must stay alive and unchanged
  // until then. For modules chaining layers through their own buffers (no copy).
  ConstView<T> forward_borrowed(const ConstView<T>& x) {
    detail::check_shape("linear", "input", x.rows(), x.cols(), -1, in());
    rows_ = x.rows();
    input_ = x.data();
    auto y = y_.view(x.rows(), out());
    // The paper's autoencoder and heads (5→3, 3→5, 5→1) are compiled for their shapes: a
    // fixed-size product per row beats a general matrix product at these sizes. Any other
    // shape takes Eigen's general product.
    if constexpr (std::is_same_v<T, float>) {
      if (in() == 5 && out() == 3) return product<5, 3>(x, y);
      if (in() == 3 && out() == 5) return product<3, 5>(x, y);
      if (in() == 5 && out() == 1) return product<5, 1>(x, y);
    }
    y.noalias() = x * w_;
    if (has_bias()) y.rowwise() += b_.row(0);
    return const_view(y);
  }

  // Given dL/dy (B, out) for the last forward(): accumulates dL/dW += xᵀ·dy and
  // dL/db += Σ_rows dy, and returns dL/dx = dy·Wᵀ (B, in).
  ConstView<T> backward(const ConstRef<T>& dy) {
    const Index n = rows_;
    detail::check_shape("linear backward", "gradient", dy.rows(), dy.cols(), n, out());
    const ConstView<T> x(input_, n, in());
    dw_.noalias() += x.transpose() * dy;
    if (has_bias()) db_ += dy.colwise().sum();
    auto dx = dx_.view(n, in());
    dx.noalias() = dy * w_.transpose();
    return const_view(dx);
  }

  // Appends "<prefix>W" (and "<prefix>b") to `out`.
  void parameters(ParamListT<T>& out, const std::string& prefix) {
    out.push_back({prefix + "W", &w_, &dw_});
    if (has_bias()) out.push_back({prefix + "b", &b_, &db_});
  }
  void zero_grad() {
    dw_.setZero();
    db_.setZero();
  }

  MatrixT<T>& weight() noexcept { return w_; }  // (in, out)
  MatrixT<T>& bias() noexcept { return b_; }    // (1, out), or (1, 0) without bias
  const MatrixT<T>& weight() const noexcept { return w_; }
  const MatrixT<T>& bias() const noexcept { return b_; }
  const MatrixT<T>& weight_grad() const noexcept { return dw_; }
  const MatrixT<T>& bias_grad() const noexcept { return db_; }

 private:
  // y = x·W + b with W of compile-time shape kIn x kOut.
  template <int kIn, int kOut>
  ConstView<T> product(const ConstView<T>& x, View<T>& y) const {
    constexpr int kOrder = kOut == 1 ? Eigen::ColMajor : Eigen::RowMajor;
    const Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, kIn, Eigen::RowMajor>> xf(
        x.data(), x.rows(), kIn);
    const Eigen::Map<const Eigen::Matrix<T, kIn, kOut, kOrder>> wf(w_.data());
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, kOut, kOrder>> yf(y.data(), y.rows(), kOut);
    yf.noalias() = xf.lazyProduct(wf);
    if (has_bias()) yf.rowwise() += Eigen::Map<const Eigen::Matrix<T, 1, kOut>>(b_.data());
    return const_view(y);
  }

  MatrixT<T> w_, b_, dw_, db_;
  Workspace<T> x_, y_, dx_;   // (B, in), (B, out), (B, in)
  Index rows_ = 0;            // B of the last forward()
  const T* input_ = nullptr;  // its input (B, in): x_, or the caller's borrowed rows
};

using Linear = BasicLinear<float>;

}  // namespace gsearch::nn
