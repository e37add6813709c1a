// df-pn: proofs equal exhaustive search (with and without a game's knowledge, weak and summed
// numbers, every leaf numbering, in a game with draws, and with the player to move kept for
// several plies), the 4x4 Amazons proof (weak numbers expanding fewer positions), a 5x5 proof
// three plies from the start, winning moves, budgets and the table kept between calls.
#include "gsearch/alphabeta/dfpn.hpp"

#include <doctest/doctest.h>

#include "amazons/exact.hpp"
#include "amazons/rules/decision.hpp"
#include "amazons/rules/solver.hpp"
#include "support/mnk.hpp"
#include "support/negamax.hpp"

namespace ab = gsearch::alphabeta;
using amazons::Position;
using amazons::SolverPosition;
using test_games::TicTacToe;

namespace {

// Sanitizer builds run several times slower: the proofs that take seconds are skipped there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The proof's claim about `child`, one move after a root where the player to move won with
// that move: the opponent, now to move, cannot win.
template <class G>
bool opponent_cannot_win(const G& child) {
  ab::Dfpn<G> check({.tt_megabytes = 1});
  return check.solve(child).proven_loss;
}

}  // namespace

TEST_CASE("tic-tac-toe: a proof is a forced win, a disproof a loss or a draw") {
  gsearch::Rng rng(2);
  test_support::Negamax<TicTacToe> exact;
  ab::Dfpn<TicTacToe> solver({.tt_megabytes = 1});
  ab::Dfpn<TicTacToe> summed({.tt_megabytes = 1, .weak = false});
  int wins = 0, draws = 0, losses = 0;
  for (int trial = 0; trial < 300; ++trial) {
    TicTacToe g;
    for (int k = static_cast<int>(rng.below(6)); k > 0 && !g.is_terminal(); --k)
      g.apply(gsearch::uniform_random_move(g, rng));
    if (g.is_terminal()) continue;
    const int value = static_cast<int>(exact(g));
    const auto r = solver.solve(g);
    CHECK(r.proven_win == (value > 0));
    CHECK(r.proven_loss == (value <= 0));
    const auto s = summed.solve(g);
    CHECK(s.proven_win == r.proven_win);
    CHECK(s.proven_loss == r.proven_loss);
    (value > 0 ? wins : value == 0 ? draws : losses)++;
    if (r.proven_win) {
      REQUIRE(r.has_move);
      TicTacToe c = g;
      c.apply(r.best);
      CHECK(-exact(c) == 1);
    }
  }
  CHECK(wins > 20);
  CHECK(draws > 20);
  CHECK(losses > 5);
}

TEST_CASE("Amazons: df-pn equals exhaustive search on random small positions") {
  gsearch::Rng rng(8);
  exact::Solver reference;
  int tried = 0, wins = 0;
  for (int trial = 0; trial < 250; ++trial) {
    const auto small = exact::random_small_position(rng);
    if (!small) continue;
    const Position& pos = *small;
    ++tried;
    CAPTURE(pos.fen());
    const bool win = reference.wins(pos);
    wins += win;
    // Plain rules: no knowledge, no heuristic.
    ab::Dfpn<Position> plain({.tt_megabytes = 1});
    const auto r = plain.solve(pos);
    CHECK(r.proven_win == win);
    CHECK(r.proven_loss == !win);
    // With the region knowledge and the dominated moves left out, under every way of
    // numbering new leaves, with weak and with summed numbers.
    for (const auto init :
         {ab::DfpnInit::kEvaluation, ab::DfpnInit::kMobility, ab::DfpnInit::kUnit})
      for (const bool weak : {true, false}) {
        CAPTURE(static_cast<int>(init));
        CAPTURE(weak);
        ab::Dfpn<SolverPosition> informed({.tt_megabytes = 1, .init = init, .weak = weak});
        const auto k = informed.solve(SolverPosition(pos));
        CHECK(k.proven_win == win);
        CHECK(k.proven_loss == !win);
        if (win) {
          REQUIRE(k.has_move);
          SolverPosition child(pos);
          child.apply(k.best);
          CHECK_FALSE(reference.wins(child));
        }
      }
  }
  CHECK(tried > 150);
  CHECK(wins > 50);
  CHECK(tried - wins > 30);
}

TEST_CASE("4x4 Amazons is a second-player win: whole turns, decisions, with knowledge") {
  const Position start = Position::from_fen("1qq1/q2q/Q2Q/1QQ1 w - - 0 1");
  ab::Dfpn<Position> whole({.tt_megabytes = 16});
  const auto r = whole.solve(start);
  CHECK(r.proven_loss);
  CHECK_FALSE(r.proven_win);
  CHECK(r.nodes > 0);
  ab::Dfpn<amazons::DecisionPosition> decisions({.tt_megabytes = 16});
  CHECK(decisions.solve(amazons::DecisionPosition{start}).proven_loss);
  ab::Dfpn<SolverPosition> informed({.tt_megabytes = 16});
  const auto k = informed.solve(SolverPosition(start));
  CHECK(k.proven_loss);
  CHECK(k.nodes < r.nodes);
  // Weak numbers count each of the many transposed positions once: fewer expansions.
  ab::Dfpn<SolverPosition> summed({.tt_megabytes = 16, .weak = false});
  const auto s = summed.solve(SolverPosition(start));
  CHECK(s.proven_loss);
  CHECK(k.nodes < s.nodes);
}

TEST_CASE("after any first move on 4x4, the second player's winning move is a proven win") {
  const Position start = Position::from_fen("1qq1/q2q/Q2Q/1QQ1 w - - 0 1");
  gsearch::MoveListOf<Position> firsts;
  start.legal_moves(firsts);
  for (std::size_t i = 0; i < firsts.size(); i += 7) {  // every seventh first move
    SolverPosition after(start);
    after.apply(firsts[i]);
    CAPTURE(after.fen());
    ab::Dfpn<SolverPosition> solver({.tt_megabytes = 4});
    const auto r = solver.solve(after);
    REQUIRE(r.proven_win);
    REQUIRE(r.has_move);
    SolverPosition reply = after;
    reply.apply(r.best);
    CHECK(opponent_cannot_win(reply));
  }
}

// The 5x5 start of the literature (Müller 2001), after White's b1-b3/d3 (the first move of
// the published proof) and Black's e4-c4/e4: White wins. About 2 s in an optimised build.
TEST_CASE("5x5 Amazons: a position three plies from the start is a proven win" *
          doctest::skip(kSanitized)) {
  Position pos = Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1");
  for (const char* m : {"b1-b3/d3", "e4-c4/e4"}) pos.apply(pos.parse_move(m));
  ab::Dfpn<SolverPosition> solver({.tt_megabytes = 64});
  const auto r = solver.solve(SolverPosition(pos));
  REQUIRE(r.proven_win);
  REQUIRE(r.has_move);
  SolverPosition reply(pos);
  reply.apply(r.best);
  ab::Dfpn<SolverPosition> check({.tt_megabytes = 64});
  CHECK(check.solve(reply).proven_loss);
}

TEST_CASE("budgets stop the search unproven; the table carries over to the next call") {
  const SolverPosition start(Position::from_fen("1qq1/q2q/Q2Q/1QQ1 w - - 0 1"));
  ab::Dfpn<SolverPosition> solver({.tt_megabytes = 16});
  const auto cut = solver.solve(start, gsearch::Budget::node_count(200));
  CHECK_FALSE(cut.proven_win);
  CHECK_FALSE(cut.proven_loss);
  CHECK(cut.nodes < 200 + 64);
  const auto full = solver.solve(start);
  CHECK(full.proven_loss);
  const auto again = solver.solve(start);
  CHECK(again.proven_loss);
  CHECK(again.nodes < full.nodes / 10);  // the proof is in the table
  solver.clear();
  CHECK(solver.solve(start).nodes > again.nodes);
}
