// Implementation of the nn test helpers, and the operator new counter of nn_tests.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::uint64_t> g_new_calls{0};
}

void* operator new(std::size_t n) {
  g_new_calls.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace nn_test {

std::uint64_t allocations() { return g_new_calls.load(std::memory_order_relaxed); }

GradCheck grad_check(const gsearch::nn::ParamListT<double>& params, MatD& x,
                     const std::function<MatD(const MatD&)>& forward,
                     const std::function<MatD(const MatD&)>& backward, std::uint64_t seed,
                     double h) {
  gsearch::Rng rng(seed);
  const MatD y0 = forward(x);
  const MatD r = random_matrix(rng, y0.rows(), y0.cols());
  auto loss = [&] { return forward(x).cwiseProduct(r).sum(); };
  gsearch::nn::zero_grad(params);
  forward(x);
  const MatD dx = backward(r);
  GradCheck out;
  auto compare = [&](double analytic, double& value, const std::string& where) {
    const double saved = value;
    value = saved + h;
    const double up = loss();
    value = saved - h;
    const double down = loss();
    value = saved;
    const double numeric = (up - down) / (2 * h);
    const double err =
        std::abs(analytic - numeric) / std::max({1.0, std::abs(analytic), std::abs(numeric)});
    ++out.checked;
    if (err > out.max_error) {
      out.max_error = err;
      out.worst = where;
    }
  };
  for (const auto& p : params) {
    const MatD grad = *p.grad;  // copied: the loss evaluations below run forward() again
    for (gsearch::nn::Index k = 0; k < p.value->size(); ++k)
      compare(grad.data()[k], p.value->data()[k], p.name + "[" + std::to_string(k) + "]");
  }
  for (gsearch::nn::Index k = 0; k < x.size(); ++k)
    compare(dx.data()[k], x.data()[k], "input[" + std::to_string(k) + "]");
  return out;
}

}  // namespace nn_test
