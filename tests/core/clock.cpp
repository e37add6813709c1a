// Time management: whole games played on clocks never run out, the opening gets more time than
// the ending, increments and moves-to-go are spent, and the budget never exceeds its share.
#include "gsearch/core/clock.hpp"

#include <doctest/doctest.h>

namespace {
// Plays `moves` moves, each taking its whole budget plus the policy's overhead (the most the
// player may take); returns the least time the clock held after a move.
double play_on_clock(gsearch::GameClock clock, int moves, const gsearch::TimePolicy& policy,
                     double* first_third = nullptr, double* last_third = nullptr) {
  double least = clock.remaining_ms;
  for (int k = 0; k < moves; ++k) {
    const double t = gsearch::move_time_ms(clock, k, policy);
    CHECK(t >= 1.0);
    CHECK(t <= std::max(1.0, policy.max_share * clock.remaining_ms));
    if (first_third && k < moves / 3) *first_third += t;
    if (last_third && k >= moves - moves / 3) *last_third += t;
    clock.remaining_ms -= t + policy.overhead_ms;
    least = std::min(least, clock.remaining_ms);
    clock.remaining_ms += clock.increment_ms;
    if (clock.moves_to_go > 0) --clock.moves_to_go;
  }
  return least;
}
}  // namespace

TEST_CASE("games on a clock never run out, however long they last") {
  const gsearch::TimePolicy policy;
  // Sudden death: a long 10×10 game (92 own moves at most) in a minute, or in ten seconds.
  CHECK(play_on_clock({.remaining_ms = 60'000}, 92, policy) > 0);
  CHECK(play_on_clock({.remaining_ms = 10'000}, 92, policy) > 0);
  // Increments: a game far longer than expected never runs out.
  CHECK(play_on_clock({.remaining_ms = 1'000, .increment_ms = 100}, 500, policy) > 0);
  CHECK(play_on_clock({.remaining_ms = 5'000, .increment_ms = 30}, 500, policy) > 0);
}

TEST_CASE("the opening gets more time than the ending; increments are spent") {
  const gsearch::TimePolicy policy;
  double early = 0, late = 0;
  play_on_clock({.remaining_ms = 60'000}, 45, policy, &early, &late);
  CHECK(early > 2 * late);
  // With an increment, a move late in a long game may spend a share of what it holds.
  const gsearch::GameClock clock{.remaining_ms = 500, .increment_ms = 1'000};
  CHECK(gsearch::move_time_ms(clock, 80, policy) == doctest::Approx(0.2 * 480));
  const gsearch::GameClock rich{.remaining_ms = 100'000, .increment_ms = 1'000};
  CHECK(gsearch::move_time_ms(rich, 20, policy) > 1'000);
}

TEST_CASE("moves to go divide the time up to the control") {
  const gsearch::TimePolicy policy;
  // Half the expected game: phase 1. 10,000 ms usable (the overhead of the moves to go kept
  // back) over 5 moves, capped at 20 %; over 20 moves.
  const gsearch::GameClock five{.remaining_ms = 10'100, .moves_to_go = 5};
  CHECK(gsearch::move_time_ms(five, 20, policy) == doctest::Approx(2'000));
  const gsearch::GameClock twenty{.remaining_ms = 10'400, .moves_to_go = 20};
  CHECK(gsearch::move_time_ms(twenty, 20, policy) == doctest::Approx(500));
  CHECK(play_on_clock({.remaining_ms = 3'000, .moves_to_go = 40}, 40, policy) > 0);
  // No time left: the least budget, 1 ms.
  CHECK(gsearch::move_time_ms({.remaining_ms = 5}, 0, policy) == 1.0);
}
