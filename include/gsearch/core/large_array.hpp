// gsearch/core/large_array.hpp — a fixed-size, zero-filled array of trivially copyable values
// for big hash tables, on large pages where the system offers them.
//
// A transposition table of a few GiB is probed at random: with 4 KiB pages nearly every probe
// also misses the TLB and walks the page tables, which costs as much as the probe itself.
// LargeArray allocates on 2 MiB boundaries and asks Linux for transparent huge pages
// (madvise(MADV_HUGEPAGE), honoured when /sys/kernel/mm/transparent_hugepage/enabled says
// "always" or "madvise"), as Stockfish does for its table. Elsewhere, or when the system
// declines, it is an ordinary array; the contents are the same either way.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gsearch {

template <class T>
class LargeArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  LargeArray() = default;
  // n values, every byte zero (a T whose all-zero bytes are its empty state suits best).
  explicit LargeArray(std::size_t n) { reset(n); }
  LargeArray(const LargeArray&) = delete;
  LargeArray& operator=(const LargeArray&) = delete;
  LargeArray(LargeArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  LargeArray& operator=(LargeArray&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~LargeArray() { release(); }

  // Replaces the contents with n zero-filled values. Throws std::bad_alloc when memory is
  // short (the old contents are gone by then).
  void reset(std::size_t n) {
    release();
    if (n == 0) return;
    constexpr std::size_t kAlign = std::size_t{2} << 20;
    const std::size_t bytes = (n * sizeof(T) + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, bytes);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);  // a hint: failure leaves ordinary pages
#endif
    std::memset(p, 0, bytes);
    data_ = static_cast<T*>(p);
    size_ = n;
  }
  // Sets every byte to zero.
  void clear() noexcept {
    if (data_) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

 private:
  void release() noexcept {
    std::free(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace gsearch
