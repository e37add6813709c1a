#include "amazons/rules/render.hpp"

#include <doctest/doctest.h>

using amazons::Position;

TEST_CASE("ASCII rendering of a small position, with the last move marked") {
  Position p = Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1");
  const amazons::Move m = p.parse_move("b1-b3/d3");
  p.apply(m);
  const std::string expected =
      "  5  .  B  .  B  . \n"
      "  4  B  .  .  .  B \n"
      "  3  . [W] . [x] . \n"
      "  2  W  .  .  .  W \n"
      "  1  . [.] .  W  . \n"
      "     a  b  c  d  e \n"
      "Black to move, move 1.\n";
  CHECK(amazons::render(p, amazons::RenderStyle::kAscii,
                        amazons::bit(m.from) | amazons::bit(m.to) | amazons::bit(m.arrow)) ==
        expected);
}

TEST_CASE("Unicode rendering uses the queen symbols and says who has lost") {
  const Position lost = Position::from_fen("q3/4/**2/Q*2 w - - 0 1");
  const std::string s = amazons::render(lost, amazons::RenderStyle::kUnicode);
  CHECK(s.find("\u2655") != std::string::npos);
  CHECK(s.find("\u265b") != std::string::npos);
  CHECK(s.find("\u2715") != std::string::npos);
  CHECK(s.find("White cannot move and has lost.") != std::string::npos);
}
