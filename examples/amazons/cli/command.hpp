// The `amazons` command: shared pieces of its subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "amazons/rules/position.hpp"

namespace amazons::cli {

// Exit codes: 0 success, 1 a failure while running (e.g. a file that cannot be written),
// 2 bad input (options, FEN, moves, files to read).
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// Bad input found after option parsing: main() prints the message on one line, exits 2.
class BadInput : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --fen and --moves, shared by the subcommands that start from a position.
struct PositionOptions {
  std::string fen{Position::kStartFen};
  std::vector<std::string> moves;

  void add_to(CLI::App& cmd) {
    cmd.add_option("--fen", fen, "Start position in FEN (default: the 10x10 start)");
    cmd.add_option("--moves", moves, "Moves to play first, e.g. d1-d6/g9 a7a5,a5b5");
  }
  // The position after the moves; NotationError names the FEN or the move that is wrong.
  [[nodiscard]] Position resolve() const {
    Position pos = Position::from_fen(fen);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (pos.is_terminal())
        throw NotationError("move " + std::to_string(i + 1) + " \"" + moves[i] +
                            "\": the game is already over");
      try {
        pos.apply(pos.parse_move(moves[i]));
      } catch (const NotationError& e) {
        throw NotationError("move " + std::to_string(i + 1) + ": " + e.what());
      }
    }
    return pos;
  }
};

// Subcommand registration: each adds its subcommands with their callbacks.
void add_rules_commands(CLI::App& app);                         // perft, show, legal
void add_match_commands(CLI::App& app);                         // agents, match, replay
void add_play_commands(CLI::App& app);                          // play, analyze, engine
void add_paper_commands(CLI::App& app, int argc, char** argv);  // train, reproduce
void add_label_commands(CLI::App& app);                         // label, teacher-serve
void add_solve_commands(CLI::App& app);                         // solve

}  // namespace amazons::cli
