// gsearch/core/clock.hpp — time management: how much of a game clock to spend on one move.
//
// A player on a clock (the time left, an increment per move, maybe the moves left before the
// next time control) needs a budget for the move in hand. move_time_ms() is the scheme of
// engines that play on clocks:
//   usable     = remaining - reserve            the overhead of the moves still to play kept back
//   moves_left = moves_to_go when given, else max(min_moves_left, expected_moves - played)
//   target     = (usable / moves_left + increment) · phase(played)
//   target     ≤ max_share · usable             never bet much of the clock on one move
// where phase falls linearly from `opening` at the first move to 1 at half the expected game
// and to `ending` at its end and after: a game of territory such as the Amazons needs its time
// while the board is open, not once the regions are sealed. The overhead (reading the command,
// building the search, answering; a GUI's own delay) is paid by every move, so the reserve
// keeps it back for the moves still to play: the moves to go, or reserve_moves of them in
// sudden death (one when the increment pays for it). If each move takes at most its target
// plus the overhead, the clock does not run out in a game of up to reserve_moves more moves
// (tests play whole games on clocks to check it).
#pragma once

#include <algorithm>

namespace gsearch {

struct GameClock {
  double remaining_ms = 0;  // time left on the mover's clock
  double increment_ms = 0;  // added after each move
  int moves_to_go = 0;      // moves before the next time control; 0 = the whole game (sudden death)
};

struct TimePolicy {
  int expected_moves = 40;    // own moves in a typical game (10×10 Amazons: about 40)
  int min_moves_left = 10;    // plan for at least this many more moves
  double opening = 1.4;       // phase factor at the first move
  double ending = 0.7;        // ... at the expected end and after
  double max_share = 0.2;     // of the usable time, at most this on one move
  double overhead_ms = 20.0;  // the fixed cost of a move, outside the search
  int reserve_moves = 80;     // in sudden death, keep the overhead of this many moves back
};

// The budget in milliseconds for the mover's move number `played` (0 for its first), at least
// 1 ms.
[[nodiscard]] inline double move_time_ms(const GameClock& clock, int played,
                                         const TimePolicy& policy = {}) {
  const int reserved = clock.moves_to_go > 0                      ? clock.moves_to_go
                       : clock.increment_ms >= policy.overhead_ms ? 1
                                                                  : policy.reserve_moves;
  const double usable = std::max(0.0, clock.remaining_ms - policy.overhead_ms * reserved);
  const int moves_left = clock.moves_to_go > 0
                             ? clock.moves_to_go
                             : std::max(policy.min_moves_left, policy.expected_moves - played);
  const double half = std::max(1.0, policy.expected_moves / 2.0);
  const double x = std::max(0, played) / half;  // 0 at the start, 1 at half, 2 at the end
  const double phase = x < 1 ? policy.opening + (1.0 - policy.opening) * x
                             : 1.0 + (policy.ending - 1.0) * std::min(1.0, x - 1.0);
  const double target = (usable / moves_left + clock.increment_ms) * phase;
  return std::max(1.0, std::min(target, policy.max_share * usable));
}

}  // namespace gsearch
