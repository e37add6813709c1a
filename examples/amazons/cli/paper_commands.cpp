// amazons train | reproduce — the paper's training stage and its experiments.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "amazons/agents.hpp"
#include "amazons/plot.hpp"
#include "amazons/train.hpp"
#include "cli/command.hpp"
#include "gsearch/arena/match.hpp"

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

// One row of the reproduction table.
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

}  // namespace

void add_paper_commands(CLI::App& app, int argc, char** argv) {
  const std::string invocation = command_line(argc, argv);
  {
    struct Opts {
      std::string labels, out = "weights";
      paper::TrainOptions train;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd =
        app.add_subcommand("train", "Train UCT-AE and GAT-AE from a label file (amazons label)");
    cmd->add_option("--labels", o->labels, "The label file (JSON lines)")->required();
    cmd->add_option("--out", o->out, "Directory for weights, loss curves and the report");
    cmd->add_option("--seed", o->train.seed, "Seed of the initial weights, shuffling and SGGA");
    cmd->add_option("--tree-seed", o->train.tree_seed,
                    "Seed of the label trees (as given to amazons label)");
    cmd->add_option("--tree-nodes", o->train.tree_nodes,
                    "Nodes of the label trees (as given to amazons label)")
        ->check(CLI::Range(std::uint64_t{4}, std::uint64_t{100000}));
    cmd->add_option("--ae-epochs", o->train.ae_epochs, "UCT-AE epochs")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--ae-lr", o->train.ae_lr, "UCT-AE learning rate (Adam)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--center,!--no-center", o->train.center_scores,
                  "UCT-AE targets: scores less their position's mean, plus 0.5 (default), or raw");
    cmd->add_option("--gat-epochs", o->train.gat_epochs, "GAT-AE epochs")
        ->check(CLI::Range(0, 100000));
    cmd->add_option("--gat-lr", o->train.gat_lr, "GAT-AE learning rate (RMSprop)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--sgga-runs", o->train.sgga_runs, "SGGA runs per tree")
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--sgga-temperature", o->train.sgga_temperature, "SGGA's softmax temperature")
        ->check(CLI::PositiveNumber);
    cmd->callback([o, invocation] {
      std::vector<Label> labels;
      try {
        labels = read_labels(o->labels);
      } catch (const std::runtime_error& e) {
        throw BadInput(e.what());
      }
      if (labels.empty()) throw BadInput(o->labels + ": no labels");
      auto result = paper::train(labels, o->train, [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
      });
      paper::write_training_outputs(result, o->train, o->out, invocation);
      std::printf("wrote %s/uctae.json, %s/gatae.json and the training report %s/training.md\n",
                  o->out.c_str(), o->out.c_str(), o->out.c_str());
    });
  }
  {
    struct Opts {
      std::size_t games = 200;
      bool quick = false;
      unsigned threads = 1;
      std::uint64_t seed = 1;
      std::string out = "reproduction";
      std::string uctae = "shipped", gatae = "shipped";
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "reproduce", "Run the paper's experiments (§5.3-5.5) and the classic comparisons");
    cmd->add_option("--games,-g", o->games, "Games per row")
        ->check(CLI::Range(std::size_t{2}, std::size_t{100000}));
    cmd->add_flag("--quick", o->quick, "20 games per row: a few seconds, for a first look");
    cmd->add_option("--threads,-t", o->threads, "Games played at once")
        ->check(CLI::Range(1u, 256u));
    cmd->add_option("--seed,-s", o->seed, "Match seed");
    cmd->add_option("--out", o->out, "Directory for reproduction.md and reproduction.svg");
    cmd->add_option("--uctae", o->uctae, "UCT-AE weights (default: the shipped ones)");
    cmd->add_option("--gatae", o->gatae, "GAT-AE weights (default: the shipped ones)");
    cmd->callback([o, invocation] {
      const std::size_t games = o->quick ? 20 : o->games;
      const std::string nets = ",uctae=" + o->uctae + ",gatae=" + o->gatae;
      const auto paper_agent = [&](const char* name, int n) {
        return std::string(name) + ":n=" + std::to_string(n) + nets;
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
          {"hybrid N=30 vs uct, equal time", paper_agent("hybrid", 30), "uct:iters=0,ms=", -1,
           true},
          {"hybrid N=30 vs invader, equal time", paper_agent("hybrid", 30),
           "invader:iters=0,schedule=0,ms=", -1, true},
          {"hybrid N=30 vs ab, equal time", paper_agent("hybrid", 30), "ab:depth=64,ms=", -1, true},
      };
      // Build every agent once first, so a bad weight file fails before any game.
      for (const Row& r : rows) {
        (void)make_agent(r.a);
        if (!r.equal_time) (void)make_agent(r.b);
      }
      const bool tty = isatty(STDERR_FILENO);
      std::vector<RowResult> results;
      double hybrid_seconds = 0;  // measured time per move of hybrid N=30
      for (Row row : rows) {
        if (row.equal_time) {
          const double ms = std::max(1.0, std::round(hybrid_seconds * 1000.0));
          row.b += std::to_string(static_cast<long>(ms));
        }
        if (tty) std::fprintf(stderr, "%s: %zu games ...\n", row.label.c_str(), games);
        const auto records = gsearch::arena::play_match(
            Position{}, [&] { return AgentHandle(make_agent(row.a)); },
            [&] { return AgentHandle(make_agent(row.b)); },
            {.games = games, .threads = o->threads, .seed = o->seed});
        const auto s = gsearch::arena::summarize(records);
        if (row.label == "hybrid vs teacher, N=30") hybrid_seconds = s.seconds_per_move[0];
        results.push_back({row, s});
        std::printf("%-36s %5zu games  %6s%%  [%5s, %5s]  paper %s\n", row.label.c_str(), s.games,
                    percent(s.score / static_cast<double>(s.games)).c_str(),
                    percent(s.score_ci.low).c_str(), percent(s.score_ci.high).c_str(),
                    row.paper >= 0 ? (percent(row.paper) + "%").c_str() : "-");
        std::fflush(stdout);
      }
      // The report.
      std::ostringstream md;
      md << "# Reproduction of the paper's experiments\n\n";
      md << "Produced by:\n\n```sh\n" << invocation << "\n```\n\n";
      md << "Win rate of the first agent, " << games
         << " games per row (pairs of games share a random opening and "
         << "swap colours), with the Wilson 95% interval; the paper's number from §5.3–5.5 beside "
            "it.\n\n";
      md << "| match | games | win rate | 95% interval | paper | time per move (A / B) "
            "|\n|---|---|---|---|---|---|\n";
      std::vector<plot::Bar> bars;
      for (const auto& r : results) {
        const double w = r.summary.score / static_cast<double>(r.summary.games);
        char times[64];
        std::snprintf(times, sizeof times, "%.1f / %.1f ms", 1000 * r.summary.seconds_per_move[0],
                      1000 * r.summary.seconds_per_move[1]);
        md << "| " << r.row.label << " | " << r.summary.games << " | " << percent(w) << "% | ["
           << percent(r.summary.score_ci.low) << ", " << percent(r.summary.score_ci.high) << "] | "
           << (r.row.paper >= 0 ? percent(r.row.paper) + "%" : "—") << " | " << times << " |\n";
        bars.push_back(
            {r.row.label, w, r.summary.score_ci.low, r.summary.score_ci.high, r.row.paper});
      }
      md << "\nAgents: `" << rows[0].a
         << "` and the others as listed, with the shipped weights unless `--uctae`/`--gatae` "
            "say otherwise. The equal-time rows give the classic agent the hybrid agent's "
            "measured time per move (from the N=30 teacher row), rounded to whole milliseconds; "
            "a classic agent cannot stop before its first step (e.g. scoring every first move "
            "of the position), so the last column shows the time it actually used. "
            "docs/paper-mapping.md says how each agent reads the paper.\n\n![win "
            "rates](reproduction.svg)\n";
      const std::filesystem::path dir(o->out);
      std::filesystem::create_directories(dir);
      paper::write_file(dir / "reproduction.md", md.str());
      paper::write_file(
          dir / "reproduction.svg",
          plot::bar_chart(
              "Win rate of the hybrid agent (ours: bars, 95% intervals; paper: red marks)",
              "win rate", bars, "paper"));
      std::printf("wrote %s and %s\n", (dir / "reproduction.md").c_str(),
                  (dir / "reproduction.svg").c_str());
    });
  }
}

}  // namespace amazons::cli
