// MCTS with the policy-value network on the GPU as its batched evaluator, against the same
// network on the CPU: PUCT over the Amazons decision model from the start, 2,000 iterations
// a search, one thread, B leaves per network call (the first argument), H hidden units (the
// second; players/policy_value.hpp), in iterations per wall-clock second. The GPU's network
// (cuda_policy_value.hpp) runs in amazons::BasicDecisionNet as the CPU's does. Without a CUDA
// device the GPU benchmarks report an error and nothing is timed.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <utility>

#include "amazons/players/policy_value.hpp"
#include "cuda_policy_value.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "prior_value.hpp"

namespace {

namespace mcts = gsearch::mcts;
using amazons::DecisionPosition;

template <class Net>
void search_with(benchmark::State& state, Net net) {
  using Evaluator = amazons::BasicDecisionNet<Net>;
  mcts::Search<DecisionPosition, mcts::Puct, mcts::ExpandAll, Evaluator> search(
      {.seed = 1, .batch = static_cast<std::uint32_t>(state.range(0))}, {}, {},
      Evaluator(std::move(net)));
  bench::prior_value_searches(state, search);
}

void BM_MctsPriorValueGpu(benchmark::State& state) {
  if (!bench::cuda_device_present()) {
    state.SkipWithError("no CUDA device");
    return;
  }
  auto cpu = amazons::DecisionNet::make_mlp(1, state.range(1));
  search_with(state, bench::GpuPolicyValueMlp(cpu));
}

void BM_MctsPriorValueCpu(benchmark::State& state) {
  search_with(state, amazons::DecisionNet::make_mlp(1, state.range(1)));
}

BENCHMARK(BM_MctsPriorValueGpu)
    ->ArgsProduct({{1, 8, 32, 128}, {256, 1024}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MctsPriorValueCpu)
    ->ArgsProduct({{1, 8, 32, 128}, {256, 1024}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
