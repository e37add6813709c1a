// amazons book — an opening book of balanced positions, for matches and tournaments (--book).
//
//   amazons book --out FILE [--fen FEN] [--turns N] [--count K] [--seed S] [--agent SPEC]
//                [--margin M]
//
// Plays N uniformly random turns from the start, K times over with seeds derived from S and
// the attempt's number, and keeps the distinct positions whose value for the player to move,
// by the agent's search (`ab:depth=1` by default: the Lieberum evaluation one ply ahead), is
// within ±M of level. Paired games from a level opening measure the players rather than the
// opening. The file starts with comment lines naming the command; each opening is a FEN.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_set>

#include "amazons/players/agents.hpp"
#include "cli/command.hpp"
#include "gsearch/core/file.hpp"
#include "gsearch/core/rng.hpp"

namespace amazons::cli {

void add_book_commands(CLI::App& app) {
  struct Opts {
    std::string out, fen{Position::kStartFen}, agent{"ab:depth=1"};
    std::size_t turns = 2, count = 100;
    std::uint64_t seed = 1;
    double margin = 0.1;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("book", "Write an opening book of balanced random openings");
  cmd->add_option("--out,-o", o->out, "The book file to write")->required();
  cmd->add_option("--fen", o->fen, "Start position (default: the 10x10 start)");
  add_number(*cmd, "--turns", o->turns, "Random turns in each opening", std::size_t{1},
             std::size_t{40});
  add_number(*cmd, "--count,-n", o->count, "Openings to write", std::size_t{1},
             std::size_t{100000});
  add_seed(*cmd, "--seed,-s", o->seed, "Seed: the same seed writes the same book");
  cmd->add_option("--agent,-a", o->agent, "The agent whose value judges an opening");
  add_number(*cmd, "--margin", o->margin,
             "Keep openings whose value for the player to move is within this of 0", 0.0, 1.0);
  cmd->callback([o] {
    const Position start = Position::from_fen(o->fen);
    auto agent = make_agent(o->agent);
    check_output_file(o->out);
    std::string text = "# amazons book --fen \"" + start.fen() + "\" --turns " +
                       std::to_string(o->turns) + " --count " + std::to_string(o->count) +
                       " --seed " + std::to_string(o->seed) + " --agent " + agent->name() +
                       " --margin " + number_text(o->margin) + "\n";
    std::unordered_set<std::uint64_t> seen;
    std::size_t kept = 0, tries = 0;
    const std::size_t max_tries = 1000 * o->count;
    double value_sum = 0;
    for (; kept < o->count && tries < max_tries; ++tries) {
      gsearch::Rng rng(gsearch::derive_seed(o->seed, tries));
      Position pos = start;
      for (std::size_t t = 0; t < o->turns && !pos.is_terminal(); ++t)
        pos.apply(pos.random_move(rng));
      if (pos.is_terminal() || !seen.insert(pos.hash()).second) continue;
      agent->reset(1);
      agent->choose(pos);
      const double value = agent->info().value;
      if (std::abs(value) > o->margin) continue;
      text += pos.fen() + "\n";
      value_sum += std::abs(value);
      ++kept;
    }
    if (kept < o->count)
      throw BadInput("book: only " + std::to_string(kept) + " of " + std::to_string(o->count) +
                     " openings within ±" + number_text(o->margin) + " after " +
                     std::to_string(tries) + " tries; widen --margin or use fewer --turns");
    gsearch::write_file_atomically(o->out, text);
    std::printf("%zu openings of %zu turns written to %s (%zu tried; mean |value| %.3f)\n", kept,
                o->turns, o->out.c_str(), tries, value_sum / static_cast<double>(kept));
  });
}

}  // namespace amazons::cli
