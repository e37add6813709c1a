// gsearch/arena/sprt.hpp — the sequential probability ratio test over pairs of games, as
// engine testers run it (fishtest; cutechess-cli's --sprt): stop a match as soon as the
// games say, with set error rates, whether A is elo0 or elo1 Elo stronger than B.
//
// Games come in pairs that share an opening with colours swapped (gsearch::arena::play_match
// plays them so), and a pair's score for A — 0, ½, 1, 1½ or 2 — is one sample of a
// pentanomial distribution. Pairs, not games, are the samples: the two games of a pair are
// correlated through their opening, and treating them as independent understates the
// variance (Van den Bergh, "Pentanomial statistics", fishtest 2020).
//
// The test is the generalised SPRT of fishtest's LLRcalc: the hypotheses fix the expected
// score per game, s = 1 / (1 + 10^(-elo / 400)) (the logistic Elo model: elo0 → s0, elo1 →
// s1); for each, the distribution of pair scores closest to the one observed with that mean
// is found by maximum likelihood (a one-parameter problem: p_i = p̂_i / (1 + λ(a_i - s)), the
// a_i the five pair scores halved), and
//     LLR = N · Σ p̂_i · log(p1_i / p0_i)
// over the N pairs played. The test stops at H1 (A is elo1 stronger) once LLR ≥ log((1 -
// β) / α), at H0 (elo0) once LLR ≤ log(β / (1 - α)), α and β the false-positive and
// false-negative rates. Empty cells of the observed distribution are counted as 10⁻³ pairs,
// as fishtest does, so that a few pairs never give an infinite ratio.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "gsearch/core/stats.hpp"

namespace gsearch::arena {

// The expected score per game of a player `elo` Elo stronger (logistic model).
[[nodiscard]] inline double logistic_score(double elo) {
  return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0));
}

// Counts of pairs by A's score: [0] both lost, [1] ½, [2] 1, [3] 1½, [4] both won.
using Pentanomial = std::array<std::uint64_t, 5>;

namespace detail {
using Distribution = std::array<double, 5>;  // over the pair scores halved, a_i = i / 4

// The observed distribution of `counts`, empty cells counted as 10⁻³ pairs; n: the pairs.
inline Distribution observed(const Pentanomial& counts, double& n) {
  Distribution p{};
  double total = 0;
  n = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    n += static_cast<double>(counts[i]);
    total += p[i] = std::max(1e-3, static_cast<double>(counts[i]));
  }
  for (double& x : p) x /= total;
  return p;
}

// The x with Σ p_i v_i / (1 + x v_i) = 0 (the secular equation) on the interval where every
// 1 + x v_i > 0, on which the sum decreases; by bisection. v takes both signs.
inline double secular(const Distribution& p, const Distribution& v) {
  double lo = -1e300, hi = 1e300;
  for (double vi : v) {
    if (vi > 0) lo = std::max(lo, -1.0 / vi);
    if (vi < 0) hi = std::min(hi, -1.0 / vi);
  }
  const double margin = 1e-12 * (hi - lo);
  lo += margin, hi -= margin;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    double sum = 0;
    for (std::size_t i = 0; i < 5; ++i) sum += p[i] * v[i] / (1 + mid * v[i]);
    (sum > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The distribution q_i = p_i / (1 + x v_i) that the secular equation of v gives: among those
// with Σ q_i v_i = 0, the one under which p's samples are likeliest.
inline Distribution tilted(const Distribution& p, const Distribution& v) {
  const double x = secular(p, v);
  Distribution q{};
  for (std::size_t i = 0; i < 5; ++i) q[i] = p[i] / (1 + x * v[i]);
  return q;
}

// The likeliest distribution with mean s (v_i = a_i - s).
inline Distribution closest_with_mean(const Distribution& p, double s) {
  Distribution v{};
  for (std::size_t i = 0; i < 5; ++i) v[i] = 0.25 * static_cast<double>(i) - s;
  return tilted(p, v);
}

// The likeliest distribution whose t-value (mean - ref) / sd is t: fishtest's MLE_t_value, a
// fixed point from the uniform distribution (each step linearises the constraint around the
// current mean and deviation).
inline Distribution closest_with_t(const Distribution& p, double ref, double t) {
  Distribution q{0.2, 0.2, 0.2, 0.2, 0.2};
  for (int it = 0; it < 100; ++it) {
    double mu = 0, second = 0;
    for (std::size_t i = 0; i < 5; ++i) {
      const double a = 0.25 * static_cast<double>(i);
      mu += q[i] * a, second += q[i] * a * a;
    }
    const double sigma = std::sqrt(std::max(1e-300, second - mu * mu));
    Distribution v{};
    for (std::size_t i = 0; i < 5; ++i) {
      const double a = 0.25 * static_cast<double>(i), z = (mu - a) / sigma;
      v[i] = a - ref - t * sigma * (1 + z * z) / 2;
    }
    const Distribution next = tilted(p, v);
    double change = 0;
    for (std::size_t i = 0; i < 5; ++i) change = std::max(change, std::abs(next[i] - q[i]));
    q = next;
    if (change < 1e-12) break;
  }
  return q;
}

// N · Σ p_i log(q1_i / q0_i).
inline double llr(double n, const Distribution& p, const Distribution& q0, const Distribution& q1) {
  double sum = 0;
  for (std::size_t i = 0; i < 5; ++i) sum += p[i] * std::log(q1[i] / q0[i]);
  return n * sum;
}
}  // namespace detail

// The log-likelihood ratio of "A's expected score per game is s1" against "... is s0" after
// the pairs `counts` (the logistic model; see the top of this file). 0 with no pairs.
[[nodiscard]] inline double pentanomial_llr(const Pentanomial& counts, double s0, double s1) {
  double n = 0;
  const auto p = detail::observed(counts, n);
  if (n == 0) return 0.0;
  return detail::llr(n, p, detail::closest_with_mean(p, s0), detail::closest_with_mean(p, s1));
}

// The same for "the pair scores' t-value, (mean - 1/2) / standard deviation, is t1" against
// "... is t0" (the normalised model).
[[nodiscard]] inline double pentanomial_llr_normalized(const Pentanomial& counts, double t0,
                                                       double t1) {
  double n = 0;
  const auto p = detail::observed(counts, n);
  if (n == 0) return 0.0;
  return detail::llr(n, p, detail::closest_with_t(p, 0.5, t0), detail::closest_with_t(p, 0.5, t1));
}

// Normalised Elo (nElo, fishtest): 800 / ln 10 times the t-value of one game's score, so that
// nElo and Elo agree for games without draws at small differences. A pair averages two
// games, so a pair's t-value is √2 times a game's.
[[nodiscard]] inline double pair_t_value(double nelo) {
  return nelo / (800.0 / std::log(10.0)) * std::sqrt(2.0);
}

enum class SprtModel {
  kLogistic,   // elo0, elo1 are Elo: expected scores 1 / (1 + 10^(-elo / 400))
  kNormalized  // elo0, elo1 are normalised Elo: t-values of the results (pair_t_value)
};

// A match's result read over its pairs of games: A's mean score per game, its 95 % interval
// from the variance of the pair scores (the pentanomial standard error, which counts what the
// two games of a pair share), and the same as Elo differences. The variance counts one
// virtual pair besides the real ones, half of it lost both games and half won both, so that a
// match whose pairs all ended alike (every pair won, or every pair split) still gets an
// interval rather than a point.
struct PairSummary {
  std::uint64_t pairs = 0;
  double score = 0.5;  // per game, in [0, 1]
  Interval score_ci{0.0, 1.0};
  double elo = 0.0;
  Interval elo_ci{};
};

[[nodiscard]] inline PairSummary summarize_pairs(const Pentanomial& counts) {
  PairSummary s;
  std::array<double, 5> c{};
  double n = 0, mean = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    c[i] = static_cast<double>(counts[i]);
    n += c[i], mean += c[i] * 0.25 * static_cast<double>(i);
  }
  s.pairs = counts[0] + counts[1] + counts[2] + counts[3] + counts[4];
  if (n == 0) return s;
  mean /= n;
  c[0] += 0.5, c[4] += 0.5;  // the virtual pair
  double reg_mean = 0, reg_second = 0;
  for (std::size_t i = 0; i < 5; ++i) {
    const double a = 0.25 * static_cast<double>(i);
    reg_mean += c[i] * a / (n + 1), reg_second += c[i] * a * a / (n + 1);
  }
  const double se = std::sqrt((reg_second - reg_mean * reg_mean) / n);
  s.score = mean;
  s.score_ci = {std::max(0.0, mean - kZ95 * se), std::min(1.0, mean + kZ95 * se)};
  s.elo = elo_difference(mean);
  s.elo_ci = {elo_difference(s.score_ci.low), elo_difference(s.score_ci.high)};
  return s;
}

struct SprtParams {
  double elo0 = 0.0;                       // H0: A is elo0 Elo stronger than B
  double elo1 = 10.0;                      // H1: A is elo1 Elo stronger (elo1 > elo0)
  double alpha = 0.05;                     // the rate of accepting H1 when H0 holds
  double beta = 0.05;                      // the rate of accepting H0 when H1 holds
  SprtModel model = SprtModel::kLogistic;  // what elo0 and elo1 measure

  // Throws std::invalid_argument naming what is wrong.
  void check() const {
    const auto text = [](double v) {
      std::ostringstream out;
      out << v;
      return out.str();
    };
    if (!(elo1 > elo0) || !std::isfinite(elo0) || !std::isfinite(elo1))
      throw std::invalid_argument("sprt: elo1 must be greater than elo0 (got elo0 " + text(elo0) +
                                  ", elo1 " + text(elo1) + ")");
    if (!(alpha > 0 && alpha < 0.5) || !(beta > 0 && beta < 0.5))
      throw std::invalid_argument("sprt: alpha and beta must be in (0, 0.5) (got alpha " +
                                  text(alpha) + ", beta " + text(beta) + ")");
  }
  [[nodiscard]] double lower_bound() const { return std::log(beta / (1 - alpha)); }
  [[nodiscard]] double upper_bound() const { return std::log((1 - beta) / alpha); }
};

// The test as pairs arrive.
class Sprt {
 public:
  enum class Status { kContinue, kAcceptH0, kAcceptH1 };

  explicit Sprt(const SprtParams& params) : params_(params) { params_.check(); }

  // A pair's two game scores for A (each 0, ½ or 1).
  void add_pair(double first, double second) {
    const double total = first + second;  // 0, 0.5, ..., 2
    const auto cell = static_cast<std::size_t>(std::lround(total * 2));
    if (cell > 4) throw std::invalid_argument("sprt: a pair scores between 0 and 2");
    ++counts_[cell];
    llr_ =
        params_.model == SprtModel::kLogistic
            ? pentanomial_llr(counts_, logistic_score(params_.elo0), logistic_score(params_.elo1))
            : pentanomial_llr_normalized(counts_, pair_t_value(params_.elo0),
                                         pair_t_value(params_.elo1));
  }

  [[nodiscard]] double llr() const noexcept { return llr_; }
  [[nodiscard]] const Pentanomial& counts() const noexcept { return counts_; }
  [[nodiscard]] std::uint64_t pairs() const noexcept {
    std::uint64_t n = 0;
    for (auto c : counts_) n += c;
    return n;
  }
  [[nodiscard]] const SprtParams& params() const noexcept { return params_; }
  [[nodiscard]] Status status() const {
    if (llr_ >= params_.upper_bound()) return Status::kAcceptH1;
    if (llr_ <= params_.lower_bound()) return Status::kAcceptH0;
    return Status::kContinue;
  }

 private:
  SprtParams params_;
  Pentanomial counts_{};
  double llr_ = 0.0;
};

}  // namespace gsearch::arena
