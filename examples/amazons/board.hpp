// amazons/board.hpp — squares, bitboards and queen-line attacks for boards up to 10×10.
//
// Layout. A board is one 128-bit integer. Square (col, row), both from 0 at a1, is bit
//     11 * (row + 1) + col.
// Each row has 11 bits: 10 squares and one padding bit (col 10) that is never a square, and
// bits 0..10 and 120..127 are margins. A shift by ±1, ±10, ±11 or ±12 moves every square one
// step east/west, NW/SE, north/south or NE/SW; a step off the board lands on padding or a
// margin (or falls off the 128 bits), and padding and margins are never empty, so directional
// fills need no wrap-around masks.
//
// Boards smaller than 10×10 sit in the bottom-left corner of the 10×10 area, and every square
// of the area outside them is permanently blocked (see Position::blocked): the rules and the
// attack code below never need to know the board size.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "gsearch/detail/uint128.hpp"

namespace amazons {

using Bitboard = gsearch::detail::uint128;
using Square = std::uint8_t;  // a bit index in the layout above

inline constexpr int kMaxSize = 10;  // largest board side
inline constexpr int kStride = 11;   // bits per row

constexpr Square make_square(int col, int row) noexcept {
  return static_cast<Square>(kStride * (row + 1) + col);
}
constexpr int col_of(Square s) noexcept { return s % kStride; }
constexpr int row_of(Square s) noexcept { return s / kStride - 1; }
constexpr Bitboard bit(Square s) noexcept { return Bitboard{1} << s; }

namespace detail {
constexpr Bitboard compute_board_mask(int cols, int rows) noexcept {
  Bitboard m = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m |= Bitboard{1} << make_square(c, r);
  return m;
}
constexpr auto make_board_masks() {
  std::array<std::array<Bitboard, kMaxSize + 1>, kMaxSize + 1> t{};
  for (int c = 0; c <= kMaxSize; ++c)
    for (int r = 0; r <= kMaxSize; ++r) t[c][r] = compute_board_mask(c, r);
  return t;
}
inline constexpr auto kBoardMasks = make_board_masks();
}  // namespace detail

// The squares of a cols × rows board (each 0..10) in the bottom-left corner of the 10×10 area.
constexpr Bitboard board_mask(int cols, int rows) noexcept {
  return detail::kBoardMasks[cols][rows];
}
inline constexpr Bitboard kArea = board_mask(kMaxSize, kMaxSize);

inline int popcount(Bitboard b) noexcept {
  return std::popcount(static_cast<std::uint64_t>(b)) +
         std::popcount(static_cast<std::uint64_t>(b >> 64));
}
// Index of the lowest set bit; b != 0.
inline Square lsb(Bitboard b) noexcept {
  const auto lo = static_cast<std::uint64_t>(b);
  return static_cast<Square>(lo ? std::countr_zero(lo)
                                : 64 + std::countr_zero(static_cast<std::uint64_t>(b >> 64)));
}
// Index of the highest set bit; b != 0.
inline Square msb(Bitboard b) noexcept {
  const auto hi = static_cast<std::uint64_t>(b >> 64);
  return static_cast<Square>(hi ? 127 - std::countl_zero(hi)
                                : 63 - std::countl_zero(static_cast<std::uint64_t>(b)));
}
// Removes and returns the lowest set bit; b != 0.
inline Square pop_lsb(Bitboard& b) noexcept {
  const Square s = lsb(b);
  b &= b - 1;
  return s;
}

// The eight queen directions as bit offsets.
enum Direction : int {
  kE = 1,
  kW = -1,
  kN = 11,
  kS = -11,
  kNE = 12,
  kNW = 10,
  kSE = -10,
  kSW = -12
};
inline constexpr std::array<int, 8> kDirections = {kE, kN, kNE, kNW, kW, kS, kSW, kSE};

template <int D>
constexpr Bitboard shift(Bitboard b) noexcept {
  if constexpr (D > 0)
    return b << D;
  else
    return b >> -D;
}

// Every square one king step from a square of `b` (padding bits included; mask the result).
constexpr Bitboard king_neighbors(Bitboard b) noexcept {
  return shift<kE>(b) | shift<kW>(b) | shift<kN>(b) | shift<kS>(b) | shift<kNE>(b) | shift<kNW>(b) |
         shift<kSE>(b) | shift<kSW>(b);
}

namespace detail {

// rays[d][s]: the squares of the 10×10 area strictly beyond s in direction kDirections[d].
struct RayTable {
  std::array<std::array<Bitboard, 128>, 8> rays{};
};

constexpr RayTable make_rays() {
  constexpr int dc[8] = {1, 0, 1, -1, -1, 0, -1, 1};
  constexpr int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  RayTable t;
  for (int d = 0; d < 8; ++d)
    for (int r = 0; r < kMaxSize; ++r)
      for (int c = 0; c < kMaxSize; ++c) {
        Bitboard ray = 0;
        for (int cc = c + dc[d], rr = r + dr[d];
             cc >= 0 && cc < kMaxSize && rr >= 0 && rr < kMaxSize; cc += dc[d], rr += dr[d])
          ray |= bit(make_square(cc, rr));
        t.rays[d][make_square(c, r)] = ray;
      }
  return t;
}

inline constexpr RayTable kRays = make_rays();

}  // namespace detail

// The squares a queen (or an arrow) on `s` reaches: along each of the eight lines, every
// square up to, not including, the first occupied one. `occupied` must contain everything
// that blocks: queens, arrows, and the squares of the 10×10 area outside the board.
//
// Directions 0..3 run towards higher bits, so the first blocker is the lowest set bit of
// (ray & occupied) and the reachable part is the ray below it: ray & (blocker - 1), with a
// sentinel at bit 127 when the ray is open. Directions 4..7 run towards lower bits: the
// first blocker is the highest set bit, with a sentinel at bit 0.
inline Bitboard queen_attacks(Square s, Bitboard occupied) noexcept {
  const auto& rays = detail::kRays.rays;
  Bitboard attacks = 0;
  for (int d = 0; d < 4; ++d) {
    const Bitboard ray = rays[d][s];
    const Bitboard blockers = (ray & occupied) | bit(127);
    attacks |= ray & ((blockers & (0 - blockers)) - 1);
  }
  for (int d = 4; d < 8; ++d) {
    const Bitboard ray = rays[d][s];
    const Square first = msb((ray & occupied) | bit(0));
    attacks |= ray & ~((bit(first) << 1) - 1);
  }
  return attacks;
}

namespace detail {

// Sum over k >= 1 of |squares k steps from `from` along D with the k-1 squares between them
// empty and the square itself empty|.
template <int D>
inline int line_pairs(Bitboard from, Bitboard empty) noexcept {
  int n = 0;
  for (Bitboard f = shift<D>(from) & empty; f; f = shift<D>(f) & empty) n += popcount(f);
  return n;
}

}  // namespace detail

// The number of (s, t) pairs with s in `from` and t a square a queen on s reaches when the
// empty squares are `empty`: the sum of |queen_attacks(s)| over s in `from`, computed for the
// whole set at once by eight directional fills. Counting arrows this way is what makes perft
// bulk counting fast.
inline int count_line_targets(Bitboard from, Bitboard empty) noexcept {
  return detail::line_pairs<kE>(from, empty) + detail::line_pairs<kW>(from, empty) +
         detail::line_pairs<kN>(from, empty) + detail::line_pairs<kS>(from, empty) +
         detail::line_pairs<kNE>(from, empty) + detail::line_pairs<kNW>(from, empty) +
         detail::line_pairs<kSE>(from, empty) + detail::line_pairs<kSW>(from, empty);
}

// Every empty square that one queen move reaches from some square of `from`.
inline Bitboard queen_fill(Bitboard from, Bitboard empty) noexcept {
  Bitboard all = 0;
  auto line = [&]<int D>() {
    for (Bitboard f = shift<D>(from) & empty; f; f = shift<D>(f) & empty) all |= f;
  };
  line.template operator()<kE>();
  line.template operator()<kW>();
  line.template operator()<kN>();
  line.template operator()<kS>();
  line.template operator()<kNE>();
  line.template operator()<kNW>();
  line.template operator()<kSE>();
  line.template operator()<kSW>();
  return all;
}

}  // namespace amazons
