// The paper's agents on Amazons: time per move of the hybrid agent (Algorithm 1) at N = 20,
// 30, 50, 200 and 1000 nodes, and its three stages apart — the UCT-AE search, SGGA, GAT-AE
// (describing the tree, building its graph, the forward pass). Positions: the 10x10 start and a
// middle game position (20 random turns in). Figures in docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <memory>

#include "amazons/paper/paper.hpp"
#include "amazons/players/agents.hpp"
#include "gsearch/sgga/sgga.hpp"
#include "positions.hpp"

namespace {

using amazons::DecisionPosition;
using amazons::Position;
namespace paper = amazons::paper;

using bench::position_at;

const std::shared_ptr<paper::Networks>& networks() {
  static const auto nets =
      std::make_shared<paper::Networks>(paper::Networks::shipped(paper::Reading::kRelative));
  return nets;
}

// The whole agent: search, SGGA, GAT-AE, decision.
void BM_HybridMove(benchmark::State& state) {
  const Position pos = position_at(static_cast<int>(state.range(1)));
  auto agent = amazons::make_agent("hybrid:n=" + std::to_string(state.range(0)));
  agent->reset(1);
  for (auto _ : state) benchmark::DoNotOptimize(agent->choose(pos));
  state.counters["moves/s"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}

// Stage 1: MCTS with UCT-AE for N nodes, then the update mechanism (eq. 10-12).
void BM_Search(benchmark::State& state) {
  const DecisionPosition root{position_at(static_cast<int>(state.range(1)))};
  for (auto _ : state) {
    auto search = paper::make_relative_search(networks(), 1);
    search.set_root(root);
    benchmark::DoNotOptimize(
        search.run(gsearch::Budget::node_count(static_cast<std::uint64_t>(state.range(0)))));
  }
}

// The tree the later stages read, built once.
struct Grown {
  paper::RelativeSearch search;
  DecisionPosition root;
};
Grown grow(std::int64_t nodes, int turns) {
  Grown g{paper::make_relative_search(networks(), 1), DecisionPosition{position_at(turns)}};
  g.search.set_root(g.root);
  g.search.run(gsearch::Budget::node_count(static_cast<std::uint64_t>(nodes)));
  return g;
}

// Stage 2: one SGGA run (T = 0.1, as the agents) over the tree.
void BM_Sgga(benchmark::State& state) {
  const Grown g = grow(state.range(0), static_cast<int>(state.range(1)));
  const paper::DecisionView view(g.search.tree());
  gsearch::sgga::Sgga sgga({.temperature = 0.1});
  std::uint64_t seed = 0;
  for (auto _ : state) {
    sgga.prepare(view);
    benchmark::DoNotOptimize(sgga.run(++seed).node);
  }
}

// Stage 3: GAT-AE — describe the tree (states, features), build the graph, forward pass.
void BM_GatAe(benchmark::State& state) {
  const Grown g = grow(state.range(0), static_cast<int>(state.range(1)));
  const paper::DecisionView view(g.search.tree());
  auto& net = networks()->gatae;
  for (auto _ : state) {
    const auto data = paper::describe(view, g.root, paper::Reading::kRelative);
    const auto input = paper::gat_input(data);
    benchmark::DoNotOptimize(net.forward(input.x, input.graph).data());
  }
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int turns : {0, 20})
    for (int n : {20, 30, 50, 200, 1000}) b->Args({n, turns});
  b->ArgNames({"N", "turns"})->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_HybridMove)->Apply(sizes);
BENCHMARK(BM_Search)->Apply(sizes);
BENCHMARK(BM_Sgga)->Apply(sizes);
BENCHMARK(BM_GatAe)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
