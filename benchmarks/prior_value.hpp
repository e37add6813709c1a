// The measuring loop of MCTS with a prior-value evaluator, shared by bench_search
// (BM_MctsPriorValue, the network on the CPU) and bench_mcts_cuda (on the GPU).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

#include "amazons/rules/decision.hpp"
#include "gsearch/core/budget.hpp"

namespace bench {

// Searches of `budget` iterations from the 10×10 start (decision model), one per benchmark
// iteration; reports iterations per second.
template <class Search>
void prior_value_searches(benchmark::State& state, Search& search, std::uint64_t budget = 2000) {
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    search.set_root(amazons::DecisionPosition{amazons::Position{}});
    iterations += search.run(gsearch::Budget::iters(budget)).iterations;
  }
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
}

}  // namespace bench
