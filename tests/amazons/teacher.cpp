// The local teacher's heuristic (one-ply territory change plus noise) and its fault plan.
#include "amazons/teacher.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace amazons;

TEST_CASE("territory: the mover's net queen-distance territory, and its one-ply change") {
  // White a1 against Black d4 on 4x4: each reaches its own side first.
  const Position p = Position::from_fen("3q/4/4/Q3 w");
  const int t = queen_territory(p, kWhite);
  CHECK(t == -queen_territory(p, kBlack));
  // Walling Black in: queen a1-c1... checked against a plain count after each part.
  const Move m = p.parse_move("a1-b2/c3");
  const TerritoryChange c = territory_change(p, m);
  Position mid = p;
  mid.move_queen(m.from, m.to);
  Position after = p;
  after.apply(m);
  CHECK(c.move == queen_territory(mid, kWhite) - t);
  CHECK(c.place == queen_territory(after, kWhite) - queen_territory(mid, kWhite));
}

TEST_CASE("scores: in [0, 1] with two decimals, deterministic in (seed, position, move)") {
  const Position start;
  gsearch::MoveListOf<Position> moves;
  start.legal_moves(moves);
  const TeacherParams a{.seed = 1}, b{.seed = 2};
  int differ = 0;
  std::set<double> values;
  for (std::size_t i = 0; i < moves.size(); i += 7) {
    const Scores s = teacher_scores(start, moves[i], a);
    CHECK(s == teacher_scores(start, moves[i], a));
    for (const double v : {s.move, s.place}) {
      CHECK(v >= 0);
      CHECK(v <= 1);
      CHECK(std::round(v * 100) / 100 == v);
      values.insert(v);
    }
    differ += !(s == teacher_scores(start, moves[i], b));
  }
  CHECK(differ > 250);
  CHECK(values.size() > 30);
  // Without noise a score is the logistic of the change, rounded.
  const Move m = start.parse_move("d1-d6/g9");
  const TerritoryChange c = territory_change(start, m);
  const Scores quiet = teacher_scores(start, m, {.noise = 0});
  CHECK(quiet.move == doctest::Approx(std::round(100 / (1 + std::exp(-c.move / 4.0))) / 100));
  CHECK(quiet.place == doctest::Approx(std::round(100 / (1 + std::exp(-c.place / 2.0))) / 100));
}

TEST_CASE("the teacher is weak but not blind: its scores follow the territory change") {
  const Position start;
  gsearch::MoveListOf<Position> moves;
  start.legal_moves(moves);
  double sum_good = 0, sum_bad = 0;
  int good = 0, bad = 0;
  for (const Move& m : moves) {
    const TerritoryChange c = territory_change(start, m);
    const Scores s = teacher_scores(start, m, {});
    if (c.move > 2) sum_good += s.move, ++good;
    if (c.move < -2) sum_bad += s.move, ++bad;
  }
  REQUIRE(good > 10);
  REQUIRE(bad > 10);
  CHECK(sum_good / good > sum_bad / bad + 0.2);
}

TEST_CASE("faults: chosen by hash with the given probabilities; probabilities are checked") {
  const TeacherFaults f{.malformed = 0.2,
                        .out_of_range = 0.1,
                        .slow = 0.05,
                        .drop = 0.05,
                        .error_500 = 0.1,
                        .error_429 = 0.1};
  std::array<int, kFaultKinds> counts{};
  for (std::uint64_t key = 0; key < 20000; ++key)
    ++counts[static_cast<std::size_t>(choose_fault(f, key))];
  const double expected[kFaultKinds] = {0.4, 0.2, 0.1, 0.05, 0.05, 0.1, 0.1};
  for (std::size_t k = 0; k < kFaultKinds; ++k) {
    CAPTURE(k);
    CHECK(counts[k] / 20000.0 == doctest::Approx(expected[k]).epsilon(0.15));
  }
  CHECK(choose_fault({}, 5) == Fault::none);
  CHECK(choose_fault({.error_500 = 1}, 5) == Fault::error_500);
  CHECK_THROWS_WITH_AS((TeacherFaults{.malformed = 0.7, .drop = 0.5}.validate()),
                       "the fault probabilities add up to more than 1", std::invalid_argument);
  CHECK_THROWS_AS((TeacherFaults{.slow = -0.1}.validate()), std::invalid_argument);
  CHECK_THROWS_AS((TeacherFaults{.slow_ms = -1}.validate()), std::invalid_argument);
  CHECK_NOTHROW((TeacherFaults{.malformed = 0.5, .drop = 0.5, .chunked = 1}.validate()));
}

TEST_CASE(
    "every malformed reply and every out-of-range reply is rejected by the labeler's parser") {
  std::set<Rejection> seen;
  for (const Scores s : {Scores{0, 1}, Scores{1, 0}, Scores{0.5, 0.5}}) {
    for (std::uint64_t key = 0; key < 64; ++key) {
      const MalformedReply m = malformed_reply(s, key);
      const Reply r = m.body ? parse_reply(m.text) : parse_scores(m.text);
      CHECK(!r.scores);
      seen.insert(r.rejection);
    }
    const Reply r = parse_scores(out_of_range_reply(s));
    CHECK(!r.scores);
    CHECK(r.rejection == Rejection::out_of_range);
  }
  CHECK(seen == std::set<Rejection>{Rejection::not_json, Rejection::no_content, Rejection::empty,
                                    Rejection::prose, Rejection::one_number,
                                    Rejection::too_many_numbers, Rejection::not_finite});
}
