// gsearch/arena/agent.hpp — the Agent concept: anything that plays a game.
//
// An agent has a name (for tables and records), is reset with a seed at the start of every
// game, and chooses a move in a position. The budget (iterations, time, depth) is the
// agent's own business: a match treats agents as black boxes. Agents are not shared between
// threads; a match builds one per worker with a factory.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>

#include "gsearch/core/game.hpp"

namespace gsearch::arena {

template <class A, class G>
concept Agent = Game<G> && requires(A& agent, const A& cagent, const G& state, std::uint64_t seed) {
  // A short name, e.g. the spec it was built from ("uct:iters=2000").
  { cagent.name() } -> std::convertible_to<std::string>;
  // A new game starts; all randomness of the game derives from `seed`.
  { agent.reset(seed) } -> std::same_as<void>;
  // A legal move in `state`, which is not terminal.
  { agent.choose(state) } -> std::same_as<typename G::Move>;
};

}  // namespace gsearch::arena
