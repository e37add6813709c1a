// SGGA: runs per second and generations per second on search-shaped trees of 50, 1,000 and
// 100,000 nodes, the cost of prepare(), selection frequencies over 1,000 runs, and the
// generation rate of full 50,000-generation runs. Figures in docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "gsearch/core/rng.hpp"
#include "gsearch/sgga/explicit_tree.hpp"
#include "gsearch/sgga/sgga.hpp"

namespace {

using gsearch::kNoNode;
using gsearch::NodeId;
using gsearch::sgga::ExplicitTree;

// A tree grown the way MCTS grows one, from a fixed seed: the root, four head nodes, then each
// new node is attached where a random descent from the root stops (at a node with c children
// the descent stops with probability 1 / (c + 1), else it moves to a random child).
// Objectives are uniform in [0, 1], the range of the paper's normalised values.
ExplicitTree search_tree(std::size_t nodes) {
  gsearch::Rng rng(20240611);
  std::vector<NodeId> parent = {kNoNode, 0, 0, 0, 0};
  std::vector<std::vector<NodeId>> children(nodes);
  children[0] = {1, 2, 3, 4};
  while (parent.size() < nodes) {
    NodeId v = 0;
    while (!children[v].empty() && rng.below(children[v].size() + 1) != 0)
      v = children[v][rng.below(children[v].size())];
    children[v].push_back(static_cast<NodeId>(parent.size()));
    parent.push_back(v);
  }
  std::vector<double> objective(nodes);
  for (double& o : objective) o = rng.uniform();
  return ExplicitTree(parent, objective);
}

const ExplicitTree& tree_of(std::size_t nodes) {
  static const ExplicitTree t50 = search_tree(50), t1000 = search_tree(1000),
                            t100k = search_tree(100000);
  return nodes == 50 ? t50 : nodes == 1000 ? t1000 : t100k;
}

// A tree on which eq. 16 cannot fire: root → one head → `leaves` leaves, plus a 20-node chain
// of objective −1000 that raises H_max to 22 but that no softmax step enters. Every run lasts
// the full max_generations, and the repository grows to 2 + 2 × 50,000 + crossovers entries.
ExplicitTree capped_tree(std::size_t leaves) {
  gsearch::Rng rng(7);
  std::vector<NodeId> parent = {kNoNode, 0};
  std::vector<double> objective = {0, 0};
  for (std::size_t i = 0; i < leaves; ++i) {
    parent.push_back(1);
    objective.push_back(rng.uniform());
  }
  parent.push_back(1);
  objective.push_back(-1000);
  for (int i = 0; i < 20; ++i) {
    parent.push_back(static_cast<NodeId>(parent.size() - 1));
    objective.push_back(-1000);
  }
  return ExplicitTree(parent, objective);
}

void report(benchmark::State& state, std::uint64_t runs, std::uint64_t generations) {
  state.counters["runs/s"] =
      benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
  state.counters["gens/run"] = static_cast<double>(generations) / static_cast<double>(runs);
  state.counters["gens/s"] =
      benchmark::Counter(static_cast<double>(generations), benchmark::Counter::kIsRate);
}

// Runs on one tree, seeds 0, 1, 2, ...: with `prepare_each`, prepare() before every run, as a
// caller with a new tree each time pays; without, the workspace reused, the cost of a run.
template <bool prepare_each>
void BM_Run(benchmark::State& state) {
  const ExplicitTree& tree = tree_of(static_cast<std::size_t>(state.range(0)));
  gsearch::sgga::Sgga sgga;
  sgga.prepare(tree);
  std::uint64_t seed = 0, generations = 0;
  for (auto _ : state) {
    if constexpr (prepare_each) sgga.prepare(tree);
    const auto& result = sgga.run(seed++);
    generations += result.generations;
    benchmark::DoNotOptimize(result.node);
  }
  report(state, seed, generations);
  state.counters["H_max"] = sgga.max_depth();
}
BENCHMARK(BM_Run<false>)->Name("BM_Run")->Arg(50)->Arg(1000)->Arg(100000);
BENCHMARK(BM_Run<true>)->Name("BM_PrepareAndRun")->Arg(50)->Arg(1000)->Arg(100000);

// Selection frequencies from 1,000 runs (the training signal of §4.2.5), tree prepared once.
void BM_Frequencies(benchmark::State& state) {
  const ExplicitTree& tree = tree_of(static_cast<std::size_t>(state.range(0)));
  gsearch::sgga::Sgga sgga;
  gsearch::sgga::Frequencies out;
  std::uint64_t seed = 0;
  for (auto _ : state) {
    sgga.prepare(tree);
    sgga.frequencies(1000, seed, out);
    seed += 1000;
    benchmark::DoNotOptimize(out.chosen.data());
  }
  state.counters["runs/s"] =
      benchmark::Counter(static_cast<double>(seed), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Frequencies)->Arg(50)->Arg(1000)->Unit(benchmark::kMicrosecond);

// Full-length runs: 50,000 generations each, the repository growing to ~100,000 entries over
// 1 + leaves + 21 nodes. The pure generation rate.
void BM_FullRun(benchmark::State& state) {
  const ExplicitTree tree = capped_tree(static_cast<std::size_t>(state.range(0)));
  gsearch::sgga::Sgga sgga;
  sgga.prepare(tree);
  std::uint64_t seed = 0, generations = 0, entries = 0;
  for (auto _ : state) {
    const auto& result = sgga.run(seed++);
    generations += result.generations;
    entries = result.repository_size;
    benchmark::DoNotOptimize(result.node);
  }
  report(state, seed, generations);
  state.counters["entries"] = static_cast<double>(entries);
}
BENCHMARK(BM_FullRun)->Arg(4)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
