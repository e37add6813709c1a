#include "gsearch/core/rng.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

TEST_CASE("Rng: the same seed gives the same sequence; different seeds differ") {
  gsearch::Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    CHECK(x == b.next());
    CHECK(x != c.next());
  }
  // Pinned output: the sequence must not change between versions (replays depend on it).
  gsearch::Rng d(0);
  CHECK(d.next() == gsearch::Rng(0).next());
  const auto first = gsearch::Rng(1).next();
  CHECK(first == 0xcfc5d07f6f03c29bULL);  // xoshiro256++ seeded by SplitMix64(1), by hand
}

TEST_CASE("Rng::below is unbiased and in range") {
  gsearch::Rng rng(7);
  std::array<int, 6> counts{};
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    const auto v = rng.below(6);
    REQUIRE(v < 6);
    ++counts[v];
  }
  // Each count is Binomial(60000, 1/6): sd ~ 91; 5 sd bounds.
  for (int c : counts) CHECK(std::abs(c - n / 6) < 460);
  CHECK(rng.below(1) == 0);
}

TEST_CASE("Rng::uniform lies in [0, 1) with mean 1/2; normal has mean 0 and variance 1") {
  gsearch::Rng rng(3);
  double sum = 0, sq = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(std::abs(sum / n - 0.5) < 0.005);
  sum = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z;
    sq += z * z;
  }
  CHECK(std::abs(sum / n) < 0.02);
  CHECK(std::abs(sq / n - 1.0) < 0.03);
}

TEST_CASE("Rng works with <algorithm> and split() gives independent streams") {
  gsearch::Rng rng(9);
  std::vector<int> v(50);
  for (int i = 0; i < 50; ++i) v[i] = i;
  std::shuffle(v.begin(), v.end(), rng);
  CHECK(std::is_permutation(v.begin(), v.end(), std::vector<int>(v).begin()));
  gsearch::Rng child = rng.split();
  CHECK(child.next() != rng.next());
}

TEST_CASE("derive_seed: the same (seed, index) gives the same seed; neighbours differ") {
  CHECK(gsearch::derive_seed(5, 3) == gsearch::derive_seed(5, 3));
  CHECK(gsearch::derive_seed(5, 3) != gsearch::derive_seed(5, 4));
  CHECK(gsearch::derive_seed(5, 3) != gsearch::derive_seed(6, 3));
  // The formula the agents have always used per move: seed ^ (golden ratio · (index + 1)).
  CHECK(gsearch::derive_seed(7, 0) == (7 ^ 0x9e3779b97f4a7c15ULL));
  static_assert(gsearch::derive_seed(1, 2) == gsearch::derive_seed(1, 2));
}

TEST_CASE("Rng::gamma has mean and variance equal to its shape, below 1 and above") {
  gsearch::Rng rng(17);
  for (const double shape : {0.03, 0.3, 1.0, 2.5}) {
    CAPTURE(shape);
    double sum = 0, sum2 = 0;
    constexpr int kDraws = 40000;
    for (int i = 0; i < kDraws; ++i) {
      const double x = rng.gamma(shape);
      REQUIRE(x >= 0.0);
      sum += x;
      sum2 += x * x;
    }
    const double mean = sum / kDraws, var = sum2 / kDraws - mean * mean;
    CHECK(mean == doctest::Approx(shape).epsilon(0.05));
    CHECK(var == doctest::Approx(shape).epsilon(0.15));
  }
}
