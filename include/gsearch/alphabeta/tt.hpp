// gsearch/alphabeta/tt.hpp — the transposition table of the alpha-beta search.
//
// One entry per slot, indexed by the low bits of the position's 64-bit hash and checked with
// the whole hash. Replacement is depth-preferred: an entry is overwritten by a search of at
// least the same depth, by any entry of a newer search (generation), or by any entry for
// another position when the stored one is shallower. Scores of won or lost positions are
// stored relative to the node (distance to the end from here), not to the root, so that they
// stay right when the same position is met at another ply. The table lives on large pages
// where the system offers them (core/large_array.hpp).
#pragma once

#include <cstdint>

#include "gsearch/core/game.hpp"
#include "gsearch/core/large_array.hpp"

namespace gsearch::alphabeta {

using Score = std::int32_t;
inline constexpr Score kWin = 1'000'000;  // a win now; a win n plies away scores kWin - n
inline constexpr Score kInfinity = kWin + 1;
inline constexpr int kMaxPly = 256;

// True for scores that mean a forced win or loss (within kMaxPly plies).
constexpr bool is_decisive(Score s) noexcept {
  return s >= kWin - kMaxPly || s <= -(kWin - kMaxPly);
}

enum class Bound : std::uint8_t { kNone = 0, kExact, kLower, kUpper };

template <MoveType Move>
struct TTEntry {
  std::uint64_t key = 0;
  Score score = 0;
  Move move{};
  std::uint8_t depth = 0;
  Bound bound = Bound::kNone;
  std::uint8_t generation = 0;
  bool has_move = false;
};

template <MoveType Move>
class TranspositionTable {
 public:
  using Entry = TTEntry<Move>;

  // A table of 2^k entries taking at most `megabytes` MiB (at least 1024 entries).
  explicit TranspositionTable(std::size_t megabytes = 16) { resize(megabytes); }

  void resize(std::size_t megabytes) {
    std::size_t n = 1024;
    while (n * 2 * sizeof(Entry) <= megabytes * 1024 * 1024) n *= 2;
    entries_.reset(n);  // zero bytes: every entry empty (Bound::kNone)
    mask_ = n - 1;
  }
  void clear() { entries_.clear(); }
  // Starts a new search: older entries become replaceable.
  void new_search() noexcept { ++generation_; }

  // The entry for `key`, or nullptr. Its score is already converted to be relative to `ply`.
  [[nodiscard]] const Entry* probe(std::uint64_t key, int ply, Entry& out) const noexcept {
    const Entry& e = entries_[key & mask_];
    if (e.bound == Bound::kNone || e.key != key) return nullptr;
    out = e;
    out.score = from_tt(e.score, ply);
    return &out;
  }

  // Starts loading the slot of `key` into the cache (a probe soon after then finds it there).
  void prefetch(std::uint64_t key) const noexcept { __builtin_prefetch(&entries_[key & mask_]); }

  void store(std::uint64_t key, int ply, int depth, Score score, Bound bound,
             const Move* move) noexcept {
    Entry& e = entries_[key & mask_];
    const bool same = e.key == key;
    if (e.bound != Bound::kNone && e.generation == generation_ && depth < e.depth &&
        !(same && bound == Bound::kExact))
      return;                                         // keep the deeper entry of this search
    if (same && !move && e.has_move) move = &e.move;  // keep the best move we had
    e.key = key;
    e.score = to_tt(score, ply);
    e.depth = static_cast<std::uint8_t>(depth < 0 ? 0 : depth > 255 ? 255 : depth);
    e.bound = bound;
    e.generation = generation_;
    e.has_move = move != nullptr;
    if (move) e.move = *move;
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  static Score to_tt(Score s, int ply) noexcept {
    return s >= kWin - kMaxPly ? s + ply : s <= -(kWin - kMaxPly) ? s - ply : s;
  }
  static Score from_tt(Score s, int ply) noexcept {
    return s >= kWin - kMaxPly ? s - ply : s <= -(kWin - kMaxPly) ? s + ply : s;
  }

  LargeArray<Entry> entries_;
  std::size_t mask_ = 0;
  std::uint8_t generation_ = 0;
};

}  // namespace gsearch::alphabeta
