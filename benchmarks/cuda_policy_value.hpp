// benchmarks/cuda_policy_value.hpp — nn::cuda::PolicyValueMlp behind a plain C++ class, so
// that code compiled by the host compiler alone (the Amazons rules, the MCTS driver) can run
// the policy-value network on the GPU: the CUDA code is in cuda_policy_value.cu, compiled by
// nvcc. Its forward() has nn::PolicyValueMlp's shape, so amazons::BasicDecisionNet takes it.
#pragma once

#include <memory>

#include "gsearch/nn/policy_value.hpp"
#include "gsearch/nn/tensor.hpp"

namespace bench {

class GpuPolicyValueMlp {
 public:
  // The two heads' outputs for the last batch, on the host: valid until the next forward().
  struct Output {
    gsearch::nn::ConstView<float> logits;  // (B, actions)
    gsearch::nn::ConstView<float> values;  // (B, 1)
  };

  // The architecture and weights of `cpu`, on CUDA device 0. Throws nn::cuda::Error (a
  // std::runtime_error) when CUDA fails.
  explicit GpuPolicyValueMlp(gsearch::nn::PolicyValueMlp& cpu);
  GpuPolicyValueMlp(GpuPolicyValueMlp&&) noexcept;
  GpuPolicyValueMlp& operator=(GpuPolicyValueMlp&&) noexcept;
  ~GpuPolicyValueMlp();

  Output forward(const gsearch::nn::ConstRef<float>& x);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when a CUDA device is present.
bool cuda_device_present();

}  // namespace bench
