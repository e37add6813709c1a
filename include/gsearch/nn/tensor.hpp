// gsearch/nn/tensor.hpp — float32 tensors as Eigen row-major matrices, parameter lists,
// grow-only workspaces and Glorot initialisation.
//
// Every tensor in gsearch::nn is a 2-D row-major Eigen matrix whose rows are samples (or graph
// nodes) and whose columns are features: a batch of B five-feature vectors is (B, 5), the
// hidden states of an N-node graph with 4 heads of 8 channels are (N, 32). Modules are
// templates on the scalar type T: float (the aliases without `Basic`) is what engines run;
// double exists so that tests can check hand-written gradients by finite differences.
//
// Modules own their buffers. forward() and backward() write into Workspace buffers that grow
// to the largest shape seen and never shrink, so after the first call at a given size (or any
// smaller size) they allocate nothing. They return views into those buffers, valid until the
// module's next call. backward() uses what the last forward() of the same object kept: a copy
// of a module made between the two must run its own forward() before its backward().
#pragma once

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace gsearch::nn {

using Index = Eigen::Index;

// A (rows, cols) row-major matrix of T: rows are samples or nodes.
template <class T>
using MatrixT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = MatrixT<float>;

// What modules take as input: a Matrix, a Map, or a block of whole rows of either, without a
// copy (any outer stride, contiguous rows).
template <class T>
using ConstRef = Eigen::Ref<const MatrixT<T>>;

// What modules return: a read-only view into the module's own buffer, valid until its next
// forward() or backward() call.
template <class T>
using ConstView = Eigen::Map<const MatrixT<T>>;
template <class T>
using View = Eigen::Map<MatrixT<T>>;

// A read-only view of the same memory as `v`.
template <class T>
ConstView<T> const_view(const View<T>& v) noexcept {
  return ConstView<T>(v.data(), v.rows(), v.cols());
}

// "5x32": how shapes are written in messages and weight files.
inline std::string shape_string(Index rows, Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

// One learnable tensor: its dotted name ("gat.0.W"), its value and the gradient that
// backward() accumulates into (same shape). Pointers into the module that listed it: valid
// while that module lives and is not moved.
template <class T>
struct BasicParam {
  std::string name;
  MatrixT<T>* value = nullptr;
  MatrixT<T>* grad = nullptr;
};
using Param = BasicParam<float>;
template <class T>
using ParamListT = std::vector<BasicParam<T>>;
using ParamList = ParamListT<float>;

// Sets every gradient in `params` to zero (backward() accumulates, as in PyTorch).
template <class T>
void zero_grad(const ParamListT<T>& params) {
  for (const auto& p : params) p.grad->setZero();
}

// The total number of scalars in `params`.
template <class T>
[[nodiscard]] Index parameter_count(const ParamListT<T>& params) {
  Index n = 0;
  for (const auto& p : params) n += p.value->size();
  return n;
}

// Grow-only storage seen as a row-major matrix. view(rows, cols) reallocates only when
// rows * cols exceeds every size asked for before; the contents are unspecified after a
// reallocation and kept otherwise.
template <class T>
class Workspace {
 public:
  View<T> view(Index rows, Index cols) {
    const Index need = rows * cols;
    if (need > data_.size()) data_.resize(need);
    return View<T>(data_.data(), rows, cols);
  }
  // The capacity in scalars (for tests of the no-allocation contract).
  [[nodiscard]] Index capacity() const noexcept { return data_.size(); }

 private:
  Eigen::Matrix<T, Eigen::Dynamic, 1> data_;
};

// Fills `w` with Glorot/Xavier uniform values, U(-a, a) with a = sqrt(6 / (fan_in + fan_out))
// (Glorot & Bengio, 2010), drawn from `rng` in row-major order. The draws are doubles, so a
// float and a double model built from the same seed hold the same values up to rounding.
template <class T>
void glorot_uniform(MatrixT<T>& w, Index fan_in, Index fan_out, Rng& rng) {
  const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  for (Index r = 0; r < w.rows(); ++r)
    for (Index c = 0; c < w.cols(); ++c) w(r, c) = static_cast<T>((2.0 * rng.uniform() - 1.0) * a);
}

namespace detail {

// Throws std::invalid_argument("<who>: <what> has shape RxC, expected ...") unless the shape
// matches; `cols` < 0 means any.
inline void check_shape(const char* who, const char* what, Index rows, Index cols, Index want_rows,
                        Index want_cols) {
  if ((want_rows >= 0 && rows != want_rows) || (want_cols >= 0 && cols != want_cols)) {
    const std::string r = want_rows >= 0 ? std::to_string(want_rows) : std::string("N");
    const std::string c = want_cols >= 0 ? std::to_string(want_cols) : std::string("N");
    throw std::invalid_argument(std::string(who) + ": " + what + " has shape " +
                                shape_string(rows, cols) + ", expected " + r + "x" + c);
  }
}

// Throws std::invalid_argument("<who>: alpha A is outside [0, 1]") unless 0 <= alpha <= 1
// (α of eq. 14).
inline void check_alpha(const char* who, double alpha) {
  if (!(alpha >= 0.0 && alpha <= 1.0))
    throw std::invalid_argument(std::string(who) + ": alpha " + std::to_string(alpha) +
                                " is outside [0, 1]");
}

}  // namespace detail
}  // namespace gsearch::nn
