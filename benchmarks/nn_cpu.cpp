// Benchmarks of the neural modules on the CPU (gsearch::nn, Eigen): the autoencoder of UCT-AE
// per sample, batched and not, and GAT-AE forward and forward+backward on random trees.
// Goals (one core): AutoEncoder forward ≤ 100 ns per sample; GAT-AE forward on a 64-node
// tree ≤ 10 µs. Figures and commands: docs/benchmarks.md, "Neural modules".
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "gsearch/nn/nn.hpp"

namespace nn = gsearch::nn;

namespace {

// A random recursive tree on n nodes, seeded.
nn::CsrGraph random_tree(std::int32_t n, std::uint64_t seed) {
  gsearch::Rng rng(seed);
  return nn::CsrGraph::random_tree(n, rng);
}

nn::Matrix random_features(nn::Index rows, std::uint64_t seed) {
  gsearch::Rng rng(seed);
  nn::Matrix x(rows, 5);
  for (nn::Index k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(rng.uniform());
  return x;
}

// One 5-feature sample per call, as MCTS selection scores one child at a time.
void BM_AutoEncoderForwardUnbatched(benchmark::State& state) {
  gsearch::Rng rng(1);
  nn::AutoEncoder ae({}, rng);
  const nn::Matrix x = random_features(256, 2);
  nn::Index i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ae.forward(x.row(i)).data());
    i = (i + 1) & 255;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AutoEncoderForwardUnbatched);

// A batch of B samples per call (all children of a node at once).
void BM_AutoEncoderForwardBatched(benchmark::State& state) {
  gsearch::Rng rng(1);
  nn::AutoEncoder ae({}, rng);
  const nn::Matrix x = random_features(state.range(0), 2);
  for (auto _ : state) benchmark::DoNotOptimize(ae.forward(x).data());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AutoEncoderForwardBatched)->Arg(16)->Arg(256)->Arg(4096);

// The eq. 14 evaluation term (two autoencoders and two heads) for one sample.
void BM_UctAeEvaluateUnbatched(benchmark::State& state) {
  gsearch::Rng rng(1);
  nn::UctAe m({}, rng);
  const nn::Matrix x = random_features(256, 2);
  nn::Index i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m.evaluate(x.row(i)).data());
    i = (i + 1) & 255;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UctAeEvaluateUnbatched);

// GAT-AE (default configuration: refinement, 5 → 8×4 concat → 1) forward on an N-node tree.
void BM_GatAeForward(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const auto g = random_tree(n, 3);
  const nn::Matrix x = random_features(n, 4);
  gsearch::Rng rng(1);
  nn::GatAe model({}, rng);
  for (auto _ : state) benchmark::DoNotOptimize(model.forward(x, g).data());
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_GatAeForward)->Arg(32)->Arg(64)->Arg(128)->Arg(1024);

// Forward + backward (one training step without the optimiser) on an N-node tree.
void BM_GatAeForwardBackward(benchmark::State& state) {
  const auto n = static_cast<std::int32_t>(state.range(0));
  const auto g = random_tree(n, 3);
  const nn::Matrix x = random_features(n, 4);
  const nn::Matrix dy = nn::Matrix::Constant(n, 1, 0.01f);
  gsearch::Rng rng(1);
  nn::GatAe model({}, rng);
  for (auto _ : state) {
    model.forward(x, g);
    benchmark::DoNotOptimize(model.backward(dy).data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_GatAeForwardBackward)->Arg(32)->Arg(128)->Arg(1024);

// G graphs of 64 nodes as one block-diagonal batch: graphs per second on one core, to set
// against the CUDA backend's figure (bench_nn_cuda).
void BM_GatAeBatchForward(benchmark::State& state) {
  const auto graphs = static_cast<std::int32_t>(state.range(0));
  nn::GraphBatch batch;
  for (std::int32_t k = 0; k < graphs; ++k) batch.add(random_tree(64, 100 + k));
  const nn::Matrix x = random_features(batch.graph().num_nodes(), 4);
  gsearch::Rng rng(1);
  nn::GatAe model({}, rng);
  for (auto _ : state) benchmark::DoNotOptimize(model.forward(x, batch.graph()).data());
  state.SetItemsProcessed(state.iterations() * graphs);
}
BENCHMARK(BM_GatAeBatchForward)->Arg(64)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
