// The CUDA half of cuda_policy_value.hpp.
#include "cuda_policy_value.hpp"

#include "gsearch/nn/cuda/backend.cuh"

namespace bench {

namespace cu = gsearch::nn::cuda;

struct GpuPolicyValueMlp::Impl {
  cu::Context ctx;
  cu::PolicyValueMlp net;
  explicit Impl(gsearch::nn::PolicyValueMlp& cpu) : net(ctx, cpu) {}
};

GpuPolicyValueMlp::GpuPolicyValueMlp(gsearch::nn::PolicyValueMlp& cpu)
    : impl_(std::make_unique<Impl>(cpu)) {}
GpuPolicyValueMlp::GpuPolicyValueMlp(GpuPolicyValueMlp&&) noexcept = default;
GpuPolicyValueMlp& GpuPolicyValueMlp::operator=(GpuPolicyValueMlp&&) noexcept = default;
GpuPolicyValueMlp::~GpuPolicyValueMlp() = default;

GpuPolicyValueMlp::Output GpuPolicyValueMlp::forward(const gsearch::nn::ConstRef<float>& x) {
  const auto out = impl_->net.infer(impl_->ctx, x);
  const auto view = [](const gsearch::nn::Matrix& m) {
    return gsearch::nn::ConstView<float>(m.data(), m.rows(), m.cols());
  };
  return {view(out.logits), view(out.values)};
}

bool cuda_device_present() { return cu::device_count() > 0; }

}  // namespace bench
