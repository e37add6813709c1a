// cli/engine_session.hpp — the engine protocol (docs/engine-protocol.md) as a session object:
// one command line in, at most one answer line out. `amazons engine` feeds it stdin line by
// line; the fuzz target fuzz/engine_line.cpp feeds it arbitrary lines.
#pragma once

#include <charconv>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "amazons/players/agents.hpp"
#include "gsearch/core/budget.hpp"

namespace amazons::cli {

class EngineSession {
 public:
  // Throws SpecError when `spec` is not an agent spec.
  explicit EngineSession(std::string_view spec) : agent_(make_agent(spec)) { agent_->reset(seed_); }

  // Handles one command line (without its '\n'): its one answer line, "error ..." for a
  // command that failed (the session goes on), or nothing after "quit". Never throws for bad
  // input: every std::exception of a command becomes an "error" answer.
  std::optional<std::string> handle(std::string_view line) {
    const auto w = words(line);
    if (w.empty()) return "error empty command";
    const std::string& cmd = w[0];
    try {
      if (cmd == "quit") return std::nullopt;
      if (cmd == "new") {
        pos_ = Position{};
        agent_->reset(++seed_);
        return "ok";
      }
      if (cmd == "position") return position(w);
      if (cmd == "play") {
        if (w.size() != 2) return "error usage: play MOVE";
        if (pos_.is_terminal()) return "error the game is over";
        pos_.apply(pos_.parse_move(w[1]));
        return "ok";
      }
      if (cmd == "go") return go(w);
      if (cmd == "agent") {
        if (w.size() != 2) return "error usage: agent SPEC";
        agent_ = make_agent(w[1]);
        agent_->reset(seed_);
        return "ok";
      }
      if (cmd == "fen") return "fen " + pos_.fen();
      return "error unknown command " + detail::quoted(cmd) +
             " (new, position, play, go, agent, fen, quit)";
    } catch (const std::exception& e) {
      return std::string("error ") + e.what();
    }
  }

  // The words of `line`, split at whitespace.
  static std::vector<std::string> words(std::string_view line) {
    std::istringstream in{std::string(line)};
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
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

  // go | go iters N | go ms T, N and T whole numbers in [1, 10^9].
  std::string go(const std::vector<std::string>& w) {
    std::optional<gsearch::Budget> budget;
    if (w.size() > 1) {
      const std::string& kind = w[1];
      if (kind != "iters" && kind != "ms")
        return "error go: " + detail::quoted(kind) +
               " is not iters or ms (go, go iters N, go ms T)";
      if (w.size() != 3) return "error go: " + kind + " needs one number (go " + kind + " N)";
      const std::string& v = w[2];
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || n == 0 || n > 1'000'000'000)
        return "error go: " + detail::quoted(v) + " is not a whole number in [1, 1000000000]";
      if (kind == "iters")
        budget = gsearch::Budget{.iterations = n, .nodes = n};
      else
        budget = gsearch::Budget::millis(static_cast<double>(n));
    }
    if (pos_.is_terminal()) return "bestmove none";
    return "bestmove " + pos_.move_to_string(agent_->choose(pos_, budget));
  }

  std::unique_ptr<Agent> agent_;
  Position pos_;
  std::uint64_t seed_ = 1;
};

}  // namespace amazons::cli
