#include "gsearch/sgga/sampler.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "gsearch/core/rng.hpp"

using gsearch::sgga::FenwickSampler;

TEST_CASE("FenwickSampler::find returns the slot whose prefix interval holds u") {
  FenwickSampler s;
  s.reset(5);
  const std::vector<double> w = {1, 0, 3, 0, 6};
  for (std::size_t i = 0; i < w.size(); ++i) s.add(i, w[i]);
  CHECK(s.total() == 10.0);
  CHECK(s.prefix(0) == 0.0);
  CHECK(s.prefix(3) == 4.0);
  CHECK(s.prefix(5) == 10.0);
  CHECK(s.find(0.0) == 0);
  CHECK(s.find(0.999) == 0);
  CHECK(s.find(1.0) == 2);  // slot 1 is empty and is skipped
  CHECK(s.find(3.999) == 2);
  CHECK(s.find(4.0) == 4);  // slot 3 is empty
  CHECK(s.find(9.999) == 4);
  CHECK(s.find(10.0) == 4);  // u == total (rounding at the top end) stays in range
}

TEST_CASE("FenwickSampler agrees with a linear scan on random weights of every size") {
  gsearch::Rng rng(11);
  FenwickSampler s;
  for (std::size_t n = 1; n <= 70; ++n) {
    s.reset(n);
    std::vector<double> w(n, 0.0);
    for (int k = 0; k < 200; ++k) {
      const auto i = static_cast<std::size_t>(rng.below(n));
      const double add = static_cast<double>(rng.below(4));  // integers: sums are exact
      w[i] += add;
      s.add(i, add);
    }
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(s.prefix(i) == sum);
      sum += w[i];
    }
    REQUIRE(s.total() == sum);
    for (int k = 0; k < 100 && sum > 0; ++k) {
      const double u = rng.uniform() * sum;
      std::size_t expect = 0;
      double run = 0.0;
      while (run + w[expect] <= u) run += w[expect++];
      REQUIRE(s.find(u) == expect);
    }
  }
}

TEST_CASE("FenwickSampler draws slots in proportion to their weights") {
  FenwickSampler s;
  s.reset(4);
  s.add(0, 0.5);
  s.add(1, 0.25);
  s.add(3, 0.25);
  s.add(0, 0.5);  // slot 0 now 1.0: p = 2/3, 1/6, 0, 1/6
  gsearch::Rng rng(3);
  std::vector<int> hits(4, 0);
  const int n = 60000;
  for (int k = 0; k < n; ++k) ++hits[s.find(rng.uniform() * s.total())];
  // Binomial(60000, p): sd <= 116; 5 sd bounds.
  CHECK(std::abs(hits[0] - 40000) < 580);
  CHECK(std::abs(hits[1] - 10000) < 460);
  CHECK(hits[2] == 0);
  CHECK(std::abs(hits[3] - 10000) < 460);
}

TEST_CASE("FenwickSampler::clear empties the tree given the slots that were used") {
  FenwickSampler s;
  s.reset(37);
  const std::vector<unsigned> used = {3, 17, 3, 36, 0};
  for (const unsigned i : used) s.add(i, 2.5);
  s.clear(std::span<const unsigned>(used));
  CHECK(s.total() == 0.0);
  for (std::size_t i = 0; i <= 37; ++i) CHECK(s.prefix(i) == 0.0);
  s.add(20, 1.0);
  CHECK(s.find(0.5) == 20);
  CHECK(s.prefix(37) == 1.0);
  s.reset(5);  // smaller: all zero again
  CHECK(s.size() == 5);
  CHECK(s.prefix(5) == 0.0);
  s.reset(0);
  CHECK(s.size() == 0);
}
