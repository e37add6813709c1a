// gsearch/arena/spsa.hpp — tuning parameters on match results by simultaneous perturbation
// stochastic approximation (SPSA: Spall, "Multivariate stochastic approximation using a
// simultaneous perturbation gradient approximation", IEEE TAC 37, 1992), the way chess
// engines tune theirs on game results (Stockfish's Fishtest).
//
// Iteration k = 1..N draws a sign Δ_i = ±1 for every parameter, plays θ + c_k Δ against
// θ − c_k Δ (the caller plays the games), and moves θ along Δ by how much the plus side won:
//
//   θ_i ← clamp(θ_i + (a_k,i / c_k,i) · r · Δ_i, lo_i, hi_i)
//   r = score(θ+) − score(θ−) over the iteration's games (a game pair: r in [−2, 2])
//   c_k,i = c_i / k^γ,  a_k,i = a_i / (A + k)^α     (Spall's α = 0.602, γ = 0.101, A = N / 10)
//
// The gains are given as Fishtest gives them, by their values at the last iteration: c_end_i
// (how far the last iteration perturbs parameter i) and r_end (its learning rate, a_end_i /
// c_end_i², the same for every parameter), so that c_i = c_end_i · N^γ and a_i = r_end ·
// c_end_i² · (A + N)^α. A parameter's step is then r_k · c_k,i · r · Δ_i with r_k the same
// for all: a parameter perturbed twice as far moves twice as far.
//
// Everything random comes from the seed: iteration k's signs depend on the seed and k alone,
// so a run stopped after k iterations and restarted from its values (restore()) goes on as if
// it had not stopped.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace gsearch::arena {

struct SpsaParameter {
  std::string name;
  double value = 0.0;         // the start, then the current estimate
  double lo = 0.0, hi = 1.0;  // bounds: values and perturbations stay within them
  double c_end = 0.1;         // the perturbation at the last iteration (> 0)
};

struct SpsaParams {
  std::size_t iterations = 1000;  // N, which the gains are scaled to
  double r_end = 0.002;           // the learning rate a_end / c_end² at the last iteration
  double alpha = 0.602, gamma = 0.101;
  double a_share = 0.1;  // A = a_share · N (the stability constant)
  std::uint64_t seed = 1;
};

class Spsa {
 public:
  // Throws std::invalid_argument naming the first bad parameter or setting.
  Spsa(std::vector<SpsaParameter> parameters, const SpsaParams& params)
      : parameters_(std::move(parameters)), params_(params) {
    const auto fail = [](const std::string& why) { throw std::invalid_argument("spsa: " + why); };
    if (parameters_.empty()) fail("no parameters to tune");
    if (params_.iterations == 0) fail("iterations must be at least 1");
    if (!(params_.r_end > 0) || !std::isfinite(params_.r_end)) fail("r_end must be positive");
    if (!(params_.alpha > 0) || !(params_.gamma > 0) || !(params_.a_share >= 0))
      fail("alpha and gamma must be positive, a_share not negative");
    for (const auto& p : parameters_) {
      if (!std::isfinite(p.value) || !std::isfinite(p.lo) || !std::isfinite(p.hi) || !(p.lo < p.hi))
        fail(p.name + ": the bounds must be finite with lo < hi");
      if (p.value < p.lo || p.value > p.hi) fail(p.name + ": the value is outside its bounds");
      if (!(p.c_end > 0) || !std::isfinite(p.c_end)) fail(p.name + ": c_end must be positive");
    }
  }

  // The perturbation of one iteration: the sign of each parameter and both sides' values.
  struct Step {
    std::size_t k = 0;  // 1-based
    std::vector<int> sign;
    std::vector<double> plus, minus;
  };

  // The perturbation of iteration k (1..), from the seed and k alone, around the current values.
  [[nodiscard]] Step step(std::size_t k) const {
    Step s;
    s.k = k;
    std::uint64_t state = params_.seed * 0x9e3779b97f4a7c15ULL + k;
    Rng rng(splitmix64(state));
    for (const auto& p : parameters_) {
      const int sign = rng.next() >> 63 ? 1 : -1;
      const double c = perturbation(p, k);
      s.sign.push_back(sign);
      s.plus.push_back(std::clamp(p.value + sign * c, p.lo, p.hi));
      s.minus.push_back(std::clamp(p.value - sign * c, p.lo, p.hi));
    }
    return s;
  }

  // Moves the values by the result of `s`: score(plus) − score(minus) over its games.
  void update(const Step& s, double result) {
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      auto& p = parameters_[i];
      const double c = perturbation(p, s.k);
      p.value = std::clamp(p.value + step_gain(p, s.k) / c * result * s.sign[i], p.lo, p.hi);
    }
    done_ = std::max(done_, s.k);
  }

  // c_k,i (perturbation) and a_k,i (step_gain) of parameter p at iteration k.
  [[nodiscard]] double perturbation(const SpsaParameter& p, std::size_t k) const {
    const double n = static_cast<double>(params_.iterations);
    return p.c_end * std::pow(n, params_.gamma) / std::pow(static_cast<double>(k), params_.gamma);
  }
  [[nodiscard]] double step_gain(const SpsaParameter& p, std::size_t k) const {
    const double n = static_cast<double>(params_.iterations), a0 = params_.a_share * n;
    return params_.r_end * p.c_end * p.c_end * std::pow(a0 + n, params_.alpha) /
           std::pow(a0 + static_cast<double>(k), params_.alpha);
  }

  // Goes on from values saved after `done` iterations (in the order of the parameters).
  void restore(const std::vector<double>& values, std::size_t done) {
    if (values.size() != parameters_.size())
      throw std::invalid_argument("spsa: restore: " + std::to_string(values.size()) +
                                  " values for " + std::to_string(parameters_.size()) +
                                  " parameters");
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto& p = parameters_[i];
      if (!std::isfinite(values[i]) || values[i] < p.lo || values[i] > p.hi)
        throw std::invalid_argument("spsa: restore: " + p.name + " is outside its bounds");
      p.value = values[i];
    }
    done_ = done;
  }

  [[nodiscard]] const std::vector<SpsaParameter>& parameters() const noexcept {
    return parameters_;
  }
  // The current values, in the order of the parameters (what restore() takes).
  [[nodiscard]] std::vector<double> values() const {
    std::vector<double> v;
    v.reserve(parameters_.size());
    for (const auto& p : parameters_) v.push_back(p.value);
    return v;
  }
  [[nodiscard]] const SpsaParams& params() const noexcept { return params_; }
  [[nodiscard]] std::size_t done() const noexcept { return done_; }  // iterations updated

 private:
  std::vector<SpsaParameter> parameters_;
  SpsaParams params_;
  std::size_t done_ = 0;
};

}  // namespace gsearch::arena
