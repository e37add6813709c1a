// Gomoku rules: perft against published tic-tac-toe counts and an independent m,n,k game,
// wins in every direction, the text format and move notation, bad input, conformance.
#include "gomoku/rules/position.hpp"

#include <doctest/doctest.h>

#include <string>

#include "gsearch/core/rng.hpp"
#include "gsearch/testing/game_conformance.hpp"
#include "gsearch/testing/perft.hpp"
#include "support/mnk.hpp"

using gomoku::NotationError;
using gomoku::Position;
using gsearch::testing::perft;

namespace {

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const NotationError& e) {
    return e.what();
  }
  return "(no error)";
}

Position played(Position p, std::initializer_list<const char*> moves) {
  for (const char* m : moves) p.apply(p.parse_move(m));
  return p;
}

}  // namespace

TEST_CASE("tic-tac-toe perft matches the published counts of move sequences by ply") {
  // Sequences of exactly d moves not ended before: 255,168 games end by ply 9 in all.
  const Position t = Position::empty(3, 3, 3);
  const std::uint64_t expected[] = {1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872};
  for (int d = 0; d <= 9; ++d) CHECK(perft(t, d) == expected[d]);
}

TEST_CASE("perft agrees with an independent m,n,k implementation") {
  CHECK(perft(Position::empty(4, 4, 3), 6) == perft(test_games::Mnk<4, 4, 3>{}, 6));
  CHECK(perft(Position::empty(4, 3, 3), 7) == perft(test_games::Mnk<4, 3, 3>{}, 7));
}

TEST_CASE("random 8x8 connect-5 games agree move by move with the independent implementation") {
  gsearch::Rng rng(7);
  for (int game = 0; game < 200; ++game) {
    Position p = Position::empty(8, 8, 5);
    test_games::Mnk<8, 8, 5> q;
    gsearch::MoveListOf<Position> moves;
    gsearch::MoveListOf<test_games::Mnk<8, 8, 5>> qmoves;
    while (!p.is_terminal()) {
      REQUIRE(!q.is_terminal());
      p.legal_moves(moves);
      q.legal_moves(qmoves);
      REQUIRE(moves.size() == qmoves.size());
      const auto m = moves[rng.below(moves.size())];
      p.apply(m);
      q.apply({static_cast<std::uint8_t>(gomoku::row_of(m.cell) * 8 + gomoku::col_of(m.cell))});
    }
    CHECK(q.is_terminal());
    CHECK(p.result(0) == q.result(0));
  }
}

TEST_CASE("k in a row wins across, down and on both diagonals; longer lines count") {
  const Position e = Position::empty(8, 8, 4);
  CHECK(played(e, {"a1", "a8", "b1", "b8", "c1", "c8", "d1"}).winner() == gomoku::kBlack);
  CHECK(played(e, {"h1", "a8", "h2", "b8", "h3", "c8", "h4"}).winner() == gomoku::kBlack);
  CHECK(played(e, {"a1", "h1", "b2", "h2", "c3", "h3", "a8", "h4"}).winner() == gomoku::kWhite);
  CHECK(played(e, {"a8", "h1", "b7", "h3", "c6", "h5", "d5"}).winner() == gomoku::kBlack);
  // Overline: x x _ x x, then the middle makes five in connect-4.
  const Position over = played(e, {"a1", "a8", "b1", "b8", "d1", "h8", "e1", "h7", "c1"});
  CHECK(over.winner() == gomoku::kBlack);
  CHECK(over.is_terminal());
  CHECK(over.result(gomoku::kBlack) == 1.0);
  CHECK(over.result(gomoku::kWhite) == -1.0);
  CHECK(over.count_moves() == 0);
  // Three with a gap is not four.
  CHECK(played(e, {"a1", "a8", "b1", "b8", "d1", "h8"}).winner() == -1);
}

TEST_CASE("a full board without a line is a draw") {
  const Position p =
      played(Position::empty(3, 3, 3), {"a1", "b1", "c1", "b2", "a2", "a3", "c2", "c3", "b3"});
  CHECK(p.is_terminal());
  CHECK(p.winner() == -1);
  CHECK(p.result(0) == 0.0);
}

TEST_CASE("conformance: random games on every board kind") {
  for (const auto& [w, h, k] :
       {std::tuple{3, 3, 3}, {6, 6, 4}, {8, 8, 5}, {15, 15, 5}, {15, 3, 3}, {7, 11, 6}}) {
    CAPTURE(w);
    CAPTURE(h);
    const auto report =
        gsearch::testing::check_game(Position::empty(w, h, k), {.games = 300, .seed = 3});
    CHECK_MESSAGE(report.ok, report.failure);
    CHECK(report.max_moves_seen == static_cast<std::uint64_t>(w * h));
  }
}

TEST_CASE("the text format round-trips and reads the documented examples") {
  const Position e = Position::empty(8, 8, 5);
  CHECK(e.text() == "8/8/8/8/8/8/8/8 x 5");
  CHECK(Position::from_text("8/8/8/8/8/8/8/8 x 5") == e);
  const Position p = played(e, {"d4", "e5", "h8"});
  CHECK(p.text() == "7x/8/8/4o3/3x4/8/8/8 o 5 h8");
  CHECK(Position::from_text(p.text()) == p);
  CHECK(Position::from_text(p.text()).hash() == p.hash());
  CHECK(Position::from_text(p.text()).last_move() == p.last_move());
  // Without LAST: the same position, the last move unknown.
  const Position q = Position::from_text("7x/8/8/4o3/3x4/8/8/8 o 5");
  CHECK(!q.last_move());
  CHECK(q == p);
  CHECK(q.hash() == p.hash());
  gsearch::Rng rng(11);
  for (int game = 0; game < 50; ++game) {
    Position r = Position::empty(10 + game % 6, 6 + game % 10, 5);
    while (!r.is_terminal()) {
      r.apply(r.random_move(rng));
      REQUIRE(Position::from_text(r.text()) == r);
      REQUIRE(Position::from_text(r.text()).last_move() == r.last_move());
    }
  }
  // A finished game reads back as finished.
  const Position won = played(Position::empty(6, 6, 4), {"a1", "a6", "b1", "b6", "c1", "c6", "d1"});
  CHECK(Position::from_text(won.text()).winner() == gomoku::kBlack);
  CHECK(Position::from_text(won.text()).is_terminal());
}

TEST_CASE("bad positions, cells and moves are refused with a one-line reason") {
  CHECK(message_of([] { (void)Position::from_text(""); }).find("expected \"ROWS SIDE K") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("8/8/8 x"); }).find("expected") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("8/8/8 x 3 a1 b2"); }).find("too many fields") !=
        std::string::npos);
  CHECK(message_of([] {
          (void)Position::from_text("8/7/8 x 3");
        }).find("has 7 cells, the first has 8") != std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("8/8/8/ x 3"); }).find("has 0 cells") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("2/2 x 2"); }).find("must be in [3, 15]") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("16/16/16 x 3"); }).find("longer than 15") !=
        std::string::npos);
  CHECK(message_of([] {
          (void)Position::from_text("99999999999999999999/8/8 x 3");
        }).find("longer than 15") != std::string::npos);
  CHECK(message_of([] {
          (void)Position::from_text("8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8 x 3");
        }).find("more than 15 ranks") != std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/3 x 4"); }).find("line length") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/3 x k"); }).find("not a whole number") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/3 b 3"); }).find("not x or o") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/a2 x 3"); }).find("unexpected 'a'") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/03 x 3"); }).find("unexpected '0'") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/xx1 x 3"); }).find("2 black and 0 white") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/x2 x 3"); }).find("o is to move") !=
        std::string::npos);
  CHECK(message_of([] {
          (void)Position::from_text("xxx/oo1/o2 x 3");
        }).find("already has 3 in a row") != std::string::npos);
  CHECK(message_of([] {
          (void)Position::from_text("3/3/x2 o 3 b1");
        }).find("not a stone of the player") != std::string::npos);
  CHECK(message_of([] { (void)Position::from_text("3/3/x2 o 3 z9"); }).find("LAST") !=
        std::string::npos);
  const Position p = Position::from_text("3/3/x2 o 3");
  CHECK(message_of([&] { (void)p.parse_move("a1"); }).find("not empty") != std::string::npos);
  CHECK(message_of([&] {
          (void)p.parse_move("d1");
        }).find("not on the 3x3 board (files a-c, ranks 1-3)") != std::string::npos);
  CHECK(message_of([&] { (void)p.parse_move("a0"); }).find("not on the") != std::string::npos);
  CHECK(message_of([&] { (void)p.parse_move("a+1"); }).find("expected a file letter") !=
        std::string::npos);
  CHECK(message_of([&] { (void)p.parse_move("1a"); }).find("expected a file letter") !=
        std::string::npos);
  CHECK(message_of([&] { (void)p.parse_move(""); }).find("expected a file letter") !=
        std::string::npos);
  const Position over = Position::from_text("oo1/3/xxx o 3");
  CHECK(message_of([&] { (void)over.parse_move("c3"); }).find("the game is over") !=
        std::string::npos);
  CHECK(message_of([] { (void)Position::empty(16, 8, 5); }).find("[3, 15]") != std::string::npos);
  CHECK(message_of([] { (void)Position::empty(8, 8, 9); }).find("[2, 8]") != std::string::npos);
}

TEST_CASE("cells are named by file letter and rank number") {
  const Position p = Position::empty(15, 15, 5);
  CHECK(p.move_to_string({static_cast<std::uint8_t>(gomoku::cell_at(7, 7))}) == "h8");
  CHECK(p.parse_move("o15").cell == gomoku::cell_at(14, 14));
  CHECK(p.parse_move("a1").cell == 0);
}
