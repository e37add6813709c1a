// gsearch/core/rng.hpp — a small, fast, seeded random number generator.
//
// Rng is xoshiro256++ (Blackman & Vigna, 2019): 32 bytes of state, a period of 2^256 - 1, and
// output that passes BigCrush. It is seeded through SplitMix64, so any 64-bit seed (0
// included) gives a well-mixed state, and the same seed gives the same sequence on every
// platform. Every random choice in gsearch takes an Rng, so every run is reproducible.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gsearch/detail/uint128.hpp"

namespace gsearch {

// One step of SplitMix64: also a good 64-bit mixing function for deriving seeds.
constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The seed of the index-th step of something seeded with `seed` (e.g. one search per move of
// a game: derive_seed(game_seed, ply)). Distinct indices give unrelated seeds.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  return seed ^ (0x9e3779b97f4a7c15ULL * (index + 1));
}

class Rng {
 public:
  using result_type = std::uint64_t;  // UniformRandomBitGenerator, so <random> and
                                      // std::shuffle accept an Rng.

  constexpr explicit Rng(std::uint64_t seed = 0) noexcept { reseed(seed); }

  constexpr void reseed(std::uint64_t seed) noexcept {
    for (auto& word : s_) word = splitmix64(seed);
  }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  constexpr result_type operator()() noexcept { return next(); }

  // The next 64 random bits.
  constexpr std::uint64_t next() noexcept {
    const std::uint64_t result = std::rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  // A uniform integer in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject).
  constexpr std::uint64_t below(std::uint64_t n) noexcept {
    using u128 = detail::uint128;
    u128 m = static_cast<u128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<u128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // A uniform double in [0, 1) with 53 random bits.
  constexpr double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // True with probability p.
  constexpr bool bernoulli(double p) noexcept { return uniform() < p; }

  // A standard normal variate (Box–Muller; one of the pair is discarded for simplicity).
  double normal() noexcept {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // A Gamma(shape, 1) variate, shape > 0 (Marsaglia & Tsang 2000; for shape < 1, boosted by
  // U^(1/shape)). Normalised draws of Gamma(α) for each of k outcomes are a Dirichlet(α) draw.
  double gamma(double shape) noexcept {
    if (shape < 1.0) {
      double u = uniform();
      while (u <= 0.0) u = uniform();
      return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }

  // A new, independent generator for a worker or a sub-task, derived from this one.
  constexpr Rng split() noexcept { return Rng(next()); }

  friend constexpr bool operator==(const Rng&, const Rng&) = default;

 private:
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace gsearch
