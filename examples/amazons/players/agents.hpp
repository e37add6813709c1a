// amazons/players/agents.hpp — Amazons players built from a text spec, for matches, the engine
// protocol, analysis and play.
//
// A spec is a name and optional parameters: "uct:iters=2000,c=0.7", "invader:ms=500",
// "ab:depth=3". `amazons agents` lists every agent with its parameters and defaults
// (describe_agents()). Agents are one per thread; each call of choose() searches afresh
// from the given position within the agent's budget (or the budget passed in).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "amazons/rules/position.hpp"
#include "gsearch/core/budget.hpp"

namespace amazons {

// A malformed spec: unknown agent, unknown parameter, bad value. One line.
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What the last choose() found, for `amazons analyze` and the engine's "info" line.
struct SearchInfo {
  std::vector<Move> pv;          // best line, first move first (may be just the move)
  double value = 0.0;            // for the player to move, in [-1, 1] (0 when unknown)
  std::uint64_t iterations = 0;  // MCTS iterations or alpha-beta nodes
  // Nodes searched: alpha-beta's nodes; for MCTS the tree nodes its iterations went through
  // (gsearch::mcts::Tree::total_visits). 0 for agents that do not search (`amazons bench`).
  std::uint64_t nodes = 0;
  int depth = 0;  // alpha-beta depth reached (0 for MCTS)
  double seconds = 0.0;
  std::string details;  // agent-specific lines (e.g. root children statistics)
};

class Agent {
 public:
  virtual ~Agent() = default;
  // The canonical spec, every parameter included, e.g. "uct:iters=2000,c=0.7,model=decision".
  [[nodiscard]] virtual std::string name() const = 0;
  // A new game begins: all randomness derives from `seed`.
  virtual void reset(std::uint64_t seed) = 0;
  // A legal move in `pos` (not terminal), within the agent's budget, or within `budget` when
  // given (iterations for MCTS agents, nodes for alpha-beta; time for all).
  virtual Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) = 0;
  Move choose(const Position& pos) { return choose(pos, std::nullopt); }
  [[nodiscard]] const SearchInfo& info() const noexcept { return info_; }

 protected:
  SearchInfo info_;
};

// Builds an agent from its spec; throws SpecError naming the problem.
[[nodiscard]] std::unique_ptr<Agent> make_agent(std::string_view spec);

// Reads and checks `spec` as make_agent() does, without building the agent (no weight file
// read, no memory reserved, no connection made): its canonical form, every parameter
// included, as the agent's name() would give it. Throws SpecError naming the problem; the
// checks that only building can make (a weight file that does not load, a URL) are not made.
[[nodiscard]] std::string canonical_spec(std::string_view spec);

// One line per agent: its name, its parameters with defaults, and what it is.
[[nodiscard]] std::string describe_agents();

// An owning handle that models gsearch::arena::Agent<Position>, for matches.
class AgentHandle {
 public:
  explicit AgentHandle(std::unique_ptr<Agent> agent) : agent_(std::move(agent)) {}
  [[nodiscard]] std::string name() const { return agent_->name(); }
  void reset(std::uint64_t seed) { agent_->reset(seed); }
  Move choose(const Position& pos) { return agent_->choose(pos); }
  [[nodiscard]] Agent& get() noexcept { return *agent_; }

 private:
  std::unique_ptr<Agent> agent_;
};

}  // namespace amazons
