// amazons tune — the Lieberum evaluation's weights fitted to the outcomes of recorded games.
//
//   amazons tune --records FILE [--records FILE ...] --out FILE [--from lieberum|tuned|FILE]
//                [--skip N] [--l2 L] [--holdout K]
//
// Every position of every finished game (after its random opening and the first N plies) is
// a sample: the evaluation's ten phase-split terms for the side to move (eval.hpp,
// lieberum_features) and whether that side went on to win. gsearch::nn::fit_logistic fits the
// ten weights (kappa, w_open and scale stay those of --from), drawn towards the --from weights
// by the ridge L. Every K-th game is held out of the fit and reported on its own, so that a
// fit that only learns its games shows. Nothing here is random: the same files give the same
// weights.
#include <Eigen/Dense>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "amazons/players/eval.hpp"
#include "amazons/players/eval_io.hpp"
#include "cli/command.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/nn/logistic_fit.hpp"

namespace amazons::cli {
namespace {

using json = nlohmann::json;

struct Samples {
  std::vector<LieberumFeatures> features;
  std::vector<double> outcomes;  // 1: the side to move won, 0: lost
  std::size_t games = 0;
};

Eigen::MatrixXd matrix_of(const Samples& s) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(s.features.size()), 10);
  for (std::size_t i = 0; i < s.features.size(); ++i)
    for (int j = 0; j < 10; ++j) x(static_cast<Eigen::Index>(i), j) = s.features[i][j];
  return x;
}

Eigen::VectorXd vector_of(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// The logistic model's weights (θ = 2 · scale · (opening, ending)) and back.
Eigen::VectorXd theta_of(const LieberumWeights& w) {
  Eigen::VectorXd t(10);
  for (int i = 0; i < 5; ++i) {
    t[i] = 2 * w.scale * w.opening[static_cast<std::size_t>(i)];
    t[5 + i] = 2 * w.scale * w.ending[static_cast<std::size_t>(i)];
  }
  return t;
}
LieberumWeights weights_of(const Eigen::VectorXd& t, LieberumWeights w) {
  for (int i = 0; i < 5; ++i) {
    w.opening[static_cast<std::size_t>(i)] = t[i] / (2 * w.scale);
    w.ending[static_cast<std::size_t>(i)] = t[5 + i] / (2 * w.scale);
  }
  return w;
}

// The share of samples whose predicted winner (σ(θ·f) > ½) won.
double accuracy(const Eigen::MatrixXd& x, const Eigen::VectorXd& z, const Eigen::VectorXd& t) {
  const Eigen::VectorXd s = x * t;
  std::size_t right = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i) right += (s[i] > 0) == (z[i] > 0.5);
  return s.size() ? static_cast<double>(right) / static_cast<double>(s.size()) : 0.0;
}

// Reads the finished games of a records file (each line checked as `amazons replay` checks
// it) into samples: every position from ply opening + skip on, before the end. Game number
// `game` (counted across files) goes to `held_out` when it is a multiple of `holdout` less 1.
void read_samples(const std::string& path, const LieberumWeights& from, std::size_t skip,
                  std::size_t holdout, std::size_t& game, Samples& fit_set, Samples& held_out) {
  try {
    gsearch::LineReader in(path, std::size_t{1} << 20);
    std::string line;
    while (in.next(line)) {
      if (line.empty()) continue;
      const json j = check_record(path, in.line_number(), line);  // legal, the result they give
      const std::string result = j["result"].get<std::string>();
      if (result == "*") continue;  // unfinished: no outcome to learn from
      const std::size_t opening =
          j.contains("opening_plies") && j["opening_plies"].is_number_unsigned()
              ? j["opening_plies"].get<std::size_t>()
              : 0;
      Samples& into = holdout > 0 && game % holdout == holdout - 1 ? held_out : fit_set;
      ++game;
      ++into.games;
      const Player winner = result == "1-0" ? kWhite : kBlack;
      Position pos = Position::from_fen(j["start"].get<std::string>());
      DistanceMaps maps;
      const auto& moves = j["moves"];
      for (std::size_t k = 0; k <= moves.size(); ++k) {
        if (k >= opening + skip && !pos.is_terminal()) {
          compute_distances(pos, maps);
          into.features.push_back(lieberum_features(lieberum_terms(pos, maps, from.kappa), from));
          into.outcomes.push_back(pos.to_move() == winner ? 1.0 : 0.0);
        }
        if (k < moves.size()) pos.apply(pos.parse_move(moves[k].get<std::string>()));
      }
    }
  } catch (const gsearch::FileError& e) {  // a records file that cannot be read is bad input
    throw BadInput(e.what());
  }
}

}  // namespace

void add_tune_commands(CLI::App& app) {
  struct Opts {
    std::vector<std::string> records;
    std::string out, from{"lieberum"};
    std::size_t skip = 0, holdout = 5;
    double l2 = 1.0;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "tune", "Fit the Lieberum evaluation's weights to the outcomes of recorded games");
  cmd->add_option("--records,-r", o->records, "Records files (amazons match/tournament)")
      ->required();
  cmd->add_option("--out,-o", o->out, "The weight file to write")->required();
  cmd->add_option("--from", o->from,
                  "Starting weights, which the ridge draws the fit towards: lieberum, tuned or a "
                  "weight file");
  add_number(*cmd, "--skip", o->skip, "Plies after the random opening left out of each game",
             std::size_t{0}, std::size_t{1000});
  add_number(*cmd, "--l2", o->l2, "Ridge towards the starting weights", 0.0, 1e6);
  add_number(*cmd, "--holdout", o->holdout,
             "Every K-th game is held out of the fit and reported alone (0: none)", std::size_t{0},
             std::size_t{1000000});
  cmd->callback([o] {
    LieberumWeights from;
    try {
      from = lieberum_weights_named(o->from);
    } catch (const EvalWeightsError& e) {
      throw BadInput(e.what());
    }
    check_output_file(o->out);
    Samples fit_set, held_out;
    std::size_t game = 0;
    for (const std::string& path : o->records)
      read_samples(path, from, o->skip, o->holdout, game, fit_set, held_out);
    if (fit_set.features.empty())
      throw BadInput("tune: no positions to fit (no finished games after --skip plies)");
    const Eigen::MatrixXd x = matrix_of(fit_set);
    const Eigen::VectorXd z = vector_of(fit_set.outcomes);
    const Eigen::VectorXd start = theta_of(from);
    const auto fit = gsearch::nn::fit_logistic(x, z, start, {.l2 = o->l2});
    const LieberumWeights tuned = weights_of(fit.weights, from);

    std::printf(
        "fit       %zu games, %zu positions: loss %.5f -> %.5f, accuracy %.1f%% -> "
        "%.1f%% (%d Newton steps%s)\n",
        fit_set.games, fit_set.features.size(), fit.loss_before, fit.loss_after,
        100 * accuracy(x, z, start), 100 * accuracy(x, z, fit.weights), fit.iterations,
        fit.converged ? "" : ", not converged");
    if (!held_out.features.empty()) {
      const Eigen::MatrixXd hx = matrix_of(held_out);
      const Eigen::VectorXd hz = vector_of(held_out.outcomes);
      std::printf(
          "held out  %zu games, %zu positions: loss %.5f -> %.5f, accuracy %.1f%% -> "
          "%.1f%%\n",
          held_out.games, held_out.features.size(),
          gsearch::nn::logistic_loss(hx, hz, start, 0, start),
          gsearch::nn::logistic_loss(hx, hz, fit.weights, 0, fit.weights),
          100 * accuracy(hx, hz, start), 100 * accuracy(hx, hz, fit.weights));
    }
    std::printf("term      t1       t2       c1       c2       m\n");
    const auto row = [](const char* name, const std::array<double, 5>& a,
                        const std::array<double, 5>& b) {
      std::printf("%-9s", name);
      for (std::size_t i = 0; i < 5; ++i) std::printf(" %+.3f>%+.3f", a[i], b[i]);
      std::printf("\n");
    };
    row("opening", from.opening, tuned.opening);
    row("ending", from.ending, tuned.ending);
    std::string command = "amazons tune";
    for (const auto& r : o->records) command += " --records " + r;
    command += " --from " + o->from + " --skip " + std::to_string(o->skip) + " --l2 " +
               number_text(o->l2) + " --holdout " + std::to_string(o->holdout);
    gsearch::write_file_atomically(o->out, lieberum_weights_json(tuned, command));
    std::printf("weights written to %s\n", o->out.c_str());
  });
}

}  // namespace amazons::cli
