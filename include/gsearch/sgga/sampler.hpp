// gsearch/sgga/sampler.hpp — sampling an index in proportion to a weight, in O(log n).
//
// SGGA's repository grows by two or three candidates per generation and is sampled twice per
// generation by softmax of the candidates' objective values. Every candidate is a node of a
// tree of n nodes, so the repository is a multiset of nodes and the probability of drawing
// node i is (entries of i) · exp(objective(i) / T) / total. FenwickSampler keeps those n
// weights in a Fenwick (binary indexed) tree: adding weight to a slot and drawing a slot both
// take O(log n), whatever the size of the repository, and nothing is allocated after reset().
//
// Weights are only ever added, never subtracted, so the partial sums suffer no cancellation.
// clear() empties the tree in O(k log n) given the k slots that received weight, so a run that
// touched a few nodes of a large tree does not pay O(n) to start the next run.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsearch::sgga {

class FenwickSampler {
 public:
  // An empty sampler over zero slots.
  FenwickSampler() = default;

  // Makes the sampler hold `slots` slots, all of weight zero. Allocates only when `slots`
  // exceeds every earlier size.
  void reset(std::size_t slots) {
    tree_.assign(slots + 1, 0.0);
    top_ = slots == 0 ? 0 : std::bit_floor(slots);
    total_ = 0.0;
  }

  // The number of slots.
  [[nodiscard]] std::size_t size() const noexcept { return tree_.empty() ? 0 : tree_.size() - 1; }

  // The sum of all weights, as accumulated by add().
  [[nodiscard]] double total() const noexcept { return total_; }

  // Adds `weight` (finite, >= 0) to slot `i` (< size()). O(log n).
  void add(std::size_t i, double weight) noexcept {
    total_ += weight;
    for (std::size_t k = i + 1; k < tree_.size(); k += k & (~k + 1)) tree_[k] += weight;
  }

  // The weight in slots 0..i-1. O(log n).
  [[nodiscard]] double prefix(std::size_t i) const noexcept {
    double sum = 0.0;
    for (std::size_t k = i; k > 0; k &= k - 1) sum += tree_[k];
    return sum;
  }

  // The slot i with prefix(i) <= u < prefix(i + 1), for u in [0, total()): a slot drawn in
  // proportion to its weight when u = uniform() · total(). Rounding in the partial sums can,
  // at a boundary, return a slot of weight zero or (for u near total()) size() - 1; callers
  // that must never draw an empty slot check the slot they get. O(log n).
  [[nodiscard]] std::size_t find(double u) const noexcept {
    std::size_t pos = 0;
    for (std::size_t step = top_; step != 0; step >>= 1) {
      const std::size_t next = pos + step;
      if (next < tree_.size() && tree_[next] <= u) {
        pos = next;
        u -= tree_[next];
      }
    }
    return pos < size() ? pos : size() - 1;
  }

  // Sets every weight to zero, given every slot that add() was called on since the last
  // reset() or clear() (repeats allowed). O(k log n) for k slots.
  template <class Index>
  void clear(std::span<const Index> used) noexcept {
    for (const Index i : used)
      for (std::size_t k = static_cast<std::size_t>(i) + 1; k < tree_.size(); k += k & (~k + 1))
        tree_[k] = 0.0;
    total_ = 0.0;
  }

 private:
  std::vector<double> tree_;  // tree_[k], k >= 1: the sum of weights in slots (k - lowbit(k), k]
  std::size_t top_ = 0;       // the largest power of two <= size(), for find()
  double total_ = 0.0;        // the sum of everything added since the last reset or clear
};

}  // namespace gsearch::sgga
