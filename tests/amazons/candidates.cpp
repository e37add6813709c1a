// Candidate sources: distinct legal moves, deterministic for a seed; specs and their errors.
#include "amazons/paper/candidates.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace amazons;

namespace {

void check_distinct_legal(const Position& pos, const std::vector<Move>& moves) {
  std::set<std::string> seen;
  for (const Move& m : moves) {
    CHECK(gsearch::is_legal(pos, m));
    CHECK(seen.insert(pos.move_to_string(m)).second);
  }
}

}  // namespace

TEST_CASE("random, prior, search and all: distinct legal moves, the same for the same seed") {
  Position pos;
  pos.apply(pos.parse_move("d1-d6/g9"));
  const auto random = random_candidates(pos, 8, 3);
  CHECK(random.size() == 8);
  check_distinct_legal(pos, random);
  CHECK(random == random_candidates(pos, 8, 3));
  CHECK(random != random_candidates(pos, 8, 4));
  CHECK(all_candidates(pos).size() == pos.count_moves());
  CHECK(random_candidates(Position::from_fen("2*q/4/4/Q3 w"), 1000, 1).size() ==
        Position::from_fen("2*q/4/4/Q3 w").count_moves());

  const auto prior = prior_candidates(pos, 5);
  CHECK(prior.size() == 5);
  check_distinct_legal(pos, prior);
  const LieberumEvaluator eval;
  double last = 3;
  for (const Move& m : prior) {  // best first
    Position child = pos;
    child.apply(m);
    const double v = -eval(child);
    CHECK(v <= last);
    last = v;
  }

  const auto search = search_candidates(pos, 6, 300, 9);
  CHECK(search.size() == 6);
  check_distinct_legal(pos, search);
  CHECK(search == search_candidates(pos, 6, 300, 9));
  CHECK(search_candidates(pos, 6, 2, 9).size() == 6);  // too few iterations: filled by prior
}

TEST_CASE("candidate specs") {
  const Position start;
  CHECK(make_candidate_source("random:n=3")(start, 1).size() == 3);
  CHECK(make_candidate_source("prior:n=4")(start, 1).size() == 4);
  CHECK(make_candidate_source("search:n=2,iters=50")(start, 1).size() == 2);
  CHECK(make_candidate_source("all")(start, 1).size() == 2176);
  CHECK(make_candidate_source("search")(start, 1).size() == 8);
  CHECK_THROWS_WITH_AS(make_candidate_source("mcts:n=3"),
                       doctest::Contains("unknown candidate source \"mcts\""), SpecError);
  CHECK_THROWS_WITH_AS(make_candidate_source("tree"), doctest::Contains("not available here"),
                       SpecError);
  // The tree source passes its own seed and node count, whatever the caller's seed.
  std::uint64_t seen_seed = 0, seen_nodes = 0;
  const auto tree = [&](const Position& pos, std::uint64_t seed, std::uint64_t nodes) {
    seen_seed = seed, seen_nodes = nodes;
    return prior_candidates(pos, 2);
  };
  CHECK(make_candidate_source("tree:nodes=7,seed=3", tree)(start, 99).size() == 2);
  CHECK(seen_seed == 3);
  CHECK(seen_nodes == 7);
  CHECK_THROWS_WITH_AS(make_candidate_source("tree:n=3", tree),
                       "candidate source tree takes nodes=N and seed=N, not \"n=3\"", SpecError);
  CHECK_THROWS_WITH_AS(make_candidate_source("prior:iters=3"),
                       "candidate source prior takes n=N, not \"iters=3\"", SpecError);
  CHECK_THROWS_WITH_AS(make_candidate_source("all:n=3"), doctest::Contains("takes no parameters"),
                       SpecError);
  CHECK_THROWS_WITH_AS(make_candidate_source("random:n=0"),
                       doctest::Contains("n=\"0\" is not a whole number"), SpecError);
  CHECK_THROWS_WITH_AS(make_candidate_source("search:n=x"),
                       doctest::Contains("is not a whole number"), SpecError);
}
