// Alpha-beta: agreement with plain minimax, the exact solver on published small boards,
// the decision model, budgets and the principal variation.
#include "gsearch/alphabeta/alphabeta.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "amazons/rules/decision.hpp"
#include "support/mnk.hpp"

namespace ab = gsearch::alphabeta;
using test_games::TicTacToe;

namespace {

TicTacToe play(std::initializer_list<int> cells) {
  TicTacToe g;
  for (int c : cells) g.apply({static_cast<std::uint8_t>(c)});
  return g;
}

// Plain minimax with the same scoring, no pruning, no table: the reference.
template <class G, class E>
ab::Score minimax(const G& s, int depth, int ply, const E& eval, ab::Score scale) {
  if (s.is_terminal()) {
    const double r = s.result(s.to_move());
    return r > 0 ? ab::kWin - ply : r < 0 ? -(ab::kWin - ply) : 0;
  }
  if (depth == 0) return static_cast<ab::Score>(std::lround(eval(s) * scale));
  gsearch::MoveListOf<G> moves;
  s.legal_moves(moves);
  ab::Score best = -ab::kInfinity;
  for (const auto& m : moves) {
    G c = s;
    c.apply(m);
    const ab::Score v = minimax(c, depth - 1, ply + 1, eval, scale);
    best = std::max(best, c.to_move() == s.to_move() ? v : -v);
  }
  return best;
}

// A cheap Amazons evaluation for the comparison: the mover's number of moves.
struct Mobility {
  double operator()(const amazons::Position& p) const {
    return std::tanh(static_cast<double>(p.count_moves()) / 500.0);
  }
  double operator()(const amazons::DecisionPosition& d) const { return (*this)(d.position()); }
};

}  // namespace

TEST_CASE("tic-tac-toe: the solver proves a forced win and finds the block") {
  // X: 0, 4; O: 8, 1. X to move wins by force (fork with 6 or 3...): proven.
  ab::AlphaBeta<TicTacToe> solver;
  const auto win = solver.search(play({0, 1, 4, 8}));
  CHECK(win.proven_win);
  CHECK(win.score == ab::kWin);
  // X: 0, 8; O: 4, 3: O threatens 3-4-5, X must block at 5; the game is then a draw.
  const auto block = solver.search(play({0, 4, 8, 3}), {});
  CHECK(block.best.cell == 5);
  CHECK_FALSE(block.proven_win);
  CHECK_FALSE(block.proven_loss);
}

TEST_CASE("alpha-beta with PVS, the table and move ordering equals plain minimax") {
  const Mobility eval;
  gsearch::Rng rng(3);
  for (int trial = 0; trial < 12; ++trial) {
    amazons::Position p = amazons::Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1");
    for (int k = 0; k < 2 + trial % 5 && !p.is_terminal(); ++k) p.apply(p.random_move(rng));
    if (p.is_terminal()) continue;
    for (int depth = 1; depth <= 2; ++depth) {
      ab::AlphaBeta<amazons::Position, Mobility> search({.max_depth = depth});
      CHECK(search.search(p).score == minimax(p, depth, 0, eval, 10000));
      ab::AlphaBeta<amazons::Position, Mobility> bare(
          {.max_depth = depth, .killers = false, .history = false});
      CHECK(bare.search(p).score == minimax(p, depth, 0, eval, 10000));
    }
    // The decision model, where one player makes three plies in a row: depth 3 = one turn.
    const amazons::DecisionPosition d{p};
    ab::AlphaBeta<amazons::DecisionPosition, Mobility> dsearch({.max_depth = 4});
    CHECK(dsearch.search(d).score == minimax(d, 4, 0, eval, 10000));
  }
}

TEST_CASE("the solver proves 4x4 Amazons a second-player win, in both game models") {
  // The 4x4 board with four queens each, one step in from the corners.
  const auto pos = amazons::Position::from_fen("1qq1/q2q/Q2Q/1QQ1 w - - 0 1");
  ab::AlphaBeta<amazons::Position> whole({.tt_megabytes = 64});
  const auto r = whole.search(pos);
  CHECK(r.proven_loss);  // White, to move, loses
  CHECK(r.nodes > 0);
  ab::AlphaBeta<amazons::DecisionPosition> decisions({.max_depth = 192, .tt_megabytes = 64});
  CHECK(decisions.search(amazons::DecisionPosition{pos}).proven_loss);
}

TEST_CASE("a won position: the solver's line ends with the opponent unable to move") {
  const auto pos = amazons::Position::from_fen("2*q/4/4/Q3 w - - 0 1");
  ab::AlphaBeta<amazons::Position> solver;
  const auto r = solver.search(pos);
  REQUIRE(r.proven_win);
  REQUIRE(r.pv.size() == 1);
  CHECK(pos.move_to_string(r.best) == "a1-c3/d3");
}

TEST_CASE("node and time budgets stop the deepening; the first depth always completes") {
  const amazons::Position start;
  ab::AlphaBeta<amazons::Position, Mobility> search({.max_depth = 30});
  const auto r = search.search(start, gsearch::Budget::node_count(20000));
  CHECK(r.has_move);
  CHECK(r.depth >= 1);
  CHECK(r.depth < 30);
  CHECK(r.nodes < 20000 + 5000);  // stops within a check interval of the limit
  const auto t = search.search(start, gsearch::Budget::millis(50));
  CHECK(t.has_move);
  CHECK(t.depth >= 1);
}
