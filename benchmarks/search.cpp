// Search speed on Amazons: random games, MCTS iterations (1 and 2 threads), batched network
// evaluation, alpha-beta nodes, evaluations, node size and the memory of a long search. Figures in
// docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <span>
#include <vector>

#include "amazons/players/eval.hpp"
#include "amazons/players/policy_value.hpp"
#include "amazons/rules/decision.hpp"
#include "gsearch/alphabeta/alphabeta.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "positions.hpp"
#include "prior_value.hpp"

namespace {

using amazons::DecisionPosition;
using amazons::Position;
namespace mcts = gsearch::mcts;

using bench::position_at;

// Random games from the start to the end, one uniformly random move per ply.
template <class G>
void random_games(benchmark::State& state, const G& start) {
  gsearch::Rng rng(1);
  std::uint64_t plies = 0, games = 0;
  for (auto _ : state) {
    G g = start;
    while (!g.is_terminal()) {
      g.apply(g.random_move(rng));
      ++plies;
    }
    ++games;
    benchmark::DoNotOptimize(g);
  }
  state.counters["games/s"] =
      benchmark::Counter(static_cast<double>(games), benchmark::Counter::kIsRate);
  state.counters["plies/game"] = static_cast<double>(plies) / static_cast<double>(games);
}
void BM_RandomGamesWholeMoves(benchmark::State& state) { random_games(state, Position{}); }
void BM_RandomGamesDecisions(benchmark::State& state) {
  random_games(state, DecisionPosition{Position{}});
}
BENCHMARK(BM_RandomGamesWholeMoves);
BENCHMARK(BM_RandomGamesDecisions);

struct Lieberum {
  amazons::LieberumEvaluator eval;
  double operator()(const DecisionPosition& d) const { return eval(d.position()); }
  double operator()(const Position& p) const { return eval(p); }
};

// MCTS iterations per second over the decision model, from the start, 20,000 iterations
// per search: random playouts to the end (plain UCT), or 6-ply cut-off playouts + Lieberum;
// the arguments are the number of threads and how they search (0: a tree each, merged;
// 1: one shared tree), and the rates are per second of wall-clock time.
mcts::Params threaded(const benchmark::State& state) {
  return {.seed = 1,
          .reserve_nodes = 1 << 20,
          .threads = static_cast<unsigned>(state.range(0)),
          .parallel = state.range(1) ? mcts::Parallel::kTree : mcts::Parallel::kRoot};
}
template <class Search, class G = DecisionPosition>
void mcts_iterations(benchmark::State& state, Search search, const G& root = G{Position{}}) {
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    search.set_root(root);
    iterations += search.run(gsearch::Budget::iters(20000)).iterations;
  }
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
}
void BM_MctsRandomPlayouts(benchmark::State& state) {
  mcts_iterations(state, mcts::Search<DecisionPosition>(threaded(state)));
}
void BM_MctsCutoffPlayouts(benchmark::State& state) {
  using S =
      mcts::Search<DecisionPosition, mcts::Uct, mcts::ExpandAll, mcts::CutoffPlayout<Lieberum>>;
  mcts_iterations(state, S(threaded(state), {}, {}, {.plies = 6}));
}
// The same with INVADERMC's policies over whole moves (the `invader` agent's, without its
// implicit backups): every child of an expanded node scored by its one-ply Lieberum value,
// the best 400 kept, 5 open and 5 more every 1,000 visits, leaves expanded after 40 visits.
// Expansions are most of the work here; tree parallelism lists and scores the children
// outside its lock.
void BM_MctsInvader(benchmark::State& state) {
  using S = mcts::Search<Position, mcts::Uct, mcts::Expansion<amazons::LieberumMovePrior>,
                         mcts::CutoffPlayout<Lieberum>>;
  mcts_iterations(
      state,
      S(threaded(state), {.c = 0.3},
        {.top_k = 400, .widen_initial = 5, .widen_step = 5, .threshold = 40}, {.plies = 6}),
      Position{});
}
BENCHMARK(BM_MctsRandomPlayouts)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MctsCutoffPlayouts)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MctsInvader)
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// A policy-value network (players/policy_value.hpp: 640 inputs, 2 hidden relu layers of H
// units, 128 logits and a value) as a batched evaluator: positions valued (encoding,
// network, priors over the legal decisions) per second, B positions per call (the first
// argument), from 256 positions of random games. H (the second) = 256: 0.26 M weights, 1 MiB,
// in the cache; H = 1024: 1.8 M weights, 7 MiB, not.
void BM_PriorValueBatch(benchmark::State& state) {
  const auto batch = static_cast<std::size_t>(state.range(0));
  std::vector<DecisionPosition> positions;
  gsearch::Rng rng(5);
  while (positions.size() < 256) {
    DecisionPosition d{Position{}};
    for (int ply = 0; ply < 40 && !d.is_terminal(); ++ply) {
      d.apply(d.random_move(rng));
      if (!d.is_terminal()) positions.push_back(d);
    }
  }
  amazons::DecisionNet net(1, state.range(1));
  std::vector<float> values(batch), priors(batch * DecisionPosition::max_moves);
  std::size_t next = 0, evaluated = 0;
  for (auto _ : state) {
    if (next + batch > positions.size()) next = 0;
    net.evaluate_batch(std::span<const DecisionPosition>(positions.data() + next, batch), values,
                       priors);
    next += batch;
    evaluated += batch;
    benchmark::DoNotOptimize(values.data());
  }
  state.counters["positions/s"] =
      benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PriorValueBatch)->ArgsProduct({{1, 8, 32, 128}, {256, 1024}});

// MCTS with that network (H = 256) as its prior-value evaluator (PUCT), 2,000 iterations
// from the start, B leaves per network call (the first argument) on T threads (the second;
// root parallelism, a copy of the network per thread): iterations per wall-clock second.
void BM_MctsPriorValue(benchmark::State& state) {
  using S = mcts::Search<DecisionPosition, mcts::Puct, mcts::ExpandAll, amazons::DecisionNet>;
  S search({.seed = 1,
            .threads = static_cast<unsigned>(state.range(1)),
            .batch = static_cast<std::uint32_t>(state.range(0))},
           {}, {}, amazons::DecisionNet(1));
  bench::prior_value_searches(state, search);
}
BENCHMARK(BM_MctsPriorValue)
    ->ArgsProduct({{1, 8, 32}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The same over threads (the argument; root parallelism, batches of 8), with searches of
// 16,000 iterations so that each of 16 threads has a tree worth the name.
void BM_MctsPriorValueThreads(benchmark::State& state) {
  using S = mcts::Search<DecisionPosition, mcts::Puct, mcts::ExpandAll, amazons::DecisionNet>;
  S search({.seed = 1, .threads = static_cast<unsigned>(state.range(0)), .batch = 8}, {}, {},
           amazons::DecisionNet(1));
  bench::prior_value_searches(state, search, 16000);
}
BENCHMARK(BM_MctsPriorValueThreads)
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Alpha-beta nodes per second with the Lieberum evaluation, whole moves, depth 2, at turn 20.
void BM_AlphaBetaNodes(benchmark::State& state) {
  const Position pos = position_at(20);
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    gsearch::alphabeta::AlphaBeta<Position, Lieberum> search({.max_depth = 2});
    nodes += search.search(pos).nodes;
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AlphaBetaNodes)->Unit(benchmark::kMillisecond);

// Lazy SMP: nodes per second (all threads) and the depth reached by a 200 ms search at turn
// 20, with the selective settings of the `ab` agent, for 1 and 2 threads (wall-clock).
void BM_AlphaBetaThreads(benchmark::State& state) {
  const Position pos = position_at(20);
  std::uint64_t nodes = 0;
  int depth = 0;
  for (auto _ : state) {
    gsearch::alphabeta::AlphaBeta<Position, Lieberum, amazons::LieberumMovePrior> search(
        {.width = 12, .root_width = 24, .threads = static_cast<unsigned>(state.range(0))});
    const auto r = search.search(pos, gsearch::Budget::millis(200));
    nodes += r.nodes;
    depth = r.depth;
  }
  state.counters["nodes/s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
  state.counters["depth"] = depth;
}
BENCHMARK(BM_AlphaBetaThreads)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LieberumEvaluation(benchmark::State& state) {
  const Position pos = position_at(static_cast<int>(state.range(0)));
  const amazons::LieberumEvaluator eval;
  for (auto _ : state) benchmark::DoNotOptimize(eval(pos));
  state.counters["calls/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LieberumEvaluation)->Arg(0)->Arg(20)->Arg(50);

void BM_Features(benchmark::State& state) {
  const Position pos = position_at(20);
  amazons::DistanceMaps maps;
  for (auto _ : state) {
    amazons::compute_distances(pos, maps);
    benchmark::DoNotOptimize(amazons::features(pos, maps, pos.to_move(), 0));
  }
  state.counters["calls/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Features);

// A 1,000,000-iteration plain-UCT search over decisions: its peak resident memory (the whole
// process's, from getrusage) and the arena's bytes per visited node.
void BM_MctsMillionIterations(benchmark::State& state) {
  for (auto _ : state) {
    mcts::Search<DecisionPosition> search({.seed = 1});
    search.set_root(DecisionPosition{Position{}});
    const auto stats = search.run(gsearch::Budget::iters(1000000));
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto& tree = search.tree();
    state.counters["node_bytes"] = sizeof(mcts::Node<amazons::Decision>);
    state.counters["slots"] = static_cast<double>(tree.size());
    state.counters["visited"] = static_cast<double>(tree.visited_count());
    state.counters["arena_MiB"] =
        static_cast<double>(tree.capacity() * sizeof(mcts::Node<amazons::Decision>)) / (1 << 20);
    state.counters["bytes/visited"] =
        static_cast<double>(tree.capacity() * sizeof(mcts::Node<amazons::Decision>)) /
        static_cast<double>(tree.visited_count());
    state.counters["peak_RSS_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
    state.counters["iterations/s"] = static_cast<double>(stats.iterations) / stats.seconds;
  }
}
BENCHMARK(BM_MctsMillionIterations)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
