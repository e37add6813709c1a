// amazons bench — the bench signature: fixed searches of fixed positions, one node count.
//
//   amazons bench
//
// As Stockfish's `bench`: each position of a fixed set (10×10 and 8×8, from the start to the
// late middle game) is searched by `ab` to a fixed depth and by `uct` and `invader` to a fixed
// number of iterations, each agent seeded with 1, one thread. The total of their nodes
// (alpha-beta's nodes; for MCTS the tree nodes its iterations went through) is the
// signature: it changes when anything the searches do changes — move generation, ordering,
// evaluation, selection, playouts — and does not depend on the machine or its load. A test
// pins it (tests/cli); a commit that changes it says so with the new number ("Bench: N").
// The time and the speed go to stderr.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "amazons/players/agents.hpp"
#include "cli/command.hpp"
#include "gsearch/core/budget.hpp"

namespace amazons::cli {
namespace {

struct BenchPosition {
  const char* fen;
  int ab_depth;  // alpha-beta's depth: the full-width search grows fast with the moves
};

// 10×10: the start and 10, 20, 30, 45 random turns in; 8×8: the start, 8 and 18 turns in.
constexpr BenchPosition kPositions[] = {
    {"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1", 2},
    {"1q8/10/9*/*8q/1q*1*3*1/4*Q*3/*2*1*Q3/1Q1q6/10/3Q6 w - - 0 6", 3},
    {"2*6*/1*q7/3*q**1q1/2**4*1/6q1*1/Q1*1*4*/1*5*1Q/2Q2*Q3/**1*6/6*3 w - - 0 11", 3},
    {"1*q6Q/3*3**1/1****2*q*/1q1*****2/*4Qq*2/*3**4/5**3/3*1*Q2*/*2*4*1/1Q4*1*1 w - - 0 16", 3},
    {"q**1*q*1**/2**3**1/****2**1Q/1*q*3**1/1q*5**/1**2**Q1*/4***1**/***2*1*2/*2*1*2*1/"
     "1*3Q1**Q b - - 0 23",
     4},
    {"2q2q2/8/q6q/8/8/Q6Q/8/2Q2Q2 w - - 0 1", 2},
    {"3*qq*1/Q4*2/5q*q/7Q/5*2/2*4*/1Q6/2*2Q2 w - - 0 5", 3},
    {"1*q*3*/2**1*2/1q*2q*1/2*Q*3/1**1**2/2*1Q2Q/q3**2/1*2Q3 w - - 0 10", 4},
};

constexpr const char* kMctsSpecs[] = {"uct:iters=2000", "invader:iters=2000"};

}  // namespace

void add_bench_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bench", "Search a fixed set of positions; print the node count (the bench signature)");
  cmd->callback([] {
    std::uint64_t total = 0;
    gsearch::Stopwatch watch;
    int index = 0;
    for (const auto& bp : kPositions) {
      const Position pos = Position::from_fen(bp.fen);
      std::printf("position %d  %s\n", ++index, bp.fen);
      std::vector<std::string> specs{"ab:depth=" + std::to_string(bp.ab_depth)};
      specs.insert(specs.end(), std::begin(kMctsSpecs), std::end(kMctsSpecs));
      for (const auto& spec : specs) {
        auto agent = make_agent(spec);
        agent->reset(1);
        const Move m = agent->choose(pos);
        const std::uint64_t nodes = agent->info().nodes;
        std::printf("  %-20s %10llu nodes  %s\n", spec.c_str(),
                    static_cast<unsigned long long>(nodes), pos.move_to_string(m).c_str());
        total += nodes;
      }
    }
    const double seconds = watch.seconds();
    std::printf("Nodes searched: %llu\n", static_cast<unsigned long long>(total));
    std::fflush(stdout);
    std::fprintf(stderr, "%.2f s, %.0f nodes/s\n", seconds,
                 seconds > 0 ? static_cast<double>(total) / seconds : 0.0);
  });
}

}  // namespace amazons::cli
