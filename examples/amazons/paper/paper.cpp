// amazons/paper.cpp — the networks, node features, UCT-AE policies and GAT-AE's graph.
#include "amazons/paper.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace amazons::paper {

// The shipped weights (examples/amazons/weights/*.json), compiled in by CMake; empty when the
// repository holds none.
namespace shipped_weights {
extern const std::string_view kUctAe;
extern const std::string_view kGatAe;
}  // namespace shipped_weights

Networks Networks::initial(std::uint64_t seed) {
  gsearch::Rng rng(seed);
  Networks n;
  n.uctae = nn::UctAe(uctae_config(), rng);
  n.gatae = nn::GatAe(gatae_config(), rng);
  return n;
}

Networks Networks::shipped() {
  Networks n = initial(0);
  if (!shipped_weights::kUctAe.empty())
    nn::parse_weights(shipped_weights::kUctAe, n.uctae, "examples/amazons/weights/uctae.json");
  if (!shipped_weights::kGatAe.empty())
    nn::parse_weights(shipped_weights::kGatAe, n.gatae, "examples/amazons/weights/gatae.json");
  return n;
}

Networks Networks::from_files(const std::string& uctae_path, const std::string& gatae_path) {
  Networks n = shipped();
  if (!uctae_path.empty()) nn::load_weights(uctae_path, n.uctae);
  if (!gatae_path.empty()) nn::load_weights(gatae_path, n.gatae);
  return n;
}

void score_decisions(nn::UctAe& net, const DecisionPosition& state,
                     const gsearch::MoveListOf<DecisionPosition>& decisions, float* out) {
  const auto n = static_cast<nn::Index>(decisions.size());
  if (n == 0) return;
  if (decisions[0].stage == Stage::kQueen) {  // a queen: its best destination
    gsearch::MoveListOf<DecisionPosition> destinations;
    float scores[DecisionPosition::max_moves];
    for (nn::Index i = 0; i < n; ++i) {
      DecisionPosition child = state;
      child.apply(decisions[static_cast<std::size_t>(i)]);
      child.legal_moves(destinations);
      score_decisions(net, child, destinations, scores);
      out[i] = *std::max_element(scores, scores + destinations.size());
    }
    return;
  }
  // At most 35 decisions (DecisionPosition::max_moves): a fixed-size buffer on the stack.
  Eigen::Matrix<float, DecisionPosition::max_moves, 5, Eigen::RowMajor> x;
  DistanceMaps maps;
  for (nn::Index i = 0; i < n; ++i) {
    DecisionPosition child = state;
    child.apply(decisions[static_cast<std::size_t>(i)]);
    const Features f = decision_features(child, decisions[static_cast<std::size_t>(i)], maps);
    for (int k = 0; k < 5; ++k) x(i, k) = f[static_cast<std::size_t>(k)];
  }
  const auto rows = x.topRows(n);
  const auto scores =
      is_placement(decisions[0]) ? net.placement().forward(rows) : net.movement().forward(rows);
  for (nn::Index i = 0; i < n; ++i) out[i] = scores(i, 0);
}

double UctAeStateValue::operator()(const DecisionPosition& state) const {
  DistanceMaps maps;
  const Position& pos = state.position();
  compute_distances(pos, maps);
  Eigen::Matrix<float, 1, 5, Eigen::RowMajor> x;
  const auto to_value = [](float score) { return std::clamp(2.0 * score - 1.0, -1.0, 1.0); };
  if (state.mid_turn()) {
    const Features f = features(pos, maps, state.to_move(), state.pending());
    for (int k = 0; k < 5; ++k) x(0, k) = f[static_cast<std::size_t>(k)];
    return to_value(nets->uctae.movement().forward(x)(0, 0));
  }
  const Features f = features(pos, maps, gsearch::opponent(state.to_move()), 0);
  for (int k = 0; k < 5; ++k) x(0, k) = f[static_cast<std::size_t>(k)];
  return -to_value(nets->uctae.placement().forward(x)(0, 0));
}

PaperSearch make_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed) {
  gsearch::mcts::Expansion<UctAePrior> expansion;
  expansion.prior = UctAePrior{nets};
  make_depth_focused(expansion);
  return PaperSearch(
      {.seed = seed, .normalize_at_end = true, .normalize_parity = gsearch::mcts::Parity::kPlayer},
      gsearch::mcts::PriorUcb{}, expansion,
      gsearch::mcts::StaticEvaluation<UctAeStateValue>{UctAeStateValue{nets}});
}

TreeData describe(const DecisionView& view, const DecisionPosition& root) {
  const std::size_t n = view.size();
  TreeData d;
  d.states.reserve(n);
  d.features.reserve(n);
  d.decisions.resize(n);
  d.parent.resize(n);
  d.depth.resize(n);
  DistanceMaps maps;
  compute_distances(root.position(), maps);
  d.states.push_back(root);
  d.features.push_back(features(root.position(), maps, root.to_move(), 0));
  d.parent[0] = gsearch::kNoNode;
  for (gsearch::NodeId v = 1; v < n; ++v) {  // breadth-first: parents come first
    const gsearch::NodeId p = view.parent(v);
    const Decision dec = view.tree()[view.tree_id(v)].move;
    DecisionPosition s = d.states[p];
    s.apply(dec);
    d.features.push_back(decision_features(s, dec, maps));
    d.states.push_back(s);
    d.decisions[v] = dec;
    d.parent[v] = p;
    d.depth[v] = view.depth(v);
    if (d.depth[v] == 3) d.whole_moves.push_back(v);
  }
  return d;
}

GatInput gat_input(const TreeData& data) {
  const std::size_t n = data.states.size();
  GatInput in;
  in.row_of.assign(n, -1);
  int rows = 1;  // row 0: the super-node of the heads
  int heads = 0;
  for (std::size_t v = 1; v < n; ++v) {
    if (data.depth[v] == 1) {
      in.row_of[v] = 0;
      ++heads;
    } else {
      in.row_of[v] = rows++;
    }
  }
  in.x = nn::Matrix::Zero(rows, 5);
  std::vector<nn::Edge> edges;
  for (std::size_t v = 1; v < n; ++v) {
    const int r = in.row_of[v];
    for (int k = 0; k < 5; ++k)
      in.x(r, k) += data.features[v][static_cast<std::size_t>(k)] /
                    (data.depth[v] == 1 ? static_cast<float>(heads) : 1.0f);
    if (data.depth[v] >= 2) edges.push_back({r, in.row_of[data.parent[v]]});
  }
  if (heads == 0)  // a tree without head nodes: the root's own features stand for them
    for (int k = 0; k < 5; ++k) in.x(0, k) = data.features[0][static_cast<std::size_t>(k)];
  in.graph = nn::CsrGraph::from_edges(rows, edges, nn::EdgeKind::undirected);
  return in;
}

}  // namespace amazons::paper
