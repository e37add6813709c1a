// gsearch/core/budget.hpp — how much a search may do: iterations, nodes, wall time.
//
// A Budget is a plain value: any limit left at zero is absent. A search stops at the first
// limit it reaches. Iteration budgets make a search reproducible (same seed, same budget,
// same move); time budgets do not, since the machine decides how far a search gets.
#pragma once

#include <chrono>
#include <cstdint>

namespace gsearch {

// `nodes` is each search's own count, the one its result reports as `nodes`, and the searches
// count different things, so a node budget compares runs of one search, not two searches:
//   - MCTS (mcts.hpp): nodes added to the tree. With a node budget and no iteration budget,
//     at most nodes × Params::iterations_per_node iterations run, so a search whose tree cannot
//     grow (a small game explored to its end) still stops;
//   - alpha-beta (alphabeta.hpp): positions visited, one per negamax call (transposition-table
//     cut-offs included); checked every 1,024 visits, so it may overshoot by that;
//   - df-pn (dfpn.hpp): calls of its recursive MID step, one per visit of a node, so a node
//     revisited under new thresholds counts again; checked every 64 visits.
struct Budget {
  std::uint64_t iterations = 0;  // MCTS iterations, 0 = no limit
  std::uint64_t nodes = 0;       // the search's node count (see above), 0 = no limit
  double seconds = 0.0;          // wall time, 0 = no limit

  static constexpr Budget iters(std::uint64_t n) noexcept { return {.iterations = n}; }
  static constexpr Budget node_count(std::uint64_t n) noexcept { return {.nodes = n}; }
  static constexpr Budget millis(double ms) noexcept { return {.seconds = ms / 1000.0}; }

  // True when no limit at all is set (a search given such a budget must have another stop).
  [[nodiscard]] constexpr bool unlimited() const noexcept {
    return iterations == 0 && nodes == 0 && seconds <= 0.0;
  }
  friend constexpr bool operator==(const Budget&, const Budget&) = default;
};

// Wall-clock time since construction (or the last restart), on a monotonic clock.
class Stopwatch {
 public:
  using clock = std::chrono::steady_clock;
  Stopwatch() noexcept : start_(clock::now()) {}
  void restart() noexcept { start_ = clock::now(); }
  [[nodiscard]] double seconds() const noexcept {
    return std::chrono::duration<double>(clock::now() - start_).count();
  }

 private:
  clock::time_point start_;
};

// Tracks one search against its budget. exhausted() is cheap to call every iteration: the
// clock is read only every `clock_interval` calls (a power of two).
class BudgetTracker {
 public:
  explicit BudgetTracker(const Budget& budget, std::uint32_t clock_interval = 64) noexcept
      : budget_(budget), mask_(clock_interval - 1) {}

  // True once `iterations` or `nodes` reaches its limit, or the time is up.
  [[nodiscard]] bool exhausted(std::uint64_t iterations, std::uint64_t nodes = 0) noexcept {
    if (budget_.iterations != 0 && iterations >= budget_.iterations) return true;
    if (budget_.nodes != 0 && nodes >= budget_.nodes) return true;
    if (budget_.seconds > 0.0 && (calls_++ & mask_) == 0) {
      timed_out_ = timed_out_ || watch_.seconds() >= budget_.seconds;
    }
    return timed_out_;
  }
  [[nodiscard]] double elapsed() const noexcept { return watch_.seconds(); }
  [[nodiscard]] const Budget& budget() const noexcept { return budget_; }

 private:
  Budget budget_;
  std::uint64_t mask_;
  std::uint64_t calls_ = 0;
  bool timed_out_ = false;
  Stopwatch watch_;
};

}  // namespace gsearch
