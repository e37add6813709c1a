// Amazons move generation: perft with bulk counting, full legal-move lists, counting, and the
// cost of apply/undo and copy. Figures in docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <vector>

#include "amazons/rules/decision.hpp"
#include "amazons/rules/position.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/testing/perft.hpp"

namespace {

using amazons::Position;

// Positions from a seeded random game: the start (turn 0), turn 20 (middle game), and
// turn 50 (end game). The same seed always gives the same positions.
Position position_at(int turns) {
  Position pos;
  gsearch::Rng rng(20240611);
  gsearch::MoveListOf<Position> moves;
  for (int t = 0; t < turns && !pos.is_terminal(); ++t) {
    pos.legal_moves(moves);
    pos.apply(moves[rng.below(moves.size())]);
  }
  return pos;
}

const Position& sample(int which) {
  static const Position positions[3] = {position_at(0), position_at(20), position_at(50)};
  return positions[which];
}

void label(benchmark::State& state, int which) {
  static const char* names[3] = {"start", "turn 20", "turn 50"};
  state.SetLabel(names[which]);
}

void BM_PerftBulk(benchmark::State& state) {
  const Position start;
  const int depth = static_cast<int>(state.range(0));
  std::uint64_t leaves = 0;
  for (auto _ : state) {
    leaves = gsearch::testing::perft(start, depth);
    benchmark::DoNotOptimize(leaves);
  }
  state.counters["leaves"] = static_cast<double>(leaves);
  state.counters["leaves/s"] = benchmark::Counter(static_cast<double>(leaves),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PerftBulk)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_LegalMoves(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Position& pos = sample(which);
  gsearch::MoveListOf<Position> moves;
  for (auto _ : state) {
    pos.legal_moves(moves);
    benchmark::DoNotOptimize(moves.data());
    benchmark::ClobberMemory();
  }
  label(state, which);
  state.counters["moves"] = static_cast<double>(moves.size());
  // Seconds per generated move, printed with an SI prefix (2.3n is 2.3 ns).
  state.counters["s/move"] = benchmark::Counter(
      static_cast<double>(moves.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_LegalMoves)->DenseRange(0, 2);

void BM_CountMoves(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Position& pos = sample(which);
  std::uint64_t n = 0;
  for (auto _ : state) {
    n = pos.count_moves();
    benchmark::DoNotOptimize(n);
  }
  label(state, which);
  state.counters["moves"] = static_cast<double>(n);
}
BENCHMARK(BM_CountMoves)->DenseRange(0, 2);

// The same count with one queen_attacks() + popcount per destination instead of the
// directional fills of count_moves(): the design choice count_moves() was measured against.
std::uint64_t count_moves_per_destination(const Position& pos) {
  using namespace amazons;
  const Bitboard occ = pos.occupied();
  std::uint64_t n = 0;
  for (Bitboard qs = pos.queens(pos.to_move()); qs;) {
    const Square from = pop_lsb(qs);
    const Bitboard lifted = occ ^ bit(from);
    for (Bitboard dests = queen_attacks(from, occ); dests;)
      n += static_cast<std::uint64_t>(popcount(queen_attacks(pop_lsb(dests), lifted)));
  }
  return n;
}

void BM_CountMovesPerDestination(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const Position& pos = sample(which);
  std::uint64_t n = 0;
  for (auto _ : state) {
    n = count_moves_per_destination(pos);
    benchmark::DoNotOptimize(n);
  }
  if (n != pos.count_moves()) state.SkipWithError("counts differ");
  label(state, which);
  state.counters["moves"] = static_cast<double>(n);
}
BENCHMARK(BM_CountMovesPerDestination)->DenseRange(0, 2);

// queen_attacks() by rays and, where the CPU has BMI2, by pext line tables, from each of the
// 100 squares of the board with the turn-20 position's occupancy (a fixed mix of open and
// blocked lines). Which one queen_attacks() uses is decided in board.hpp (AMAZONS_FAST_PEXT).
template <amazons::Bitboard (*Attacks)(amazons::Square, amazons::Bitboard)>
void BM_QueenAttacks(benchmark::State& state) {
  using namespace amazons;
  const Position& pos = sample(1);
  const Bitboard occ = pos.occupied();
  std::vector<Square> squares;
  for (Bitboard b = kArea; b;) squares.push_back(pop_lsb(b));
  for (auto _ : state) {
    Bitboard acc = 0;
    for (const Square s : squares) acc ^= Attacks(s, occ ^ (acc & bit(0)));  // a dependency chain
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(squares.size()));
}
BENCHMARK(BM_QueenAttacks<amazons::queen_attacks_rays>)->Name("BM_QueenAttacks/rays");
#if defined(__BMI2__)
BENCHMARK(BM_QueenAttacks<amazons::queen_attacks_bmi2>)->Name("BM_QueenAttacks/pext");
#endif

void BM_ApplyUndo(benchmark::State& state) {
  Position pos = sample(1);
  gsearch::MoveListOf<Position> moves;
  pos.legal_moves(moves);
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& m = moves[i];
    pos.apply(m);
    benchmark::DoNotOptimize(pos);
    pos.undo(m);
    if (++i == moves.size()) i = 0;
  }
}
BENCHMARK(BM_ApplyUndo);

void BM_CopyApply(benchmark::State& state) {
  const Position pos = sample(1);
  gsearch::MoveListOf<Position> moves;
  pos.legal_moves(moves);
  std::size_t i = 0;
  for (auto _ : state) {
    Position child = pos;
    child.apply(moves[i]);
    benchmark::DoNotOptimize(child);
    if (++i == moves.size()) i = 0;
  }
}
BENCHMARK(BM_CopyApply);

void BM_DecisionApplyUndo(benchmark::State& state) {
  amazons::DecisionPosition d{sample(1)};
  gsearch::MoveListOf<amazons::DecisionPosition> moves;
  for (auto _ : state) {
    // One whole turn as three decisions, then back.
    amazons::Decision path[3];
    for (auto& step : path) {
      d.legal_moves(moves);
      step = moves[0];
      d.apply(step);
    }
    benchmark::DoNotOptimize(d);
    for (int k = 2; k >= 0; --k) d.undo(path[k]);
  }
}
BENCHMARK(BM_DecisionApplyUndo);

}  // namespace

BENCHMARK_MAIN();
