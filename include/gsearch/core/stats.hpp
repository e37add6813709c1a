// gsearch/core/stats.hpp — statistics for match results: score intervals and Elo.
//
// Also the F-test for equal variances, used to compare the stability of two training runs
// (the paper's §5.2), on the regularized incomplete beta function.
//
// A match of n games with score s (wins + half the draws) estimates a player's expected score
// p = s / n. The Wilson score interval (Wilson 1927) gives a confidence interval for p that
// behaves well near 0 and 1 and for small n, unlike the normal approximation. An expected
// score p corresponds to an Elo difference of -400·log10(1/p - 1); the interval of the Elo
// difference is the Wilson interval mapped through the same function (it is monotone).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
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
  // Exact ends when every game was lost or won (rounding would leave 1e-17, an Elo of -6984).
  return {score <= 0 ? 0.0 : std::max(0.0, center - half),
          score >= n ? 1.0 : std::min(1.0, center + half)};
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

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1], by Lentz's
// continued fraction (Numerical Recipes §6.4), to about 1e-12 relative accuracy.
[[nodiscard]] inline double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const auto continued_fraction = [](double a, double b, double x) {
    constexpr double kTiny = 1e-300, kEps = 1e-15;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::abs(d) < kTiny) d = kTiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 1000; ++m) {
      const double m2 = 2.0 * m;
      double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
      d = 1.0 + aa * d;
      if (std::abs(d) < kTiny) d = kTiny;
      c = 1.0 + aa / c;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1.0 / d;
      h *= d * c;
      aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
      d = 1.0 + aa * d;
      if (std::abs(d) < kTiny) d = kTiny;
      c = 1.0 + aa / c;
      if (std::abs(c) < kTiny) c = kTiny;
      d = 1.0 / d;
      const double delta = d * c;
      h *= delta;
      if (std::abs(delta - 1.0) < kEps) break;
    }
    return h;
  };
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * continued_fraction(a, b, x) / a;
  return 1.0 - front * continued_fraction(b, a, 1.0 - x) / b;
}

// P(F > f) for F with (d1, d2) degrees of freedom.
[[nodiscard]] inline double f_distribution_upper_tail(double f, double d1, double d2) {
  if (f <= 0.0) return 1.0;
  return incomplete_beta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f));
}

// The two-sided F-test for equal variances of two samples with sample variances v1, v2 and
// sizes n1, n2 (n >= 2): F = v1 / v2, p = 2 · min(P(F' > F), P(F' < F)).
struct FTest {
  double f = 1.0;
  double p = 1.0;
};
[[nodiscard]] inline FTest f_test(double v1, std::size_t n1, double v2, std::size_t n2) {
  FTest t;
  if (n1 < 2 || n2 < 2 || !(v2 > 0)) return t;
  t.f = v1 / v2;
  const double upper =
      f_distribution_upper_tail(t.f, static_cast<double>(n1 - 1), static_cast<double>(n2 - 1));
  t.p = std::min(1.0, 2.0 * std::min(upper, 1.0 - upper));
  return t;
}

}  // namespace gsearch
