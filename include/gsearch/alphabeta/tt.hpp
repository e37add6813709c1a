// gsearch/alphabeta/tt.hpp — the transposition table of the alpha-beta search.
//
// One entry per slot, indexed by the low bits of the position's 64-bit hash and checked with
// the whole hash. Replacement is depth-preferred: an entry is overwritten by a search of at
// least the same depth, by any entry of a newer search (generation), or by any entry for
// another position when the stored one is shallower. Scores of won or lost positions are
// stored relative to the node (distance to the end from here), not to the root, so that they
// stay right when the same position is met at another ply. The table lives on large pages
// where the system offers them (core/large_array.hpp).
//
// Shared tables (Lazy SMP, alphabeta.hpp): after share(), several threads may probe and store
// at once; each slot is then guarded by one of 4,096 spin locks (slot index mod 4,096), held
// only while an entry is copied. A probe's copy is a whole entry, never a mix of two stores.
// Without share() no lock is taken.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

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
  // Lets several threads use the table at once (above). Call before they start.
  void share() {
    if (!locks_) locks_ = std::make_unique<std::atomic<bool>[]>(kLocks);
  }
  // Starts a new search: older entries become replaceable.
  void new_search() noexcept { ++generation_; }

  // The entry for `key`, or nullptr. Its score is already converted to be relative to `ply`.
  [[nodiscard]] const Entry* probe(std::uint64_t key, int ply, Entry& out) const noexcept {
    const std::size_t slot = key & mask_;
    if (locks_) {
      const Guard guard(locks_[slot % kLocks]);
      out = entries_[slot];
    } else {
      out = entries_[slot];
    }
    if (out.bound == Bound::kNone || out.key != key) return nullptr;
    out.score = from_tt(out.score, ply);
    return &out;
  }

  // Starts loading the slot of `key` into the cache (a probe soon after then finds it there).
  void prefetch(std::uint64_t key) const noexcept { __builtin_prefetch(&entries_[key & mask_]); }

  void store(std::uint64_t key, int ply, int depth, Score score, Bound bound,
             const Move* move) noexcept {
    if (locks_) {
      const Guard guard(locks_[(key & mask_) % kLocks]);
      store_unlocked(key, ply, depth, score, bound, move);
    } else {
      store_unlocked(key, ply, depth, score, bound, move);
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

 private:
  static constexpr std::size_t kLocks = 4096;

  // A spin lock held for one scope.
  class Guard {
   public:
    explicit Guard(std::atomic<bool>& lock) noexcept : lock_(lock) {
      while (lock_.exchange(true, std::memory_order_acquire))
        while (lock_.load(std::memory_order_relaxed)) {}
    }
    ~Guard() { lock_.store(false, std::memory_order_release); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    std::atomic<bool>& lock_;
  };

  void store_unlocked(std::uint64_t key, int ply, int depth, Score score, Bound bound,
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

  static Score to_tt(Score s, int ply) noexcept {
    return s >= kWin - kMaxPly ? s + ply : s <= -(kWin - kMaxPly) ? s - ply : s;
  }
  static Score from_tt(Score s, int ply) noexcept {
    return s >= kWin - kMaxPly ? s - ply : s <= -(kWin - kMaxPly) ? s + ply : s;
  }

  LargeArray<Entry> entries_;
  std::size_t mask_ = 0;
  std::uint8_t generation_ = 0;
  std::unique_ptr<std::atomic<bool>[]> locks_;  // set by share()
};

}  // namespace gsearch::alphabeta
