// gsearch/nn/cuda/cublas.cuh — a cuBLAS handle bound to a stream, and row-major GEMM.
//
// cuBLAS is column-major; gsearch's tensors are row-major. A row-major (r, c) matrix is, in
// the same memory, the column-major (c, r) matrix of its transpose. So the row-major product
// C = op(A)·op(B) is computed as the column-major product Cᵀ = op(B)ᵀ·op(A)ᵀ: cublasSgemm with
// the operands swapped, m and n swapped, and each leading dimension the row length of the
// matrix as stored.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gsearch/nn/cuda/check.cuh"

namespace gsearch::nn::cuda {

// A CUDA stream and a cuBLAS handle that runs on it. Not copyable; one per thread.
class Context {
 public:
  Context() {
    GSEARCH_CUDA_CHECK(cudaStreamCreate(&stream_));
    const auto s = cublasCreate(&handle_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cudaStreamDestroy(stream_);
      GSEARCH_CUBLAS_CHECK(s);
    }
    GSEARCH_CUBLAS_CHECK(cublasSetStream(handle_, stream_));
  }
  ~Context() {
    cublasDestroy(handle_);
    cudaStreamDestroy(stream_);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }
  [[nodiscard]] cublasHandle_t cublas() const noexcept { return handle_; }
  // Waits until everything queued on the stream has run.
  void synchronize() const { GSEARCH_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

// Row-major C (m, n) = alpha · op(A) · op(B) + beta · C, with op(A) (m, k) and op(B) (k, n).
// lda, ldb, ldc are the row lengths of A, B, C as stored (A is (m, k) when !trans_a, (k, m)
// when trans_a). Nothing is done when m, n or k is 0 except scaling by beta.
inline void gemm(const Context& ctx, bool trans_a, bool trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  if (m == 0 || n == 0) return;
  GSEARCH_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a,
                                   lda, &beta, c, ldc));
}

}  // namespace gsearch::nn::cuda
