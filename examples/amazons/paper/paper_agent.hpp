// amazons/paper/paper_agent.hpp — the paper's agents: Algorithm 1 and its ablations (§5.4).
//
// Each searches the decision tree with UCT-AE for N nodes, then decides:
//   uctae   Reading::kLiteral: the path of highest objective (eq. 10–12), §4.3;
//           Reading::kRelative: the most visited queen, destination and arrow;
//   sgga    SGGA's node (§4.2.4, eq. 16) and its path;
//   gatae   GAT-AE's best whole move in the tree (the heads merged into a super-node);
//   hybrid  Algorithm 1: SGGA's node, then GAT-AE's best whole move around it: among the
//           whole moves through the node's destination (SGGA chose queen and destination,
//           GAT-AE the arrow), else through its queen, else all of the tree's.
// A path shorter than a turn is completed (Reading::kRelative: by the most visited children
// where the search went, then by UCT-AE's best score; Reading::kLiteral: by UCT-AE's best
// score). paper.hpp describes the two readings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "amazons/paper/paper.hpp"
#include "amazons/players/agents.hpp"

namespace amazons::paper {

enum class PaperMode : std::uint8_t { kUctAe, kSgga, kGatAe, kHybrid };

struct PaperAgentOptions {
  std::string name;  // what Agent::name() returns (the canonical spec)
  PaperMode mode = PaperMode::kHybrid;
  std::uint64_t nodes = 30;        // the paper's N: nodes added to the tree per move
  std::shared_ptr<Networks> nets;  // shared between agents; its reading is the agent's
  double sgga_temperature = 0.1;   // SGGA's softmax temperature (objectives lie in [0, 1])
  RelativeKnobs knobs{};           // Reading::kRelative's search
};

// A paper agent; throws std::invalid_argument when options.nets is empty.
[[nodiscard]] std::unique_ptr<Agent> make_paper_agent(const PaperAgentOptions& options);

}  // namespace amazons::paper
