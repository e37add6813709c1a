// Shared helpers of the nn tests: finite-difference gradient checks in double precision,
// random matrices from a seed, and a guard that fails a test when code allocates.
#pragma once

#include <Eigen/Core>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "gsearch/core/rng.hpp"
#include "gsearch/nn/tensor.hpp"

namespace nn_test {

using MatD = gsearch::nn::MatrixT<double>;

// A (rows, cols) matrix of uniform values in [lo, hi), from `rng`.
inline MatD random_matrix(gsearch::Rng& rng, gsearch::nn::Index rows, gsearch::nn::Index cols,
                          double lo = -1.0, double hi = 1.0) {
  MatD m(rows, cols);
  for (gsearch::nn::Index k = 0; k < m.size(); ++k) m.data()[k] = lo + (hi - lo) * rng.uniform();
  return m;
}

struct GradCheck {
  double max_error = 0;  // the largest |analytic − numeric| / max(1, |analytic|, |numeric|)
  std::string worst;     // where it was: "W[3]" or "input[7]"
  int checked = 0;       // the number of derivatives compared
};

// Compares the gradients a module's backward() computes with central differences, step h,
// of the scalar L = Σ R ⊙ forward(x) for a fixed random R. `forward(x)` runs the module and
// returns its output; `backward(R)` runs its backward pass and returns dL/dx. Gradients of
// `params` are zeroed first.
GradCheck grad_check(const gsearch::nn::ParamListT<double>& params, MatD& x,
                     const std::function<MatD(const MatD&)>& forward,
                     const std::function<MatD(const MatD&)>& backward, std::uint64_t seed,
                     double h = 1e-6);

// The number of calls to global operator new since the start of the program (Eigen's own
// allocations go through malloc and are caught by NoEigenMalloc instead).
std::uint64_t allocations();

// While alive, any allocation by Eigen throws (EIGEN_RUNTIME_NO_MALLOC); allocations through
// operator new are counted and compared by the caller with allocations().
class NoEigenMalloc {
 public:
  NoEigenMalloc() { Eigen::internal::set_is_malloc_allowed(false); }
  ~NoEigenMalloc() { Eigen::internal::set_is_malloc_allowed(true); }
  NoEigenMalloc(const NoEigenMalloc&) = delete;
  NoEigenMalloc& operator=(const NoEigenMalloc&) = delete;
};

}  // namespace nn_test
