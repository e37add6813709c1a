// The labeler against the local teacher on loopback: labels per second with 1 and 8
// connections, without a store and with the store under each sync policy, and the cost of
// the teacher's heuristic itself. Figures in docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "amazons/paper/label_store.hpp"
#include "amazons/paper/labeler.hpp"
#include "amazons/paper/teacher_server.hpp"

namespace {

using namespace amazons;

// Positions of seeded random games, one random legal move each: the same jobs every run.
const std::vector<LabelJob>& jobs() {
  static const std::vector<LabelJob> list = [] {
    std::vector<LabelJob> out;
    gsearch::Rng rng(20240611);
    Position pos;
    while (out.size() < 4096) {
      if (pos.is_terminal()) pos = Position{};
      out.push_back({pos, pos.random_move(rng), out.size()});
      pos.apply(pos.random_move(rng));
    }
    return out;
  }();
  return list;
}

// Labels `batch` jobs per iteration over range(0) connections; range(1): -1 no store, 0 a
// store synced only when closed, n a store synced every n labels.
void BM_Labels(benchmark::State& state) {
  const auto connections = static_cast<std::size_t>(state.range(0));
  const auto sync = state.range(1);
  constexpr std::size_t batch = 512;
  TeacherServer server({.threads = 16});
  server.start();
  TeacherClientParams client;
  client.url = server.url();
  client.key_env.clear();
  const LabelerParams params{.client = client, .connections = connections};
  char tmpl[] = "/tmp/gsearch-bench-labels-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  std::size_t offset = 0, run = 0;
  for (auto _ : state) {
    std::optional<LabelStore> store;
    if (sync >= 0)
      store.emplace(dir + "/" + std::to_string(run++) + ".jsonl",
                    LabelStoreParams{.sync_every = static_cast<std::size_t>(sync)});
    Labeler labeler(params, [&](const LabelJob& job, const ScoreOutcome& out) {
      if (store && out.scores)
        store->append({.fen = job.position.fen(),
                       .move = job.position.move_to_string(job.move),
                       .move_score = out.scores->move,
                       .place_score = out.scores->place,
                       .model = "bench",
                       .attempts = out.attempts,
                       .ms = out.seconds * 1000});
    });
    for (std::size_t i = 0; i < batch; ++i) labeler.submit(jobs()[(offset + i) % jobs().size()]);
    labeler.finish();
    offset += batch;
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  state.SetLabel(sync < 0    ? "no store"
                 : sync == 0 ? "store, sync at close"
                             : "store, sync every " + std::to_string(sync));
}
BENCHMARK(BM_Labels)
    ->ArgNames({"connections", "sync"})
    ->ArgsProduct({{1, 8}, {-1, 0, 1}})
    ->Args({8, 16})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The local teacher's scores for one move (three distance-map pairs), in-process.
void BM_TeacherScores(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    const LabelJob& job = jobs()[i++ % jobs().size()];
    benchmark::DoNotOptimize(teacher_scores(job.position, job.move, {}));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TeacherScores);

// The prompt and the request body for one move.
void BM_Prompt(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    const LabelJob& job = jobs()[i++ % jobs().size()];
    benchmark::DoNotOptimize(make_request_body(make_prompt(job.position, job.move), {}));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Prompt);

}  // namespace

BENCHMARK_MAIN();
