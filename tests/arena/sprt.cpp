// The pentanomial SPRT: its log-likelihood ratio against properties it must have and against
// the normal approximation, and the test's decisions on streams of pairs.
#include "gsearch/arena/sprt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

namespace arena = gsearch::arena;

TEST_CASE("the logistic Elo model") {
  CHECK(arena::logistic_score(0) == 0.5);
  CHECK(arena::logistic_score(400) == doctest::Approx(10.0 / 11.0));
  CHECK(arena::logistic_score(-400) == doctest::Approx(1.0 / 11.0));
}

TEST_CASE("the pentanomial LLR: zero, antisymmetric, signed by the data, near the normal form") {
  const arena::Pentanomial none{};
  CHECK(arena::pentanomial_llr(none, 0.5, 0.51) == 0.0);
  const arena::Pentanomial counts{100, 300, 500, 330, 110};
  const double s0 = arena::logistic_score(0), s1 = arena::logistic_score(5);
  CHECK(arena::pentanomial_llr(counts, s0, s0) == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(arena::pentanomial_llr(counts, s0, s1) ==
        doctest::Approx(-arena::pentanomial_llr(counts, s1, s0)));
  // The mean per game is above s1 here: the data favour H1.
  double n = 0, mean = 0, second = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    const double a = 0.25 * static_cast<double>(i), c = static_cast<double>(counts[i]);
    n += c, mean += c * a, second += c * a * a;
  }
  mean /= n;
  const double variance = second / n - mean * mean;
  REQUIRE(mean > s1);
  const double llr = arena::pentanomial_llr(counts, s0, s1);
  CHECK(llr > 0);
  // For close hypotheses the LLR is N (s1 - s0)(2 mean - s0 - s1) / (2 variance).
  const double normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance);
  CHECK(llr == doctest::Approx(normal).epsilon(0.02));
  // Level results favour H0.
  const arena::Pentanomial level{100, 300, 500, 300, 100};
  CHECK(arena::pentanomial_llr(level, s0, s1) < 0);
}

TEST_CASE("the normalised model: its fits have the t-value asked, its LLR the normal form") {
  CHECK(arena::pair_t_value(0) == 0.0);
  // nElo 800 / ln 10 is a t-value of 1 per game, √2 per pair.
  CHECK(arena::pair_t_value(800 / std::log(10.0)) == doctest::Approx(std::sqrt(2.0)));
  const arena::Pentanomial counts{100, 300, 500, 330, 110};
  double n = 0;
  const auto p = arena::detail::observed(counts, n);
  for (double t : {-0.3, 0.0, 0.05, 0.4}) {
    const auto q = arena::detail::closest_with_t(p, 0.5, t);
    double total = 0, mean = 0, second = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      const double a = 0.25 * static_cast<double>(i);
      total += q[i], mean += q[i] * a, second += q[i] * a * a;
    }
    CHECK(total == doctest::Approx(1.0).epsilon(1e-9));
    CHECK((mean - 0.5) / std::sqrt(second - mean * mean) == doctest::Approx(t).epsilon(1e-6));
  }
  const double t0 = arena::pair_t_value(0), t1 = arena::pair_t_value(5);
  CHECK(arena::pentanomial_llr_normalized(counts, t1, t1) == doctest::Approx(0.0).epsilon(1e-9));
  CHECK(arena::pentanomial_llr_normalized(counts, t0, t1) ==
        doctest::Approx(-arena::pentanomial_llr_normalized(counts, t1, t0)));
  // For close hypotheses the LLR is N (t1 - t0)(2 t - t0 - t1) / 2, t the observed t-value.
  double mean = 0, second = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    const double a = 0.25 * static_cast<double>(i);
    mean += p[i] * a, second += p[i] * a * a;
  }
  const double t = (mean - 0.5) / std::sqrt(second - mean * mean);
  CHECK(arena::pentanomial_llr_normalized(counts, t0, t1) ==
        doctest::Approx(n * (t1 - t0) * (2 * t - t0 - t1) / 2).epsilon(0.02));
}

TEST_CASE("every pair won: each pair adds a bounded amount to the LLR, in both models") {
  // The best fits under both hypotheses put their mass on "both won" and "both lost", so a
  // won pair adds about log(q1 / q0) of "both won": log(s1 / s0) for the logistic model.
  arena::Sprt logistic({.elo0 = 0, .elo1 = 10});
  arena::Sprt normalized({.elo0 = 0, .elo1 = 10, .model = arena::SprtModel::kNormalized});
  logistic.add_pair(1, 1);
  normalized.add_pair(1, 1);
  const double first = normalized.llr();
  for (int i = 1; i < 20; ++i) logistic.add_pair(1, 1), normalized.add_pair(1, 1);
  CHECK(logistic.llr() ==
        doctest::Approx(20 * std::log(arena::logistic_score(10) / 0.5)).epsilon(0.01));
  CHECK(normalized.llr() == doctest::Approx(20 * first).epsilon(0.01));
  CHECK(logistic.status() == arena::Sprt::Status::kContinue);
  CHECK(normalized.status() == arena::Sprt::Status::kContinue);
}

TEST_CASE("the SPRT accepts H1 for a much stronger A, H0 for a weaker one, within its bounds") {
  const arena::SprtParams params{.elo0 = 0, .elo1 = 50, .alpha = 0.05, .beta = 0.05};
  CHECK(params.upper_bound() == doctest::Approx(std::log(19.0)));
  CHECK(params.lower_bound() == doctest::Approx(-std::log(19.0)));
  arena::Sprt strong(params);
  int pairs = 0;
  while (strong.status() == arena::Sprt::Status::kContinue && pairs < 1000) {
    // A wins three pairs in four and splits the fourth.
    strong.add_pair(1.0, pairs % 4 == 3 ? 0.0 : 1.0);
    ++pairs;
  }
  CHECK(strong.status() == arena::Sprt::Status::kAcceptH1);
  CHECK(strong.llr() >= params.upper_bound());
  CHECK(pairs < 40);
  CHECK(strong.pairs() == static_cast<std::uint64_t>(pairs));
  CHECK(strong.counts()[4] + strong.counts()[2] == strong.pairs());
  arena::Sprt weak(params);
  for (pairs = 0; weak.status() == arena::Sprt::Status::kContinue && pairs < 1000; ++pairs)
    weak.add_pair(pairs % 2 ? 0.5 : 0.0, 0.5);  // A scores a quarter
  CHECK(weak.status() == arena::Sprt::Status::kAcceptH0);
  CHECK(weak.llr() <= params.lower_bound());
}

TEST_CASE("bad SPRT parameters and pair scores are refused with a message") {
  CHECK_THROWS_WITH_AS(arena::Sprt({.elo0 = 10, .elo1 = 0}),
                       doctest::Contains("elo1 must be greater than elo0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(arena::Sprt({.alpha = 0}), doctest::Contains("alpha and beta"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(arena::Sprt({.beta = 0.7}), doctest::Contains("alpha and beta"),
                       std::invalid_argument);
  arena::Sprt sprt({});
  CHECK_THROWS_AS(sprt.add_pair(1.0, 1.5), std::invalid_argument);
}

TEST_CASE("a match read over its pairs: the mean, the pentanomial standard error, Elo") {
  // 100 pairs: the mean, and the variance of the pair scores with the virtual pair (half at
  // 0, half at 1), by hand.
  const arena::Pentanomial counts{5, 20, 40, 25, 10};
  const auto s = arena::summarize_pairs(counts);
  CHECK(s.pairs == 100);
  const double mean = (20 * 0.25 + 40 * 0.5 + 25 * 0.75 + 10 * 1.0) / 100;
  const double w[5] = {5.5, 20, 40, 25, 10.5};
  double m = 0, second = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    const double a = 0.25 * static_cast<double>(i);
    m += w[i] * a / 101, second += w[i] * a * a / 101;
  }
  const double se = std::sqrt((second - m * m) / 100);
  CHECK(s.score == doctest::Approx(mean));
  CHECK(s.score_ci.low == doctest::Approx(mean - gsearch::kZ95 * se));
  CHECK(s.score_ci.high == doctest::Approx(mean + gsearch::kZ95 * se));
  CHECK(s.elo == doctest::Approx(-400 * std::log10(1 / mean - 1)));
  CHECK(s.elo_ci.low < s.elo);
  CHECK(s.elo_ci.high > s.elo);
  // Pairs that all ended alike still get an interval around their score.
  const auto level = arena::summarize_pairs({0, 0, 50, 0, 0});
  CHECK(level.elo == doctest::Approx(0.0));
  CHECK(level.elo_ci.low < -10);
  CHECK(level.elo_ci.high > 10);
  const auto won = arena::summarize_pairs({0, 0, 0, 0, 5});
  CHECK(won.score == 1.0);
  CHECK(std::isfinite(won.elo_ci.low));
  CHECK(won.elo_ci.low > 0);
  CHECK(arena::summarize_pairs({}).pairs == 0);
}

TEST_CASE("the values tools/referee.py pins in its self-test, for the same counts") {
  // tools/referee.py writes these formulas again in Python; its --selftest checks the same
  // numbers for 10 pairs lost, 25 split and 15 won.
  const arena::Pentanomial counts{10, 0, 25, 0, 15};
  const auto s = arena::summarize_pairs(counts);
  CHECK(s.score == doctest::Approx(0.55));
  CHECK(s.elo == doctest::Approx(34.86).epsilon(1e-3));
  CHECK(s.elo_ci.low == doctest::Approx(-33.47).epsilon(1e-3));
  CHECK(s.elo_ci.high == doctest::Approx(106.03).epsilon(1e-3));
  CHECK(arena::pentanomial_llr(counts, arena::logistic_score(0), arena::logistic_score(50)) ==
        doctest::Approx(0.4088).epsilon(1e-3));
}
