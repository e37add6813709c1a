// gsearch/core/stats.hpp — statistics for match results: score intervals and Elo.
//
// A match of n games with score s (wins + half the draws) estimates a player's expected score
// p = s / n. The Wilson score interval (Wilson 1927) gives a confidence interval for p that
// behaves well near 0 and 1 and for small n, unlike the normal approximation. An expected
// score p corresponds to an Elo difference of -400·log10(1/p - 1); the interval of the Elo
// difference is the Wilson interval mapped through the same function (it is monotone).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace gsearch {

struct Interval {
  double low = 0.0;
  double high = 0.0;
};

// z for a two-sided 95% interval.
inline constexpr double kZ95 = 1.959963984540054;

// Wilson score interval for `score` successes in `n` trials (score may be fractional, e.g.
// wins + draws / 2). n = 0 gives [0, 1].
[[nodiscard]] inline Interval wilson_interval(double score, double n, double z = kZ95) {
  if (n <= 0) return {0.0, 1.0};
  const double p = score / n;
  const double z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

// The Elo difference that predicts expected score p: ±infinity at p = 1 or 0.
[[nodiscard]] inline double elo_difference(double p) {
  if (p <= 0.0) return -std::numeric_limits<double>::infinity();
  if (p >= 1.0) return std::numeric_limits<double>::infinity();
  return -400.0 * std::log10(1.0 / p - 1.0);
}

// The Elo interval matching the Wilson interval of the score.
[[nodiscard]] inline Interval elo_interval(double score, double n, double z = kZ95) {
  const Interval w = wilson_interval(score, n, z);
  return {elo_difference(w.low), elo_difference(w.high)};
}

}  // namespace gsearch
