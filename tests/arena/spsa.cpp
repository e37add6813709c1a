// SPSA: its gains, its determinism and restarts, its bounds, and that it finds the optimum of
// a noisy game whose outcome favours the side nearer a target.
#include "gsearch/arena/spsa.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace arena = gsearch::arena;

namespace {

std::vector<arena::SpsaParameter> three() {
  return {{.name = "x", .value = 0.2, .lo = 0, .hi = 1, .c_end = 0.05},
          {.name = "y", .value = 0.8, .lo = 0, .hi = 1, .c_end = 0.05},
          {.name = "z", .value = 3.0, .lo = 0, .hi = 10, .c_end = 0.5}};
}

// The chance that values v beat values w: logistic in how much nearer the target v is.
double win_chance(const std::vector<double>& v, const std::vector<double>& w) {
  const double target[] = {0.6, 0.3, 6.0}, scale[] = {1, 1, 10};
  double dv = 0, dw = 0;
  for (int i = 0; i < 3; ++i) {
    dv += std::pow((v[i] - target[i]) / scale[i], 2);
    dw += std::pow((w[i] - target[i]) / scale[i], 2);
  }
  return 1 / (1 + std::exp(-8 * (dw - dv)));
}

// Runs iterations [from, to] of `spsa`, two games each, drawn from `rng`.
void run(arena::Spsa& spsa, std::size_t from, std::size_t to, gsearch::Rng& rng) {
  for (std::size_t k = from; k <= to; ++k) {
    const auto s = spsa.step(k);
    const double p = win_chance(s.plus, s.minus);
    double result = 0;
    for (int g = 0; g < 2; ++g) result += rng.bernoulli(p) ? 1 : -1;
    spsa.update(s, result);
  }
}

}  // namespace

TEST_CASE("spsa: the gains are the given ones at the last iteration and larger before") {
  const arena::Spsa spsa(three(), {.iterations = 400, .r_end = 0.01});
  const auto& x = spsa.parameters()[0];
  CHECK(spsa.perturbation(x, 400) == doctest::Approx(0.05));
  CHECK(spsa.step_gain(x, 400) == doctest::Approx(0.01 * 0.05 * 0.05));
  CHECK(spsa.perturbation(x, 1) == doctest::Approx(0.05 * std::pow(400.0, 0.101)));
  CHECK(spsa.step_gain(x, 1) > spsa.step_gain(x, 400));
}

TEST_CASE("spsa: an iteration's signs come from the seed and k alone") {
  const arena::Spsa a(three(), {.iterations = 100, .seed = 7});
  const arena::Spsa b(three(), {.iterations = 100, .seed = 7});
  const arena::Spsa c(three(), {.iterations = 100, .seed = 8});
  bool differs = false;
  for (std::size_t k = 1; k <= 20; ++k) {
    CHECK(a.step(k).sign == b.step(k).sign);
    differs = differs || a.step(k).sign != c.step(k).sign;
    for (std::size_t i = 0; i < 3; ++i) {
      const auto s = a.step(k);
      CHECK(s.plus[i] - a.parameters()[i].value ==
            doctest::Approx(s.sign[i] * a.perturbation(a.parameters()[i], k)));
      CHECK(s.minus[i] - a.parameters()[i].value ==
            doctest::Approx(-s.sign[i] * a.perturbation(a.parameters()[i], k)));
    }
  }
  CHECK(differs);
}

TEST_CASE("spsa: a run restored from its values goes on as if it had not stopped") {
  gsearch::Rng r1(3), r2(3);
  arena::Spsa whole(three(), {.iterations = 200, .seed = 5});
  run(whole, 1, 200, r1);
  arena::Spsa first(three(), {.iterations = 200, .seed = 5});
  run(first, 1, 120, r2);
  const std::vector<double> saved = first.values();
  REQUIRE(saved.size() == 3);
  CHECK(saved[2] == first.parameters()[2].value);
  arena::Spsa second(three(), {.iterations = 200, .seed = 5});
  second.restore(saved, 120);
  CHECK(second.done() == 120);
  CHECK(second.values() == saved);
  run(second, 121, 200, r2);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(second.parameters()[i].value == whole.parameters()[i].value);
}

TEST_CASE("spsa: values and perturbations stay within the bounds") {
  arena::Spsa spsa({{.name = "edge", .value = 0.0, .lo = 0, .hi = 1, .c_end = 0.5}},
                   {.iterations = 10, .r_end = 100});
  for (std::size_t k = 1; k <= 10; ++k) {
    const auto s = spsa.step(k);
    CHECK(s.plus[0] >= 0);
    CHECK(s.minus[0] >= 0);
    CHECK(s.plus[0] <= 1);
    spsa.update(s, k % 2 ? 2.0 : -2.0);
    CHECK(spsa.parameters()[0].value >= 0);
    CHECK(spsa.parameters()[0].value <= 1);
  }
}

TEST_CASE("spsa: noisy game results lead it to the target") {
  arena::Spsa spsa(three(), {.iterations = 3000, .r_end = 0.1, .seed = 11});
  gsearch::Rng rng(12);
  run(spsa, 1, 3000, rng);
  const auto& p = spsa.parameters();
  // From 0.2, 0.8 and 3.0, a third of the way or less from the target each.
  CHECK(std::abs(p[0].value - 0.6) < 0.13);
  CHECK(std::abs(p[1].value - 0.3) < 0.17);
  CHECK(std::abs(p[2].value - 6.0) < 1.0);
}

TEST_CASE("spsa: bad settings are refused with the parameter's name") {
  const auto message = [](std::vector<arena::SpsaParameter> p, arena::SpsaParams s) {
    try {
      arena::Spsa spsa(std::move(p), s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message({}, {}) == "spsa: no parameters to tune");
  CHECK(message(three(), {.iterations = 0}) == "spsa: iterations must be at least 1");
  CHECK(message(three(), {.r_end = 0}) == "spsa: r_end must be positive");
  CHECK(message({{.name = "w", .value = 2, .lo = 0, .hi = 1}}, {}) ==
        "spsa: w: the value is outside its bounds");
  CHECK(message({{.name = "w", .value = 0, .lo = 1, .hi = 1}}, {}) ==
        "spsa: w: the bounds must be finite with lo < hi");
  CHECK(message({{.name = "w", .value = 0.5, .c_end = 0}}, {}) ==
        "spsa: w: c_end must be positive");
  arena::Spsa spsa(three(), {});
  CHECK_THROWS_WITH_AS(spsa.restore({0.5}, 1), "spsa: restore: 1 values for 3 parameters",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(spsa.restore({0.5, 0.5, 11}, 1), "spsa: restore: z is outside its bounds",
                       std::invalid_argument);
}
