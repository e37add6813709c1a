// amazons/rules/board.hpp — squares, bitboards and queen-line attacks for boards up to 10×10.
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

#if defined(__BMI2__)
#include <immintrin.h>
#endif

// pext and pdep take a few cycles on Intel CPUs since Haswell and on AMD since Zen 3, but are
// microcoded on Zen 1 and Zen 2, where one costs up to ~300 cycles: there the queen attacks
// by pext tables run about ten times slower than the ray version (docs/benchmarks.md,
// BM_QueenAttacks), so the BMI2 paths are used only where the compiler targets a CPU with
// fast ones. queen_attacks_bmi2() exists whenever BMI2 does, for tests and benchmarks.
#if defined(__BMI2__) && !defined(__znver1__) && !defined(__znver2__)
#define AMAZONS_FAST_PEXT 1
#endif

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
// Index of the highest set bit; b != 0. Both halves are counted and one is picked, so the
// compiler emits a conditional move instead of a branch on which half holds the bit.
inline Square msb(Bitboard b) noexcept {
  const auto hi = static_cast<std::uint64_t>(b >> 64);
  const int from_hi = 127 - std::countl_zero(hi);
  const int from_lo = 63 - std::countl_zero(static_cast<std::uint64_t>(b));
  return static_cast<Square>(hi ? from_hi : from_lo);
}
// Removes and returns the lowest set bit; b != 0.
inline Square pop_lsb(Bitboard& b) noexcept {
  const Square s = lsb(b);
  b &= b - 1;
  return s;
}

// The index of the k-th lowest set bit of b (k counts from 0; k < popcount(b)). With a fast
// pdep, one deposits a single bit at the k-th set position.
inline Square select_bit(Bitboard b, int k) noexcept {
  auto word = static_cast<std::uint64_t>(b);
  const int in_lo = std::popcount(word);
  int base = 0;
  if (k >= in_lo) {
    word = static_cast<std::uint64_t>(b >> 64);
    k -= in_lo;
    base = 64;
  }
#if defined(AMAZONS_FAST_PEXT)
  return static_cast<Square>(base + std::countr_zero(_pdep_u64(std::uint64_t{1} << k, word)));
#else
  for (; k > 0; --k) word &= word - 1;
  return static_cast<Square>(base + std::countr_zero(word));
#endif
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

// The squares within one king step of a square of `b`, `b` included: the 3×3 box around
// each, as a dilation along the row and then along the column (four shifts, where
// king_neighbors takes eight). On the squares of the area it is king_neighbors(b) | b for
// any b of the area; mask the result.
constexpr Bitboard king_box(Bitboard b) noexcept {
  const Bitboard row = b | shift<kE>(b) | shift<kW>(b);
  return row | shift<kN>(row) | shift<kS>(row);
}

namespace detail {

// rays[d][s]: the squares of the 10×10 area strictly beyond s in direction kDirections[d];
// above[i]: every bit above bit i (above[0] is all bits but bit 0);
// king[s]: the squares of the 10×10 area one king step from s.
struct RayTable {
  std::array<std::array<Bitboard, 128>, 8> rays{};
  std::array<Bitboard, 128> above{};
  std::array<Bitboard, 128> king{};
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
  for (int i = 0; i < 127; ++i) t.above[i] = ~Bitboard{0} << (i + 1);
  for (int i = 0; i < 128; ++i) t.king[i] = king_neighbors(bit(static_cast<Square>(i))) & kArea;
  return t;
}

inline constexpr RayTable kRays = make_rays();

}  // namespace detail

// The squares of the 10×10 area one king step from square s (a table lookup).
inline Bitboard king_moves(Square s) noexcept { return detail::kRays.king[s]; }

// The squares a queen (or an arrow) on `s` reaches: along each of the eight lines, every
// square up to, not including, the first occupied one. `occupied` must contain everything
// that blocks: queens, arrows, and the squares of the 10×10 area outside the board.
//
// Ray version, for any x86-64. Directions 0..3 run towards higher bits, so the first blocker
// is the lowest set bit of (ray & occupied) and the reachable part is the ray below it:
// ray & (blocker - 1), with a sentinel at bit 127 when the ray is open. Directions 4..7 run
// towards lower bits: the first blocker is the highest set bit, with a sentinel at bit 0.
inline Bitboard queen_attacks_rays(Square s, Bitboard occupied) noexcept {
  const auto& rays = detail::kRays.rays;
  Bitboard attacks = 0;
  for (int d = 0; d < 4; ++d) {
    const Bitboard ray = rays[d][s];
    const Bitboard blockers = (ray & occupied) | bit(127);
    attacks |= ray & ((blockers & (0 - blockers)) - 1);
  }
  for (int d = 4; d < 8; ++d) {
    const Bitboard ray = rays[d][s];
    attacks |= ray & detail::kRays.above[msb((ray & occupied) | bit(0))];
  }
  return attacks;
}

namespace detail {

// Line tables for the BMI2 version. For square s and each of its four lines (rank, file,
// diagonal, anti-diagonal): `relevant`, the line's squares that can block (the other
// squares minus the two ends: whether an end is occupied changes nothing beyond it), and
// `full`, all the other squares. attacks[offset + k] is, for the k-th occupancy of the
// relevant squares (in pext order), the squares reached up to and including the first
// blocker (chess-style), compressed in pext order of `full`; the caller removes occupied
// squares afterwards. The 400 (square, line) pairs need 38,912 entries: 76 KiB.
struct LineMasks {
  std::uint64_t relevant_lo = 0, relevant_hi = 0, full_lo = 0, full_hi = 0;
  std::uint32_t offset = 0;                         // first entry in LineTable::attacks
  std::uint8_t relevant_shift = 0, full_shift = 0;  // popcounts of the low halves
};
inline constexpr std::size_t kLineEntries = 38912;
struct LineTable {
  std::array<std::array<LineMasks, 4>, 128> masks{};
  std::array<std::uint16_t, kLineEntries> attacks{};
};

constexpr LineTable make_line_table() {
  LineTable t;
  constexpr int dc[4] = {1, 0, 1, -1}, dr[4] = {0, 1, 1, 1};  // rank, file, diagonal, anti
  std::uint32_t next = 0;
  for (int r = 0; r < kMaxSize; ++r)
    for (int c = 0; c < kMaxSize; ++c) {
      const Square s = make_square(c, r);
      for (int line = 0; line < 4; ++line) {
        // The line's other squares by signed distance k from s. Every line direction adds a
        // positive offset (1, 11, 12 or 10) per step, so this is also increasing bit index:
        // the order in which pext packs them.
        int dist[kMaxSize] = {};
        int n = 0;
        for (int k = -(kMaxSize - 1); k < kMaxSize; ++k) {
          const int cc = c + k * dc[line], rr = r + k * dr[line];
          if (k != 0 && cc >= 0 && cc < kMaxSize && rr >= 0 && rr < kMaxSize) dist[n++] = k;
        }
        // The far end of each of the two rays (0 when a ray is empty: s is on the edge).
        const int lo_end = n && dist[0] < 0 ? dist[0] : 0;
        const int hi_end = n && dist[n - 1] > 0 ? dist[n - 1] : 0;
        LineMasks& m = t.masks[s][line];
        int relevant[kMaxSize] = {};  // positions (in the full list) of the relevant squares
        int nrel = 0;
        for (int i = 0; i < n; ++i) {
          const Square sq = make_square(c + dist[i] * dc[line], r + dist[i] * dr[line]);
          const std::uint64_t b = std::uint64_t{1} << (sq % 64);
          (sq >= 64 ? m.full_hi : m.full_lo) |= b;
          if (dist[i] != lo_end && dist[i] != hi_end) {
            (sq >= 64 ? m.relevant_hi : m.relevant_lo) |= b;
            relevant[nrel++] = i;
          }
        }
        m.relevant_shift = static_cast<std::uint8_t>(std::popcount(m.relevant_lo));
        m.full_shift = static_cast<std::uint8_t>(std::popcount(m.full_lo));
        m.offset = next;
        next += 1u << nrel;
        if (next > kLineEntries) throw "line table too small";  // not a constant expression
        for (std::uint32_t k = 0; k < (1u << nrel); ++k) {
          bool blocked[kMaxSize] = {};
          for (int j = 0; j < nrel; ++j) blocked[relevant[j]] = (k >> j) & 1;
          std::uint16_t reach = 0;
          // Walk away from s in both directions: positions above and below s's place.
          int here = 0;
          while (here < n && dist[here] < 0) ++here;
          for (int i = here; i < n; ++i) {
            reach |= static_cast<std::uint16_t>(1u << i);
            if (blocked[i]) break;
          }
          for (int i = here - 1; i >= 0; --i) {
            reach |= static_cast<std::uint16_t>(1u << i);
            if (blocked[i]) break;
          }
          t.attacks[m.offset + k] = reach;
        }
      }
    }
  return t;
}

}  // namespace detail

#if defined(__BMI2__)
namespace detail {
inline constexpr LineTable kLines = make_line_table();
}  // namespace detail

// BMI2 version: per line, pext gathers the blocking squares into a table index, the table
// gives the reach, and pdep scatters it back. Four branch-free lookups instead of eight rays.
inline Bitboard queen_attacks_bmi2(Square s, Bitboard occupied) noexcept {
  const auto lo = static_cast<std::uint64_t>(occupied);
  const auto hi = static_cast<std::uint64_t>(occupied >> 64);
  const auto& masks = detail::kLines.masks[s];
  std::uint64_t reach_lo = 0, reach_hi = 0;
  for (int line = 0; line < 4; ++line) {
    const detail::LineMasks& m = masks[line];
    const std::uint64_t k =
        _pext_u64(lo, m.relevant_lo) | (_pext_u64(hi, m.relevant_hi) << m.relevant_shift);
    const std::uint64_t reach = detail::kLines.attacks[m.offset + k];
    reach_lo |= _pdep_u64(reach, m.full_lo);
    reach_hi |= _pdep_u64(reach >> m.full_shift, m.full_hi);
  }
  return ((Bitboard{reach_hi} << 64) | reach_lo) & ~occupied;
}
#endif

inline Bitboard queen_attacks(Square s, Bitboard occupied) noexcept {
#if defined(AMAZONS_FAST_PEXT)
  return queen_attacks_bmi2(s, occupied);
#else
  return queen_attacks_rays(s, occupied);
#endif
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

namespace detail {
// The empty squares a slide in direction D reaches from some square of `from`: a
// Kogge-Stone occluded fill (steps of 1, 2, 4 and 8 squares, enough for the 9 of a 10-square
// line), without branches.
template <int D>
constexpr Bitboard slide(Bitboard from, Bitboard empty) noexcept {
  Bitboard gen = from, pro = empty;
  gen |= pro & shift<D>(gen);
  pro &= shift<D>(pro);
  gen |= pro & shift<2 * D>(gen);
  pro &= shift<2 * D>(pro);
  gen |= pro & shift<4 * D>(gen);
  pro &= shift<4 * D>(pro);
  gen |= pro & shift<8 * D>(gen);
  return shift<D>(gen) & empty;
}
}  // namespace detail

// Every empty square that one queen move reaches from some square of `from`.
inline Bitboard queen_fill(Bitboard from, Bitboard empty) noexcept {
  return detail::slide<kE>(from, empty) | detail::slide<kW>(from, empty) |
         detail::slide<kN>(from, empty) | detail::slide<kS>(from, empty) |
         detail::slide<kNE>(from, empty) | detail::slide<kNW>(from, empty) |
         detail::slide<kSE>(from, empty) | detail::slide<kSW>(from, empty);
}

// ---------------------------------------------------------------------------------------
// Boards of at most 8×8 in one 64-bit word.
//
// A board no larger than 8×8 fits in 64 bits with square (col, row) at bit 8 * row + col, the
// chess layout. There is no padding: a step east from column 7 would wrap to column 0 of the
// next row, so the fills below mask the file the step lands on. Operations on 64 bits cost
// half or less of those on 128, which is what the evaluation's distance maps on 8×8 gain from
// (players/eval.hpp). Only whole-set operations are given; moves stay in the layout above.

using Bitboard8 = std::uint64_t;

inline constexpr Bitboard8 kNotFileA = ~Bitboard8{0x0101010101010101};  // bits of column 0 off
inline constexpr Bitboard8 kNotFileH = ~Bitboard8{0x8080808080808080};  // bits of column 7 off

// The squares of `b` (a set within the 8×8 corner of the area) in the 64-bit layout.
inline Bitboard8 to_bitboard8(Bitboard b) noexcept {
#if defined(AMAZONS_FAST_PEXT)
  // Rows 0..4 lie in the low word, rows 5..7 in the high one: one extraction each.
  constexpr Bitboard corner = board_mask(8, 8);
  return _pext_u64(static_cast<std::uint64_t>(b), static_cast<std::uint64_t>(corner)) |
         _pext_u64(static_cast<std::uint64_t>(b >> 64), static_cast<std::uint64_t>(corner >> 64))
             << 40;
#else
  Bitboard8 out = 0;
  for (int row = 0; row < 8; ++row)
    out |= static_cast<Bitboard8>((b >> (kStride * (row + 1))) & 0xff) << (8 * row);
  return out;
#endif
}

namespace detail {
// Every bit moved N places up (N > 0) or -N places down, in the 64-bit layout.
template <int N>
constexpr Bitboard8 shift8(Bitboard8 b) noexcept {
  if constexpr (N > 0)
    return b << N;
  else
    return b >> -N;
}

// The empty squares a slide in direction D reaches from some square of `from`: the occluded
// fill of slide() above with the wrapped file masked out of the propagator (steps of 1, 2
// and 4 squares, enough for the 7 of an 8-square line).
template <int D>
constexpr Bitboard8 slide8(Bitboard8 from, Bitboard8 empty) noexcept {
  constexpr int rows = D >= kNW ? 1 : D <= kSE ? -1 : 0;  // D's step in rows (11 bits each)
  constexpr int cols = D - kStride * rows;                // and in columns
  constexpr int n = 8 * rows + cols;                      // the same step in this layout
  constexpr Bitboard8 keep = cols > 0 ? kNotFileA : cols < 0 ? kNotFileH : ~Bitboard8{0};
  Bitboard8 gen = from, pro = empty & keep;
  gen |= pro & shift8<n>(gen);
  pro &= shift8<n>(pro);
  gen |= pro & shift8<2 * n>(gen);
  pro &= shift8<2 * n>(pro);
  gen |= pro & shift8<4 * n>(gen);
  return shift8<n>(gen) & empty & keep;
}
}  // namespace detail

// queen_fill() in the 64-bit layout: every empty square one queen move reaches from `from`.
constexpr Bitboard8 queen_fill8(Bitboard8 from, Bitboard8 empty) noexcept {
  return detail::slide8<kE>(from, empty) | detail::slide8<kW>(from, empty) |
         detail::slide8<kN>(from, empty) | detail::slide8<kS>(from, empty) |
         detail::slide8<kNE>(from, empty) | detail::slide8<kNW>(from, empty) |
         detail::slide8<kSE>(from, empty) | detail::slide8<kSW>(from, empty);
}

// king_box() in the 64-bit layout: the squares within one king step of `b`, `b` included.
constexpr Bitboard8 king_box8(Bitboard8 b) noexcept {
  const Bitboard8 row = b | ((b << 1) & kNotFileA) | ((b >> 1) & kNotFileH);
  return row | (row << 8) | (row >> 8);
}

}  // namespace amazons
