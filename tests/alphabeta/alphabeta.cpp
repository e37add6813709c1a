// Alpha-beta: agreement with plain minimax, the exact solver (wins, losses, draws and
// fractional results against exhaustive search, proofs checked by df-pn, published small
// boards), the decision model, budgets and the principal variation.
#include "gsearch/alphabeta/alphabeta.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <concepts>

#include "amazons/exact.hpp"
#include "amazons/rules/decision.hpp"
#include "amazons/rules/solver.hpp"
#include "gsearch/alphabeta/dfpn.hpp"
#include "support/mnk.hpp"
#include "support/negamax.hpp"

namespace ab = gsearch::alphabeta;
using test_games::TicTacToe;

// An evaluator that must be given: its search has no default constructor, and asking whether
// it has one is no compile error (clang reported one while the constructor took its policies
// as default arguments).
struct GivenEvaluation {
  explicit GivenEvaluation(float v) : value(v) {}
  float operator()(const TicTacToe&) const { return value; }
  float value;
};
static_assert(!std::default_initializable<ab::AlphaBeta<TicTacToe, GivenEvaluation>>);
static_assert(std::default_initializable<ab::AlphaBeta<TicTacToe>>);

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
  CHECK(block.proven_draw);  // a draw is proven, not merely "no win found"
  CHECK(block.proven);
  // The empty board is a draw; with the depth capped below the game's length it is unknown.
  CHECK(solver.search(TicTacToe{}).proven_draw);
  ab::AlphaBeta<TicTacToe> shallow({.max_depth = 4});
  const auto unknown = shallow.search(TicTacToe{});
  CHECK_FALSE(unknown.proven);
  CHECK_FALSE(unknown.proven_draw);
  CHECK(unknown.has_move);
}

namespace {

// Tic-tac-toe scored in fractions: a win is worth more the sooner it comes (the share of
// the board still empty), so the exact value of a position is a fraction, not just ±1 or 0.
struct ScoredTicTacToe : TicTacToe {
  [[nodiscard]] double result(gsearch::Player p) const noexcept {
    return TicTacToe::result(p) * (10.0 - plies) / 10.0;  // 9 - plies cells are empty
  }
  void apply(const Move& m) noexcept {
    TicTacToe::apply(m);
    ++plies;
  }
  int plies = 0;
};

}  // namespace

TEST_CASE("the solver equals exhaustive search: wins, losses, draws and fractional results") {
  gsearch::Rng rng(21);
  test_support::Negamax<TicTacToe> exact;
  test_support::Negamax<ScoredTicTacToe> exact_scored;
  int wins = 0, losses = 0, draws = 0, fractions = 0;
  for (int trial = 0; trial < 200; ++trial) {
    TicTacToe g;
    ScoredTicTacToe h;
    const int plies = static_cast<int>(rng.below(6));
    for (int k = 0; k < plies && !g.is_terminal(); ++k) {
      gsearch::MoveListOf<TicTacToe> moves;
      g.legal_moves(moves);
      const auto m = moves[rng.below(moves.size())];
      g.apply(m);
      h.apply(m);
    }
    if (g.is_terminal()) continue;
    ab::AlphaBeta<TicTacToe> solver({.tt_megabytes = 1});
    const auto r = solver.search(g);
    REQUIRE(r.proven);
    const double v = exact(g);
    CHECK(r.score == static_cast<ab::Score>(v * ab::kWin));
    CHECK(r.proven_win == (v > 0));
    CHECK(r.proven_loss == (v < 0));
    CHECK(r.proven_draw == (v == 0));
    wins += v > 0;
    losses += v < 0;
    draws += v == 0;
    // The best move keeps the value.
    REQUIRE(r.has_move);
    TicTacToe c = g;
    c.apply(r.best);
    CHECK(-exact(c) == v);
    // Fractions are kept, not rounded to win, loss or draw.
    ab::AlphaBeta<ScoredTicTacToe> scored({.tt_megabytes = 1});
    const auto s = scored.search(h);
    REQUIRE(s.proven);
    const double w = exact_scored(h);
    CHECK(s.score == static_cast<ab::Score>(std::lround(w * ab::kWin)));
    fractions += w != 0 && std::abs(w) != 1;
  }
  CHECK(wins > 20);
  CHECK(losses > 5);
  CHECK(draws > 20);
  CHECK(fractions > 20);
}

TEST_CASE("Amazons: the solver equals exhaustive search and df-pn on random small positions") {
  gsearch::Rng rng(5);
  exact::Solver reference;
  int tried = 0, wins = 0;
  for (int trial = 0; trial < 250; ++trial) {
    const auto small = exact::random_small_position(rng);
    if (!small) continue;
    const amazons::Position& pos = *small;
    ++tried;
    CAPTURE(pos.fen());
    const bool win = reference.wins(pos);
    wins += win;
    ab::AlphaBeta<amazons::Position> plain({.tt_megabytes = 1});
    const auto r = plain.search(pos);
    CHECK(r.proven_win == win);
    CHECK(r.proven_loss == !win);
    // With the region knowledge, dominated moves left out, mobility ordering and ETC.
    ab::AlphaBeta<amazons::SolverPosition> informed({.tt_megabytes = 1});
    const auto k = informed.search(amazons::SolverPosition(pos));
    CHECK(k.proven_win == win);
    CHECK(k.proven_loss == !win);
    if (win) {
      REQUIRE(k.has_move);
      amazons::Position child = pos;
      child.apply(k.best);
      CHECK_FALSE(reference.wins(child));
    }
  }
  CHECK(tried > 150);
  CHECK(wins > 50);
  CHECK(tried - wins > 30);
}

TEST_CASE("Amazons 4x5 and 5x4 positions: alpha-beta's and df-pn's proofs agree") {
  // Positions a few random turns from the starts of the 4 wide × 5 high and 5 wide × 4 high
  // boards: each is solved by both methods, and each winning move is checked by the other.
  gsearch::Rng rng(13);
  int agreed = 0, wins = 0;
  for (const char* fen : {"1qq1/q2q/4/Q2Q/1QQ1 w - - 0 1", "1q1q1/q3q/Q3Q/1Q1Q1 w - - 0 1"}) {
    for (int trial = 0; trial < 6; ++trial) {
      amazons::SolverPosition pos(amazons::Position::from_fen(fen));
      for (int k = 0; k < 2 + trial % 3 && !pos.is_terminal(); ++k) pos.apply(pos.random_move(rng));
      if (pos.is_terminal()) continue;
      CAPTURE(pos.fen());
      ab::AlphaBeta<amazons::SolverPosition> alpha_beta({.tt_megabytes = 16});
      ab::Dfpn<amazons::SolverPosition> dfpn({.tt_megabytes = 16});
      const auto a = alpha_beta.search(pos);
      const auto d = dfpn.solve(pos);
      REQUIRE(a.proven);
      REQUIRE((d.proven_win || d.proven_loss));
      CHECK(a.proven_win == d.proven_win);
      ++agreed;
      if (!a.proven_win) continue;
      ++wins;
      amazons::SolverPosition after_a = pos, after_d = pos;
      after_a.apply(a.best);
      after_d.apply(d.best);
      CHECK(ab::Dfpn<amazons::SolverPosition>({.tt_megabytes = 16}).solve(after_a).proven_loss);
      CHECK(
          ab::AlphaBeta<amazons::SolverPosition>({.tt_megabytes = 16}).search(after_d).proven_loss);
    }
  }
  CHECK(agreed >= 10);
  CHECK(wins >= 2);
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

TEST_CASE("search()'s max_depth replaces Params::max_depth for one search") {
  const amazons::Position start;
  ab::AlphaBeta<amazons::Position, Mobility> search({.max_depth = 1});
  CHECK(search.search(start, gsearch::Budget::node_count(30000)).depth == 1);
  const auto deeper = search.search(start, gsearch::Budget::node_count(300000), 30);
  CHECK(deeper.depth > 1);
  CHECK(deeper.depth < 30);
  CHECK(search.search(start, {}, 2).depth == 2);
  CHECK(search.search(start).depth == 1);  // the next search without it: Params again
}

TEST_CASE("an interrupted iteration's best move so far is the result, searched deeper") {
  // 6x6 positions a few random turns in; for each, node budgets that stop the depth-3
  // iteration at several points. The result keeps depth 2, but once the depth-2 best move is
  // searched at depth 3, the move is the best of the moves searched so far: its depth-3 value
  // (plain minimax) is the score, and it is at least that of the depth-2 best move.
  const Mobility eval;
  const ab::Score scale = ab::Params{}.eval_scale;
  const auto value3 = [&](const amazons::Position& p, const amazons::Move& m) {
    amazons::Position c = p;
    c.apply(m);
    return -minimax(c, 2, 1, eval, scale);
  };
  gsearch::Rng rng(3);
  int changed = 0, searched = 0;
  for (int trial = 0; trial < 6; ++trial) {
    auto p = amazons::Position::from_fen("1q2q1/6/q4q/Q4Q/6/1Q2Q1 w - - 0 1");
    for (int k = 0; k < 4 + trial; ++k) p.apply(p.random_move(rng));
    if (p.is_terminal()) continue;
    ab::AlphaBeta<amazons::Position, Mobility> two({.max_depth = 2});
    const auto r2 = two.search(p);
    ab::AlphaBeta<amazons::Position, Mobility> three({.max_depth = 3});
    const auto r3 = three.search(p);
    if (r3.proven || r3.nodes < r2.nodes + 4096) continue;
    const ab::Score v2 = value3(p, r2.best);
    for (int part = 1; part < 8; ++part) {
      ab::AlphaBeta<amazons::Position, Mobility> cut({.max_depth = 3});
      const auto r =
          cut.search(p, gsearch::Budget::node_count(r2.nodes + (r3.nodes - r2.nodes) * part / 8));
      if (r.depth != 2) continue;
      ++searched;
      REQUIRE(r.has_move);
      CHECK(r.pv.front() == r.best);
      if (r.best == r2.best && r.score == r2.score) continue;  // stopped before the first move
      const ab::Score v = value3(p, r.best);
      CHECK(r.score == v);
      CHECK(v >= v2);
      if (r.best != r2.best) ++changed;
    }
  }
  CHECK(searched >= 10);
  CHECK(changed >= 1);  // (the interrupted iteration did change the move)
}

namespace {

// A move scorer for the selective tests: fewest replies first (the Amazons solvers' order).
struct FewestReplies {
  void operator()(const amazons::Position& p, const gsearch::MoveListOf<amazons::Position>& moves,
                  float* scores) const {
    for (std::size_t i = 0; i < moves.size(); ++i) {
      amazons::Position c = p;
      c.apply(moves[i]);
      scores[i] = -static_cast<float>(c.count_moves());
    }
  }
};

// Small Amazons positions a few random turns into the 5x5 game.
std::vector<amazons::Position> small_positions(int n) {
  std::vector<amazons::Position> out;
  gsearch::Rng rng(11);
  for (int trial = 0; static_cast<int>(out.size()) < n; ++trial) {
    auto p = amazons::Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1");
    for (int k = 0; k < 2 + trial % 5 && !p.is_terminal(); ++k) p.apply(p.random_move(rng));
    if (!p.is_terminal()) out.push_back(p);
  }
  return out;
}

}  // namespace

TEST_CASE("ordering by a move scorer and aspiration windows leave the value as minimax's") {
  const Mobility eval;
  for (const auto& p : small_positions(8)) {
    for (int depth = 1; depth <= 3; ++depth) {
      const ab::Score want = minimax(p, depth, 0, eval, 10000);
      ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> scored(
          {.max_depth = depth, .score_depth = 1});
      CHECK(scored.search(p).score == want);
      // A window far narrower than the score's changes: most iterations fail and widen.
      ab::AlphaBeta<amazons::Position, Mobility> aspired({.max_depth = depth, .aspiration = 1});
      CHECK(aspired.search(p).score == want);
      ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> both(
          {.max_depth = depth, .score_depth = 2, .aspiration = 3});
      CHECK(both.search(p).score == want);
    }
  }
  ab::AlphaBeta<amazons::Position, Mobility> aspired({.max_depth = 3, .aspiration = 1});
  for (const auto& p : small_positions(4)) (void)aspired.search(p);
  CHECK(aspired.aspiration_researches() > 0);
}

TEST_CASE("forward pruning keeps the scorer's best moves; a pruned search proves nothing") {
  for (const auto& p : small_positions(6)) {
    gsearch::MoveListOf<amazons::Position> moves;
    p.legal_moves(moves);
    std::vector<float> scores(moves.size());
    FewestReplies{}(p, moves, scores.data());
    const float top = *std::max_element(scores.begin(), scores.end());
    // One move kept at the root: the scorer's best (at depth 2 the root is scored).
    ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> narrow(
        {.max_depth = 2, .score_depth = 2, .width = 3, .root_width = 1});
    const auto r = narrow.search(p);
    REQUIRE(r.has_move);
    std::size_t best = 0;
    while (!(moves[best] == r.best)) ++best;
    CHECK(scores[best] == top);
    // A width above the move count prunes nothing: the value is minimax's.
    ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> wide(
        {.max_depth = 2, .score_depth = 1, .width = 5000, .root_width = 5000});
    CHECK(wide.search(p).score == minimax(p, 2, 0, Mobility{}, 10000));
  }
  // White wins at once with a1-c3/d3 (Black's queen on d4 is shut in); pruned to the one move
  // the scorer likes best at the root, the search still finds a win, but not a proof.
  const auto won = amazons::Position::from_fen("2*q/4/4/Q3 w - - 0 1");
  ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> pruned(
      {.max_depth = 4, .score_depth = 1, .width = 1, .root_width = 1});
  const auto r = pruned.search(won);
  CHECK(r.score >= ab::kWin - 2);
  CHECK_FALSE(r.proven);
  ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> full(
      {.max_depth = 4, .score_depth = 1});
  CHECK(full.search(won).proven_win);
}

namespace {
// FewestReplies that counts its calls.
struct CountingScorer : FewestReplies {
  int* calls;
  void operator()(const amazons::Position& p, const gsearch::MoveListOf<amazons::Position>& moves,
                  float* scores) const {
    ++*calls;
    FewestReplies::operator()(p, moves, scores);
  }
};
}  // namespace

TEST_CASE("ordering: a node its table's move cuts off is not scored") {
  // Depth 3, nodes 2+ plies from the leaves scored: the root in iterations 2 and 3, and each
  // of its `root_width` children in iteration 3 (none is terminal on the 6x6 start). Every
  // child has a table's move from iteration 2, searched before the scorer runs: the children
  // it refutes are never scored, and the search is the same as without the counting.
  const auto p = amazons::Position::from_fen("1q2q1/6/q4q/Q4Q/6/1Q2Q1 w - - 0 1");
  const ab::Params params{.max_depth = 3, .score_depth = 2, .width = 8, .root_width = 8};
  int calls = 0;
  ab::AlphaBeta<amazons::Position, Mobility, CountingScorer> counted(params, {}, {{}, &calls});
  const auto r = counted.search(p);
  ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> plain(params);
  const auto want = plain.search(p);
  CHECK(r.best == want.best);
  CHECK(r.score == want.score);
  CHECK(r.nodes == want.nodes);
  CHECK(calls >= 2);
  CHECK(calls < 2 + 8);
}

namespace {
// FewestReplies with a frontier() of its own, which counts its calls.
struct FrontierCounting : FewestReplies {
  int* calls;
  void frontier(const amazons::Position& p, const gsearch::MoveListOf<amazons::Position>& moves,
                float* scores) const {
    ++*calls;
    (*this)(p, moves, scores);
  }
};
}  // namespace

TEST_CASE("frontier pruning: with a one-ply scorer and one move kept, minimax's value") {
  // FewestReplies ranks the moves as Mobility's one-ply search does (a move that leaves no
  // reply, 0, first), so the best scored move is the frontier node's value.
  int calls = 0;
  for (const auto& p : small_positions(8)) {
    for (int depth = 2; depth <= 4; ++depth) {
      const ab::Score want = minimax(p, depth, 0, Mobility{}, 10000);
      ab::AlphaBeta<amazons::Position, Mobility, FewestReplies> one(
          {.max_depth = depth, .score_depth = 2, .frontier_width = 1});
      CHECK(one.search(p).score == want);
      ab::AlphaBeta<amazons::Position, Mobility, FrontierCounting> own(
          {.max_depth = depth, .score_depth = 3, .frontier_width = 1}, {}, {{}, &calls});
      CHECK(own.search(p).score == want);
    }
  }
  CHECK(calls > 0);  // the scorer's frontier() ranked the frontier nodes
}

namespace {
// Mobility's one-ply value of each move, in its units (what futility pruning compares).
struct OnePlyMobility {
  void operator()(const amazons::Position& p, const gsearch::MoveListOf<amazons::Position>& moves,
                  float* scores) const {
    for (std::size_t i = 0; i < moves.size(); ++i) {
      amazons::Position c = p;
      c.apply(moves[i]);
      scores[i] = c.is_terminal() ? 2.0f : -static_cast<float>(Mobility{}(c));
    }
  }
};
}  // namespace

TEST_CASE("futility pruning: a margin no value crosses prunes nothing; a small one prunes") {
  using Search = ab::AlphaBeta<amazons::Position, Mobility, OnePlyMobility>;
  std::uint64_t fewer = 0;
  for (const auto& p : small_positions(8)) {
    for (int depth = 2; depth <= 4; ++depth) {
      // Values lie in [-10000, 10000]: a margin of 20001 a ply never reaches alpha.
      Search wide({.max_depth = depth, .score_depth = 2, .futility = 20001});
      CHECK(wide.search(p).score == minimax(p, depth, 0, Mobility{}, 10000));
      Search plain({.max_depth = depth, .score_depth = 2});
      Search pruned({.max_depth = depth, .score_depth = 2, .futility = 1});
      const auto want = plain.search(p);
      const auto got = pruned.search(p);
      REQUIRE(got.has_move);
      if (depth == 2) {  // only the root is scored, and the root is never pruned
        CHECK(got.nodes == want.nodes);
        CHECK(got.score == want.score);
      }
      if (got.nodes < want.nodes) ++fewer;
    }
  }
  CHECK(fewer > 0);
}

TEST_CASE("late-move reductions: with depth to spare, tic-tac-toe's exact values") {
  const auto zero = [](const TicTacToe&) { return 0.0; };
  using Search = ab::AlphaBeta<TicTacToe, decltype(zero)>;
  // Every line ends within 9 plies; reductions cut at most one ply per node, so depth 20
  // reaches the end of every line, reduced or not.
  Search lmr({.max_depth = 20, .lmr_depth = 2, .lmr_after = 1}, zero);
  const auto start = lmr.search(TicTacToe{});
  CHECK(start.score == 0);
  // X: 0, 4; O: 8, 1 — X to move wins by force.
  const auto win = lmr.search(play({0, 8, 4, 1}));
  CHECK(win.proven_win);
  // Other positions, either side to move: the same value as the unreduced search.
  for (const auto& cells : {std::initializer_list<int>{0, 4}, {4}, {0, 8, 2}, {1, 4, 7, 3}}) {
    const auto g = play(cells);
    Search exact({.max_depth = 20}, zero);
    Search reduced({.max_depth = 20, .lmr_depth = 2, .lmr_after = 1}, zero);
    CHECK(reduced.search(g).score == exact.search(g).score);
  }
}

TEST_CASE("proven outcomes: the region rules end the search of a decided Amazons position") {
  // Black's queen (e4) is walled into three squares, White's (a1) has the rest: the regions
  // are separated and White plays longer. The root is not scored (it needs a move); each
  // child is decided by SolverPosition's region rules, so depth 1 proves the win.
  const amazons::SolverPosition pos(amazons::Position::from_fen("2*2/2*1q/2***/5/Q4 w - - 0 1"));
  REQUIRE(pos.proven_outcome() == 1);
  ab::AlphaBeta<amazons::SolverPosition, Mobility> endgame(
      {.max_depth = 1, .proven_outcomes = true});
  const auto r = endgame.search(pos);
  CHECK(r.proven_win);
  ab::AlphaBeta<amazons::SolverPosition, Mobility> plain({.max_depth = 1});
  CHECK_FALSE(plain.search(pos).proven);
}

TEST_CASE("Lazy SMP: helper threads share the table; exact values stay exact") {
  const auto zero = [](const TicTacToe&) { return 0.0; };
  using Search = ab::AlphaBeta<TicTacToe, decltype(zero)>;
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    Search smp({.max_depth = 12, .threads = threads}, zero);
    for (int round = 0; round < 3; ++round) {  // (the helpers are kept between searches)
      const auto start = smp.search(TicTacToe{});
      CHECK(start.score == 0);
      CHECK(start.depth == 12);
      const auto win = smp.search(play({0, 8, 4, 1}));
      CHECK(win.proven_win);
      CHECK(gsearch::is_legal(play({0, 8, 4, 1}), win.best));
    }
  }
  // Amazons with a time budget: a legal move, and the helpers' nodes counted.
  const amazons::Position start;
  ab::AlphaBeta<amazons::Position, Mobility> one({.max_depth = 64});
  ab::AlphaBeta<amazons::Position, Mobility> two({.max_depth = 64, .threads = 2});
  const auto r1 = one.search(start, gsearch::Budget::node_count(30000));
  const auto r2 = two.search(start, gsearch::Budget::node_count(30000));
  REQUIRE(r2.has_move);
  CHECK(gsearch::is_legal(start, r2.best));
  CHECK(r2.nodes > r1.nodes);
}
