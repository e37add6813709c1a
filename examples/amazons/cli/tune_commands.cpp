// amazons tune — the Lieberum evaluation's weights fitted to the outcomes of recorded games;
// amazons spsa — the same weights tuned on the results of games played as it goes.
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
//
//   amazons spsa --spec SPEC --iterations N --state FILE --out FILE [--opponent SPEC]
//                [--params LIST] [--from lieberum|tuned|FILE] [--trap W] [--c-weight C]
//                [--c-trap C] [--r-end R] [--book FILE | --fen FEN] [--openings P]
//                [--threads T] [--seed S] [--records FILE]
//
// SPSA (gsearch/arena/spsa.hpp) over the ten phase weights and, if --params names it, the
// trapped-queen weight: each iteration plays SPEC with the perturbed weights θ + c_k Δ against
// SPEC with θ − c_k Δ, a pair of games from one opening with colours swapped (or, with
// --opponent, each side a pair against the opponent from the same opening), and moves θ by
// the plus side's score less the minus side's. The state (the values and the iterations
// done) is written to --state and the weights to --out after every iteration, atomically: a
// run stopped at any point loses at most the iteration it was playing, and the same command
// goes on from the state. The docs: docs/amazons.md, "Tuning the weights on match results".
#include <fcntl.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "amazons/players/agents.hpp"
#include "amazons/players/eval.hpp"
#include "amazons/players/eval_io.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/arena/spsa.hpp"
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

// --- amazons spsa

inline constexpr const char* kSpsaStateFormat = "amazons-spsa-state";

// The names of the tunable parameters, in the order of the state file: the ten phase weights,
// then the trapped-queen weight.
const std::vector<std::string>& spsa_names() {
  static const std::vector<std::string> names = {
      "opening.t1", "opening.t2", "opening.c1", "opening.c2", "opening.m", "ending.t1",
      "ending.t2",  "ending.c1",  "ending.c2",  "ending.m",   "trap"};
  return names;
}

// The weights and trap of `values` (one per spsa_names() entry) over `base`.
LieberumWeights weights_of_values(const std::vector<double>& values, LieberumWeights base) {
  for (std::size_t i = 0; i < 5; ++i) {
    base.opening[i] = values[i];
    base.ending[i] = values[5 + i];
  }
  base.trap = values[10];
  return base;
}

// Removes the side's weight files when the command ends, however it ends.
struct TemporaryFiles {
  std::vector<std::filesystem::path> paths;
  ~TemporaryFiles() {
    std::error_code ignored;
    for (const auto& p : paths) std::filesystem::remove(p, ignored);
  }
};

// Appends `text` to the file at `path` (created if need be) with one write where the system
// allows: an iteration's games go in whole or, if the program is killed, at worst in part at
// the end, which keep_records_until then drops.
void append_text(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const auto fail = [&](int err) {
    return gsearch::FileError("cannot write " + path + ": " + std::strerror(err),
                              std::strerror(err));
  };
  if (fd < 0) throw fail(errno);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      throw fail(err);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

// A continued run's records: every line but the games of iterations after `done` (one under
// way when the run stopped, played again now) and a last line cut short.
void keep_records_until(const std::string& path, std::size_t done) {
  std::string kept, last;
  bool last_whole = true;
  try {
    gsearch::LineReader in(path, std::size_t{1} << 20);
    for (std::string line; in.next(line);) {
      kept += last;
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      last_whole = !j.is_discarded();
      const bool later = j.is_object() && j.contains("iteration") &&
                         j["iteration"].is_number_unsigned() &&
                         j["iteration"].get<std::size_t>() > done;
      last = later ? "" : line + '\n';
    }
  } catch (const gsearch::FileError& e) {
    throw BadInput(e.what());
  }
  if (last_whole) kept += last;
  gsearch::write_file_atomically(path, kept);
}

// The state file: the settings it was made with, and the values after `done` iterations.
struct SpsaState {
  nlohmann::json settings;
  std::vector<double> values;
  std::size_t done = 0;
  double result_sum = 0;  // Σ r over the iterations done
};

std::string spsa_state_json(const SpsaState& s) {
  nlohmann::ordered_json j;
  j["format"] = kSpsaStateFormat;
  j["version"] = 1;
  j["settings"] = s.settings;
  j["done"] = s.done;
  j["result_sum"] = s.result_sum;
  j["values"] = s.values;
  return j.dump(2) + "\n";
}

// Reads a state file and checks it was made with `settings`. Throws BadInput.
SpsaState read_spsa_state(const std::string& path, const nlohmann::json& settings,
                          std::size_t parameters) {
  const auto fail = [&](const std::string& why) { return BadInput("state " + path + ": " + why); };
  std::string text;
  try {
    text = gsearch::read_file(path, std::size_t{1} << 20);
  } catch (const gsearch::FileError& e) {
    throw BadInput(std::string("state: ") + e.what());
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw fail("not JSON");
  }
  if (!j.is_object() || j.value("format", std::string()) != kSpsaStateFormat)
    throw fail(std::string("not an spsa state (needs \"format\": \"") + kSpsaStateFormat + "\")");
  if (!j.contains("version") || j["version"] != 1) throw fail("unknown version (this reads 1)");
  if (!j.contains("settings") || !j["settings"].is_object()) throw fail("no settings");
  for (const auto& [key, value] : settings.items())
    if (!j["settings"].contains(key) || j["settings"][key] != value)
      throw fail("made with " + key + " " +
                 (j["settings"].contains(key) ? j["settings"][key].dump() : "unset") +
                 ", this run has " + value.dump() +
                 ": give the same options, or another --state to start afresh");
  SpsaState s;
  s.settings = settings;
  if (!j.contains("done") || !j["done"].is_number_unsigned()) throw fail("done is not a count");
  s.done = j["done"].get<std::size_t>();
  if (!j.contains("result_sum") || !j["result_sum"].is_number()) throw fail("no result_sum");
  s.result_sum = j["result_sum"].get<double>();
  if (!j.contains("values") || !j["values"].is_array() || j["values"].size() != parameters)
    throw fail("values is not an array of " + std::to_string(parameters) + " numbers");
  for (const auto& v : j["values"]) {
    if (!v.is_number()) throw fail("values holds something that is not a number");
    s.values.push_back(v.get<double>());
  }
  if (s.done > settings["iterations"].get<std::size_t>())
    throw fail("done is more than the iterations");
  return s;
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

  struct SpsaOpts {
    std::string spec, opponent, state, out, from{"lieberum"}, records, book;
    std::string fen{Position::kStartFen};
    std::vector<std::string> params;
    std::size_t iterations = 0, openings = 2;
    unsigned threads = 1;
    std::uint64_t seed = 1;
    double trap = 6, c_weight = 0.03, c_trap = 1.0, r_end = 0.02;
  };
  auto so = std::make_shared<SpsaOpts>();
  auto* spsa = app.add_subcommand(
      "spsa", "Tune the Lieberum evaluation's weights on the results of games (SPSA)");
  spsa->add_option("--spec", so->spec,
                   "The agent whose weights are tuned, e.g. ab:ms=20 (without eval= or trap=)")
      ->required();
  spsa->add_option("--opponent", so->opponent,
                   "Play each side against this agent instead of against each other");
  add_number(*spsa, "--iterations,-n", so->iterations,
             "Iterations (each a pair of games per side), which the gains are scaled to",
             std::size_t{1}, std::size_t{100000000})
      ->required();
  spsa->add_option("--state", so->state,
                   "The run's state, written after every iteration; an existing one is "
                   "continued")
      ->required();
  spsa->add_option("--out,-o", so->out, "The weight file to write (after every iteration)")
      ->required();
  spsa->add_option("--params", so->params,
                   "Parameters to tune (default the ten weights): opening.t1 .. opening.m, "
                   "ending.t1 .. ending.m, trap");
  spsa->add_option("--from", so->from, "Starting weights: lieberum, tuned or a weight file");
  add_number(*spsa, "--trap", so->trap, "The trapped-queen weight (its start, if tuned)", 0.0,
             30.0);
  add_number(*spsa, "--c-weight", so->c_weight, "A weight's perturbation at the last iteration",
             1e-6, 1.0);
  add_number(*spsa, "--c-trap", so->c_trap, "trap's perturbation at the last iteration", 1e-6,
             10.0);
  add_number(*spsa, "--r-end", so->r_end, "The learning rate at the last iteration", 1e-9, 1e3);
  spsa->add_option("--book", so->book, "Opening book: iteration k starts from opening k");
  spsa->add_option("--fen", so->fen, "Start position in FEN (default: the 10x10 start)");
  add_number(*spsa, "--openings", so->openings,
             "Random plies at the start of each iteration's games (0 with --book)", std::size_t{0},
             std::size_t{1000});
  add_number(*spsa, "--threads,-t", so->threads, "Games played at once", 1u, 256u);
  add_seed(*spsa, "--seed", so->seed, "The seed of the perturbations and of the games");
  spsa->add_option("--records", so->records, "Append every game to this file, one JSON line each");
  spsa->callback([o = so, spsa] {
    // The parameters and their start.
    LieberumWeights from;
    try {
      from = lieberum_weights_named(o->from);
    } catch (const EvalWeightsError& e) {
      throw BadInput(e.what());
    }
    const std::vector<std::string>& names = spsa_names();
    std::vector<double> start(names.size());
    for (std::size_t i = 0; i < 5; ++i) {
      start[i] = from.opening[i];
      start[5 + i] = from.ending[i];
    }
    start[10] = o->trap;
    std::vector<std::string> tuned = o->params;
    if (tuned.empty()) tuned.assign(names.begin(), names.begin() + 10);
    std::vector<std::size_t> index;  // tuned parameter j is names[index[j]]
    std::vector<gsearch::arena::SpsaParameter> parameters;
    for (const std::string& name : tuned) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) throw BadInput("spsa: --params: unknown parameter " + name);
      const auto i = static_cast<std::size_t>(it - names.begin());
      if (std::find(index.begin(), index.end(), i) != index.end())
        throw BadInput("spsa: --params: " + name + " is named twice");
      index.push_back(i);
      const bool trap = name == "trap";
      parameters.push_back({.name = name,
                            .value = start[i],
                            .lo = 0,
                            .hi = trap ? 30.0 : 2.0,
                            .c_end = trap ? o->c_trap : o->c_weight});
      if (start[i] < 0 || start[i] > parameters.back().hi)
        throw BadInput("spsa: " + name + " starts at " + number_text(start[i]) + ", outside [0, " +
                       number_text(parameters.back().hi) + "]");
    }
    // The agents: the spec must leave eval and trap to spsa, and must build.
    for (const char* key : {"eval", "trap"})
      if (o->spec.find(std::string(key) + "=") != std::string::npos)
        throw BadInput("spsa: --spec sets " + std::string(key) + "=, which spsa sets itself");
    if (o->spec.find(':') == std::string::npos) o->spec += ":";
    const auto side_spec = [&](const std::string& file, double trap) {
      const char* sep = o->spec.back() == ':' ? "" : ",";
      return o->spec + sep + "eval=" + file + ",trap=" + number_text(trap);
    };
    static_cast<void>(canonical_spec(side_spec("lieberum", 6)));
    if (!o->opponent.empty()) static_cast<void>(make_agent(o->opponent));
    const Position position = Position::from_fen(o->fen);
    std::vector<Position> starts{position};
    if (!o->book.empty()) {
      starts = read_book(o->book, position);
      if (spsa->count("--openings") == 0) o->openings = 0;
    }
    check_output_file(o->out);
    check_output_file(o->state);
    check_output_file(o->records);

    nlohmann::json settings = {
        {"spec", o->spec},     {"opponent", o->opponent}, {"iterations", o->iterations},
        {"params", tuned},     {"start", start},          {"c_weight", o->c_weight},
        {"c_trap", o->c_trap}, {"r_end", o->r_end},       {"book", o->book},
        {"fen", o->fen},       {"openings", o->openings}, {"seed", o->seed}};
    gsearch::arena::Spsa tuner = [&] {
      try {
        return gsearch::arena::Spsa(
            parameters, {.iterations = o->iterations, .r_end = o->r_end, .seed = o->seed});
      } catch (const std::invalid_argument& e) {
        throw BadInput(e.what());
      }
    }();
    SpsaState state;
    state.settings = settings;
    if (std::filesystem::exists(o->state)) {
      state = read_spsa_state(o->state, settings, parameters.size());
      try {
        tuner.restore(state.values, state.done);
      } catch (const std::invalid_argument& e) {
        throw BadInput("state " + o->state + ": " + e.what());
      }
      std::printf("continuing %s after %zu of %zu iterations\n", o->state.c_str(), state.done,
                  o->iterations);
      if (!o->records.empty() && std::filesystem::exists(o->records))
        keep_records_until(o->records, state.done);
    }
    // Every parameter's value: the start, with the tuned ones (in --params order) put in.
    const auto all_values = [&](const std::vector<double>& tuned_values) {
      std::vector<double> all = start;
      for (std::size_t j = 0; j < index.size(); ++j) all[index[j]] = tuned_values[j];
      return all;
    };
    const auto values_now = [&] { return all_values(tuner.values()); };
    const auto save = [&] {
      state.values = tuner.values();
      state.done = tuner.done();
      gsearch::write_file_atomically(o->state, spsa_state_json(state));
      const std::string made = "amazons spsa --spec " + o->spec +
                               (o->opponent.empty() ? "" : " --opponent " + o->opponent) +
                               " --iterations " + std::to_string(o->iterations) + " --seed " +
                               std::to_string(o->seed) + ", after " + std::to_string(tuner.done()) +
                               " iterations";
      gsearch::write_file_atomically(
          o->out, lieberum_weights_json(weights_of_values(values_now(), from), made));
    };

    // The sides' weight files, rewritten each iteration.
    TemporaryFiles files;
    const auto base =
        std::filesystem::temp_directory_path() / ("amazons-spsa-" + std::to_string(::getpid()));
    files.paths = {base.string() + ".plus.json", base.string() + ".minus.json"};
    const auto side = [&](const std::vector<double>& values, const std::filesystem::path& file) {
      const LieberumWeights w = weights_of_values(all_values(values), from);
      gsearch::write_file_atomically(file, lieberum_weights_json(w, ""));
      return side_spec(file.string(), w.trap);
    };
    const auto play = [&](const std::string& a, const std::string& b, const Position& s,
                          std::uint64_t seed) {
      const gsearch::arena::MatchParams params{
          .games = 2, .threads = o->threads, .seed = seed, .opening_plies = o->openings};
      return gsearch::arena::play_match(
          std::span<const Position>(&s, 1), [&] { return AgentHandle(make_agent(a)); },
          [&] { return AgentHandle(make_agent(b)); }, params);
    };
    std::printf("%-10s %8s", "iteration", "r mean");
    for (const auto& p : tuner.parameters()) std::printf(" %10s", p.name.c_str());
    std::printf("\n");
    for (std::size_t k = tuner.done() + 1; k <= o->iterations; ++k) {
      const auto step = tuner.step(k);
      const std::string plus = side(step.plus, files.paths[0]);
      const std::string minus = side(step.minus, files.paths[1]);
      const Position& s = starts[(k - 1) % starts.size()];
      const std::uint64_t seed = gsearch::arena::game_seed(o->seed, k);
      std::vector<gsearch::arena::GameRecord<Move>> games;
      double result = 0;
      if (o->opponent.empty()) {
        games = play(plus, minus, s, seed);
        for (const auto& g : games) result += 2 * g.score_a() - 1;
      } else {
        games = play(plus, o->opponent, s, seed);
        auto more = play(minus, o->opponent, s, seed);
        for (const auto& g : games) result += g.score_a();
        for (const auto& g : more) result -= g.score_a();
        games.insert(games.end(), more.begin(), more.end());
      }
      tuner.update(step, result);
      state.result_sum += result;
      if (!o->records.empty()) {
        const std::string plus_name = canonical_spec(plus), minus_name = canonical_spec(minus);
        std::string text;
        for (std::size_t g = 0; g < games.size(); ++g) {
          auto j = record_json(games[g], s);
          j["game"] = games.size() * (k - 1) + g;
          j["iteration"] = k;
          // The sides by their weights: their files are temporary.
          for (const char* colour : {"white", "black"}) {
            if (j[colour] == plus_name) j[colour] = "plus";
            if (j[colour] == minus_name) j[colour] = "minus";
          }
          j["plus"] = step.plus;
          j["minus"] = step.minus;
          text += j.dump() + '\n';
        }
        append_text(o->records, text);
      }
      save();
      if (k % 10 == 0 || k == o->iterations) {
        std::printf("%-10zu %+8.3f", k, state.result_sum / static_cast<double>(k));
        for (const auto& p : tuner.parameters()) std::printf(" %10.4f", p.value);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
    const std::vector<double> final_values = values_now();
    std::printf("after %zu iterations:", tuner.done());
    for (std::size_t j = 0; j < index.size(); ++j)
      std::printf(" %s %.4f", names[index[j]].c_str(), final_values[index[j]]);
    std::printf("\nweights written to %s (trap %s: give it as trap= in the spec)\n", o->out.c_str(),
                number_text(final_values[10]).c_str());
  });
}

}  // namespace amazons::cli
