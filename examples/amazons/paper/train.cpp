// amazons/paper/train.cpp — training UCT-AE and GAT-AE from labels (see train.hpp).
#include "amazons/paper/train.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "amazons/paper/plot.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/sgga/explicit_tree.hpp"
#include "gsearch/sgga/sgga.hpp"

namespace amazons::paper {

// ---------------------------------------------------------------------------------------
// The label tree

void LabelTreePrior::operator()(const DecisionPosition& state,
                                const gsearch::MoveListOf<DecisionPosition>& moves,
                                float* priors) const {
  static thread_local LieberumEvaluator eval;
  const Bitboard occ = state.position().occupied();
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const Decision& d = moves[i];
    if (d.stage == Stage::kQueen) {
      priors[i] = static_cast<float>(popcount(queen_attacks(d.from, occ))) / 35.0f;
      continue;
    }
    DecisionPosition child = state;
    child.apply(d);
    const Position& p = child.position();
    // After a destination the mover is still to move; after an arrow the opponent is.
    const double v = p.is_terminal() ? 1.0 : eval(p);
    priors[i] = static_cast<float>(d.stage == Stage::kArrow ? (p.is_terminal() ? 1.0 : -v) : v);
  }
}

double LabelTreeValue::operator()(const DecisionPosition& state) const {
  static thread_local LieberumEvaluator eval;
  return eval(state.position());
}

LabelSearch label_search(const Position& pos, std::uint64_t seed, std::uint64_t nodes) {
  gsearch::mcts::Expansion<LabelTreePrior> expansion;
  make_depth_focused(expansion);
  LabelSearch search({.seed = pos.hash() ^ (seed * 0x9e3779b97f4a7c15ULL)},
                     gsearch::mcts::PriorUcb{}, expansion);
  search.set_root(DecisionPosition{pos});
  if (!pos.is_terminal()) search.run(gsearch::Budget::node_count(nodes));
  return search;
}

std::vector<Move> label_candidates(const Position& pos, std::uint64_t seed, std::uint64_t nodes) {
  const auto search = label_search(pos, seed, nodes);
  const DecisionView view(search.tree());
  const TreeData data = describe(view, DecisionPosition{pos}, Reading::kLiteral);
  std::vector<Move> out;
  for (gsearch::NodeId n : data.whole_moves) out.push_back(data.move_of(n));
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------
// Examples

bool held_out(const std::string& fen, double fraction) {
  std::uint64_t h = std::hash<std::string>{}(fen);
  return static_cast<double>(gsearch::splitmix64(h) % 1000000) < fraction * 1e6;
}

// One label as the networks see it.
struct Example {
  const std::string* fen;
  Move move;
  Features move_f, place_f;  // the destination's and the arrow's descriptions (the reading's)
  Features value_f;          // the absolute features after the move, for its mover
  float move_score, place_score;
};

// The descriptions of a label's move, or false for a move that is not legal in `pos`.
bool describe_label(const Position& pos, const Move& m, Reading reading, Example& e) {
  if (pos.is_terminal() || !pos.why_illegal(m).empty()) return false;
  DistanceMaps maps;
  DecisionPosition before{pos};
  before.apply({Stage::kQueen, m.from, m.from});
  const Decision dest{Stage::kDestination, m.from, m.to};
  DecisionPosition after = before;
  after.apply(dest);
  e.move_f = describe_decision(reading, before, after, dest, maps);
  const Decision arrow{Stage::kArrow, m.to, m.arrow};
  before = after;
  after.apply(arrow);
  e.place_f = describe_decision(reading, before, after, arrow, maps);
  e.value_f = position_features(after.position(), pos.to_move(), m.to, maps);
  return true;
}

void append_row(nn::Matrix& x, const Features& f) {
  x.conservativeResize(x.rows() + 1, 5);
  for (int k = 0; k < 5; ++k) x(x.rows() - 1, k) = f[static_cast<std::size_t>(k)];
}
void append_value(nn::Matrix& y, float v) {
  y.conservativeResize(y.rows() + 1, 1);
  y(y.rows() - 1, 0) = v;
}

struct ScoreSet {
  nn::Matrix x, y;  // (n, 5), (n, 1)
};

double mse_of(nn::Scorer& scorer, const ScoreSet& s) {
  if (s.x.rows() == 0) return 0.0;
  nn::Matrix grad;
  return nn::mse_loss<float>(scorer.forward(s.x), s.y, grad);
}

// Adam on MSE over mini-batches (§5.1), one curve point per batch.
void train_scorer(nn::Scorer& scorer, nn::ParamList params, const ScoreSet& train,
                  const ScoreSet& validation, const TrainOptions& o, gsearch::Rng& rng,
                  Curve& curve, const std::function<void(const std::string&)>& log) {
  nn::Adam adam(params, {.lr = o.ae_lr});
  std::vector<nn::Index> order(static_cast<std::size_t>(train.x.rows()));
  std::iota(order.begin(), order.end(), 0);
  nn::Matrix bx(o.ae_batch, 5), by(o.ae_batch, 1), grad;
  for (int epoch = 0; epoch < o.ae_epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t start = 0; start < order.size();
         start += static_cast<std::size_t>(o.ae_batch)) {
      const auto b = static_cast<nn::Index>(
          std::min<std::size_t>(static_cast<std::size_t>(o.ae_batch), order.size() - start));
      for (nn::Index i = 0; i < b; ++i) {
        bx.row(i) = train.x.row(order[start + static_cast<std::size_t>(i)]);
        by(i, 0) = train.y(order[start + static_cast<std::size_t>(i)], 0);
      }
      adam.zero_grad();
      const double loss = nn::mse_loss<float>(scorer.forward(bx.topRows(b)), by.topRows(b), grad);
      scorer.backward(grad);
      adam.step();
      curve.train.push_back(loss);
    }
    curve.epoch_end.push_back(curve.train.size());
    curve.validation.push_back(mse_of(scorer, validation));
    if (epoch % 10 == 9 || epoch + 1 == o.ae_epochs) {
      std::ostringstream line;
      line << curve.name << " epoch " << epoch + 1 << ": train " << curve.train.back()
           << ", validation " << curve.validation.back();
      log(line.str());
    }
  }
}

// ---------------------------------------------------------------------------------------
// GAT-AE data

struct TreeExample {
  GatInput input;
  nn::Matrix target;                               // (rows, 1)
  std::vector<std::pair<std::string, int>> moves;  // whole move (text) -> row
};

// The label tree of one position as a GAT-AE example (see train.hpp for the two targets).
bool tree_example(const Position& pos, const std::map<std::string, std::pair<float, float>>& scores,
                  const TrainOptions& o, gsearch::sgga::Sgga& sgga, std::uint64_t seed,
                  TreeExample& out) {
  const auto search = label_search(pos, o.tree_seed, o.tree_nodes);
  const DecisionView view(search.tree());
  TreeData data = describe(view, DecisionPosition{pos}, o.reading);
  // Keep the turn: the nodes of depth <= 3 (a prefix, the view being breadth-first).
  std::size_t k = 0;
  while (k < data.depth.size() && data.depth[k] <= 3) ++k;
  if (k < 5 || data.whole_moves.empty()) return false;
  data.states.resize(k);
  data.features.resize(k);
  data.decisions.resize(k);
  data.parent.resize(k);
  data.depth.resize(k);
  // Values in [0, 1]: a whole move, the mean of its two scores; a destination, the mean
  // move_score of its labelled whole moves; a queen (kRelative: its best destination; kLiteral:
  // the mean of its destinations); the root, the mean of its children. Nodes with nothing
  // labelled below: neutral (kRelative: the mean of their depth).
  const bool relative = o.reading == Reading::kRelative;
  std::vector<float> value(k, -1.0f);
  std::vector<double> sum(k, 0.0), move_sum(k, 0.0), best(k, -1.0);
  std::vector<int> count(k, 0), move_count(k, 0);
  for (gsearch::NodeId n : data.whole_moves) {
    const std::string text = pos.move_to_string(data.move_of(n));
    const auto it = scores.find(text);
    out.moves.push_back({text, 0});
    if (it == scores.end()) continue;
    value[n] = (it->second.first + it->second.second) / 2.0f;
    move_sum[data.parent[n]] += it->second.first;
    ++move_count[data.parent[n]];
  }
  for (std::size_t n = k; n-- > 1;) {
    if (value[n] < 0) {
      if (move_count[n] > 0)
        value[n] = static_cast<float>(move_sum[n] / move_count[n]);
      else if (count[n] > 0)
        value[n] = static_cast<float>(relative && data.depth[n] == 1 ? best[n] : sum[n] / count[n]);
    }
    if (value[n] < 0) continue;  // nothing known below
    sum[data.parent[n]] += value[n];
    ++count[data.parent[n]];
    best[data.parent[n]] = std::max(best[data.parent[n]], static_cast<double>(value[n]));
  }
  value[0] = count[0] ? static_cast<float>(sum[0] / count[0]) : 0.5f;
  out.input = gat_input(data);
  out.target = nn::Matrix::Constant(out.input.x.rows(), 1, 0.5f);
  for (std::size_t i = 0; i < out.moves.size(); ++i)
    out.moves[i].second = out.input.row_of[data.whole_moves[i]];
  if (relative) {
    // Centred per depth: what the network has to get right is the order of the nodes that
    // compete (the super-node of the heads stays at ½).
    double depth_sum[4] = {0, 0, 0, 0};
    int depth_count[4] = {0, 0, 0, 0};
    for (std::size_t n = 2; n < k; ++n)
      if (value[n] >= 0 && data.depth[n] >= 2)
        depth_sum[data.depth[n]] += value[n], ++depth_count[data.depth[n]];
    for (std::size_t n = 1; n < k; ++n) {
      if (data.depth[n] < 2 || value[n] < 0 || depth_count[data.depth[n]] == 0) continue;
      const double mean = depth_sum[data.depth[n]] / depth_count[data.depth[n]];
      out.target(out.input.row_of[n], 0) =
          static_cast<float>(std::clamp(value[n] - mean + 0.5, 0.0, 1.0));
    }
    return true;
  }
  for (std::size_t n = 1; n < k; ++n)
    if (value[n] < 0) value[n] = 0.5f;  // nothing known below: neutral
  // One turn, one player: no node's player changes below it (Parity::kPlayer).
  gsearch::mcts::DepthNormalizer().run(
      data.parent, value, [](gsearch::NodeId) { return true; },
      [](gsearch::NodeId) { return false; });
  gsearch::sgga::ExplicitTree tree(data.parent, std::vector<double>(value.begin(), value.end()));
  sgga.prepare(tree);
  const auto freq = sgga.frequencies(static_cast<std::uint64_t>(o.sgga_runs), seed);
  out.target.setZero();
  // The target is each node's share of SGGA's visits: with arrival counting (eq. 16) a run
  // usually stops on the parent of a good leaf, so the chosen nodes say little about the
  // leaves — the whole moves GAT-AE has to rank — while the walks' visits do.
  // Scaled per depth (the most visited queen, destination and whole move each get 1), so
  // that the whole moves, which the walks reach least, span [0, 1] like the others.
  double top[4] = {0, 0, 0, 0};
  for (std::size_t n = 1; n < k; ++n)
    top[data.depth[n]] = std::max(top[data.depth[n]], freq.visits[n]);
  for (std::size_t n = 1; n < k; ++n) {
    auto& t = out.target(out.input.row_of[n], 0);
    const double share = top[data.depth[n]] > 0 ? freq.visits[n] / top[data.depth[n]] : 0.0;
    t = std::max(t, static_cast<float>(share));  // the super-node: its best head
  }
  return true;
}

double gat_loss(nn::GatAe& net, const std::vector<TreeExample>& set) {
  double total = 0;
  nn::Matrix grad;
  for (const auto& e : set)
    total += nn::smooth_l1_loss<float>(net.forward(e.input.x, e.input.graph), e.target, grad);
  return set.empty() ? 0.0 : total / static_cast<double>(set.size());
}

double variance_after(const Curve& c, int epoch) {
  if (c.epoch_end.empty()) return 0.0;
  const std::size_t from =
      c.epoch_end[std::min<std::size_t>(static_cast<std::size_t>(epoch), c.epoch_end.size()) - 1];
  if (c.train.size() <= from + 1) return 0.0;
  double mean = 0;
  for (std::size_t i = from; i < c.train.size(); ++i) mean += c.train[i];
  mean /= static_cast<double>(c.train.size() - from);
  double var = 0;
  for (std::size_t i = from; i < c.train.size(); ++i)
    var += (c.train[i] - mean) * (c.train[i] - mean);
  return var / static_cast<double>(c.train.size() - from - 1);
}

std::size_t samples_after(const Curve& c, int epoch) {
  if (c.epoch_end.empty()) return 0;
  const std::size_t from =
      c.epoch_end[std::min<std::size_t>(static_cast<std::size_t>(epoch), c.epoch_end.size()) - 1];
  return c.train.size() - std::min(from, c.train.size());
}

// ---------------------------------------------------------------------------------------
// The value scorer's data: games of UCT-AE's policy

// A decision drawn from UCT-AE's policy at `state`: the softmax of the standardised scores
// (the relative search's prior, paper.hpp).
Decision sample_decision(Networks& nets, const DecisionPosition& state, gsearch::Rng& rng) {
  gsearch::MoveListOf<DecisionPosition> options;
  state.legal_moves(options);
  float p[DecisionPosition::max_moves];
  score_decisions(nets, state, options, p);
  standardized_softmax(p, options.size(), 1.0);
  double u = rng.uniform();
  for (std::size_t i = 0; i < options.size(); ++i) {
    u -= p[i];
    if (u < 0) return options[i];
  }
  return options[options.size() - 1];
}

// Plays o.value_games games of UCT-AE's policy against itself (after o.value_opening random
// plies, so the games differ) and appends, for every move, the absolute features of the
// position after it for its mover, with the game's result for that player (1 a win, 0 a
// loss) as the target. Games with an even index go to training, one in ten to validation.
void self_play_outcomes(Networks& nets, const TrainOptions& o, ScoreSet& train,
                        ScoreSet& validation) {
  DistanceMaps maps;
  for (int g = 0; g < o.value_games; ++g) {
    gsearch::Rng rng(gsearch::derive_seed(o.seed ^ 0x76616c7565ULL, static_cast<std::uint64_t>(g)));
    Position pos;
    std::vector<std::pair<Features, Player>> seen;
    for (int ply = 0; !pos.is_terminal(); ++ply) {
      const Player mover = pos.to_move();
      Move m;
      if (ply < o.value_opening) {
        m = pos.random_move(rng);
      } else {
        DecisionPosition s{pos};
        Decision turn[3];
        for (auto& d : turn) s.apply(d = sample_decision(nets, s, rng));
        m = {turn[1].from, turn[1].to, turn[2].to};
      }
      pos.apply(m);
      seen.push_back({position_features(pos, mover, m.to, maps), mover});
    }
    const Player winner = gsearch::opponent(pos.to_move());  // the side to move cannot move
    ScoreSet& set = g % 10 == 9 ? validation : train;
    for (const auto& [f, mover] : seen) {
      append_row(set.x, f);
      append_value(set.y, mover == winner ? 1.0f : 0.0f);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Held-out rank agreement

}  // namespace

double two_ply_value(const Position& pos, const Move& m, LieberumEvaluator& eval) {
  Position child = pos;
  child.apply(m);
  if (child.is_terminal()) return 1.0;
  gsearch::MoveListOf<Position> replies;
  child.legal_moves(replies);
  double worst = 1.0;
  for (const Move& r : replies) {
    Position g = child;
    g.apply(r);
    worst = std::min(worst, g.is_terminal() ? -1.0 : eval(g));
  }
  return worst;
}

namespace {

// Ranks with ties averaged (1-based).
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t t = i; t <= j; ++t) r[order[t]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}

}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ra = ranks(a), rb = ranks(b);
  const auto n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ma += ra[i], mb += rb[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

double concordance(const std::vector<double>& a, const std::vector<double>& b) {
  std::size_t agree = 0, pairs = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      if (a[i] == a[j] || b[i] == b[j]) continue;
      ++pairs;
      agree += (a[i] < a[j]) == (b[i] < b[j]);
    }
  return pairs ? static_cast<double>(agree) / static_cast<double>(pairs) : 0.5;
}

TrainResult train(const std::vector<Label>& labels, const TrainOptions& o,
                  const std::function<void(const std::string&)>& log) {
  TrainResult r;
  const bool relative = o.reading == Reading::kRelative;
  r.nets = Networks::initial(o.reading, o.seed);
  r.movement.name = "movement (AE1 + W1)";
  r.placement.name = "placement (AE2 + W2)";
  r.value.name = "value (AE3 + W3)";
  r.gat.name = "GAT-AE";
  r.labels = labels.size();
  gsearch::Rng rng(o.seed);

  // The examples, in (position, move) order: a label file written over several connections
  // is in the order the replies came, and training must not depend on it.
  std::vector<const Label*> sorted;
  sorted.reserve(labels.size());
  for (const Label& l : labels) sorted.push_back(&l);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Label* a, const Label* b) {
    return std::tie(a->fen, a->move) < std::tie(b->fen, b->move);
  });
  std::map<std::string, std::map<std::string, std::pair<float, float>>> by_position;
  std::vector<Example> examples;
  examples.reserve(labels.size());
  for (const Label* lp : sorted) {
    const Label& l = *lp;
    const Position pos = Position::from_fen(l.fen);
    Example e{&l.fen,
              {},
              {},
              {},
              {},
              static_cast<float>(l.move_score),
              static_cast<float>(l.place_score)};
    try {
      e.move = pos.parse_move(l.move);
    } catch (const NotationError&) {
      ++r.skipped;
      continue;
    }
    if (!describe_label(pos, e.move, o.reading, e)) {
      ++r.skipped;
      continue;
    }
    by_position[l.fen][pos.move_to_string(e.move)] = {e.move_score, e.place_score};
    examples.push_back(e);
  }
  // Targets: kLiteral the raw scores; kRelative each score less the mean score of its
  // position's labels, plus ½.
  std::map<std::string, std::pair<double, double>> mean;
  for (const auto& [fen, moves] : by_position) {
    double a = 0, b = 0;
    for (const auto& [move, sc] : moves) a += sc.first, b += sc.second;
    mean[fen] = relative ? std::pair{a / static_cast<double>(moves.size()),
                                     b / static_cast<double>(moves.size())}
                         : std::pair{0.5, 0.5};
  }
  ScoreSet move_train, move_val, place_train, place_val, value_train, value_val;
  for (const Example& e : examples) {
    const bool val = held_out(*e.fen, o.validation);
    const auto shift = mean[*e.fen];
    append_row((val ? move_val : move_train).x, e.move_f);
    append_value((val ? move_val : move_train).y,
                 static_cast<float>(e.move_score - shift.first + 0.5));
    append_row((val ? place_val : place_train).x, e.place_f);
    append_value((val ? place_val : place_train).y,
                 static_cast<float>(e.place_score - shift.second + 0.5));
  }
  r.positions = by_position.size();
  r.train_labels = static_cast<std::size_t>(move_train.x.rows());
  r.validation_labels = static_cast<std::size_t>(move_val.x.rows());
  if (r.train_labels == 0) throw std::invalid_argument("train: no usable labels");
  log("UCT-AE: " + std::to_string(r.train_labels) + " training and " +
      std::to_string(r.validation_labels) + " validation labels from " +
      std::to_string(r.positions) + " positions (" + reading_name(o.reading) + " reading)");
  {
    nn::ParamList p;
    r.nets.uctae.movement().parameters(p, "ae1.", "w1.");
    train_scorer(r.nets.uctae.movement(), p, move_train, move_val, o, rng, r.movement, log);
  }
  {
    nn::ParamList p;
    r.nets.uctae.placement().parameters(p, "ae2.", "w2.");
    train_scorer(r.nets.uctae.placement(), p, place_train, place_val, o, rng, r.placement, log);
  }
  if (relative) {
    self_play_outcomes(r.nets, o, value_train, value_val);
    log("value: " + std::to_string(value_train.x.rows()) + " training and " +
        std::to_string(value_val.x.rows()) + " validation positions from " +
        std::to_string(o.value_games) + " games of UCT-AE's policy");
    train_scorer(r.nets.value, r.nets.value.parameters(), value_train, value_val, o, rng, r.value,
                 log);
  }
  r.movement_variance = variance_after(r.movement, o.variance_after_epoch);
  r.placement_variance = variance_after(r.placement, o.variance_after_epoch);
  r.variance_test =
      gsearch::f_test(r.movement_variance, samples_after(r.movement, o.variance_after_epoch),
                      r.placement_variance, samples_after(r.placement, o.variance_after_epoch));

  // GAT-AE.
  std::vector<TreeExample> gat_train, gat_val;
  std::vector<const std::string*> gat_val_fen;
  gsearch::sgga::Sgga sgga({.temperature = o.sgga_temperature});
  std::uint64_t tree_index = 0;
  for (const auto& [fen, scores] : by_position) {
    TreeExample e;
    if (!tree_example(Position::from_fen(fen), scores, o, sgga, o.seed + tree_index++, e)) continue;
    if (held_out(fen, o.validation)) {
      gat_val.push_back(std::move(e));
      gat_val_fen.push_back(&fen);
    } else {
      gat_train.push_back(std::move(e));
    }
  }
  r.trees = gat_train.size() + gat_val.size();
  log("GAT-AE: " + std::to_string(gat_train.size()) + " training and " +
      std::to_string(gat_val.size()) + " validation trees");
  if (!gat_train.empty()) {
    nn::ParamList params = r.nets.gatae.parameters();
    nn::RmsProp opt(params, {.lr = o.gat_lr});
    std::vector<std::size_t> order(gat_train.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    nn::Matrix grad;
    for (int epoch = 0; epoch < o.gat_epochs; ++epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i : order) {
        const auto& e = gat_train[i];
        opt.zero_grad();
        const double loss = nn::smooth_l1_loss<float>(
            r.nets.gatae.forward(e.input.x, e.input.graph), e.target, grad);
        r.nets.gatae.backward(grad);
        opt.step();
        r.gat.train.push_back(loss);
      }
      r.gat.epoch_end.push_back(r.gat.train.size());
      r.gat.validation.push_back(gat_loss(r.nets.gatae, gat_val));
      if (epoch % 10 == 9 || epoch + 1 == o.gat_epochs) {
        std::ostringstream line;
        line << "GAT-AE epoch " << epoch + 1 << ": train " << r.gat.train.back() << ", validation "
             << r.gat.validation.back();
        log(line.str());
      }
    }
  }

  // Held-out rank agreement, position by position.
  std::map<std::string, const TreeExample*> tree_of;
  for (std::size_t i = 0; i < gat_val.size(); ++i) tree_of[*gat_val_fen[i]] = &gat_val[i];
  const char* names[] = {"UCT-AE movement (AE1 + W1)",
                         "UCT-AE placement (AE2 + W2)",
                         "UCT-AE sum",
                         "value (AE3 + W3)",
                         "GAT-AE",
                         "teacher"};
  constexpr int kScores = 6;
  r.ranking.resize(kScores);
  for (int s = 0; s < kScores; ++s) r.ranking[static_cast<std::size_t>(s)].score = names[s];
  LieberumEvaluator eval;
  std::size_t evaluated = 0;
  for (std::size_t begin = 0; begin < examples.size();) {
    std::size_t end = begin;
    while (end < examples.size() && *examples[end].fen == *examples[begin].fen) ++end;
    const std::string& fen = *examples[begin].fen;
    const std::size_t n = end - begin;
    if (!held_out(fen, o.validation) || n < 3) {
      begin = end;
      continue;
    }
    const Position pos = Position::from_fen(fen);
    std::vector<double> teacher(n), independent(n);
    std::vector<std::vector<double>> learned(kScores, std::vector<double>(n));
    nn::Matrix xm(static_cast<nn::Index>(n), 5), xp(static_cast<nn::Index>(n), 5),
        xv(static_cast<nn::Index>(n), 5);
    for (std::size_t i = 0; i < n; ++i) {
      const Example& e = examples[begin + i];
      teacher[i] = e.move_score + e.place_score;
      for (int k = 0; k < 5; ++k) {
        xm(static_cast<nn::Index>(i), k) = e.move_f[static_cast<std::size_t>(k)];
        xp(static_cast<nn::Index>(i), k) = e.place_f[static_cast<std::size_t>(k)];
        xv(static_cast<nn::Index>(i), k) = e.value_f[static_cast<std::size_t>(k)];
      }
    }
    const nn::Matrix sm = r.nets.uctae.movement().forward(xm);
    const nn::Matrix sp = r.nets.uctae.placement().forward(xp);
    const nn::Matrix sv = r.nets.value.forward(xv);
    const TreeExample* tree = tree_of.count(fen) ? tree_of[fen] : nullptr;
    nn::Matrix sg;
    if (tree) sg = r.nets.gatae.forward(tree->input.x, tree->input.graph);
    bool gat_complete = tree != nullptr;
    for (std::size_t i = 0; i < n; ++i) {
      const auto ii = static_cast<nn::Index>(i);
      learned[0][i] = sm(ii, 0);
      learned[1][i] = sp(ii, 0);
      learned[2][i] = sm(ii, 0) + sp(ii, 0);
      learned[3][i] = sv(ii, 0);
      learned[5][i] = teacher[i];
      if (tree) {
        const std::string text = pos.move_to_string(examples[begin + i].move);
        const auto it = std::find_if(tree->moves.begin(), tree->moves.end(),
                                     [&](const auto& mv) { return mv.first == text; });
        if (it == tree->moves.end())
          gat_complete = false;
        else
          learned[4][i] = sg(it->second, 0);
      }
    }
    const bool with_independent = evaluated < o.independent_positions;
    if (with_independent) {
      ++evaluated;
      for (std::size_t i = 0; i < n; ++i)
        independent[i] = two_ply_value(pos, examples[begin + i].move, eval);
    }
    for (int s = 0; s < kScores; ++s) {
      if ((s == 4 && !gat_complete) || (s == 3 && !relative)) continue;  // no score to rank
      auto& a = r.ranking[static_cast<std::size_t>(s)];
      const auto& v = learned[static_cast<std::size_t>(s)];
      ++a.positions;
      a.spearman_teacher += spearman(v, teacher);
      a.concordance_teacher += concordance(v, teacher);
      if (with_independent) {
        ++a.independent_positions;
        a.spearman_independent += spearman(v, independent);
        a.concordance_independent += concordance(v, independent);
      }
    }
    begin = end;
  }
  if (!relative) r.ranking.erase(r.ranking.begin() + 3);  // no value scorer
  for (auto& a : r.ranking) {
    if (a.positions == 0) continue;
    const auto n = static_cast<double>(a.positions);
    const auto m = static_cast<double>(std::max<std::size_t>(1, a.independent_positions));
    a.spearman_teacher /= n;
    a.concordance_teacher /= n;
    a.spearman_independent /= m;
    a.concordance_independent /= m;
    std::ostringstream line;
    line << "held-out ranking, " << a.score << ": Spearman " << a.spearman_teacher
         << " with the teacher, " << a.spearman_independent << " with two-ply Lieberum ("
         << a.positions << " positions)";
    log(line.str());
  }
  return r;
}

namespace {

std::string curve_csv(const Curve& c) {
  std::ostringstream out;
  out << "iteration,loss,moving_average_50\n";
  const auto avg = plot::moving_average(c.train, 50);
  for (std::size_t i = 0; i < c.train.size(); ++i)
    out << i + 1 << ',' << c.train[i] << ',' << avg[i] << '\n';
  return out.str();
}

std::string curve_svg(const Curve& c, const char* loss) {
  return plot::line_chart(
      "Training loss: " + c.name, "iteration", loss,
      {{"raw", c.train, "#4c78a8", 0.8},
       {"moving average (50)", plot::moving_average(c.train, 50), "#e45756", 2.0}});
}

}  // namespace

void write_training_outputs(TrainResult& r, const TrainOptions& o, const std::string& dir,
                            const std::string& command) {
  const std::filesystem::path d(dir);
  std::filesystem::create_directories(d);
  nn::save_weights(d / "uctae.json", r.nets.uctae);
  nn::save_weights(d / "gatae.json", r.nets.gatae);
  const bool relative = o.reading == Reading::kRelative;
  if (relative) {
    nn::save_weights(d / "value.json", r.nets.value);
    gsearch::write_file_atomically(d / "loss_value.csv", curve_csv(r.value));
    gsearch::write_file_atomically(d / "loss_value.svg", curve_svg(r.value, "MSE"));
  }
  gsearch::write_file_atomically(d / "loss_movement.csv", curve_csv(r.movement));
  gsearch::write_file_atomically(d / "loss_placement.csv", curve_csv(r.placement));
  gsearch::write_file_atomically(d / "loss_gatae.csv", curve_csv(r.gat));
  gsearch::write_file_atomically(d / "loss_movement.svg", curve_svg(r.movement, "MSE"));
  gsearch::write_file_atomically(d / "loss_placement.svg", curve_svg(r.placement, "MSE"));
  gsearch::write_file_atomically(d / "loss_gatae.svg", curve_svg(r.gat, "SmoothL1"));
  std::ostringstream md;
  md << "# Training report\n\nProduced by:\n\n```sh\n" << command << "\n```\n\n";
  md << "| | |\n|---|---|\n";
  md << "| reading | " << reading_name(o.reading) << " (docs/paper-mapping.md) |\n";
  md << "| labels | " << r.labels << " (" << r.skipped << " skipped as illegal) |\n";
  md << "| positions | " << r.positions << " |\n";
  md << "| UCT-AE training / validation labels | " << r.train_labels << " / " << r.validation_labels
     << " |\n";
  md << "| GAT-AE trees | " << r.trees << " |\n";
  md << "| seed, tree seed, tree nodes | " << o.seed << ", " << o.tree_seed << ", " << o.tree_nodes
     << " |\n";
  md << "| UCT-AE: Adam lr, epochs, batch | " << o.ae_lr << ", " << o.ae_epochs << ", "
     << o.ae_batch << " |\n";
  md << "| UCT-AE inputs, targets | "
     << (relative ? "what each decision changes; scores centred per position"
                  : "absolute features; raw scores")
     << " |\n";
  if (relative)
    md << "| GAT-AE: RMSprop lr, epochs; target | " << o.gat_lr << ", " << o.gat_epochs
       << "; the teacher's scores through the tree, centred per depth |\n\n";
  else
    md << "| GAT-AE: RMSprop lr, epochs; target | " << o.gat_lr << ", " << o.gat_epochs
       << "; SGGA visit shares (" << o.sgga_runs << " runs per tree, temperature "
       << o.sgga_temperature << ") |\n\n";
  const auto final_line = [&](const Curve& c) {
    std::ostringstream s;
    s << "| " << c.name << " | " << (c.train.empty() ? 0.0 : c.train.front()) << " | "
      << (c.train.empty() ? 0.0 : plot::moving_average(c.train, 50).back()) << " | "
      << (c.validation.empty() ? 0.0 : c.validation.back()) << " |\n";
    return s.str();
  };
  md << "| module | first loss | last loss (moving average 50) | validation loss "
        "|\n|---|---|---|---|\n";
  md << final_line(r.movement) << final_line(r.placement);
  if (relative) md << final_line(r.value);
  md << final_line(r.gat) << "\n";
  md << "Rank agreement inside held-out positions (mean over positions): each learned score "
        "of a labelled move against the teacher's move_score + place_score, and against an "
        "independent evaluation the student never sees (two plies with Lieberum's "
        "evaluation: the position after the opponent's best reply).\n\n";
  md << "| score | positions | Spearman, teacher | concordance, teacher | Spearman, "
        "independent | concordance, independent |\n|---|---|---|---|---|---|\n";
  for (const auto& a : r.ranking) {
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %zu (%zu) | %.3f | %.3f | %.3f | %.3f |\n",
                  a.score.c_str(), a.positions, a.independent_positions, a.spearman_teacher,
                  a.concordance_teacher, a.spearman_independent, a.concordance_independent);
    md << line;
  }
  md << "\n";
  md << "Variance of the training loss after epoch " << o.variance_after_epoch
     << " (the paper's §5.2): movement " << r.movement_variance << ", placement "
     << r.placement_variance << "; F = " << r.variance_test.f
     << ", two-sided p = " << r.variance_test.p << ".\n\n";
  md << "![movement](loss_movement.svg) ![placement](loss_placement.svg) "
     << (relative ? "![value](loss_value.svg) " : "") << "![GAT-AE](loss_gatae.svg)\n";
  gsearch::write_file_atomically(d / "training.md", md.str());
}

}  // namespace amazons::paper
