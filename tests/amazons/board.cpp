// Squares, masks and the two attack computations, against coordinate loops.
#include "amazons/rules/board.hpp"

#include <doctest/doctest.h>

#include "gsearch/core/rng.hpp"

using namespace amazons;

namespace {

// Reachable squares by stepping coordinates, with `blocked(col, row)` deciding.
template <class Blocked>
Bitboard slow_attacks(int col, int row, Blocked blocked) {
  Bitboard out = 0;
  for (int dc = -1; dc <= 1; ++dc)
    for (int dr = -1; dr <= 1; ++dr) {
      if (!dc && !dr) continue;
      for (int c = col + dc, r = row + dr; c >= 0 && c < 10 && r >= 0 && r < 10 && !blocked(c, r);
           c += dc, r += dr)
        out |= bit(make_square(c, r));
    }
  return out;
}

Bitboard random_occupancy(gsearch::Rng& rng, double density) {
  Bitboard occ = 0;
  for (int r = 0; r < 10; ++r)
    for (int c = 0; c < 10; ++c)
      if (rng.bernoulli(density)) occ |= bit(make_square(c, r));
  return occ;
}

}  // namespace

TEST_CASE("square layout: 11 bits per row, names and masks") {
  CHECK(make_square(0, 0) == 11);
  CHECK(make_square(9, 9) == 119);
  CHECK(col_of(make_square(3, 7)) == 3);
  CHECK(row_of(make_square(3, 7)) == 7);
  CHECK(popcount(kArea) == 100);
  CHECK(popcount(board_mask(5, 4)) == 20);
  CHECK((board_mask(5, 4) & bit(make_square(4, 3))) != 0);
  CHECK((board_mask(5, 4) & bit(make_square(5, 3))) == 0);
  CHECK(lsb(bit(100) | bit(7)) == 7);
  CHECK(msb(bit(100) | bit(7)) == 100);
  Bitboard b = bit(3) | bit(70);
  CHECK(pop_lsb(b) == 3);
  CHECK(b == bit(70));
}

TEST_CASE("queen_attacks (every version) equals coordinate stepping on random boards") {
  gsearch::Rng rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Bitboard occ = random_occupancy(rng, trial % 10 / 10.0);
    for (int r = 0; r < 10; ++r)
      for (int c = 0; c < 10; ++c) {
        const auto blocked = [&](int cc, int rr) { return (occ & bit(make_square(cc, rr))) != 0; };
        const Bitboard expected = slow_attacks(c, r, blocked);
        REQUIRE(queen_attacks(make_square(c, r), occ) == expected);
        REQUIRE(queen_attacks_rays(make_square(c, r), occ) == expected);
#if defined(__BMI2__)
        REQUIRE(queen_attacks_bmi2(make_square(c, r), occ) == expected);
#endif
      }
  }
}

TEST_CASE("queen_fill and count_line_targets agree with per-square attacks") {
  gsearch::Rng rng(12);
  for (int trial = 0; trial < 300; ++trial) {
    const Bitboard occ = random_occupancy(rng, 0.1 + trial % 7 / 10.0);
    const Bitboard empty = kArea & ~occ;
    const Bitboard from = random_occupancy(rng, 0.05) & empty;
    Bitboard union_of = 0;
    int pairs = 0;
    for (Bitboard f = from; f;) {
      // Squares of `from` are empty here, so they do not block each other's lines.
      const Bitboard a = queen_attacks(pop_lsb(f), occ);
      union_of |= a;
      pairs += popcount(a);
    }
    REQUIRE(queen_fill(from, empty) == union_of);
    REQUIRE(count_line_targets(from, empty) == pairs);
  }
}

TEST_CASE("select_bit finds the k-th set bit in either half") {
  const Bitboard b = bit(3) | bit(60) | bit(64) | bit(100) | bit(127);
  CHECK(select_bit(b, 0) == 3);
  CHECK(select_bit(b, 1) == 60);
  CHECK(select_bit(b, 2) == 64);
  CHECK(select_bit(b, 3) == 100);
  CHECK(select_bit(b, 4) == 127);
}

TEST_CASE("king_neighbors of a corner and of the centre, and the king_moves table") {
  for (int r = 0; r < 10; ++r)
    for (int c = 0; c < 10; ++c)
      REQUIRE(king_moves(make_square(c, r)) == (king_neighbors(bit(make_square(c, r))) & kArea));
  CHECK(popcount(king_neighbors(bit(make_square(0, 0))) & kArea) == 3);
  CHECK(popcount(king_neighbors(bit(make_square(4, 4))) & kArea) == 8);
  CHECK(popcount(king_neighbors(bit(make_square(9, 9))) & kArea) == 3);
}

TEST_CASE("king_box is king_neighbors with the squares themselves, on the area") {
  gsearch::Rng rng(7);
  for (const double density : {0.05, 0.2, 0.5, 0.9})
    for (int i = 0; i < 500; ++i) {
      const Bitboard b = random_occupancy(rng, density);
      REQUIRE((king_box(b) & kArea) == ((king_neighbors(b) | b) & kArea));
    }
  for (int s = 0; s < 128; ++s)
    if (kArea & bit(static_cast<Square>(s)))
      REQUIRE((king_box(bit(static_cast<Square>(s))) & kArea) ==
              (king_moves(static_cast<Square>(s)) | bit(static_cast<Square>(s))));
}

TEST_CASE("the 64-bit layout of boards up to 8x8: to_bitboard8, queen_fill8 and king_box8") {
  // Each 64-bit operation, on the 8×8 corner, is its 128-bit one read in the other layout;
  // the occupancy is random inside the corner and everything outside it is blocked, as on an
  // 8×8 board (and on a smaller one, whose extra blocked squares are random ones here).
  const Bitboard corner = board_mask(8, 8);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c)
      REQUIRE(to_bitboard8(bit(make_square(c, r))) == Bitboard8{1} << (8 * r + c));
  CHECK(to_bitboard8(corner) == ~Bitboard8{0});
  gsearch::Rng rng(13);
  for (int trial = 0; trial < 500; ++trial) {
    const Bitboard empty = corner & ~random_occupancy(rng, 0.1 + trial % 8 / 10.0);
    const Bitboard from = random_occupancy(rng, trial % 3 == 0 ? 0.02 : 0.15) & corner;
    const Bitboard8 empty8 = to_bitboard8(empty), from8 = to_bitboard8(from);
    REQUIRE(queen_fill8(from8, empty8) == to_bitboard8(queen_fill(from, empty)));
    REQUIRE(king_box8(from8) == to_bitboard8(king_box(from) & corner));
  }
}
