// amazons play | analyze | engine — a person, an analyst, or another program against an agent.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "amazons/players/agents.hpp"
#include "amazons/rules/render.hpp"
#include "cli/command.hpp"
#include "cli/engine_session.hpp"

namespace amazons::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string line_of(const Position& pos, const std::vector<Move>& moves) {
  std::string out;
  Position p = pos;
  for (const Move& m : moves) {
    if (p.is_terminal() || !gsearch::is_legal(p, m)) break;
    out += (out.empty() ? "" : " ") + p.move_to_string(m);
    p.apply(m);
  }
  return out;
}

}  // namespace

void add_play_commands(CLI::App& app) {
  {
    struct Opts {
      std::string agent = "invader:ms=1000";
      std::string colour = "white";
      std::string fen{Position::kStartFen};
      std::uint64_t seed = 1;
      bool ascii = false;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand("play", "Play against an agent in the terminal");
    cmd->add_option("--agent,-a", o->agent, "The opponent's spec");
    cmd->add_option("--colour,--color", o->colour, "Your colour")
        ->check(CLI::IsMember({"white", "black"}));
    cmd->add_option("--fen", o->fen, "Start position");
    add_seed(*cmd, "--seed", o->seed, "The agent's seed");
    cmd->add_flag("--ascii", o->ascii, "Draw the board in plain ASCII");
    cmd->callback([o] {
      auto agent = make_agent(o->agent);
      agent->reset(o->seed);
      Position pos = Position::from_fen(o->fen);
      const Player human = o->colour == "white" ? kWhite : kBlack;
      const RenderStyle style = o->ascii ? RenderStyle::kAscii : RenderStyle::kUnicode;
      Bitboard last = 0;
      std::printf("You play %s against %s. Moves look like d1-d6/g9; 'quit' to stop.\n",
                  o->colour.c_str(), agent->name().c_str());
      while (!pos.is_terminal()) {
        std::fputs(render(pos, style, last).c_str(), stdout);
        Move m;
        if (pos.to_move() == human) {
          std::printf("your move> ");
          std::fflush(stdout);
          std::string line;
          const LineRead r = read_line(std::cin, line, kMaxInputLine);
          if (r == LineRead::kEnd) return;
          if (r == LineRead::kTooLong) {
            std::printf("that line is longer than %zu bytes\n", kMaxInputLine);
            continue;
          }
          line = trim(line);
          if (line == "quit" || line == "resign") return;
          try {
            m = pos.parse_move(line);
          } catch (const NotationError& e) {
            std::printf("%s\n", e.what());
            continue;
          }
        } else {
          m = agent->choose(pos);
          std::printf("%s plays %s\n", agent->name().c_str(), pos.move_to_string(m).c_str());
        }
        last = bit(m.from) | bit(m.to) | bit(m.arrow);
        pos.apply(m);
      }
      std::fputs(render(pos, style, last).c_str(), stdout);
      std::printf("%s\n", pos.to_move() == human ? "You cannot move: you lose."
                                                 : "Your opponent cannot move: you win.");
    });
  }
  {
    auto position = std::make_shared<PositionOptions>();
    auto spec = std::make_shared<std::string>("invader:iters=3000");
    auto* cmd = app.add_subcommand("analyze", "Search a position and show the best move and line");
    position->add_to(*cmd);
    cmd->add_option("--agent,-a", *spec, "The analysing agent's spec");
    cmd->callback([position, spec] {
      const Position pos = position->resolve();
      if (pos.is_terminal()) {
        std::printf("%s cannot move: the game is over\n",
                    pos.to_move() == kWhite ? "White" : "Black");
        return;
      }
      auto agent = make_agent(*spec);
      agent->reset(1);
      const Move m = agent->choose(pos);
      const SearchInfo& info = agent->info();
      std::printf("agent     %s\n", agent->name().c_str());
      std::printf("bestmove  %s\n", pos.move_to_string(m).c_str());
      std::printf("line      %s\n", line_of(pos, info.pv).c_str());
      std::printf("value     %+.3f for %s\n", info.value,
                  pos.to_move() == kWhite ? "White" : "Black");
      std::printf("searched  %llu %s in %.3f s (%.0f/s)%s\n",
                  static_cast<unsigned long long>(info.iterations),
                  info.depth ? "nodes" : "iterations", info.seconds,
                  info.seconds > 0 ? static_cast<double>(info.iterations) / info.seconds : 0.0,
                  info.depth ? (", depth " + std::to_string(info.depth)).c_str() : "");
      if (!info.details.empty()) std::printf("%s", info.details.c_str());
    });
  }
  {
    auto spec = std::make_shared<std::string>("invader:ms=1000");
    auto* cmd = app.add_subcommand(
        "engine", "Speak the line protocol of docs/engine-protocol.md on stdin/stdout");
    cmd->add_option("--agent,-a", *spec, "The engine's agent spec");
    cmd->callback([spec] {
      EngineSession engine(*spec);
      std::string line;
      for (LineRead r; (r = read_line(std::cin, line, kMaxInputLine)) != LineRead::kEnd;) {
        if (r == LineRead::kTooLong) {
          std::printf("error the line is longer than %zu bytes\n", kMaxInputLine);
          std::fflush(stdout);
          continue;
        }
        const auto answer = engine.handle(line);
        if (!answer) break;
        std::printf("%s\n", answer->c_str());
        std::fflush(stdout);
      }
    });
  }
}

}  // namespace amazons::cli
