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

namespace gsearch::arena {

// The expected score per game of a player `elo` Elo stronger (logistic model).
[[nodiscard]] inline double logistic_score(double elo) {
  return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0));
}

// Counts of pairs by A's score: [0] both lost, [1] ½, [2] 1, [3] 1½, [4] both won.
using Pentanomial = std::array<std::uint64_t, 5>;

// The log-likelihood ratio of "A's expected score per game is s1" against "... is s0" after
// the pairs `counts` (see the top of this file). 0 with no pairs.
[[nodiscard]] inline double pentanomial_llr(const Pentanomial& counts, double s0, double s1) {
  double n = 0;
  for (auto c : counts) n += static_cast<double>(c);
  if (n == 0) return 0.0;
  // The observed distribution over a_i = 0, 1/4, 1/2, 3/4, 1, empty cells regularised.
  std::array<double, 5> p{};
  double total = 0;
  for (std::size_t i = 0; i < 5; ++i) total += p[i] = std::max(1e-3, double(counts[i]));
  for (double& x : p) x /= total;
  // The λ of the closest distribution with mean s: Σ p_i (a_i - s) / (1 + λ(a_i - s)) = 0,
  // decreasing in λ on the interval where every 1 + λ(a_i - s) > 0; by bisection.
  const auto log_ratio_terms = [&](double s, std::array<double, 5>& log_q) {
    const auto f = [&](double lambda) {
      double sum = 0;
      for (std::size_t i = 0; i < 5; ++i) {
        const double d = 0.25 * static_cast<double>(i) - s;
        sum += p[i] * d / (1 + lambda * d);
      }
      return sum;
    };
    double lo = -1.0 / (1.0 - s), hi = 1.0 / s;  // 1 + λ(a - s) > 0 for a in [0, 1]
    const double margin = 1e-12;
    lo += margin * (hi - lo), hi -= margin * (hi - lo);
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (f(mid) > 0 ? lo : hi) = mid;
    }
    const double lambda = 0.5 * (lo + hi);
    for (std::size_t i = 0; i < 5; ++i)  // log q_i, q_i = p_i / (1 + λ(a_i - s))
      log_q[i] = std::log(p[i]) - std::log1p(lambda * (0.25 * static_cast<double>(i) - s));
  };
  std::array<double, 5> log_q0{}, log_q1{};
  log_ratio_terms(s0, log_q0);
  log_ratio_terms(s1, log_q1);
  double llr = 0;
  for (std::size_t i = 0; i < 5; ++i) llr += p[i] * (log_q1[i] - log_q0[i]);
  return n * llr;
}

struct SprtParams {
  double elo0 = 0.0;    // H0: A is elo0 Elo stronger than B
  double elo1 = 10.0;   // H1: A is elo1 Elo stronger (elo1 > elo0)
  double alpha = 0.05;  // the rate of accepting H1 when H0 holds
  double beta = 0.05;   // the rate of accepting H0 when H1 holds

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
    llr_ = pentanomial_llr(counts_, logistic_score(params_.elo0), logistic_score(params_.elo1));
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
