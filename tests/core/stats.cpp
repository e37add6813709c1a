#include "gsearch/core/stats.hpp"

#include <doctest/doctest.h>

#include <cmath>

TEST_CASE("Wilson interval: known values, bounds and edge cases") {
  // 50/100: centre 0.5, half-width 1.96*sqrt(0.25/100 + 1.96^2/40000)/(1 + 1.96^2/100).
  const auto i = gsearch::wilson_interval(50, 100);
  CHECK(i.low == doctest::Approx(0.4038).epsilon(1e-3));
  CHECK(i.high == doctest::Approx(0.5962).epsilon(1e-3));
  // 10/10: the upper bound is 1, the lower 0.7225 (not 1, unlike the normal approximation).
  const auto all = gsearch::wilson_interval(10, 10);
  CHECK(all.high == doctest::Approx(1.0));
  CHECK(all.low == doctest::Approx(0.7225).epsilon(1e-3));
  const auto none = gsearch::wilson_interval(0, 0);
  CHECK(none.low == 0.0);
  CHECK(none.high == 1.0);
}

TEST_CASE("Elo difference and its interval") {
  CHECK(gsearch::elo_difference(0.5) == doctest::Approx(0.0));
  CHECK(gsearch::elo_difference(0.75) == doctest::Approx(190.85).epsilon(1e-3));
  CHECK(gsearch::elo_difference(0.25) == doctest::Approx(-190.85).epsilon(1e-3));
  CHECK(std::isinf(gsearch::elo_difference(1.0)));
  const auto e = gsearch::elo_interval(75, 100);
  CHECK(e.low < 190.85);
  CHECK(e.high > 190.85);
  CHECK(e.low > 0);
  // Every game lost (or won): the open end is exactly infinite, the other finite.
  const auto lost = gsearch::elo_interval(0, 100);
  CHECK(std::isinf(lost.low));
  CHECK(lost.low < 0);
  CHECK(lost.high == doctest::Approx(-566.0).epsilon(2e-3));
  const auto won = gsearch::elo_interval(100, 100);
  CHECK(std::isinf(won.high));
  CHECK(won.low == doctest::Approx(566.0).epsilon(2e-3));
}

TEST_CASE("incomplete beta and the F-test against tabulated values") {
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(2, 3) at 0.4 = 0.5248 (by the polynomial formula).
  CHECK(gsearch::incomplete_beta(1, 1, 0.3) == doctest::Approx(0.3));
  CHECK(gsearch::incomplete_beta(3, 1, 0.5) == doctest::Approx(0.125));
  CHECK(gsearch::incomplete_beta(2, 3, 0.4) == doctest::Approx(0.5248));
  CHECK(gsearch::incomplete_beta(0.5, 0.5, 0.5) == doctest::Approx(0.5));
  // F(5, 10): the upper 5% point is 3.3258 (standard tables); F(1, 20): 4.3512.
  CHECK(gsearch::f_distribution_upper_tail(3.3258, 5, 10) == doctest::Approx(0.05).epsilon(1e-3));
  CHECK(gsearch::f_distribution_upper_tail(4.3512, 1, 20) == doctest::Approx(0.05).epsilon(1e-3));
  // Equal variances: p = 1; very different variances with large samples: p tiny.
  CHECK(gsearch::f_test(2.0, 30, 2.0, 30).p == doctest::Approx(1.0));
  CHECK(gsearch::f_test(4.0, 500, 1.0, 500).p < 1e-10);
  const auto t = gsearch::f_test(1.0, 11, 3.3258, 6);  // F = 1/3.3258 with (10, 5) dof
  CHECK(t.p == doctest::Approx(0.10).epsilon(1e-2));
}
