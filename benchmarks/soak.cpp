// Soak runs: long stretches of the match runner and of the labeler, to see that throughput
// holds and memory stays flat. Each benchmark runs once (one iteration) and reports its rate
// and the peak RSS (getrusage ru_maxrss) sampled at 10%, 50% and 100% of the work. Figures
// in docs/benchmarks.md ("Soak").
//   BM_SoakMatch    10,000 games of random vs greedy on the 6x6 board, through the match
//                   runner (gsearch::arena::play_match) on 2 threads, as `amazons match` runs.
//   BM_SoakLabeler  7,200 labels (an hour at 2 labels/s) from the local teacher on loopback
//                   with its faults on (about 14% of the replies malformed, out of range,
//                   slow, dropped, 500 or 429), 8 connections.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "amazons/paper/labeler.hpp"
#include "amazons/paper/teacher_server.hpp"
#include "amazons/players/agents.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/core/stats.hpp"

namespace {

using namespace amazons;

// Peak resident set size so far, MiB.
double peak_rss_mib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Samples the peak RSS when `done` first reaches 10%, 50% and 100% of `total`.
struct RssSamples {
  std::array<double, 3> mib{};
  void at(std::size_t done, std::size_t total) {
    if (done == total / 10) mib[0] = peak_rss_mib();
    if (done == total / 2) mib[1] = peak_rss_mib();
    if (done == total) mib[2] = peak_rss_mib();
  }
  void report(benchmark::State& state) const {
    state.counters["rss10_MiB"] = mib[0];
    state.counters["rss50_MiB"] = mib[1];
    state.counters["rss100_MiB"] = mib[2];
  }
};

void BM_SoakMatch(benchmark::State& state) {
  const auto games = static_cast<std::size_t>(state.range(0));
  const Position start = Position::from_fen("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1");
  RssSamples rss;
  std::size_t plies = 0, a_wins = 0;
  for (auto _ : state) {
    const auto records = gsearch::arena::play_match(
        start, [] { return AgentHandle(make_agent("random")); },
        [] { return AgentHandle(make_agent("greedy")); }, {.games = games, .threads = 2, .seed = 7},
        [&](const auto& record, std::size_t done, std::size_t total) {
          plies += record.moves.size();
          rss.at(done, total);
        });
    a_wins = gsearch::arena::summarize(records).wins;
  }
  state.counters["games"] = static_cast<double>(games);
  state.counters["games/s"] =
      benchmark::Counter(static_cast<double>(games) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["plies/game"] = static_cast<double>(plies) / static_cast<double>(games);
  state.counters["random_wins"] = static_cast<double>(a_wins);
  rss.report(state);
}
BENCHMARK(BM_SoakMatch)->Arg(10000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Positions of seeded random games on the 10x10 board, one random legal move each.
std::vector<LabelJob> label_jobs(std::size_t n) {
  std::vector<LabelJob> out;
  gsearch::Rng rng(20240612);
  Position pos;
  while (out.size() < n) {
    if (pos.is_terminal()) pos = Position{};
    out.push_back({pos, pos.random_move(rng), out.size()});
    pos.apply(pos.random_move(rng));
  }
  return out;
}

void BM_SoakLabeler(benchmark::State& state) {
  const auto labels = static_cast<std::size_t>(state.range(0));
  const std::vector<LabelJob> jobs = label_jobs(labels);
  TeacherServerParams sp;
  sp.threads = 16;
  sp.faults = {.malformed = 0.05,
               .out_of_range = 0.02,
               .slow = 0.01,
               .drop = 0.02,
               .error_500 = 0.02,
               .error_429 = 0.02,
               .slow_ms = 1000,
               .chunked = 0.1};
  TeacherServer server(sp);
  server.start();
  TeacherClientParams client;
  client.url = server.url();
  client.key_env.clear();
  RssSamples rss;
  std::size_t done = 0, scored = 0;
  LabelStats stats;
  for (auto _ : state) {
    Labeler labeler({.client = client, .connections = 8, .give_up_after = 0},
                    [&](const LabelJob&, const ScoreOutcome& out) {
                      scored += out.scores ? 1 : 0;
                      rss.at(++done, labels);
                    });
    for (const LabelJob& job : jobs) labeler.submit(job);
    labeler.finish();
    stats = labeler.stats();
  }
  const TeacherServerStats served = server.stats();
  std::uint64_t faults = 0;
  for (std::size_t k = 1; k < kFaultKinds; ++k) faults += served.faults[k];
  state.counters["labels"] = static_cast<double>(labels);
  state.counters["labels/s"] =
      benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
  state.counters["scored"] = static_cast<double>(scored);
  state.counters["requests"] = static_cast<double>(served.requests);
  state.counters["faults"] = static_cast<double>(faults);
  state.counters["rejected"] = static_cast<double>(stats.rejected_total());
  state.counters["http_retries"] = static_cast<double>(stats.http_retries);
  rss.report(state);
}
BENCHMARK(BM_SoakLabeler)->Arg(7200)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
