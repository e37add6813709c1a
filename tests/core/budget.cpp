#include "gsearch/core/budget.hpp"

#include <doctest/doctest.h>

TEST_CASE("Budget: zero limits are absent") {
  CHECK(gsearch::Budget{}.unlimited());
  CHECK_FALSE(gsearch::Budget::iters(10).unlimited());
  CHECK(gsearch::Budget::millis(250).seconds == doctest::Approx(0.25));
  CHECK(gsearch::Budget::node_count(5).nodes == 5);
}

TEST_CASE("BudgetTracker stops at the iteration and node limits") {
  gsearch::BudgetTracker iters(gsearch::Budget::iters(100));
  CHECK_FALSE(iters.exhausted(99));
  CHECK(iters.exhausted(100));
  gsearch::BudgetTracker nodes(gsearch::Budget::node_count(1000));
  CHECK_FALSE(nodes.exhausted(0, 999));
  CHECK(nodes.exhausted(0, 1000));
  gsearch::BudgetTracker none(gsearch::Budget{});
  CHECK_FALSE(none.exhausted(1u << 30, 1u << 30));
}

TEST_CASE("BudgetTracker with a time limit stops once the time has passed") {
  // No sleeping: a limit already in the past must be seen at the first clock read.
  gsearch::BudgetTracker t(gsearch::Budget{.seconds = 1e-12}, 1);
  volatile double sink = 0;
  for (int i = 0; i < 1000; ++i) sink = sink + i;  // let the clock move past 1e-12 s
  CHECK(t.exhausted(0));
  CHECK(t.exhausted(0));  // and stays exhausted
}
