// gsearch/nn/cuda/buffer.cuh — device memory that grows and never shrinks.
//
// A DeviceBuffer<T> owns one cudaMalloc'd block. reserve(n) reallocates only when n exceeds
// the capacity (the contents are then lost), so a model that runs batch after batch allocates
// only when a batch is larger than every batch before it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

#include "gsearch/nn/cuda/check.cuh"

namespace gsearch::nn::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { reserve(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }

  // Makes room for n elements; returns the (possibly new) device pointer.
  T* reserve(std::size_t n) {
    if (n > capacity_) {
      release();
      GSEARCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
      capacity_ = n;
    }
    return data_;
  }

  // Copies `host` to the start of the buffer (growing it), asynchronously on `stream`: the
  // host memory must stay alive until the stream reaches this copy.
  T* upload(std::span<const T> host, cudaStream_t stream) {
    reserve(host.size());
    if (!host.empty())
      GSEARCH_CUDA_CHECK(
          cudaMemcpyAsync(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
    return data_;
  }

  // Copies the first host.size() elements back, then waits for `stream`.
  void download(std::span<T> host, cudaStream_t stream) const {
    if (host.empty()) return;
    GSEARCH_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), data_, host.size_bytes(), cudaMemcpyDeviceToHost, stream));
    GSEARCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // Sets the first n elements to zero bytes, on `stream`.
  void zero(std::size_t n, cudaStream_t stream) {
    reserve(n);
    if (n > 0) GSEARCH_CUDA_CHECK(cudaMemsetAsync(data_, 0, n * sizeof(T), stream));
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace gsearch::nn::cuda
