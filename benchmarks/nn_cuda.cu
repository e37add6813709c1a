// Benchmarks of the CUDA backend. GAT-AE inference over a batch of G graphs of 64 nodes each,
// as one block-diagonal graph (upload, one launch sequence, download), in graphs per second;
// the policy-value network of players/policy_value.hpp over a batch of B positions (upload,
// forward, download of logits and values), in positions per second. Without a CUDA device
// every benchmark reports an error and nothing is timed.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "gsearch/nn/cuda/backend.cuh"
#include "gsearch/nn/gat.hpp"
#include "gsearch/nn/policy_value.hpp"

namespace nn = gsearch::nn;
namespace cu = gsearch::nn::cuda;

namespace {

nn::CsrGraph random_tree(std::int32_t n, std::uint64_t seed) {
  gsearch::Rng rng(seed);
  return nn::CsrGraph::random_tree(n, rng);
}

void BM_CudaGatAeBatchInfer(benchmark::State& state) {
  if (cu::device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const auto graphs = static_cast<std::int32_t>(state.range(0));
  nn::GraphBatch batch;
  for (std::int32_t k = 0; k < graphs; ++k) batch.add(random_tree(64, 100 + k));
  gsearch::Rng rng(1);
  nn::Matrix x(batch.graph().num_nodes(), 5);
  for (nn::Index k = 0; k < x.size(); ++k) x.data()[k] = static_cast<float>(rng.uniform());
  nn::GatAe cpu({}, rng);
  cu::Context ctx;
  cu::GatAe gpu(ctx, cpu);
  gpu.infer(ctx, x, batch.graph());  // warm-up: buffers, cuBLAS workspace
  for (auto _ : state) benchmark::DoNotOptimize(gpu.infer(ctx, x, batch.graph()).data());
  state.SetItemsProcessed(state.iterations() * graphs);
}
BENCHMARK(BM_CudaGatAeBatchInfer)->Arg(1)->Arg(64)->Arg(1024)->Arg(16384)->UseRealTime();

// amazons::DecisionNet's network (640 inputs, two relu layers of H units, 128 logits and a
// value) on the GPU, B positions (the first argument) a call, H the second; the network only
// (bench_search's BM_PriorValueBatch also encodes the positions and computes the priors).
void BM_CudaPolicyValueBatch(benchmark::State& state) {
  if (cu::device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const auto rows = static_cast<nn::Index>(state.range(0));
  gsearch::Rng rng(1);
  nn::PolicyValueMlp cpu(640, state.range(1), 128, rng);
  nn::Matrix x(rows, 640);
  for (nn::Index k = 0; k < x.size(); ++k) x.data()[k] = rng.uniform() < 0.3 ? 1.0f : 0.0f;
  cu::Context ctx;
  cu::PolicyValueMlp gpu(ctx, cpu);
  gpu.infer(ctx, x);  // warm-up: buffers, cuBLAS workspace
  for (auto _ : state) benchmark::DoNotOptimize(gpu.infer(ctx, x).values.data());
  state.counters["positions/s"] = benchmark::Counter(static_cast<double>(state.iterations() * rows),
                                                     benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CudaPolicyValueBatch)
    ->ArgsProduct({{1, 8, 32, 128, 1024}, {256, 1024}})
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
