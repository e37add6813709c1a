// An m,n,k-game (tic-tac-toe is 3,3,3) for the tests: a second, tiny Game beside Amazons, so
// that the Game concept, the conformance check and perft are shown to be generic.
#pragma once

#include <bit>
#include <cstdint>

#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"

namespace test_games {

// Players alternate placing a stone on an empty cell of an M×N board; K in a row (across,
// down or diagonal) wins; a full board without a line is a draw.
template <int M, int N, int K>
class Mnk {
  static_assert(M * N <= 64 && K >= 1);

 public:
  struct Move {
    std::uint8_t cell = 0;  // row * M + col
    friend constexpr bool operator==(const Move&, const Move&) = default;
  };
  // One move per cell.
  static constexpr std::size_t max_moves = static_cast<std::size_t>(M * N);

  gsearch::Player to_move() const noexcept { return side_; }
  void legal_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept {
    list.clear();
    if (winner_ >= 0) return;
    for (std::uint64_t free = ~(stones_[0] | stones_[1]) & kFull; free; free &= free - 1)
      list.push_back({static_cast<std::uint8_t>(std::countr_zero(free))});
  }
  void apply(const Move& m) noexcept {
    stones_[side_] |= std::uint64_t{1} << m.cell;
    hash_ ^= key(side_, m.cell) ^ kSideKey;
    if (makes_line(m.cell)) winner_ = side_;
    side_ = gsearch::opponent(side_);
  }
  void undo(const Move& m) noexcept {
    side_ = gsearch::opponent(side_);
    stones_[side_] &= ~(std::uint64_t{1} << m.cell);
    hash_ ^= key(side_, m.cell) ^ kSideKey;
    winner_ = -1;  // a move is only played while nobody has won
  }
  bool is_terminal() const noexcept { return winner_ >= 0 || (stones_[0] | stones_[1]) == kFull; }
  double result(gsearch::Player p) const noexcept {
    if (winner_ < 0) return 0.0;
    return winner_ == p ? 1.0 : -1.0;
  }
  std::uint64_t hash() const noexcept { return hash_; }
  std::uint64_t compute_hash() const noexcept {
    std::uint64_t h = side_ ? kSideKey : 0;
    for (int p = 0; p < 2; ++p)
      for (std::uint64_t b = stones_[p]; b; b &= b - 1) h ^= key(p, std::countr_zero(b));
    return h;
  }
  friend bool operator==(const Mnk&, const Mnk&) = default;

 private:
  static constexpr std::uint64_t kFull =
      M * N == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (M * N)) - 1;
  static constexpr std::uint64_t kSideKey = 0x9d39247e33776d41ULL;
  static constexpr std::uint64_t key(int p, int cell) noexcept {
    std::uint64_t s = static_cast<std::uint64_t>(p * 64 + cell) + 1;
    return gsearch::splitmix64(s);
  }
  bool makes_line(int cell) const noexcept {
    const int r = cell / M, c = cell % M;
    constexpr int dr[4] = {0, 1, 1, 1}, dc[4] = {1, 0, 1, -1};
    for (int d = 0; d < 4; ++d) {
      int run = 1;
      for (int s : {1, -1})
        for (int rr = r + s * dr[d], cc = c + s * dc[d];
             rr >= 0 && rr < N && cc >= 0 && cc < M && (stones_[side_] >> (rr * M + cc) & 1);
             rr += s * dr[d], cc += s * dc[d])
          ++run;
      if (run >= K) return true;
    }
    return false;
  }

  std::uint64_t stones_[2] = {0, 0};
  std::uint64_t hash_ = 0;
  gsearch::Player side_ = 0;
  int winner_ = -1;
};

using TicTacToe = Mnk<3, 3, 3>;

}  // namespace test_games
