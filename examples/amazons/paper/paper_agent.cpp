// amazons/paper/paper_agent.cpp — the paper's agents (paper_agent.hpp).
#include "amazons/paper/paper_agent.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gsearch/sgga/sgga.hpp"

namespace amazons::paper {
namespace {

using gsearch::NodeId;

class PaperAgent final : public Agent {
 public:
  explicit PaperAgent(const PaperAgentOptions& o)
      : o_(o), sgga_({.temperature = o.sgga_temperature}) {}
  std::string name() const override { return o_.name; }
  void reset(std::uint64_t seed) override { seed_ = seed; }

  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Stopwatch watch;
    const std::uint64_t seed =
        gsearch::derive_seed(seed_, static_cast<std::uint64_t>(pos.turns_played()));
    const DecisionPosition root{pos};
    const gsearch::Budget b = budget.value_or(gsearch::Budget::node_count(o_.nodes));
    Move m;
    if (o_.nets->reading == Reading::kLiteral) {
      auto search = make_literal_search(o_.nets, seed);
      search.set_root(root);
      info_ = SearchInfo{};
      info_.iterations = search.run(b).iterations;
      m = decide(search.tree(), root, seed);
    } else {
      auto search = make_relative_search(o_.nets, seed, o_.knobs);
      search.set_root(root);
      info_ = SearchInfo{};
      info_.iterations = search.run(b).iterations;
      m = decide(search.tree(), root, seed);
      if (!search.root_children().empty()) info_.value = search.root_children().front().q;
    }
    info_.pv = {m};
    info_.seconds = watch.seconds();
    return m;
  }

 private:
  bool relative() const { return o_.nets->reading == Reading::kRelative; }

  // The decision stage on a searched tree (see paper_agent.hpp).
  Move decide(const DecisionTree& tree, const DecisionPosition& root, std::uint64_t seed) {
    const DecisionView view =
        relative() ? DecisionView(tree, gsearch::mcts::KeepVisitShare{o_.knobs.visit_share})
                   : DecisionView(tree);
    std::vector<NodeId> path;  // view nodes from the root
    std::string how;
    if (o_.mode == PaperMode::kUctAe) {
      path = relative() ? most_visited_path(view) : best_objective_path(view);
      how = relative() ? "most visits" : "highest objective";
    } else {
      NodeId chosen = 0;
      if (o_.mode != PaperMode::kGatAe && view.size() > 1) {
        sgga_.prepare(view);
        const auto& r = sgga_.run(seed);
        chosen = r.node == gsearch::kNoNode ? 0 : r.node;
        how = "sgga node at depth " + std::to_string(view.depth(chosen)) + " after " +
              std::to_string(r.generations) + " generations";
      }
      if (o_.mode == PaperMode::kSgga) {
        path = path_to(view, chosen);
      } else {
        const auto data = describe(view, root, o_.nets->reading);
        path = gat_choice(view, data, o_.mode == PaperMode::kHybrid ? chosen : 0, how);
      }
    }
    if (path.size() > 4) path.resize(4);  // root + three decisions: one turn
    if (relative()) extend_by_visits(view, path);
    DecisionPosition s = root;
    Decision turn[3];
    int k = 0;
    for (std::size_t i = 1; i < path.size(); ++i) {
      turn[k] = view.tree()[view.tree_id(path[i])].move;
      s.apply(turn[k++]);
    }
    for (; k < 3; ++k) {  // complete the turn by UCT-AE's scores
      gsearch::MoveListOf<DecisionPosition> options;
      s.legal_moves(options);
      float scores[DecisionPosition::max_moves];
      score_decisions(*o_.nets, s, options, scores);
      turn[k] = options[static_cast<std::size_t>(std::max_element(scores, scores + options.size()) -
                                                 scores)];
      s.apply(turn[k]);
    }
    info_.details = "tree: " + std::to_string(view.size()) + " nodes, depth " +
                    std::to_string(gsearch::max_depth(view)) + "; decision: " + how + "\n";
    return {turn[1].from, turn[1].to, turn[2].to};
  }

  static std::vector<NodeId> path_to(const DecisionView& view, NodeId n) {
    std::vector<NodeId> path;
    for (NodeId x = n; x != gsearch::kNoNode; x = view.parent(x)) path.push_back(x);
    std::reverse(path.begin(), path.end());
    return path;
  }

  // The child of view node n with the most visits (ties: the higher value), or kNoNode.
  static NodeId most_visited_child(const DecisionView& view, NodeId n) {
    NodeId best = gsearch::kNoNode;
    for (NodeId c : view.children(n)) {
      if (best == gsearch::kNoNode) {
        best = c;
        continue;
      }
      const auto& a = view.tree()[view.tree_id(c)];
      const auto& b = view.tree()[view.tree_id(best)];
      if (a.visits > b.visits || (a.visits == b.visits && a.q > b.q)) best = c;
    }
    return best;
  }

  static void extend_by_visits(const DecisionView& view, std::vector<NodeId>& path) {
    while (path.size() < 4) {
      const NodeId c = most_visited_child(view, path.back());
      if (c == gsearch::kNoNode) break;
      path.push_back(c);
    }
  }

  static std::vector<NodeId> most_visited_path(const DecisionView& view) {
    std::vector<NodeId> path{0};
    extend_by_visits(view, path);
    return path;
  }

  static std::vector<NodeId> best_objective_path(const DecisionView& view) {
    std::vector<NodeId> path{0};
    while (path.size() < 4) {
      const auto kids = view.children(path.back());
      if (kids.empty()) break;
      path.push_back(*std::max_element(kids.begin(), kids.end(), [&](NodeId a, NodeId b) {
        return view.objective(a) < view.objective(b);
      }));
    }
    return path;
  }

  // GAT-AE's best whole move among the candidates around `around` (the root: all of them).
  std::vector<NodeId> gat_choice(const DecisionView& view, const TreeData& data, NodeId around,
                                 std::string& how) {
    const auto ancestor_at = [&](NodeId n, int depth) {
      while (data.depth[n] > depth) n = data.parent[n];
      return n;
    };
    // The subgraph around SGGA's node: the whole moves through its destination (the node cut
    // at depth 2), else through its queen (depth 1), else the whole tree's (the root, or no
    // whole move below).
    std::vector<NodeId> candidates;
    const int d = data.depth[around];
    for (int level = std::min(d, 2); level >= 0 && candidates.empty(); --level) {
      const NodeId anchor = ancestor_at(around, level);
      for (NodeId w : data.whole_moves)
        if (ancestor_at(w, level) == anchor) candidates.push_back(w);
    }
    if (candidates.empty()) {
      how += (how.empty() ? "" : "; ") + std::string("no whole move in the tree");
      return path_to(view, around);
    }
    const auto input = gat_input(data);
    const auto scores = o_.nets->gatae.forward(input.x, input.graph);
    const auto best =
        *std::max_element(candidates.begin(), candidates.end(), [&](NodeId a, NodeId b) {
          return scores(input.row_of[a], 0) < scores(input.row_of[b], 0);
        });
    how += (how.empty() ? "" : "; ") + std::string("gat-ae best of ") +
           std::to_string(candidates.size()) + " whole moves";
    return path_to(view, best);
  }

  PaperAgentOptions o_;
  gsearch::sgga::Sgga sgga_;
  std::uint64_t seed_ = 0;
};

}  // namespace

std::unique_ptr<Agent> make_paper_agent(const PaperAgentOptions& options) {
  if (!options.nets) throw std::invalid_argument("make_paper_agent: no networks given");
  return std::make_unique<PaperAgent>(options);
}

}  // namespace amazons::paper
