// gsearch/core/move_list.hpp — a fixed-capacity list of moves that never allocates.
//
// Move generation writes into a MoveList owned by the caller (usually on the stack), so a
// search allocates nothing per node. The capacity is a compile-time constant that each game
// proves to be an upper bound on its number of legal moves (see Game::max_moves).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gsearch/core/assert.hpp"

namespace gsearch {

template <class Move, std::size_t Capacity>
class MoveList {
  static_assert(std::is_trivially_copyable_v<Move>, "moves must be trivially copyable");
  static_assert(Capacity > 0);

 public:
  using value_type = Move;
  using size_type = std::size_t;
  using iterator = Move*;
  using const_iterator = const Move*;

  static constexpr std::size_t capacity() noexcept { return Capacity; }

  // Appends a move. The caller guarantees that size() < capacity(); the game's proof of
  // max_moves is what makes this true during move generation.
  constexpr void push_back(const Move& m) noexcept {
    GSEARCH_ASSERT(size_ < Capacity);
    storage_.moves[size_++] = m;
  }
  constexpr void clear() noexcept { size_ = 0; }
  // Shrinks the list to its first n moves (n <= size()).
  constexpr void truncate(std::size_t n) noexcept {
    GSEARCH_ASSERT(n <= size_);
    size_ = n;
  }

  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

  constexpr Move& operator[](std::size_t i) noexcept {
    GSEARCH_ASSERT(i < size_);
    return storage_.moves[i];
  }
  constexpr const Move& operator[](std::size_t i) const noexcept {
    GSEARCH_ASSERT(i < size_);
    return storage_.moves[i];
  }

  constexpr Move* begin() noexcept { return storage_.moves; }
  constexpr Move* end() noexcept { return storage_.moves + size_; }
  constexpr const Move* begin() const noexcept { return storage_.moves; }
  constexpr const Move* end() const noexcept { return storage_.moves + size_; }
  constexpr Move* data() noexcept { return storage_.moves; }
  constexpr const Move* data() const noexcept { return storage_.moves; }

 private:
  // Left uninitialised: a move is written (push_back) before it is read, so a list costs
  // nothing to create, whatever Move's default constructor does (a std::array of a Move with
  // member initialisers would be zero-filled on every construction: 15 KB for Amazons).
  union Storage {
    constexpr Storage() noexcept {}
    Move moves[Capacity];
  };
  Storage storage_;
  std::size_t size_ = 0;
};

// Sorts list[from..] by key, highest first, ties in their current order (so the sort is
// deterministic); keys[i] belongs to list[i] and is permuted with it. With `keep` < the
// number sorted, only the best `keep` are kept, sorted, and the list is cut after them: the
// same moves in the same order as a whole sort and a cut, found by a selection first, which
// costs far less than sorting when `keep` is a small part of the list (the keys past the
// cut are left in no particular order). No allocation.
template <class Move, std::size_t Capacity, class Key>
void sort_by_key_descending(MoveList<Move, Capacity>& list, Key* keys, std::size_t from = 0,
                            std::size_t keep = Capacity) {
  const std::size_t n = std::min(list.size(), Capacity);  // (the min informs the compiler)
  if (n <= from + 1) return;
  const std::size_t kept = std::min(keep, n - from);  // the number of sorted moves left
  std::array<std::uint16_t, Capacity> order;
  static_assert(Capacity <= 65536);
  for (std::size_t i = from; i < n; ++i) order[i] = static_cast<std::uint16_t>(i);
  const auto better = [&](std::uint16_t a, std::uint16_t b) {  // a total order
    return keys[a] > keys[b] || (keys[a] == keys[b] && a < b);
  };
  const auto first = order.begin() + from;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"  // GCC 12 misreads std::sort on small arrays
#endif
  if (kept < n - from) std::nth_element(first, first + kept, order.begin() + n, better);
  std::sort(first, first + kept, better);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  MoveList<Move, Capacity> moves;  // (uninitialised storage: nothing to fill)
  std::array<Key, Capacity> sorted_keys;
  for (std::size_t i = from; i < from + kept; ++i) {
    moves.push_back(list[order[i]]);
    sorted_keys[i] = keys[order[i]];
  }
  for (std::size_t i = from; i < from + kept; ++i) {
    list[i] = moves[i - from];
    keys[i] = sorted_keys[i];
  }
  if (kept < n - from) list.truncate(from + kept);
}

}  // namespace gsearch
