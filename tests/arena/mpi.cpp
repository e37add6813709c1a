// The MPI match's wire format: a game record survives packing and unpacking whole, and a
// record cut short is refused. (The distributed match itself is checked end to end by
// cli.tournament_mpi under mpirun.)
#include "gsearch/arena/mpi.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "support/mnk.hpp"

TEST_CASE("a game record packs and unpacks whole; a cut one is refused") {
  gsearch::arena::GameRecord<test_games::TicTacToe::Move> r;
  r.index = 41;
  r.players[0] = "uct:iters=100";
  r.players[1] = "random";
  r.a_first = false;
  r.seed = 0xfeedfacecafebeefULL;
  r.opening_seed = 7;
  r.opening_plies = 2;
  r.moves = {{4}, {0}, {8}, {2}, {6}};
  r.result = -1.0;
  r.finished = true;
  r.seconds[0] = 0.25, r.seconds[1] = 1.5;
  r.agent_moves[0] = 2, r.agent_moves[1] = 1;
  const auto bytes = gsearch::arena::detail::pack(r);
  const auto back = gsearch::arena::detail::unpack<test_games::TicTacToe::Move>(bytes);
  CHECK(back.index == r.index);
  CHECK(back.players[0] == r.players[0]);
  CHECK(back.players[1] == r.players[1]);
  CHECK(back.a_first == r.a_first);
  CHECK(back.seed == r.seed);
  CHECK(back.opening_seed == r.opening_seed);
  CHECK(back.opening_plies == r.opening_plies);
  CHECK(back.moves == r.moves);
  CHECK(back.result == r.result);
  CHECK(back.finished == r.finished);
  CHECK(back.seconds[1] == r.seconds[1]);
  CHECK(back.agent_moves[0] == r.agent_moves[0]);
  auto cut = bytes;
  cut.pop_back();
  CHECK_THROWS_WITH_AS(gsearch::arena::detail::unpack<test_games::TicTacToe::Move>(cut),
                       "MPI: a game record arrived cut short", std::runtime_error);
}
