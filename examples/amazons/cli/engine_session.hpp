// cli/engine_session.hpp — the engine protocol (docs/engine-protocol.md) as a session object:
// one command line in, at most one answer line out. `amazons engine` feeds it stdin line by
// line; the fuzz target fuzz/engine_line.cpp feeds it arbitrary lines.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "amazons/players/agents.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/clock.hpp"

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
      if (cmd == "time") {
        if (!last_time_) return "time none";
        char buf[96];
        std::snprintf(buf, sizeof buf, "time allotted %.0f ms used %.0f ms", last_time_->first,
                      last_time_->second);
        return buf;
      }
      return "error unknown command " + detail::quoted(cmd) +
             " (new, position, play, go, agent, fen, time, quit)";
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
  // A whole number in [lo, 1e9] from a go argument, or an error answer in `error`.
  static std::optional<std::uint64_t> go_number(const std::string& v, std::uint64_t lo,
                                                std::string& error) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc() && end == v.data() + v.size() && n >= lo && n <= 1'000'000'000) return n;
    error = "error go: " + detail::quoted(v) + " is not a whole number in [" + std::to_string(lo) +
            ", 1000000000]";
    return std::nullopt;
  }

  // go wtime W btime B [winc I] [binc I] [movestogo N]: the mover's clock, its budget by
  // gsearch::move_time_ms.
  std::string go_clock(const std::vector<std::string>& w) {
    std::optional<std::uint64_t> times[2], incs[2], to_go;
    for (std::size_t i = 1; i < w.size(); i += 2) {
      const std::string& key = w[i];
      if (i + 1 >= w.size()) return "error go: " + key + " needs one number";
      std::optional<std::uint64_t>* slot = key == "wtime"       ? &times[kWhite]
                                           : key == "btime"     ? &times[kBlack]
                                           : key == "winc"      ? &incs[kWhite]
                                           : key == "binc"      ? &incs[kBlack]
                                           : key == "movestogo" ? &to_go
                                                                : nullptr;
      if (!slot)
        return "error go: " + detail::quoted(key) + " is not wtime, btime, winc, binc or movestogo";
      std::string error;
      *slot = go_number(w[i + 1], key == "movestogo" ? 1 : 0, error);
      if (!*slot) return error;
    }
    const int me = pos_.to_move();
    if (!times[me])
      return std::string("error go: the mover's clock is missing (") +
             (me == kWhite ? "wtime" : "btime") + ")";
    if (pos_.is_terminal()) return "bestmove none";
    const gsearch::GameClock clock{.remaining_ms = static_cast<double>(*times[me]),
                                   .increment_ms = static_cast<double>(incs[me].value_or(0)),
                                   .moves_to_go = static_cast<int>(to_go.value_or(0))};
    const double allotted = gsearch::move_time_ms(clock, pos_.turns_played() / 2);
    gsearch::Stopwatch watch;
    const Move m = agent_->choose(pos_, gsearch::Budget::millis(allotted));
    last_time_.emplace(allotted, 1e3 * watch.seconds());
    return "bestmove " + pos_.move_to_string(m);
  }

  std::string go(const std::vector<std::string>& w) {
    std::optional<gsearch::Budget> budget;
    if (w.size() > 1 && (w[1] == "wtime" || w[1] == "btime")) return go_clock(w);
    if (w.size() > 1) {
      const std::string& kind = w[1];
      if (kind != "iters" && kind != "ms")
        return "error go: " + detail::quoted(kind) +
               " is not iters, ms, wtime or btime (go, go iters N, go ms T, go wtime W btime B "
               "...)";
      if (w.size() != 3) return "error go: " + kind + " needs one number (go " + kind + " N)";
      std::string error;
      const auto n = go_number(w[2], 1, error);
      if (!n) return error;
      if (kind == "iters")
        budget = gsearch::Budget{.iterations = *n, .nodes = *n};
      else
        budget = gsearch::Budget::millis(static_cast<double>(*n));
    }
    if (pos_.is_terminal()) return "bestmove none";
    return "bestmove " + pos_.move_to_string(agent_->choose(pos_, budget));
  }

  std::unique_ptr<Agent> agent_;
  Position pos_;
  std::optional<std::pair<double, double>> last_time_;  // the last clocked go: allotted, used
  std::uint64_t seed_ = 1;
};

}  // namespace amazons::cli
