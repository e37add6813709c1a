// amazons train | reproduce — the paper's training stage and its experiments.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "amazons/paper/plot.hpp"
#include "amazons/paper/teacher.hpp"
#include "amazons/paper/train.hpp"
#include "amazons/players/agents.hpp"
#include "amazons/players/eval.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"
#include "gsearch/core/file.hpp"

namespace amazons::cli {
namespace {

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find_first_of(" \t\"'") != std::string::npos) a = "'" + a + "'";
    out += (i ? " " : "") + a;
  }
  return out;
}

// One row of a reproduction table.
struct Row {
  std::string label;        // e.g. "hybrid vs uctae, N=20"
  std::string a, b;         // agent specs
  double paper = -1;        // the paper's win rate of A, in [0, 1] (negative: none)
  bool equal_time = false;  // B gets A's measured time per move (filled in when run)
};

struct RowResult {
  Row row;
  gsearch::arena::MatchSummary summary;
};

std::string percent(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", 100 * v);
  return buf;
}

double win_rate(const gsearch::arena::MatchSummary& s) {
  return s.score / static_cast<double>(s.games);
}

// Plays one row and prints its line.
RowResult play_row(const Row& row, std::size_t games, unsigned threads, std::uint64_t seed) {
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "%s: %zu games ...\n", row.label.c_str(), games);
  const auto records = gsearch::arena::play_match(
      Position{}, [&] { return AgentHandle(make_agent(row.a)); },
      [&] { return AgentHandle(make_agent(row.b)); },
      {.games = games, .threads = threads, .seed = seed});
  const auto s = gsearch::arena::summarize(records);
  std::printf("%-44s %5zu games  %6s%%  [%5s, %5s]  paper %s\n", row.label.c_str(), s.games,
              percent(win_rate(s)).c_str(), percent(s.score_ci.low).c_str(),
              percent(s.score_ci.high).c_str(),
              row.paper >= 0 ? (percent(row.paper) + "%").c_str() : "-");
  std::fflush(stdout);
  return {row, s};
}

// A markdown table of results, and bars for a chart.
void table(std::ostringstream& md, const std::vector<RowResult>& results, bool paper_column) {
  md << "| match | games | win rate | 95% interval |" << (paper_column ? " paper |" : "")
     << " time per move (A / B) |\n|---|---|---|---|" << (paper_column ? "---|" : "") << "---|\n";
  for (const auto& r : results) {
    char times[64];
    std::snprintf(times, sizeof times, "%.1f / %.1f ms", 1000 * r.summary.seconds_per_move[0],
                  1000 * r.summary.seconds_per_move[1]);
    md << "| " << r.row.label << " | " << r.summary.games << " | " << percent(win_rate(r.summary))
       << "% | [" << percent(r.summary.score_ci.low) << ", " << percent(r.summary.score_ci.high)
       << "] |";
    if (paper_column) md << " " << (r.row.paper >= 0 ? percent(r.row.paper) + "%" : "—") << " |";
    md << " " << times << " |\n";
  }
}

std::vector<plot::Bar> bars_of(const std::vector<RowResult>& results) {
  std::vector<plot::Bar> bars;
  for (const auto& r : results)
    bars.push_back({r.row.label, win_rate(r.summary), r.summary.score_ci.low,
                    r.summary.score_ci.high, r.row.paper});
  return bars;
}

// The positions and candidate moves the noise sweep labels: every position of `games` games
// between the labeller's default players, with the label tree's whole moves as candidates
// (as `amazons label` takes them with its defaults).
std::vector<std::pair<Position, std::vector<Move>>> sweep_positions(std::size_t games,
                                                                    unsigned threads,
                                                                    std::uint64_t seed) {
  const auto records = gsearch::arena::play_match(
      Position{}, [] { return AgentHandle(make_agent("invader:iters=300,trap=0")); },
      [] { return AgentHandle(make_agent("uct:iters=200")); },
      {.games = games, .threads = threads, .seed = seed});
  std::vector<std::pair<Position, std::vector<Move>>> out;
  for (const auto& r : records) {
    Position p;
    for (const Move& m : r.moves) {
      out.push_back({p, paper::label_candidates(p, 1, 60)});
      p.apply(m);
    }
  }
  return out;
}

// `amazons reproduce`'s options.
struct ReproduceOptions {
  std::size_t games = 200;
  std::size_t sweep_games = 40;
  std::string sweeps = "all";
  bool quick = false;
  unsigned threads = 1;
  std::uint64_t seed = 1;
  std::string out = "reproduction";
  std::string uctae = "shipped", gatae = "shipped", value = "shipped";
};

// The noise sweep's teacher settings: noise at no hallucination, then hallucinations at the
// default noise.
struct TeacherSetting {
  double noise, hallucination;
};
constexpr TeacherSetting kTeacherSettings[] = {{0, 0}, {0.1, 0},   {0.3, 0},  {1, 0},
                                               {3, 0}, {0.1, 0.1}, {0.1, 0.3}};

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// How alike the paper's agents decide, and how good their decisions are: over the positions
// of `games` games of hybrid at N (after four random plies), each agent's move at N, the
// share of positions where it is hybrid's move, and the mean independent evaluation of the
// moves (two-ply Lieberum, train.hpp), with greedy's choice as a reference.
struct DecisionStats {
  std::string agent;
  double same_as_hybrid = 0, value = 0;
};
std::vector<DecisionStats> decision_stats(const std::string& nets, int n, std::size_t games,
                                          std::uint64_t seed) {
  const char* names[] = {"uctae", "sgga", "gatae", "hybrid", "greedy"};
  constexpr int kAgents = 5;
  std::unique_ptr<Agent> agents[kAgents];
  for (int i = 0; i < kAgents; ++i)
    agents[i] = make_agent(i < 4 ? std::string(names[i]) + ":n=" + std::to_string(n) + nets
                                 : std::string(names[i]));
  std::vector<DecisionStats> out(kAgents);
  for (int i = 0; i < kAgents; ++i) out[static_cast<std::size_t>(i)].agent = names[i];
  LieberumEvaluator eval;
  std::size_t positions = 0;
  for (std::size_t g = 0; g < games; ++g) {
    gsearch::Rng rng(gsearch::derive_seed(seed, g));
    for (auto& a : agents) a->reset(gsearch::derive_seed(seed ^ 0x5eed, g));
    Position p;
    for (int ply = 0; !p.is_terminal(); ++ply) {
      if (ply < 4) {
        p.apply(p.random_move(rng));
        continue;
      }
      Move moves[kAgents];
      for (int i = 0; i < kAgents; ++i) moves[i] = agents[i]->choose(p);
      ++positions;
      for (int i = 0; i < kAgents; ++i) {
        auto& st = out[static_cast<std::size_t>(i)];
        st.same_as_hybrid += moves[i] == moves[3];
        st.value += paper::two_ply_value(p, moves[i], eval);
      }
      p.apply(moves[3]);
    }
  }
  for (auto& st : out) {
    st.same_as_hybrid /= static_cast<double>(std::max<std::size_t>(1, positions));
    st.value /= static_cast<double>(std::max<std::size_t>(1, positions));
  }
  return out;
}

void run_reproduce(const ReproduceOptions& o, const std::string& invocation) {
  const std::size_t games = o.quick ? 20 : o.games;
  const std::size_t sweep_games = o.quick ? 10 : o.sweep_games;
  const bool n_sweep = o.sweeps == "all" || o.sweeps == "n";
  const bool noise_sweep = !o.quick && (o.sweeps == "all" || o.sweeps == "noise");
  const std::string nets = ",uctae=" + o.uctae + ",gatae=" + o.gatae + ",value=" + o.value;
  const auto paper_agent = [&](const std::string& name, int n) {
    return name + ":n=" + std::to_string(n) + nets;
  };
  std::vector<Row> rows = {
      {"hybrid vs uctae, N=20", paper_agent("hybrid", 20), paper_agent("uctae", 20), 0.795},
      {"hybrid vs uctae, N=30", paper_agent("hybrid", 30), paper_agent("uctae", 30), 0.735},
      {"hybrid vs sgga, N=20", paper_agent("hybrid", 20), paper_agent("sgga", 20), 0.585},
      {"hybrid vs sgga, N=30", paper_agent("hybrid", 30), paper_agent("sgga", 30), 0.590},
      {"hybrid vs gatae, N=20", paper_agent("hybrid", 20), paper_agent("gatae", 20), 0.620},
      {"hybrid vs gatae, N=30", paper_agent("hybrid", 30), paper_agent("gatae", 30), 0.575},
      {"hybrid vs teacher, N=30", paper_agent("hybrid", 30), "teacher", 0.450},
      {"hybrid vs teacher, N=50", paper_agent("hybrid", 50), "teacher", 0.665},
      {"hybrid N=30 vs uct, equal time", paper_agent("hybrid", 30), "uct:iters=0,ms=", -1, true},
      {"hybrid N=30 vs invader, equal time", paper_agent("hybrid", 30),
       "invader:iters=0,schedule=0,ms=", -1, true},
      {"hybrid N=30 vs ab, equal time", paper_agent("hybrid", 30), "ab:depth=64,ms=", -1, true},
  };
  std::vector<Row> sweep_rows;
  if (n_sweep) {
    const std::vector<int> ns =
        o.quick ? std::vector<int>{30, 200} : std::vector<int>{20, 30, 50, 200, 1000};
    for (const char* opponent : {"random", "greedy"})
      for (const char* agent : {"uctae", "sgga", "gatae", "hybrid"})
        for (int n : ns)
          sweep_rows.push_back({std::string(agent) + " N=" + std::to_string(n) + " vs " + opponent,
                                paper_agent(agent, n), opponent});
  }
  // Build every agent once first, so a bad weight file fails before any game.
  for (const Row& r : rows) {
    (void)make_agent(r.a);
    if (!r.equal_time) (void)make_agent(r.b);
  }
  const std::filesystem::path dir(o.out);
  std::filesystem::create_directories(dir);

  std::vector<RowResult> results;
  double hybrid_seconds = 0;  // measured time per move of hybrid N=30
  for (Row row : rows) {
    if (row.equal_time)
      row.b += std::to_string(static_cast<long>(std::max(1.0, std::round(hybrid_seconds * 1000))));
    results.push_back(play_row(row, games, o.threads, o.seed));
    if (row.label == "hybrid vs teacher, N=30")
      hybrid_seconds = results.back().summary.seconds_per_move[0];
  }
  // Why the hybrid agent does or does not beat its ablations: how alike they decide.
  std::vector<std::pair<int, std::vector<DecisionStats>>> alike;
  if (!o.quick)
    for (int n : {30, 200}) {
      std::fprintf(stderr, "decisions at N=%d ...\n", n);
      alike.push_back({n, decision_stats(nets, n, 20, o.seed)});
    }
  std::vector<RowResult> sweep;
  for (const Row& row : sweep_rows) sweep.push_back(play_row(row, sweep_games, o.threads, o.seed));

  // The noise sweep: for each teacher setting, label the same positions, train, and play the
  // hybrid agent against that teacher and against the ablations trained on the same labels.
  std::vector<RowResult> noise;
  std::vector<std::pair<std::string, std::vector<paper::RankAgreement>>> learned;
  if (noise_sweep) {
    std::fprintf(stderr, "noise sweep: collecting positions ...\n");
    const auto positions = sweep_positions(24, o.threads, 1);
    for (const TeacherSetting& t : kTeacherSettings) {
      const std::string name =
          "noise " + number_text(t.noise) + ", hallucination " + number_text(t.hallucination);
      TeacherParams params;
      params.noise = t.noise;
      params.hallucination = t.hallucination;
      std::vector<Label> labels;
      for (const auto& [pos, moves] : positions)
        for (const Move& m : moves) {
          const Scores sc = teacher_scores(pos, m, params);
          labels.push_back({pos.fen(), pos.move_to_string(m), sc.move, sc.place, "local", 1, 0});
        }
      const auto sub =
          dir / "noise-sweep" /
          ("noise-" + number_text(t.noise) + "-hallucination-" + number_text(t.hallucination));
      std::fprintf(stderr, "%s: %zu labels, training ...\n", name.c_str(), labels.size());
      auto trained = paper::train(labels, {}, [](const std::string&) {});
      paper::write_training_outputs(trained, {}, sub.string(), invocation);
      const std::string w = ",uctae=" + (sub / "uctae.json").string() +
                            ",gatae=" + (sub / "gatae.json").string() +
                            ",value=" + (sub / "value.json").string();
      const std::string hybrid = "hybrid:n=30" + w;
      const std::string teacher = "teacher:noise=" + number_text(t.noise) +
                                  ",hallucination=" + number_text(t.hallucination);
      for (const Row& row : std::vector<Row>{{"hybrid vs teacher, " + name, hybrid, teacher},
                                             {"hybrid vs uctae, " + name, hybrid, "uctae:n=30" + w},
                                             {"hybrid vs sgga, " + name, hybrid, "sgga:n=30" + w},
                                             {"hybrid vs gatae, " + name, hybrid, "gatae:n=30" + w},
                                             {"hybrid vs greedy, " + name, hybrid, "greedy"}})
        noise.push_back(play_row(row, sweep_games, o.threads, o.seed));
      learned.push_back({name, trained.ranking});
    }
  }

  // The report.
  std::ostringstream md;
  md << "# Reproduction of the paper's experiments\n\n";
  md << "Produced by:\n\n```sh\n" << invocation << "\n```\n\n";
  md << "## The paper's table\n\nWin rate of the first agent, " << games
     << " games per row (pairs of games share a random opening and swap colours), with the "
        "Wilson 95% interval; the paper's number from §5.3–5.5 beside it.\n\n";
  table(md, results, true);
  md << "\nAgents: `" << rows[0].a
     << "` and the others as listed, with the shipped weights unless `--uctae`/`--gatae`/"
        "`--value` say otherwise; `teacher` is the local teacher with its default settings "
        "(docs/labeler.md). The equal-time rows give the classic agent the hybrid agent's "
        "measured time per move (from the N=30 teacher row), rounded to whole milliseconds; "
        "a classic agent cannot stop before its first step (e.g. scoring every first move "
        "of the position), so the last column shows the time it actually used. "
        "docs/paper-mapping.md says how each agent reads the paper.\n\n![win "
        "rates](reproduction.svg)\n";
  gsearch::write_file_atomically(
      dir / "reproduction.svg",
      plot::bar_chart("Win rate of the hybrid agent (ours: bars, 95% intervals; "
                      "paper: red marks)",
                      "win rate", bars_of(results), "paper"));
  if (!alike.empty()) {
    md << "\n## How alike the agents decide\n\nThe positions of 20 games of the hybrid agent "
          "against itself (after four random plies); at each, every agent's move at the same N. "
          "\"Same as hybrid\": the share of positions where the agent chose the hybrid agent's "
          "move. \"Two-ply value\": the mean value of the chosen moves by the independent "
          "evaluation (two plies with Lieberum's evaluation, which no paper agent sees), "
          "greedy's one-ply choice by the same evaluation as a reference. Agents that mostly "
          "choose the same move cannot win much from each other.\n\n| N | agent | same as "
          "hybrid | two-ply value |\n|---|---|---|---|\n";
    for (const auto& [n, stats] : alike)
      for (const auto& st : stats) {
        char line[160];
        std::snprintf(line, sizeof line, "| %d | %s | %.1f%% | %+.4f |\n", n, st.agent.c_str(),
                      100 * st.same_as_hybrid, st.value);
        md << line;
      }
  }
  if (!sweep.empty()) {
    md << "\n## More search: each agent across N, against random play and greedy\n\n"
       << sweep_games
       << " games per row. More nodes must not play worse: each agent's win rate should not "
          "fall as N grows (within the intervals).\n\n";
    table(md, sweep, false);
    md << "\n![N sweep](sweep_n.svg)\n";
    gsearch::write_file_atomically(
        dir / "sweep_n.svg",
        plot::bar_chart("Win rate across N (95% intervals)", "win rate", bars_of(sweep), ""));
  }
  if (!noise.empty()) {
    md << "\n## A noisier teacher: relabelled, retrained, replayed\n\nFor each setting of the "
          "local teacher, the candidate moves of the same positions (24 games of "
          "`invader:iters=300,trap=0` against `uct:iters=200`, every position, the label tree's "
          "whole moves) are labelled in-process with that teacher, the networks are trained with "
          "`amazons train`'s defaults (weights and training reports in `noise-sweep/` beside "
          "this file when it is produced; the repository does not keep them), and the hybrid agent "
          "at N = 30 plays "
       << sweep_games
       << " games against that teacher and against each ablation trained on the same "
          "labels.\n\n";
    table(md, noise, false);
    md << "\nWhat each student learned: the within-position rank agreement (Spearman, mean "
          "over held-out positions) of each score with the independent two-ply evaluation, "
          "beside the teacher's own (from each training run).\n\n| setting |";
    for (const auto& a : learned.front().second) md << " " << a.score << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < learned.front().second.size(); ++i) md << "---|";
    md << "\n";
    for (const auto& [setting, ranking] : learned) {
      md << "| " << setting << " |";
      for (const auto& a : ranking) {
        char cell[32];
        std::snprintf(cell, sizeof cell, " %.3f |", a.spearman_independent);
        md << cell;
      }
      md << "\n";
    }
    md << "\n![noise sweep](sweep_noise.svg)\n";
    gsearch::write_file_atomically(
        dir / "sweep_noise.svg",
        plot::bar_chart("Hybrid N=30 as the teacher gets noisier (95% intervals)", "win rate",
                        bars_of(noise), ""));
  }
  gsearch::write_file_atomically(dir / "reproduction.md", md.str());
  std::printf("wrote %s and its charts\n", (dir / "reproduction.md").c_str());
}

}  // namespace

void add_paper_commands(CLI::App& app, int argc, char** argv) {
  const std::string invocation = command_line(argc, argv);
  {
    struct Opts {
      std::string labels, out = "weights", reading = "relative";
      paper::TrainOptions train;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd =
        app.add_subcommand("train", "Train UCT-AE and GAT-AE from a label file (amazons label)");
    cmd->add_option("--labels", o->labels, "The label file (JSON lines)")->required();
    cmd->add_option("--out", o->out, "Directory for weights, loss curves and the report");
    add_seed(*cmd, "--seed", o->train.seed, "Seed of the initial weights, shuffling and SGGA");
    add_seed(*cmd, "--tree-seed", o->train.tree_seed,
             "Seed of the label trees (as given to amazons label)");
    add_number(*cmd, "--tree-nodes", o->train.tree_nodes,
               "Nodes of the label trees (as given to amazons label)", std::uint64_t{4},
               std::uint64_t{100000});
    add_number(*cmd, "--ae-epochs", o->train.ae_epochs, "UCT-AE epochs", 1, 100000);
    add_number(*cmd, "--ae-lr", o->train.ae_lr, "UCT-AE learning rate (Adam)", 1e-9, 10.0);
    cmd->add_option("--reading", o->reading,
                    "What the networks learn (docs/paper-mapping.md): relative (what each "
                    "decision changes, centred scores, a value scorer) or literal (the paper)")
        ->check(CLI::IsMember({"relative", "literal"}));
    add_number(*cmd, "--value-games", o->train.value_games,
               "Games of UCT-AE's policy whose results train the value scorer (relative "
               "reading)",
               1, 1000000);
    add_number(*cmd, "--gat-epochs", o->train.gat_epochs, "GAT-AE epochs", 0, 100000);
    add_number(*cmd, "--gat-lr", o->train.gat_lr, "GAT-AE learning rate (RMSprop)", 1e-9, 10.0);
    add_number(*cmd, "--sgga-runs", o->train.sgga_runs, "SGGA runs per tree", 1, 1000000);
    add_number(*cmd, "--sgga-temperature", o->train.sgga_temperature, "SGGA's softmax temperature",
               1e-6, 1e6);
    cmd->callback([o, invocation] {
      check_output_directory(o->out);
      std::vector<Label> labels;
      try {
        labels = read_labels(o->labels);
      } catch (const std::runtime_error& e) {
        throw BadInput(e.what());
      }
      if (labels.empty()) throw BadInput(o->labels + ": no labels");
      o->train.reading = paper::parse_reading(o->reading);
      auto result = paper::train(labels, o->train, [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
      });
      paper::write_training_outputs(result, o->train, o->out, invocation);
      std::printf("wrote %s/uctae.json, %s/gatae.json%s and the training report %s/training.md\n",
                  o->out.c_str(), o->out.c_str(),
                  o->train.reading == paper::Reading::kRelative
                      ? (", " + o->out + "/value.json").c_str()
                      : "",
                  o->out.c_str());
    });
  }
  {
    using Opts = ReproduceOptions;
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "reproduce",
        "Run the paper's experiments (§5.3-5.5), the classic comparisons, and the sweeps over "
        "N and over the teacher's noise");
    add_number(*cmd, "--games,-g", o->games, "Games per row of the paper's table", std::size_t{2},
               std::size_t{100000});
    add_number(*cmd, "--sweep-games", o->sweep_games, "Games per row of the sweeps", std::size_t{2},
               std::size_t{100000});
    cmd->add_option("--sweeps", o->sweeps,
                    "Which sweeps: all, n (N against random and greedy), noise (teacher noise "
                    "and hallucinations: relabel, retrain, play), none")
        ->check(CLI::IsMember({"all", "n", "noise", "none"}));
    cmd->add_flag("--quick", o->quick,
                  "20 games per row, the N sweep at N = 30 and 200 with 10 games, no noise "
                  "sweep: a first look in about a minute");
    add_number(*cmd, "--threads,-t", o->threads, "Games played at once", 1u, 256u);
    add_seed(*cmd, "--seed,-s", o->seed, "Match seed");
    cmd->add_option("--out", o->out, "Directory for reproduction.md and the charts");
    cmd->add_option("--uctae", o->uctae, "UCT-AE weights (default: the shipped ones)");
    cmd->add_option("--gatae", o->gatae, "GAT-AE weights (default: the shipped ones)");
    cmd->add_option("--value", o->value, "Value scorer weights (default: the shipped ones)");
    cmd->callback([o, invocation] {
      check_output_directory(o->out);
      run_reproduce(*o, invocation);
    });
  }
}

}  // namespace amazons::cli
