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
}
