// gsearch/nn/cuda/check.cuh — CUDA and cuBLAS return codes turned into exceptions.
//
// Every CUDA runtime and cuBLAS call in gsearch::nn::cuda goes through GSEARCH_CUDA_CHECK or
// GSEARCH_CUBLAS_CHECK; kernel launches are followed by GSEARCH_CUDA_CHECK_LAUNCH(). A failure
// throws gsearch::nn::cuda::Error with a one-line message naming the call, the source line and
// the error: "<call> failed at buffer.cuh:41: out of memory".
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gsearch::nn::cuda {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline const char* cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "architecture mismatch";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "mapping error";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "not supported";
    default:
      return "unknown cuBLAS status";
  }
}

inline std::string where(const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line);
}

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw Error(std::string(what) + " failed at " + where(file, line) + ": " +
                cudaGetErrorString(e));
}

inline void check_cublas(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string(what) + " failed at " + where(file, line) + ": cuBLAS " +
                cublas_status_name(s));
}

}  // namespace detail

// The number of CUDA devices, 0 when the driver or the runtime reports none or fails.
inline int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error of a failed query
    return 0;
  }
  return n;
}

}  // namespace gsearch::nn::cuda

#define GSEARCH_CUDA_CHECK(expr) \
  ::gsearch::nn::cuda::detail::check_cuda((expr), #expr, __FILE__, __LINE__)
#define GSEARCH_CUBLAS_CHECK(expr) \
  ::gsearch::nn::cuda::detail::check_cublas((expr), #expr, __FILE__, __LINE__)
#define GSEARCH_CUDA_CHECK_LAUNCH() \
  ::gsearch::nn::cuda::detail::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
