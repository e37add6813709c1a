// amazons/train.cpp — training UCT-AE and GAT-AE from labels (see train.hpp).
#include "amazons/train.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "amazons/plot.hpp"
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
  const TreeData data = describe(view, DecisionPosition{pos});
  std::vector<Move> out;
  for (gsearch::NodeId n : data.whole_moves) out.push_back(data.move_of(n));
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------
// UCT-AE data and training

struct ScoreSet {
  nn::Matrix x_move, x_place;  // (n, 5)
  nn::Matrix y_move, y_place;  // (n, 1)
};

bool held_out(const std::string& fen, double fraction) {
  std::uint64_t h = std::hash<std::string>{}(fen);
  return static_cast<double>(gsearch::splitmix64(h) % 1000000) < fraction * 1e6;
}

// The features of a label's destination and arrow decisions. Returns false for a move that is
// not legal in its position.
bool label_features(const Position& pos, const Move& m, Features& move_f, Features& place_f) {
  if (!pos.why_illegal(m).empty() || pos.is_terminal()) return false;
  DistanceMaps maps;
  DecisionPosition d{pos};
  d.apply({Stage::kQueen, m.from, m.from});
  const Decision dest{Stage::kDestination, m.from, m.to};
  d.apply(dest);
  move_f = decision_features(d, dest, maps);
  const Decision arrow{Stage::kArrow, m.to, m.arrow};
  d.apply(arrow);
  place_f = decision_features(d, arrow, maps);
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

double mse_of(nn::Scorer& scorer, const nn::Matrix& x, const nn::Matrix& y) {
  if (x.rows() == 0) return 0.0;
  nn::Matrix grad;
  return nn::mse_loss<float>(scorer.forward(x), y, grad);
}

void train_scorer(nn::Scorer& scorer, const char* ae, const char* head, const nn::Matrix& x,
                  const nn::Matrix& y, const nn::Matrix& vx, const nn::Matrix& vy,
                  const TrainOptions& o, gsearch::Rng& rng, Curve& curve,
                  const std::function<void(const std::string&)>& log) {
  nn::ParamList params;
  scorer.parameters(params, ae, head);
  nn::Adam adam(params, {.lr = o.ae_lr});
  std::vector<nn::Index> order(static_cast<std::size_t>(x.rows()));
  std::iota(order.begin(), order.end(), 0);
  nn::Matrix bx(o.ae_batch, 5), by(o.ae_batch, 1), grad;
  for (int epoch = 0; epoch < o.ae_epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t start = 0; start < order.size();
         start += static_cast<std::size_t>(o.ae_batch)) {
      const auto b = static_cast<nn::Index>(
          std::min<std::size_t>(static_cast<std::size_t>(o.ae_batch), order.size() - start));
      for (nn::Index i = 0; i < b; ++i) {
        bx.row(i) = x.row(order[start + static_cast<std::size_t>(i)]);
        by(i, 0) = y(order[start + static_cast<std::size_t>(i)], 0);
      }
      adam.zero_grad();
      const double loss = nn::mse_loss<float>(scorer.forward(bx.topRows(b)), by.topRows(b), grad);
      scorer.backward(grad);
      adam.step();
      curve.train.push_back(loss);
    }
    curve.epoch_end.push_back(curve.train.size());
    curve.validation.push_back(mse_of(scorer, vx, vy));
    if (epoch % 10 == 9 || epoch + 1 == o.ae_epochs) {
      std::ostringstream line;
      line << curve.name << " epoch " << epoch + 1 << ": train " << curve.train.back()
           << ", validation " << curve.validation.back();
      log(line.str());
    }
  }
}

// ---------------------------------------------------------------------------------------
// GAT-AE data and training

struct TreeExample {
  GatInput input;
  nn::Matrix target;  // (rows, 1)
};

// The label tree of one position as a GAT-AE example: node values from the labels,
// depth-normalised (eq. 10–12), SGGA's selection frequencies as the target.
bool tree_example(const Position& pos, const std::map<std::string, std::pair<float, float>>& scores,
                  const TrainOptions& o, gsearch::sgga::Sgga& sgga, std::uint64_t seed,
                  TreeExample& out) {
  const auto search = label_search(pos, o.tree_seed, o.tree_nodes);
  const DecisionView view(search.tree());
  TreeData data = describe(view, DecisionPosition{pos});
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
  // move_score of its labelled whole moves; above, the mean of the children.
  std::vector<float> value(k, -1.0f);
  std::vector<double> sum(k, 0.0), move_sum(k, 0.0);
  std::vector<int> count(k, 0), move_count(k, 0);
  for (gsearch::NodeId n : data.whole_moves) {
    const auto it = scores.find(pos.move_to_string(data.move_of(n)));
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
        value[n] = static_cast<float>(sum[n] / count[n]);
      else
        value[n] = 0.5f;  // nothing known below: neutral
    }
    sum[data.parent[n]] += value[n];
    ++count[data.parent[n]];
  }
  value[0] = count[0] ? static_cast<float>(sum[0] / count[0]) : 0.5f;
  // One turn, one player: no node's player changes below it (Parity::kPlayer).
  gsearch::mcts::DepthNormalizer().run(
      data.parent, value, [](gsearch::NodeId) { return true; },
      [](gsearch::NodeId) { return false; });
  gsearch::sgga::ExplicitTree tree(data.parent, std::vector<double>(value.begin(), value.end()));
  sgga.prepare(tree);
  const auto freq = sgga.frequencies(static_cast<std::uint64_t>(o.sgga_runs), seed);
  out.input = gat_input(data);
  out.target = nn::Matrix::Zero(out.input.x.rows(), 1);
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

}  // namespace

TrainResult train(const std::vector<Label>& labels, const TrainOptions& o,
                  const std::function<void(const std::string&)>& log) {
  TrainResult r;
  r.nets = Networks::initial(o.seed);
  r.movement.name = "movement (AE1 + W1)";
  r.placement.name = "placement (AE2 + W2)";
  r.gat.name = "GAT-AE";
  r.labels = labels.size();
  gsearch::Rng rng(o.seed);

  // UCT-AE.
  ScoreSet train_set, val_set;
  std::map<std::string, std::map<std::string, std::pair<float, float>>> by_position;
  struct Example {
    const std::string* fen;
    Features move, place;
    float move_score, place_score;
  };
  std::vector<Example> examples;
  examples.reserve(labels.size());
  // In (position, move) order: a label file written over several connections is in the
  // order the replies came, and training must not depend on it.
  std::vector<const Label*> sorted;
  sorted.reserve(labels.size());
  for (const Label& l : labels) sorted.push_back(&l);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Label* a, const Label* b) {
    return std::tie(a->fen, a->move) < std::tie(b->fen, b->move);
  });
  for (const Label* lp : sorted) {
    const Label& l = *lp;
    const Position pos = Position::from_fen(l.fen);
    Example e{&l.fen, {}, {}, static_cast<float>(l.move_score), static_cast<float>(l.place_score)};
    Move m;
    try {
      m = pos.parse_move(l.move);
    } catch (const NotationError&) {
      ++r.skipped;
      continue;
    }
    if (!label_features(pos, m, e.move, e.place)) {
      ++r.skipped;
      continue;
    }
    by_position[l.fen][pos.move_to_string(m)] = {e.move_score, e.place_score};
    examples.push_back(e);
  }
  // Centred targets: each score less the mean score of its position's candidates, plus ½.
  std::map<std::string, std::pair<double, double>> mean;
  if (o.center_scores) {
    for (const auto& [fen, moves] : by_position) {
      double a = 0, b = 0;
      for (const auto& [move, sc] : moves) a += sc.first, b += sc.second;
      mean[fen] = {a / static_cast<double>(moves.size()), b / static_cast<double>(moves.size())};
    }
  }
  for (const Example& e : examples) {
    ScoreSet& s = held_out(*e.fen, o.validation) ? val_set : train_set;
    append_row(s.x_move, e.move);
    append_row(s.x_place, e.place);
    const auto shift = o.center_scores ? mean[*e.fen] : std::pair<double, double>{0.5, 0.5};
    append_value(s.y_move, static_cast<float>(e.move_score - shift.first + 0.5));
    append_value(s.y_place, static_cast<float>(e.place_score - shift.second + 0.5));
  }
  r.positions = by_position.size();
  r.train_labels = static_cast<std::size_t>(train_set.x_move.rows());
  r.validation_labels = static_cast<std::size_t>(val_set.x_move.rows());
  if (r.train_labels == 0) throw std::invalid_argument("train: no usable labels");
  log("UCT-AE: " + std::to_string(r.train_labels) + " training and " +
      std::to_string(r.validation_labels) + " validation labels from " +
      std::to_string(r.positions) + " positions");
  train_scorer(r.nets.uctae.movement(), "ae1.", "w1.", train_set.x_move, train_set.y_move,
               val_set.x_move, val_set.y_move, o, rng, r.movement, log);
  train_scorer(r.nets.uctae.placement(), "ae2.", "w2.", train_set.x_place, train_set.y_place,
               val_set.x_place, val_set.y_place, o, rng, r.placement, log);
  r.movement_variance = variance_after(r.movement, o.variance_after_epoch);
  r.placement_variance = variance_after(r.placement, o.variance_after_epoch);
  r.variance_test =
      gsearch::f_test(r.movement_variance, samples_after(r.movement, o.variance_after_epoch),
                      r.placement_variance, samples_after(r.placement, o.variance_after_epoch));

  // GAT-AE.
  std::vector<TreeExample> gat_train, gat_val;
  gsearch::sgga::Sgga sgga({.temperature = o.sgga_temperature});
  std::uint64_t tree_index = 0;
  for (const auto& [fen, scores] : by_position) {
    TreeExample e;
    if (!tree_example(Position::from_fen(fen), scores, o, sgga, o.seed + tree_index++, e)) continue;
    (held_out(fen, o.validation) ? gat_val : gat_train).push_back(std::move(e));
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
  return r;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  const auto tmp = path.string() + ".partial";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
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
  write_file(d / "loss_movement.csv", curve_csv(r.movement));
  write_file(d / "loss_placement.csv", curve_csv(r.placement));
  write_file(d / "loss_gatae.csv", curve_csv(r.gat));
  write_file(d / "loss_movement.svg", curve_svg(r.movement, "MSE"));
  write_file(d / "loss_placement.svg", curve_svg(r.placement, "MSE"));
  write_file(d / "loss_gatae.svg", curve_svg(r.gat, "SmoothL1"));
  std::ostringstream md;
  md << "# Training report\n\nProduced by:\n\n```sh\n" << command << "\n```\n\n";
  md << "| | |\n|---|---|\n";
  md << "| labels | " << r.labels << " (" << r.skipped << " skipped as illegal) |\n";
  md << "| positions | " << r.positions << " |\n";
  md << "| UCT-AE training / validation labels | " << r.train_labels << " / " << r.validation_labels
     << " |\n";
  md << "| GAT-AE trees | " << r.trees << " |\n";
  md << "| seed, tree seed, tree nodes | " << o.seed << ", " << o.tree_seed << ", " << o.tree_nodes
     << " |\n";
  md << "| UCT-AE: Adam lr, epochs, batch | " << o.ae_lr << ", " << o.ae_epochs << ", "
     << o.ae_batch << " |\n";
  md << "| UCT-AE targets | "
     << (o.center_scores ? "centred: score − mean of the position's labels + 0.5" : "raw scores")
     << " |\n";
  md << "| GAT-AE: RMSprop lr, epochs, SGGA runs per tree, SGGA temperature | " << o.gat_lr << ", "
     << o.gat_epochs << ", " << o.sgga_runs << ", " << o.sgga_temperature << " |\n\n";
  const auto final_line = [&](const Curve& c) {
    std::ostringstream s;
    s << "| " << c.name << " | " << (c.train.empty() ? 0.0 : c.train.front()) << " | "
      << (c.train.empty() ? 0.0 : plot::moving_average(c.train, 50).back()) << " | "
      << (c.validation.empty() ? 0.0 : c.validation.back()) << " |\n";
    return s.str();
  };
  md << "| module | first loss | last loss (moving average 50) | validation loss "
        "|\n|---|---|---|---|\n";
  md << final_line(r.movement) << final_line(r.placement) << final_line(r.gat) << "\n";
  md << "Variance of the training loss after epoch " << o.variance_after_epoch
     << " (the paper's §5.2): movement " << r.movement_variance << ", placement "
     << r.placement_variance << "; F = " << r.variance_test.f
     << ", two-sided p = " << r.variance_test.p << ".\n\n";
  md << "![movement](loss_movement.svg) ![placement](loss_placement.svg) "
        "![GAT-AE](loss_gatae.svg)\n";
  write_file(d / "training.md", md.str());
}

}  // namespace amazons::paper
