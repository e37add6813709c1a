// Region knowledge: areas by hand, solitaire counts against a square-stepping search, and the
// decided positions and dominated moves against exhaustive search on thousands of small
// random positions.
#include "amazons/rules/regions.hpp"

#include <doctest/doctest.h>

#include "amazons/exact.hpp"

using amazons::bit;
using amazons::Bitboard;
using amazons::make_square;
using amazons::Position;

namespace {

Bitboard squares(const Position& pos, std::initializer_list<const char*> names) {
  Bitboard b = 0;
  for (const char* n : names) b |= bit(pos.parse_square(n));
  return b;
}

}  // namespace

TEST_CASE("areas: own and shared regions of a walled board") {
  // 5x3. Row 2 is a wall but for c2, so the white queen a1 and the black queen e3 share one
  // region through c2; the white queen a3 is alone behind b3/b2.
  //   3  Q * . . q
  //   2  * * . * *
  //   1  Q . . * .
  const Position pos = Position::from_fen("Q*2q/**1**/Q2*1 w");
  const amazons::Areas areas = amazons::find_areas(pos);
  CHECK(areas.shared == squares(pos, {"a1", "b1", "c1", "c2", "c3", "d3", "e3"}));
  CHECK(areas.own[amazons::kWhite] == squares(pos, {"a3"}));
  CHECK(areas.own[amazons::kBlack] == 0);
  CHECK(amazons::king_component(bit(make_square(4, 0)), pos.empty()) == bit(make_square(4, 0)));
}

TEST_CASE("solitaire counts: regions that lose squares, by hand") {
  amazons::Solitaire solitaire;
  // The queen b1 can leave only by a diagonal, to a2 or c2, and then never reaches the other.
  const Position fork = Position::from_fen("1*1/*Q* w");
  CHECK(solitaire.moves(fork.queens(amazons::kWhite), fork.empty()) == 1);
  // A corridor: five empty squares, but after the first turn one of them is out of reach.
  const Position corridor = Position::from_fen("1*/*Q/1*/*1/2 w");
  CHECK(solitaire.moves(corridor.queens(amazons::kWhite), corridor.empty()) == 4);
  // A 2x2 room with one queen: every square is used.
  const Position room = Position::from_fen("2/Q1 w");
  CHECK(solitaire.moves(room.queens(amazons::kWhite), room.empty()) == 3);
  // Two regions add up.
  const Position two = Position::from_fen("Q1*1Q w");
  CHECK(solitaire.moves(two.queens(amazons::kWhite), two.empty()) == 2);
}

TEST_CASE("solitaire counts equal a square-stepping search, on random regions") {
  gsearch::Rng rng(11);
  exact::Solver reference;
  amazons::Solitaire solitaire(10);  // a small cache, so that entries get replaced
  int perfect = 0, defective = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int cols = 2 + static_cast<int>(rng.below(4)), rows = 2 + static_cast<int>(rng.below(4));
    const int queens = 1 + static_cast<int>(rng.below(2));
    const Position pos =
        exact::random_position(rng, cols, rows, queens, 0, 0.2 + 0.4 * rng.uniform(), 'w');
    const Bitboard empty = pos.empty(), white = pos.queens(amazons::kWhite);
    if (amazons::popcount(empty) > 8) continue;
    const int expected = reference.solitaire(white, empty);
    CAPTURE(pos.fen());
    CHECK(solitaire.moves(white, empty) == expected);
    const int reachable = amazons::popcount(amazons::king_component(white, empty | white) & empty);
    (expected == reachable ? perfect : defective)++;
    amazons::Move m;
    if (expected > 0) {
      REQUIRE(solitaire.optimal_move(white, empty, m));
      CHECK(gsearch::is_legal(pos, m));
      CHECK(reference.solitaire(white ^ bit(m.from) ^ bit(m.to),
                                (empty ^ bit(m.from) ^ bit(m.to)) & ~bit(m.arrow)) == expected - 1);
    } else {
      CHECK_FALSE(solitaire.optimal_move(white, empty, m));
    }
  }
  // Both kinds occur: regions a line fills completely, and regions where squares are lost.
  CHECK(perfect > 700);
  CHECK(defective > 5);
}

TEST_CASE("a solitaire search out of budget says so instead of guessing") {
  amazons::Solitaire tiny(4, 3);
  const Position pos = Position::from_fen("Q4/5/5/5/5 w");  // 24 empty squares, one queen
  CHECK(tiny.moves(pos.queens(amazons::kWhite), pos.empty()) == -1);
  amazons::Move m;
  CHECK_FALSE(tiny.optimal_move(pos.queens(amazons::kWhite), pos.empty(), m));
}

TEST_CASE("decided positions agree with exhaustive search; separated ones are all decided") {
  gsearch::Rng rng(5);
  exact::Solver reference;
  amazons::Solitaire solitaire;
  int decided = 0, separated = 0, shared_decided = 0, tried = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int cols = 3 + static_cast<int>(rng.below(3)), rows = 3 + static_cast<int>(rng.below(3));
    const Position pos =
        exact::random_position(rng, cols, rows, 1 + static_cast<int>(rng.below(3)),
                               1 + static_cast<int>(rng.below(3)), 0.3 + 0.35 * rng.uniform());
    if (pos.is_terminal() || amazons::popcount(pos.empty()) > 9) continue;
    ++tried;
    CAPTURE(pos.fen());
    const int outcome = amazons::bound_outcome(pos, solitaire);
    const amazons::Areas areas = amazons::find_areas(pos);
    if (areas.shared == 0) {
      ++separated;
      CHECK(outcome != 0);
    }
    if (outcome == 0) continue;
    ++decided;
    if (areas.shared != 0) ++shared_decided;
    CHECK(outcome == (reference.wins(pos) ? 1 : -1));
  }
  CHECK(tried > 1500);
  CHECK(separated > 80);
  CHECK(shared_decided > 30);  // rules 1 and 2 with shared regions, not only separation
  CHECK(decided > separated);
}

TEST_CASE("dominated moves: the reduced move list keeps the value of every position") {
  gsearch::Rng rng(9);
  exact::Solver reference;
  amazons::Solitaire solitaire;
  int reduced = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int cols = 3 + static_cast<int>(rng.below(3)), rows = 3 + static_cast<int>(rng.below(3));
    const Position pos =
        exact::random_position(rng, cols, rows, 1 + static_cast<int>(rng.below(2)),
                               1 + static_cast<int>(rng.below(2)), 0.3 + 0.35 * rng.uniform());
    if (pos.is_terminal() || amazons::popcount(pos.empty()) > 7) continue;
    CAPTURE(pos.fen());
    gsearch::MoveListOf<Position> all, kept;
    pos.legal_moves(all);
    pos.legal_moves(kept);
    amazons::remove_dominated(pos, solitaire, kept);
    REQUIRE(!kept.empty());
    for (const auto& m : kept) CHECK(gsearch::is_legal(pos, m));
    if (kept.size() < all.size()) ++reduced;
    // The player to move wins with some kept move exactly when they win at all.
    bool wins_kept = false;
    for (const auto& m : kept) {
      Position child = pos;
      child.apply(m);
      wins_kept = wins_kept || !reference.wins(child);
    }
    CHECK(wins_kept == reference.wins(pos));
  }
  CHECK(reduced > 40);
}
