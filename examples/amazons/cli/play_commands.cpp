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

namespace amazons::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
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

// The engine protocol (docs/engine-protocol.md): one command per line on stdin, exactly one
// answer line on stdout for every command except quit.
class Engine {
 public:
  explicit Engine(std::string spec) : agent_(make_agent(spec)) { agent_->reset(seed_); }

  // Handles one line; returns false after quit.
  bool handle(const std::string& raw, std::string& answer) {
    const auto w = words(raw);
    if (w.empty()) return answer = "error empty command", true;
    const std::string& cmd = w[0];
    try {
      if (cmd == "quit") return false;
      if (cmd == "new") {
        pos_ = Position{};
        agent_->reset(++seed_);
        answer = "ok";
      } else if (cmd == "position") {
        answer = position(w);
      } else if (cmd == "play") {
        if (w.size() != 2) return answer = "error usage: play MOVE", true;
        if (pos_.is_terminal()) return answer = "error the game is over", true;
        pos_.apply(pos_.parse_move(w[1]));
        answer = "ok";
      } else if (cmd == "go") {
        answer = go(w);
      } else if (cmd == "agent") {
        if (w.size() != 2) return answer = "error usage: agent SPEC", true;
        agent_ = make_agent(w[1]);
        agent_->reset(seed_);
        answer = "ok";
      } else if (cmd == "fen") {
        answer = "fen " + pos_.fen();
      } else {
        answer =
            "error unknown command \"" + cmd + "\" (new, position, play, go, agent, fen, quit)";
      }
    } catch (const std::exception& e) {
      answer = std::string("error ") + e.what();
    }
    return true;
  }

 private:
  std::string position(const std::vector<std::string>& w) {
    // position FEN... [moves m1 m2 ...] | position startpos [moves ...]; the FEN has up to 6
    // fields, ended by "moves" or the end of the line.
    std::size_t i = 1;
    std::string fen;
    for (; i < w.size() && w[i] != "moves"; ++i) fen += (fen.empty() ? "" : " ") + w[i];
    if (fen.empty()) return "error usage: position FEN|startpos [moves MOVE...]";
    Position p = fen == "startpos" ? Position{} : Position::from_fen(fen);
    if (i < w.size()) ++i;  // "moves"
    for (std::size_t k = 1; i < w.size(); ++i, ++k) {
      if (p.is_terminal()) return "error move " + std::to_string(k) + ": the game is already over";
      try {
        p.apply(p.parse_move(w[i]));
      } catch (const NotationError& e) {
        return "error move " + std::to_string(k) + ": " + e.what();
      }
    }
    pos_ = p;
    return "ok";
  }

  std::string go(const std::vector<std::string>& w) {
    std::optional<gsearch::Budget> budget;
    if (w.size() == 3) {
      const std::string& v = w[2];
      std::size_t used = 0;
      long long n = -1;
      try {
        n = std::stoll(v, &used);
      } catch (const std::exception&) {}
      if (n <= 0 || used != v.size()) return "error go: \"" + v + "\" is not a positive number";
      if (w[1] == "iters")
        budget = gsearch::Budget{.iterations = static_cast<std::uint64_t>(n),
                                 .nodes = static_cast<std::uint64_t>(n)};
      else if (w[1] == "ms")
        budget = gsearch::Budget::millis(static_cast<double>(n));
      else
        return "error usage: go [iters N | ms T]";
    } else if (w.size() != 1) {
      return "error usage: go [iters N | ms T]";
    }
    if (pos_.is_terminal()) return "bestmove none";
    return "bestmove " + pos_.move_to_string(agent_->choose(pos_, budget));
  }

  std::unique_ptr<Agent> agent_;
  Position pos_;
  std::uint64_t seed_ = 1;
};

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
    cmd->add_option("--seed", o->seed, "The agent's seed");
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
          if (!std::getline(std::cin, line)) return;
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
      Engine engine(*spec);
      std::string line, answer;
      while (std::getline(std::cin, line)) {
        if (!engine.handle(line, answer)) break;
        std::printf("%s\n", answer.c_str());
        std::fflush(stdout);
      }
    });
  }
}

}  // namespace amazons::cli
