// Distance maps against a plain breadth-first search; features and evaluation properties.
#include "amazons/players/eval.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

using namespace amazons;

namespace {

// Breadth-first search over squares with explicit moves: queen lines or king steps.
std::array<std::uint8_t, 128> bfs(const Position& pos, Player p, bool queen) {
  std::array<std::uint8_t, 128> d;
  d.fill(kFar);
  std::deque<Square> queue;
  for (Bitboard b = pos.queens(p); b;) queue.push_back(pop_lsb(b));
  std::array<int, 128> dist;
  dist.fill(-1);
  for (Square s : queue) dist[s] = 0;
  const Bitboard occ = pos.occupied();
  while (!queue.empty()) {
    const Square s = queue.front();
    queue.pop_front();
    const int dc[8] = {1, 1, 0, -1, -1, -1, 0, 1}, dr[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    for (int k = 0; k < 8; ++k)
      for (int c = col_of(s) + dc[k], r = row_of(s) + dr[k]; c >= 0 && c < 10 && r >= 0 && r < 10;
           c += dc[k], r += dr[k]) {
        const Square t = make_square(c, r);
        if (occ & bit(t)) break;
        if (dist[t] < 0) {
          dist[t] = dist[s] + 1;
          d[t] = static_cast<std::uint8_t>(dist[t]);
          queue.push_back(t);
        }
        if (!queen) break;
      }
  }
  return d;
}

Position random_position(gsearch::Rng& rng, int turns) {
  Position p;
  for (int i = 0; i < turns && !p.is_terminal(); ++i) p.apply(p.random_move(rng));
  return p;
}

}  // namespace

TEST_CASE("distance maps equal breadth-first search on random positions") {
  gsearch::Rng rng(21);
  DistanceMaps maps;
  for (int trial = 0; trial < 60; ++trial) {
    const Position p = random_position(rng, trial % 60);
    compute_distances(p, maps);
    for (Player pl : {kWhite, kBlack}) {
      const auto q = bfs(p, pl, true), k = bfs(p, pl, false);
      for (Bitboard b = p.empty(); b;) {
        const Square s = pop_lsb(b);
        REQUIRE(maps.queen[pl][s] == q[s]);
        REQUIRE(maps.king[pl][s] == k[s]);
      }
    }
  }
}

TEST_CASE("features lie in [0, 1] and are symmetric at the start") {
  DistanceMaps maps;
  const Position start;
  compute_distances(start, maps);
  const Features w = features(start, maps, kWhite, 0);
  const Features b = features(start, maps, kBlack, 0);
  for (int i = 0; i < 5; ++i) CHECK(w[i] == doctest::Approx(b[i]));  // mirror-symmetric start
  CHECK(w[0] == doctest::Approx(0.5));
  gsearch::Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    const Position p = random_position(rng, trial);
    compute_distances(p, maps);
    for (float x : features(p, maps, p.to_move(), 0)) {
      CHECK(x >= 0.0f);
      CHECK(x <= 1.0f);
    }
  }
}

TEST_CASE("Lieberum terms by hand on a small board") {
  // 3x1 board: W on a1, empty b1, B on c1; White to move. b1 is one queen move and one king
  // step from both: a tie, worth kappa to the player to move in t1 and t2; c1, c2, m are 0;
  // w = 2^0 = 1.
  const Position p = Position::from_fen("Q1q w - - 0 1");
  DistanceMaps maps;
  compute_distances(p, maps);
  const LieberumTerms t = lieberum_terms(p, maps, 0.2);
  CHECK(t.t1 == doctest::Approx(0.2));
  CHECK(t.t2 == doctest::Approx(0.2));
  CHECK(t.c1 == doctest::Approx(0.0));
  CHECK(t.c2 == doctest::Approx(0.0));
  CHECK(t.w == doctest::Approx(1.0));
  CHECK(t.m == doctest::Approx(0.0));
  // 4x1: W a1, empty b1 c1, B d1. Queen moves slide: both reach both squares in one move,
  // so t1 = 2 kappa. King steps: White is first on b1 (1 vs 2), Black on c1: t2 = 0, and
  // c2 = (2 - 1)/6 + (1 - 2)/6 = 0. c1 = 2 * ((1/2 - 1/2) + (1/2 - 1/2)) = 0.
  const Position q = Position::from_fen("Q2q w - - 0 1");
  compute_distances(q, maps);
  const LieberumTerms u = lieberum_terms(q, maps, 0.2);
  CHECK(u.t1 == doctest::Approx(0.4));
  CHECK(u.t2 == doctest::Approx(0.0));
  CHECK(u.c1 == doctest::Approx(0.0));
  CHECK(u.c2 == doctest::Approx(0.0));
  // 5x1: W a1, B e1 walled by an arrow on d1: b1, c1 are White's alone: t1 = t2 = 2.
  const Position r = Position::from_fen("Q2*q w - - 0 1");
  compute_distances(r, maps);
  const LieberumTerms v = lieberum_terms(r, maps, 0.2);
  CHECK(v.t1 == doctest::Approx(2.0));
  CHECK(v.t2 == doctest::Approx(2.0));
  CHECK(v.c1 == doctest::Approx(2.0 * (0.5 + 0.5)));  // both one queen move away
  CHECK(v.w == doctest::Approx(0.0));
}

TEST_CASE("distance levels hold the breadth-first distances and give the per-square terms") {
  // The evaluation computes its terms from level sets by popcounts; the per-square sums of
  // lieberum_terms(pos, maps, κ) are the reference. They agree up to the rounding of the sums,
  // on both board sizes, from the start to the end of random games, for either sign of κ.
  gsearch::Rng rng(31);
  DistanceMaps maps;
  DistanceLevels levels;
  int positions = 0;
  for (const char* start : {"", "2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1", "Q2*q w - - 0 1"}) {
    for (int trial = 0; trial < 150; ++trial) {
      Position p = *start ? Position::from_fen(start) : Position{};
      for (int i = 0; i < trial % 90 && !p.is_terminal(); ++i) p.apply(p.random_move(rng));
      compute_distances(p, maps);
      compute_levels(p, levels);
      for (Player pl : {kWhite, kBlack}) {
        for (Bitboard b = p.empty(); b;) {
          const Square s = pop_lsb(b);
          // s is in the set within d from d = its distance on, and in none before (in none at
          // all when it is unreachable).
          for (const auto& [sets, dist] : {std::pair{&levels.queen[pl], maps.queen[pl][s]},
                                           std::pair{&levels.king[pl], maps.king[pl][s]}}) {
            REQUIRE(((sets->at_most(dist) & bit(s)) != 0) == (dist < kFar));
            REQUIRE((sets->at_most(dist - 1) & bit(s)) == 0);
          }
        }
      }
      for (const double kappa : {0.2, -0.2}) {
        const LieberumTerms a = lieberum_terms(p, maps, kappa);
        const LieberumTerms b = lieberum_terms(p, levels, kappa);
        REQUIRE(a.t1 == doctest::Approx(b.t1).epsilon(1e-12));
        REQUIRE(a.t2 == doctest::Approx(b.t2).epsilon(1e-12));
        REQUIRE(a.c1 == doctest::Approx(b.c1).epsilon(1e-12));
        REQUIRE(a.c2 == doctest::Approx(b.c2).epsilon(1e-12));
        REQUIRE(a.w == doctest::Approx(b.w).epsilon(1e-12));
        REQUIRE(a.m == b.m);
        REQUIRE(a.a == doctest::Approx(b.a).epsilon(1e-12));
      }
      ++positions;
    }
  }
  CHECK(positions == 450);
}

TEST_CASE("on boards up to 8x8 the 64-bit levels give the same terms as the 128-bit ones") {
  // The evaluation takes DistanceLevels8 on such boards: the same sets in another layout, so
  // the same popcounts and, summed in the same order, the very same terms.
  gsearch::Rng rng(32);
  DistanceLevels wide;
  DistanceLevels8 narrow;
  int positions = 0;
  for (const char* start : {"2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1", "Q2*q w - - 0 1",
                            "q4/5/5/5/Q3Q w - - 0 1", "q1q5/8/8/8/8/6QQ b - - 0 1"}) {
    for (int trial = 0; trial < 100; ++trial) {
      Position p = Position::from_fen(start);
      for (int i = 0; i < trial % 60 && !p.is_terminal(); ++i) p.apply(p.random_move(rng));
      compute_levels(p, wide);
      compute_levels(p, narrow);
      REQUIRE(narrow.empty == to_bitboard8(wide.empty));
      for (Player pl : {kWhite, kBlack}) {
        REQUIRE(narrow.queen[pl].depth == wide.queen[pl].depth);
        REQUIRE(narrow.king[pl].depth == wide.king[pl].depth);
        for (int d = 0; d <= wide.queen[pl].depth; ++d)
          REQUIRE(narrow.queen[pl].within[d] == to_bitboard8(wide.queen[pl].within[d]));
        for (int d = 0; d <= wide.king[pl].depth; ++d)
          REQUIRE(narrow.king[pl].within[d] == to_bitboard8(wide.king[pl].within[d]));
        REQUIRE(narrow.reach[pl] == wide.reach[pl]);
        REQUIRE(narrow.trapped[pl] == wide.trapped[pl]);
      }
      const LieberumTerms a = lieberum_terms(p, wide, 0.2);
      const LieberumTerms b = lieberum_terms(p, narrow, 0.2);
      REQUIRE((a.t1 == b.t1 && a.t2 == b.t2 && a.c1 == b.c1 && a.c2 == b.c2 && a.w == b.w &&
               a.m == b.m && a.a == b.a));
      ++positions;
    }
  }
  CHECK(positions == 400);
}

TEST_CASE("the evaluation is in [-1, 1] and antisymmetric under a colour swap") {
  gsearch::Rng rng(8);
  const LieberumEvaluator eval;
  for (int trial = 0; trial < 40; ++trial) {
    const Position p = random_position(rng, 5 + trial);
    if (p.is_terminal()) continue;
    const double v = eval(p);
    CHECK(v >= -1.0);
    CHECK(v <= 1.0);
    // Swap colours and side to move: the value for the player to move is unchanged.
    std::string fen = p.fen();
    const auto space = fen.find(' ');
    for (std::size_t i = 0; i < space; ++i)
      if (fen[i] == 'Q')
        fen[i] = 'q';
      else if (fen[i] == 'q')
        fen[i] = 'Q';
    fen[space + 1] = fen[space + 1] == 'w' ? 'b' : 'w';
    CHECK(eval(Position::from_fen(fen)) == doctest::Approx(v));
  }
  // A position where White has walled Black in is good for White, whoever is to move.
  const Position won = Position::from_fen("q*8/**8/10/10/10/10/10/10/10/Q9 w - - 0 1");
  CHECK(eval(won) > 0.5);
}

TEST_CASE("the trapped-queen term by hand, and its weight in the opening only") {
  // 3x1: W a1, B c1, b1 empty: each queen has one move, g(1) = 2^-1/2 for each: a = 0.
  const Position p = Position::from_fen("Q1q w - - 0 1");
  DistanceMaps maps;
  compute_distances(p, maps);
  CHECK(lieberum_terms(p, maps, 0.2).a == doctest::Approx(0.0));
  // 8x8, White's queen on a1 shut in by arrows on a2, b1, b2 (no move: g(0) = 1); Black's
  // queen on h8 has 19 moves (7 along the rank, 7 down the file, 5 down the diagonal to the
  // arrow on b2: g(19) = 2^-9.5). White to move: a = g(19) - g(0).
  const Position shut = Position::from_fen("7q/8/8/8/8/8/**6/Q*6 w - - 0 1");
  const double g19 = std::pow(2.0, -9.5);
  CHECK(trapped_weight(0) == 1.0);
  CHECK(trapped_weight(2) == doctest::Approx(0.5));
  CHECK(trapped_weight(19) == doctest::Approx(g19));
  CHECK(trapped_weight(1000) == 0.0);
  compute_distances(shut, maps);
  CHECK(lieberum_terms(shut, maps, 0.2).a == doctest::Approx(g19 - 1.0));
  DistanceLevels8 levels;
  compute_levels(shut, levels);
  CHECK(lieberum_terms(shut, levels, 0.2).a == doctest::Approx(g19 - 1.0));
  // The weight counts in the opening phase only: a term with phase 1 adds trap * a to the
  // sum, one with phase 0 nothing.
  LieberumWeights w;
  w.trap = 4.0;
  const LieberumEvaluator with(w), without{};
  LieberumTerms t;
  t.a = -1.0;
  t.w = w.w_open;  // phase 1
  CHECK(with.sum(t) == doctest::Approx(without.sum(t) - 4.0));
  t.w = 0;  // phase 0
  CHECK(with.sum(t) == doctest::Approx(without.sum(t)));
}

TEST_CASE("the phase-split features give the evaluation's sum with its weights") {
  gsearch::Rng rng(5);
  amazons::LieberumWeights w;
  w.opening = {0.3, -0.2, 0.5, 0.1, 0.7};
  w.ending = {1.1, 0.4, -0.3, 0.2, 0.05};
  const amazons::LieberumEvaluator eval(w);
  amazons::Position pos;
  for (int ply = 0; ply < 40 && !pos.is_terminal(); ++ply) {
    amazons::DistanceMaps maps;
    amazons::compute_distances(pos, maps);
    const auto terms = amazons::lieberum_terms(pos, maps, w.kappa);
    const auto f = amazons::lieberum_features(terms, w);
    double sum = 0;
    for (int i = 0; i < 5; ++i) sum += w.opening[i] * f[i] + w.ending[i] * f[5 + i];
    CHECK(sum == doctest::Approx(eval.sum(terms)));
    pos.apply(pos.random_move(rng));
  }
}

TEST_CASE("the two-stage move prior scores the best queen moves' arrows in full, the rest below") {
  gsearch::Rng rng(17);
  const LieberumMovePrior full{};
  for (int trial = 0; trial < 12; ++trial) {
    const Position p = random_position(rng, 4 * trial);
    if (p.is_terminal()) continue;
    gsearch::MoveListOf<Position> moves;
    p.legal_moves(moves);
    std::vector<float> all(moves.size()), two(moves.size());
    full(p, moves, all.data());
    // Each queen move's first-stage score: its move with the arrow on the square it left.
    std::map<std::pair<Square, Square>, float> first;
    std::vector<float> ranked;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moves[i].arrow == moves[i].from) {
        first[{moves[i].from, moves[i].to}] = all[i];
        ranked.push_back(all[i]);
      }
    std::sort(ranked.begin(), ranked.end(), std::greater<>());
    for (const std::uint32_t q : {1u, 3u, 10u, 140u}) {
      const LieberumMovePrior staged{.eval = {}, .queen_moves = q};
      staged(p, moves, two.data());
      const float cut = ranked[std::min<std::size_t>(q, ranked.size()) - 1];
      float lowest_scored = 3, highest_rest = -10;
      for (std::size_t i = 0; i < moves.size(); ++i) {
        const Move m = moves[i];
        const float s = first.at({m.from, m.to});
        if (s >= cut || m.arrow == m.from) {  // among the q best, or the first stage's move
          CHECK(two[i] == all[i]);
          lowest_scored = std::min(lowest_scored, two[i]);
        } else {
          CHECK(two[i] == s - 4.0f);
          highest_rest = std::max(highest_rest, two[i]);
        }
      }
      CHECK(highest_rest < lowest_scored - 1.0f);
    }
  }
}
