// gsearch/arena/mpi.hpp — the games of a match spread over the processes of an MPI job, on one
// machine or many (`mpirun -np K program ...`). Needs an MPI implementation (Open MPI from
// Debian: libopenmpi-dev); the rest of gsearch does not.
//
// Rank 0 coordinates: it hands out game numbers, one at a time, to the ranks that ask,
// receives each finished game, calls `progress` and returns every game, in order, as
// play_match does. The other ranks play: each asks for a game, plays it with its own agents
// (play_match_game: the start, seeds and colours of game i depend on the match's parameters
// and i alone) and sends the record back, until rank 0 says there is nothing left. So the
// same parameters give the same games whatever the number of ranks or threads. Rank 0 plays
// no games itself (with one rank, the whole match runs as play_match, on its threads).
// params.stop and a progress callback that returns false stop the handing out; the games in
// progress on other ranks are still played and returned. Worker ranks return no games. Every
// rank leaves through a barrier, so that matches played one after another (a tournament)
// keep their messages apart.
//
// Messages are small: a request (empty), a game number (8 bytes), a record (112 bytes of
// numbers, the moves as bytes — 3 each for Amazons — and the names of the two players).
#pragma once

// The C API only: MPI's deprecated C++ bindings do not compile cleanly with -Wextra.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gsearch/arena/match.hpp"

namespace gsearch::arena {

namespace detail {
enum MpiTag : int { kRequest = 1, kAssign = 2, kRecord = 3 };

inline void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

// A record as bytes: fixed fields, the two names, the moves (trivially copyable).
template <MoveType Move>
std::vector<char> pack(const GameRecord<Move>& r) {
  std::vector<char> out;
  const auto put = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const char*>(p);
    out.insert(out.end(), c, c + n);
  };
  const std::uint64_t fixed[] = {r.index,
                                 r.seed,
                                 r.opening_seed,
                                 r.opening_plies,
                                 r.agent_moves[0],
                                 r.agent_moves[1],
                                 static_cast<std::uint64_t>(r.a_first),
                                 static_cast<std::uint64_t>(r.finished),
                                 r.players[0].size(),
                                 r.players[1].size(),
                                 r.moves.size()};
  put(fixed, sizeof fixed);
  const double reals[] = {r.result, r.seconds[0], r.seconds[1]};
  put(reals, sizeof reals);
  put(r.players[0].data(), r.players[0].size());
  put(r.players[1].data(), r.players[1].size());
  put(r.moves.data(), r.moves.size() * sizeof(Move));
  return out;
}

template <MoveType Move>
GameRecord<Move> unpack(const std::vector<char>& in) {
  GameRecord<Move> r;
  std::size_t at = 0;
  const auto get = [&](void* p, std::size_t n) {
    if (at + n > in.size()) throw std::runtime_error("MPI: a game record arrived cut short");
    std::memcpy(p, in.data() + at, n);
    at += n;
  };
  std::uint64_t fixed[11];
  get(fixed, sizeof fixed);
  double reals[3];
  get(reals, sizeof reals);
  r.index = fixed[0], r.seed = fixed[1], r.opening_seed = fixed[2], r.opening_plies = fixed[3];
  r.agent_moves[0] = fixed[4], r.agent_moves[1] = fixed[5];
  r.a_first = fixed[6] != 0, r.finished = fixed[7] != 0;
  r.result = reals[0], r.seconds[0] = reals[1], r.seconds[1] = reals[2];
  for (int k = 0; k < 2; ++k) {
    r.players[k].resize(fixed[8 + k]);
    get(r.players[k].data(), r.players[k].size());
  }
  r.moves.resize(fixed[10]);
  get(r.moves.data(), r.moves.size() * sizeof(Move));
  return r;
}
}  // namespace detail

// This process's rank and the number of ranks in `comm`.
[[nodiscard]] inline int mpi_rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int rank = 0;
  detail::mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}
[[nodiscard]] inline int mpi_size(MPI_Comm comm = MPI_COMM_WORLD) {
  int size = 1;
  detail::mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// play_match over the ranks of `comm` (see the top of this file); every rank calls it with
// the same starts and parameters. MPI must be initialised.
template <Game G, class MakeA, class MakeB, class Progress>
std::vector<GameRecord<typename G::Move>> play_match_mpi(std::span<const G> starts, MakeA make_a,
                                                         MakeB make_b, const MatchParams& params,
                                                         Progress progress,
                                                         MPI_Comm comm = MPI_COMM_WORLD) {
  using Record = GameRecord<typename G::Move>;
  const int rank = mpi_rank(comm), size = mpi_size(comm);
  if (size == 1) return play_match(starts, make_a, make_b, params, progress);
  const std::uint64_t kNone = params.games;  // "nothing left"
  if (rank != 0) {
    auto a = make_a();
    auto b = make_b();
    detail::mpi_check(MPI_Send(nullptr, 0, MPI_CHAR, 0, detail::kRequest, comm), "MPI_Send");
    for (;;) {
      std::uint64_t i = kNone;
      detail::mpi_check(MPI_Recv(&i, 1, MPI_UINT64_T, 0, detail::kAssign, comm, MPI_STATUS_IGNORE),
                        "MPI_Recv");
      if (i >= params.games) {
        detail::mpi_check(MPI_Barrier(comm), "MPI_Barrier");  // see the end of rank 0's part
        return {};
      }
      MatchParams local = params;
      local.stop = nullptr;  // a signal reaches rank 0; a game handed out is played
      const auto bytes = detail::pack(play_match_game(starts, a, b, local, i, nullptr));
      detail::mpi_check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0,
                                 detail::kRecord, comm),
                        "MPI_Send");
    }
  }
  // Rank 0: hand out games in order until none is left (or the match is stopped), then tell
  // every worker, as it next asks, that there is nothing more.
  std::vector<Record> records(params.games);
  std::vector<char> played(params.games, 0);
  std::uint64_t next = 0;
  std::size_t done = 0;
  int stopped_workers = 0;
  bool ended = false;
  std::vector<char> buffer;
  while (stopped_workers < size - 1) {
    MPI_Status status;
    detail::mpi_check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status), "MPI_Probe");
    int count = 0;
    detail::mpi_check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
    buffer.resize(static_cast<std::size_t>(count));
    detail::mpi_check(MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG,
                               comm, MPI_STATUS_IGNORE),
                      "MPI_Recv");
    if (status.MPI_TAG == detail::kRecord) {
      Record r = detail::unpack<typename G::Move>(buffer);
      const std::size_t i = r.index;
      if (i >= params.games || played[i])
        throw std::runtime_error("MPI: a game record that was not handed out arrived");
      records[i] = std::move(r);
      played[i] = 1;
      const Record& stored = records[i];
      using Returned = std::invoke_result_t<Progress&, const Record&, std::size_t, std::size_t>;
      if constexpr (std::is_same_v<Returned, bool>) {
        if (!progress(stored, ++done, params.games)) ended = true;
      } else {
        progress(stored, ++done, params.games);
      }
    }
    const bool stopping = ended || (params.stop && params.stop->load(std::memory_order_relaxed));
    std::uint64_t assign = stopping || next >= params.games ? kNone : next++;
    if (assign == kNone) ++stopped_workers;
    detail::mpi_check(MPI_Send(&assign, 1, MPI_UINT64_T, status.MPI_SOURCE, detail::kAssign, comm),
                      "MPI_Send");
  }
  // No rank starts a next match (and sends its first request) before rank 0 has left this
  // one's loop: messages of two matches never meet.
  detail::mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  std::vector<Record> out;
  for (std::size_t i = 0; i < params.games; ++i)
    if (played[i]) out.push_back(std::move(records[i]));
  return out;
}

}  // namespace gsearch::arena
