// gsearch/arena/record.hpp — game records: everything needed to replay a game exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsearch/core/game.hpp"

namespace gsearch::arena {

template <MoveType Move>
struct GameRecord {
  std::size_t index = 0;                // the game's number in its match
  std::string players[2];               // agent names; players[0] moved first (player 0)
  bool a_first = true;                  // whether the match's first agent (A) was player 0
  std::uint64_t seed = 0;               // the game's seed: the agents' seeds derive from it
  std::uint64_t opening_seed = 0;       // the seed of the random opening (shared by a pair)
  std::size_t opening_plies = 0;        // the leading moves that were the random opening
  std::vector<Move> moves;              // every move from the start, opening included
  double result = 0.0;                  // for player 0: +1 win, -1 loss, 0 draw (or unfinished)
  bool finished = true;                 // false when the game hit the match's ply limit
  double seconds[2] = {0.0, 0.0};       // thinking time of player 0 and player 1
  std::size_t agent_moves[2] = {0, 0};  // moves each agent chose (opening excluded)

  // The score of the match's agent A in this game: 1, 0.5 or 0.
  [[nodiscard]] double score_a() const noexcept {
    const double r0 = (result + 1.0) / 2.0;
    return a_first ? r0 : 1.0 - r0;
  }
};

// Replays `record` from `start`: returns an empty string when every move is legal and the
// final state is terminal with the recorded result (or the game was recorded unfinished);
// otherwise a one-line description of the first discrepancy.
template <Game G>
[[nodiscard]] std::string replay_error(const G& start, const GameRecord<typename G::Move>& record) {
  G state = start;
  for (std::size_t i = 0; i < record.moves.size(); ++i) {
    if (state.is_terminal())
      return "move " + std::to_string(i + 1) + " comes after the end of the game";
    if (!is_legal(state, record.moves[i])) return "move " + std::to_string(i + 1) + " is illegal";
    state.apply(record.moves[i]);
  }
  if (!record.finished) return {};
  if (!state.is_terminal()) return "the game is not over after its last move";
  if (state.result(0) != record.result)
    return "the recorded result differs from the final position's";
  return {};
}

}  // namespace gsearch::arena
