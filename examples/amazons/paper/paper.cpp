// amazons/paper/paper.cpp — the networks, node features, UCT-AE policies and GAT-AE's graph.
#include "amazons/paper/paper.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace amazons::paper {

// The shipped weights (examples/amazons/paper/weights/*.json and weights/literal/*.json),
// compiled in by CMake; empty when the repository holds none.
namespace shipped_weights {
extern const std::string_view kUctAe;
extern const std::string_view kGatAe;
extern const std::string_view kValue;
extern const std::string_view kLiteralUctAe;
extern const std::string_view kLiteralGatAe;
}  // namespace shipped_weights

const char* reading_name(Reading r) noexcept {
  return r == Reading::kLiteral ? "literal" : "relative";
}

Reading parse_reading(std::string_view text) {
  if (text == "relative") return Reading::kRelative;
  if (text == "literal") return Reading::kLiteral;
  throw std::invalid_argument("unknown reading \"" + std::string(text) +
                              "\" (known: relative, literal)");
}

Networks Networks::initial(Reading reading, std::uint64_t seed) {
  gsearch::Rng rng(seed);
  Networks n;
  n.reading = reading;
  n.uctae = nn::UctAe(uctae_config(), rng);
  n.gatae = nn::GatAe(gatae_config(), rng);
  n.value = nn::Scorer(nn::AutoEncoderConfig{}, /*head_bias=*/true, rng);
  return n;
}

Networks Networks::shipped(Reading reading) {
  Networks n = initial(reading, 0);
  const bool literal = reading == Reading::kLiteral;
  const auto load = [](std::string_view text, auto& model, const char* name) {
    if (!text.empty()) nn::parse_weights(text, model, name);
  };
  load(literal ? shipped_weights::kLiteralUctAe : shipped_weights::kUctAe, n.uctae,
       literal ? "examples/amazons/paper/weights/literal/uctae.json"
               : "examples/amazons/paper/weights/uctae.json");
  load(literal ? shipped_weights::kLiteralGatAe : shipped_weights::kGatAe, n.gatae,
       literal ? "examples/amazons/paper/weights/literal/gatae.json"
               : "examples/amazons/paper/weights/gatae.json");
  if (!literal) load(shipped_weights::kValue, n.value, "examples/amazons/paper/weights/value.json");
  return n;
}

Networks Networks::from_files(Reading reading, const std::string& uctae_path,
                              const std::string& gatae_path, const std::string& value_path) {
  Networks n = shipped(reading);
  if (!uctae_path.empty()) nn::load_weights(uctae_path, n.uctae);
  if (!gatae_path.empty()) nn::load_weights(gatae_path, n.gatae);
  if (!value_path.empty()) nn::load_weights(value_path, n.value);
  return n;
}

void score_decisions(Networks& nets, const DecisionPosition& state,
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
      score_decisions(nets, child, destinations, scores);
      out[i] = *std::max_element(scores, scores + destinations.size());
    }
    return;
  }
  // At most 35 decisions (DecisionPosition::max_moves): a fixed-size buffer on the stack.
  Eigen::Matrix<float, DecisionPosition::max_moves, 5, Eigen::RowMajor> x;
  DistanceMaps maps;
  Features before{};
  if (nets.reading == Reading::kRelative) before = state_features(state, decisions[0], maps);
  for (nn::Index i = 0; i < n; ++i) {
    const Decision& d = decisions[static_cast<std::size_t>(i)];
    DecisionPosition child = state;
    child.apply(d);
    Features f = decision_features(child, d, maps);
    if (nets.reading == Reading::kRelative) f = relative_features(before, f);
    for (int k = 0; k < 5; ++k) x(i, k) = f[static_cast<std::size_t>(k)];
  }
  const auto rows = x.topRows(n);
  const auto scores = is_placement(decisions[0]) ? nets.uctae.placement().forward(rows)
                                                 : nets.uctae.movement().forward(rows);
  for (nn::Index i = 0; i < n; ++i) out[i] = scores(i, 0);
}

namespace {

float forward_one(nn::Scorer& scorer, const Features& f) {
  Eigen::Matrix<float, 1, 5, Eigen::RowMajor> x;
  for (int k = 0; k < 5; ++k) x(0, k) = f[static_cast<std::size_t>(k)];
  return scorer.forward(x)(0, 0);
}

double to_value(float score) { return std::clamp(2.0 * score - 1.0, -1.0, 1.0); }

}  // namespace

double learned_value(Networks& nets, const DecisionPosition& state) {
  DistanceMaps maps;
  const Position& pos = state.position();
  if (state.mid_turn())
    return to_value(
        forward_one(nets.value, position_features(pos, state.to_move(), state.pending(), maps)));
  return -to_value(
      forward_one(nets.value, position_features(pos, gsearch::opponent(state.to_move()), 0, maps)));
}

void standardized_softmax(float* values, std::size_t n, double sharpness) {
  if (n == 0) return;
  double mean = 0, var = 0;
  for (std::size_t i = 0; i < n; ++i) mean += values[i];
  mean /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) var += (values[i] - mean) * (values[i] - mean);
  const double sd = std::sqrt(var / static_cast<double>(n));
  // exp(sharpness·z − max): the largest term is 1, so nothing overflows.
  double top = 0;
  for (std::size_t i = 0; i < n; ++i)
    top = std::max(top, sd > 1e-9 ? sharpness * (values[i] - mean) / sd : 0.0);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = sd > 1e-9 ? (values[i] - mean) / sd : 0.0;
    values[i] = static_cast<float>(std::exp(sharpness * z - top));
    sum += values[i];
  }
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(values[i] / sum);
}

void UctAePrior::operator()(const DecisionPosition& state,
                            const gsearch::MoveListOf<DecisionPosition>& moves,
                            float* priors) const {
  score_decisions(*nets, state, moves, priors);
  if (nets->reading == Reading::kRelative) standardized_softmax(priors, moves.size(), sharpness);
}

double UctAeStateValue::operator()(const DecisionPosition& state) const {
  DistanceMaps maps;
  const Position& pos = state.position();
  if (state.mid_turn())
    return to_value(forward_one(nets->uctae.movement(),
                                position_features(pos, state.to_move(), state.pending(), maps)));
  return -to_value(
      forward_one(nets->uctae.placement(),
                  position_features(pos, gsearch::opponent(state.to_move()), 0, maps)));
}

LiteralSearch make_literal_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed) {
  gsearch::mcts::Expansion<UctAePrior> expansion;
  expansion.prior = UctAePrior{nets};
  make_depth_focused(expansion);
  return LiteralSearch(
      {.seed = seed, .normalize_at_end = true, .normalize_parity = gsearch::mcts::Parity::kPlayer},
      gsearch::mcts::PriorUcb{}, expansion,
      gsearch::mcts::StaticEvaluation<UctAeStateValue>{UctAeStateValue{nets}});
}

RelativeSearch make_relative_search(const std::shared_ptr<Networks>& nets, std::uint64_t seed,
                                    const RelativeKnobs& knobs) {
  gsearch::mcts::Expansion<UctAePrior> expansion;
  expansion.prior = UctAePrior{nets, knobs.sharpness};
  if (knobs.depth_focused) make_depth_focused(expansion);
  return RelativeSearch({.seed = seed,
                         .normalize_at_end = true,
                         .normalize_parity = gsearch::mcts::Parity::kPlayer,
                         .normalize_accumulation = gsearch::mcts::Accumulation::kMean},
                        gsearch::mcts::Puct{.c = knobs.c}, expansion,
                        gsearch::mcts::StaticEvaluation<LearnedValue>{LearnedValue{nets}});
}

TreeData describe(const DecisionView& view, const DecisionPosition& root, Reading reading) {
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
    d.features.push_back(describe_decision(reading, d.states[p], s, dec, maps));
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
  in.graph = nn::CsrGraph::from_edges(rows, edges, nn::EdgeKind::kUndirected);
  return in;
}

}  // namespace amazons::paper
