// Candidate restriction: the local window, its fallbacks, threat exceptions, parsing.
#include "gomoku/players/candidates.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

using gomoku::CandidateFilter;
using gomoku::Position;
using gomoku::Restriction;

namespace {

std::set<std::string> candidates(const Position& p, Restriction r) {
  gsearch::MoveListOf<Position> moves;
  p.legal_moves(moves);
  CandidateFilter{r}(p, moves);
  std::set<std::string> out;
  for (const auto& m : moves) out.insert(p.move_to_string(m));
  CHECK(out.size() == moves.size());
  return out;
}

Position with_moves(Position p, std::initializer_list<const char*> moves) {
  for (const char* m : moves) p.apply(p.parse_move(m));
  return p;
}

}  // namespace

TEST_CASE("the window is centred on the occupied cells' centroid and stays on the board") {
  const Position e = Position::empty(8, 8, 5);
  // Empty board: the centre, files b-g and ranks 2-7.
  const auto empty = candidates(e, {.window = 6});
  CHECK(empty.size() == 36);
  CHECK(empty.contains("b2"));
  CHECK(empty.contains("g7"));
  CHECK(!empty.contains("a1"));
  // One stone in the corner: the window is pushed back onto the board, files a-f, ranks 1-6.
  const auto corner = candidates(with_moves(e, {"a1"}), {.window = 6});
  CHECK(corner.size() == 35);
  CHECK(corner.contains("f6"));
  CHECK(!corner.contains("g1"));
  // Stones at c3 and f6: centroid between them, window files b-g and ranks 2-7.
  const Position two = with_moves(e, {"c3", "f6"});
  const auto w = gomoku::local_window(two, 6);
  CHECK(w.row0 == 1);
  CHECK(w.col0 == 1);
  CHECK(candidates(two, {.window = 6}).size() == 34);
}

TEST_CASE("the full move list when the board fits in the window or nothing is inside") {
  const Position small = with_moves(Position::empty(6, 6, 4), {"a1"});
  CHECK(candidates(small, {.window = 6}).size() == 35);
  CHECK(candidates(small, {.window = 8}).size() == 35);
  // 6x8: taller than the window, so it restricts.
  CHECK(candidates(with_moves(Position::empty(6, 8, 4), {"a1"}), {.window = 6}).size() == 35);
  CHECK(candidates(with_moves(Position::empty(6, 8, 4), {"a8"}), {.window = 6}).size() == 35);
  // No restriction.
  CHECK(candidates(with_moves(Position::empty(8, 8, 5), {"a1"}), {}).size() == 63);
  // A window whose cells are all taken: the legal moves elsewhere are kept.
  Position full = Position::from_text("5/5/1xox1/1oxo1/1xox1 o 4");
  CHECK(candidates(full, {.window = 3}).size() == 16);
}

TEST_CASE("threat exceptions add back winning and blocking moves outside the window") {
  // 15x15, connect-5, White to move: fours of both colours on rank 1, far below the window
  // (files d-i, ranks 2-7) around the centroid.
  const Position p =
      Position::from_text("15/15/15/15/15/15/6xox6/6oxo6/6xox6/15/15/15/15/15/xxxx1oooo6 o 5");
  const auto plain = candidates(p, {.window = 6});
  CHECK(!plain.contains("e1"));  // wins for White and blocks Black's five
  CHECK(!plain.contains("j1"));  // wins for White
  const auto with = candidates(p, {.window = 6, .threats = 1});
  CHECK(with.contains("e1"));
  CHECK(with.contains("j1"));
  CHECK(with.size() == plain.size() + 2);
  // Level 2 adds the moves that make or block an open four: Black's three c2-e2 below the
  // window (files d-i, ranks 3-8); level 3 those that make or block an open three: White's
  // c1 _ e1.
  const Position q =
      Position::from_text("15/15/15/15/15/15/6xox6/6oxo6/6xox6/15/15/15/15/2xxx10/o1o1o10 o 5");
  const auto l1 = candidates(q, {.window = 6, .threats = 1});
  const auto l2 = candidates(q, {.window = 6, .threats = 2});
  const auto l3 = candidates(q, {.window = 6, .threats = 3});
  CHECK(l1 == candidates(q, {.window = 6}));
  CHECK(!l1.contains("b2"));
  CHECK(l2.contains("b2"));
  CHECK(l2.contains("f2"));
  CHECK(!l2.contains("g2"));  // a split shape c2-e2 _ g2, not a row
  CHECK(!l2.contains("a2"));  // not next to the three
  // ... and the ends of the centre's two diagonal threes (g7-i9, i7-g9) outside the window.
  CHECK(l2.contains("j10"));
  CHECK(l2.contains("j6"));
  CHECK(l2.contains("f10"));
  CHECK(l2.size() == l1.size() + 5);
  CHECK(!l2.contains("d1"));
  CHECK(l3.contains("d1"));   // c1 d1 e1 with b1 and f1 empty
  CHECK(!l3.contains("b1"));  // a1 b1 c1 ends on the edge
}

TEST_CASE("restrictions parse, print canonically and refuse bad text") {
  CHECK(gomoku::parse_restriction("none") == Restriction{});
  CHECK(gomoku::parse_restriction("window=6,threats") == Restriction{.window = 6, .threats = 1});
  CHECK(gomoku::parse_restriction("threats=2,window=4") == Restriction{.window = 4, .threats = 2});
  CHECK(gomoku::to_string({.window = 6, .threats = 1}) == "window=6,threats=1");
  CHECK(gomoku::to_string({}) == "none");
  for (const char* bad : {"window", "window=0", "window=16", "window=x", "threats=4", "size=3",
                          "window=6,", "window=6,,threats"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS((void)gomoku::parse_restriction(bad), std::invalid_argument);
  }
}
