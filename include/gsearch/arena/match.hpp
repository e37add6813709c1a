// gsearch/arena/match.hpp — playing matches between two agents, on worker threads.
//
// A match of N games between agents A and B:
//   - games come in pairs that share a random opening (opening_plies uniformly random moves
//     from the start, drawn from the pair's seed) and swap colours: A moves first in the
//     even game of a pair, B in the odd one — so neither agent profits from a lucky opening
//     or from moving first;
//   - every game has its own seed, derived from the match seed and the game number, from
//     which the agents are reset: the same match seed replays the same games exactly (for
//     agents that are deterministic given their seed and an iteration budget);
//   - games run on `threads` workers, each with its own pair of agents built by the factories;
//     results come back in game order whatever the thread count;
//   - a match can be stopped (MatchParams::stop, e.g. set by a signal handler): the games in
//     progress are abandoned after their current move, no new game starts, and the games
//     already played come back — a stopped match of N games returns fewer than N records.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

#include "gsearch/arena/agent.hpp"
#include "gsearch/arena/record.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/core/stats.hpp"

namespace gsearch::arena {

struct MatchParams {
  std::size_t games = 100;         // number of games (an odd count leaves one opening unpaired)
  unsigned threads = 1;            // worker threads
  std::uint64_t seed = 1;          // the match seed
  std::size_t opening_plies = 2;   // random plies at the start of each pair of games
  std::size_t max_plies = 100000;  // a game longer than this is stopped, unfinished
  // When this becomes true, games in progress are abandoned (not returned) after their current
  // move and no new game starts. Read with relaxed loads; may be set from a signal handler.
  const std::atomic<bool>* stop = nullptr;
};

// The seed of game `index` of a match with seed `match_seed`, and of its opening.
[[nodiscard]] inline std::uint64_t game_seed(std::uint64_t match_seed, std::size_t index) {
  std::uint64_t s = match_seed * 0x9e3779b97f4a7c15ULL + index;
  return splitmix64(s);
}
[[nodiscard]] inline std::uint64_t opening_seed(std::uint64_t match_seed, std::size_t pair) {
  std::uint64_t s = match_seed ^ (0xd1b54a32d192ed03ULL * (pair + 1));
  return splitmix64(s);
}

// Plays one game: `first` moves as player 0. The opening comes from `opening_rng`. When
// `stop` becomes true the game ends after the current move, unfinished, and `*stopped` (if
// given) is set.
template <Game G, class A0, class A1>
requires Agent<A0, G> && Agent<A1, G> GameRecord<typename G::Move> play_game(
    const G& start, A0& first, A1& second, std::uint64_t seed, std::uint64_t opening,
    std::size_t opening_plies, std::size_t max_plies, const std::atomic<bool>* stop = nullptr,
    bool* stopped = nullptr) {
  GameRecord<typename G::Move> record;
  record.players[0] = first.name();
  record.players[1] = second.name();
  record.seed = seed;
  record.opening_seed = opening;
  first.reset(seed);
  second.reset(seed ^ 0x5bd1e995ULL);
  G state = start;
  Rng rng(opening);
  for (std::size_t ply = 0; !state.is_terminal(); ++ply) {
    if (ply >= max_plies) {
      record.finished = false;
      return record;
    }
    if (stop && stop->load(std::memory_order_relaxed)) {
      record.finished = false;
      if (stopped) *stopped = true;
      return record;
    }
    typename G::Move m;
    if (ply < opening_plies) {
      m = uniform_random_move(state, rng);
      ++record.opening_plies;
    } else {
      const Player p = state.to_move();
      Stopwatch watch;
      m = p == 0 ? first.choose(state) : second.choose(state);
      record.seconds[p] += watch.seconds();
      ++record.agent_moves[p];
    }
    record.moves.push_back(m);
    state.apply(m);
  }
  record.result = state.result(0);
  return record;
}

// How many games of the match end during their random opening, before either agent moves
// (e.g. 20 opening plies on a 4x4 board): callers warn before playing such a match.
// With several starts (an opening book), pair p starts from starts[p % starts.size()].
template <Game G>
[[nodiscard]] std::size_t games_decided_by_opening(std::span<const G> starts,
                                                   const MatchParams& params) {
  std::size_t decided = 0;
  for (std::size_t pair = 0; 2 * pair < params.games; ++pair) {
    G state = starts[pair % starts.size()];
    Rng rng(opening_seed(params.seed, pair));
    for (std::size_t ply = 0; ply < params.opening_plies && !state.is_terminal(); ++ply)
      state.apply(uniform_random_move(state, rng));
    if (state.is_terminal()) decided += std::min<std::size_t>(2, params.games - 2 * pair);
  }
  return decided;
}
template <Game G>
[[nodiscard]] std::size_t games_decided_by_opening(const G& start, const MatchParams& params) {
  return games_decided_by_opening(std::span<const G>(&start, 1), params);
}

// Game i of a match: its start (starts[(i / 2) % n]), seeds and colours from the match's
// parameters and i alone, so that whoever plays it — a thread, another process — plays the
// same game. A stopped game (params.stop) sets *stopped.
template <Game G, class A, class B>
requires Agent<A, G> && Agent<B, G> GameRecord<typename G::Move> play_match_game(
    std::span<const G> starts, A& a, B& b, const MatchParams& params, std::size_t i,
    bool* stopped) {
  const std::uint64_t seed = game_seed(params.seed, i);
  const std::uint64_t opening = opening_seed(params.seed, i / 2);
  const bool a_first = i % 2 == 0;
  const G& start = starts[(i / 2) % starts.size()];
  auto record = a_first ? play_game(start, a, b, seed, opening, params.opening_plies,
                                    params.max_plies, params.stop, stopped)
                        : play_game(start, b, a, seed, opening, params.opening_plies,
                                    params.max_plies, params.stop, stopped);
  record.index = i;
  record.a_first = a_first;
  return record;
}

// Plays the match. make_a() and make_b() build fresh agents (called once per worker).
// progress(const GameRecord&, done, total) is called after each game, one call at a time; if
// it returns a bool, false ends the match: no game starts after it (games in progress on
// other threads still finish and are returned), e.g. when a sequential test has decided.
// An exception thrown by an agent stops the match and is rethrown here. Returns the games
// played, in game order: all of them unless params.stop was set or progress ended the match.
// With several starts (an opening book, one position per line), pair p of games starts from
// starts[p % starts.size()] (then params.opening_plies random plies, usually 0 with a book).
template <Game G, class MakeA, class MakeB, class Progress>
std::vector<GameRecord<typename G::Move>> play_match(std::span<const G> starts, MakeA make_a,
                                                     MakeB make_b, const MatchParams& params,
                                                     Progress progress) {
  GSEARCH_ASSERT(!starts.empty());
  std::vector<GameRecord<typename G::Move>> records(params.games);
  std::vector<char> played(params.games, 0);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false}, ended{false};
  std::mutex mutex;
  std::exception_ptr error;
  std::size_t done = 0;
  auto worker = [&] {
    try {
      auto a = make_a();
      auto b = make_b();
      const auto stopping = [&] {
        return params.stop && params.stop->load(std::memory_order_relaxed);
      };
      for (std::size_t i;
           !failed && !ended && !stopping() && (i = next.fetch_add(1)) < params.games;) {
        bool stopped = false;
        auto record = play_match_game(starts, a, b, params, i, &stopped);
        if (stopped) break;
        std::lock_guard lock(mutex);
        records[i] = std::move(record);
        played[i] = 1;
        using Returned = std::invoke_result_t<Progress&, const GameRecord<typename G::Move>&,
                                              std::size_t, std::size_t>;
        if constexpr (std::is_same_v<Returned, bool>) {
          if (!progress(records[i], ++done, params.games)) ended = true;
        } else {
          progress(records[i], ++done, params.games);
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  const unsigned n =
      std::max(1u, std::min<unsigned>(params.threads, static_cast<unsigned>(params.games)));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  if (done < params.games) {  // stopped: keep the games played, in order
    std::size_t kept = 0;
    for (std::size_t i = 0; i < params.games; ++i)
      if (played[i]) {
        if (kept != i) records[kept] = std::move(records[i]);
        ++kept;
      }
    records.resize(kept);
  }
  return records;
}

template <Game G, class MakeA, class MakeB, class Progress>
std::vector<GameRecord<typename G::Move>> play_match(const G& start, MakeA make_a, MakeB make_b,
                                                     const MatchParams& params, Progress progress) {
  return play_match(std::span<const G>(&start, 1), make_a, make_b, params, progress);
}

template <Game G, class MakeA, class MakeB>
std::vector<GameRecord<typename G::Move>> play_match(std::span<const G> starts, MakeA make_a,
                                                     MakeB make_b, const MatchParams& params) {
  return play_match(starts, make_a, make_b, params, [](const auto&, std::size_t, std::size_t) {});
}

template <Game G, class MakeA, class MakeB>
std::vector<GameRecord<typename G::Move>> play_match(const G& start, MakeA make_a, MakeB make_b,
                                                     const MatchParams& params) {
  return play_match(start, make_a, make_b, params, [](const auto&, std::size_t, std::size_t) {});
}

// The numbers of a match from A's side.
struct MatchSummary {
  std::size_t games = 0, wins = 0, losses = 0, draws = 0, unfinished = 0;
  double score = 0.0;                       // A's wins + draws / 2
  Interval score_ci;                        // Wilson 95% interval of A's expected score
  double elo = 0.0;                         // Elo difference A - B
  Interval elo_ci;                          // its 95% interval
  double mean_plies = 0.0;                  // average game length in plies
  double seconds_per_move[2] = {0.0, 0.0};  // A's and B's average thinking time per move
};

template <MoveType Move>
[[nodiscard]] MatchSummary summarize(const std::vector<GameRecord<Move>>& records) {
  MatchSummary s;
  double secs[2] = {0, 0};
  double moves[2] = {0, 0};
  for (const auto& r : records) {
    ++s.games;
    s.mean_plies += static_cast<double>(r.moves.size());
    if (!r.finished) ++s.unfinished;
    const double a = r.score_a();
    s.score += a;
    if (a == 1.0)
      ++s.wins;
    else if (a == 0.0)
      ++s.losses;
    else
      ++s.draws;
    const int pa = r.a_first ? 0 : 1;
    secs[0] += r.seconds[pa];
    secs[1] += r.seconds[1 - pa];
    moves[0] += static_cast<double>(r.agent_moves[pa]);
    moves[1] += static_cast<double>(r.agent_moves[1 - pa]);
  }
  if (s.games) s.mean_plies /= static_cast<double>(s.games);
  for (int k = 0; k < 2; ++k) s.seconds_per_move[k] = moves[k] > 0 ? secs[k] / moves[k] : 0.0;
  s.score_ci = wilson_interval(s.score, static_cast<double>(s.games));
  s.elo = elo_difference(s.games ? s.score / static_cast<double>(s.games) : 0.5);
  s.elo_ci = elo_interval(s.score, static_cast<double>(s.games));
  return s;
}

}  // namespace gsearch::arena
