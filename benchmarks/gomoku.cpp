// Benchmarks of the Gomoku example's learning pipeline (examples/gomoku/learn) on the CPU, on
// 8×8 with the report's network (trunk 32, 64, 128): network evaluations per second at B = 1
// and at the batch the search uses (8), training steps per second (a batch of 512, forward,
// backward, Adam), self-play positions per second (400 playouts a move on the 6×6 window with
// threat exceptions), and the share of a self-play search's time spent in the network.
// Figures and commands: docs/benchmarks.md, "Gomoku".
#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

#include "gomoku/learn/train.hpp"
#include "gsearch/core/clock.hpp"

namespace learn = gomoku::learn;
namespace nn = gsearch::nn;
using gomoku::Position;

namespace {

nn::PolicyValueConv report_network() {
  gsearch::Rng rng(1);
  return nn::PolicyValueConv(learn::network_shape(8, 8, {32, 64, 128}), rng);
}

// Positions from random games, 2 to 20 stones.
std::vector<Position> positions(std::size_t n) {
  gsearch::Rng rng(2);
  std::vector<Position> out;
  while (out.size() < n) {
    Position p = Position::empty(8, 8, 4);
    const auto stones = 2 + rng.below(19);
    for (std::uint64_t i = 0; i < stones && !p.is_terminal(); ++i) p.apply(p.random_move(rng));
    if (!p.is_terminal()) out.push_back(p);
  }
  return out;
}

// The evaluator as the search calls it: B positions encoded, one forward pass, priors over
// the legal moves. Items: positions.
void BM_NetworkEvaluate(benchmark::State& state) {
  const auto batch = static_cast<std::size_t>(state.range(0));
  learn::NetworkEvaluator eval(report_network());
  const auto pool = positions(256);  // more than the largest batch: the window below moves
  std::vector<float> values(batch), priors(batch * Position::max_moves);
  std::size_t at = 0;
  for (auto _ : state) {
    eval.evaluate_batch(std::span(pool).subspan(at, batch), values, priors);
    benchmark::DoNotOptimize(values.data());
    at = (at + batch) % (pool.size() - batch);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch));
}
BENCHMARK(BM_NetworkEvaluate)->Arg(1)->Arg(8)->Arg(64)->Unit(benchmark::kMicrosecond);

// One Adam step of training: forward, masked cross-entropy and MSE, backward, update, on a
// batch of 512 (the report's). Items: steps.
void BM_TrainingStep(benchmark::State& state) {
  auto net = report_network();
  auto params = net.parameters();
  nn::Adam adam(params, {.lr = 2e-3, .weight_decay = 1e-4});
  const auto pool = positions(512);
  nn::Matrix x(512, net.inputs()), pi = nn::Matrix::Zero(512, 64), mask(512, 64), z(512, 1), dl, dv;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const auto r = static_cast<nn::Index>(i);
    learn::encode(pool[i], std::span<float>(x.row(r).data(), static_cast<std::size_t>(x.cols())));
    for (nn::Index a = 0; a < 64; ++a) mask(r, a) = 1.0f - x(r, a * 4) - x(r, a * 4 + 1);
    gsearch::MoveListOf<Position> moves;
    pool[i].legal_moves(moves);
    pi(r, learn::action_of(moves[0].cell, 8)) = 1.0f;
    z(r, 0) = i % 2 ? 1.0f : -1.0f;
  }
  for (auto _ : state) {
    adam.zero_grad();
    const auto out = net.forward(x);
    (void)nn::softmax_cross_entropy<float>(out.logits, pi, mask, dl);
    (void)nn::mse_loss<float>(out.values, z, dv);
    net.backward(dl, dv);
    adam.step();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TrainingStep)->Unit(benchmark::kMillisecond);

// A self-play game of the untrained report network on 8×8 connect-4 with the 6×6 window and
// threat exceptions, 400 playouts a move. Items: positions (moves played); the counter
// network_share is the fraction of the time spent in NetworkEvaluator.
struct TimedEvaluator {
  learn::NetworkEvaluator inner;
  double* seconds;
  void evaluate_batch(std::span<const Position> s, std::span<float> v, std::span<float> p) {
    gsearch::Stopwatch watch;
    inner.evaluate_batch(s, v, p);
    *seconds += watch.seconds();
  }
};

void BM_SelfPlayGame(benchmark::State& state) {
  const auto net = report_network();
  learn::TrainConfig cfg;
  cfg.width = cfg.height = 8;
  cfg.k = 4;
  cfg.restriction = {.window = 6, .threats = 1};
  std::int64_t plies = 0;
  std::uint64_t seed = 1;
  for (auto _ : state)
    plies += static_cast<std::int64_t>(learn::self_play_game(net, cfg, seed++).moves.size());
  state.SetItemsProcessed(plies);
  // The network's share, from searches of the same kind with a timed evaluator.
  double in_network = 0;
  using Search =
      gsearch::mcts::Search<Position, gsearch::mcts::Puct, gomoku::AzAgent::Expand, TimedEvaluator>;
  Search search({.seed = 1, .batch = 8}, {.c = 5},
                gomoku::AzAgent::Expand{.filter = gomoku::CandidateFilter{cfg.restriction}},
                TimedEvaluator{learn::NetworkEvaluator(net), &in_network});
  gsearch::Stopwatch watch;
  for (const auto& pos : positions(16)) {
    search.set_root(pos);
    search.run(gsearch::Budget::iters(400));
  }
  state.counters["network_share"] = in_network / watch.seconds();
}
BENCHMARK(BM_SelfPlayGame)->Unit(benchmark::kMillisecond)->Iterations(10);

}  // namespace

BENCHMARK_MAIN();
