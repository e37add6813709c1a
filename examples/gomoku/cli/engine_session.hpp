// cli/engine_session.hpp — the Gomoku engine protocol as a session object: one command line
// in, at most one answer line out. The protocol is the one of `amazons engine`
// (docs/engine-protocol.md) with Gomoku's positions (docs/gomoku.md); `gomoku engine` feeds
// it stdin line by line.
//
//   new                               the empty board of the session's size and k
//   position TEXT|startpos [moves M...]
//   play MOVE
//   go | go iters N | go ms T | go btime B wtime W [binc I] [winc I] [movestogo N]
//   agent SPEC
//   text                              the position in the one-line text format
//   time                              the last clocked go: time allotted and used
//   quit
// Answers: "ok", "bestmove h8" (or "bestmove none" when the game is over), "text ...",
// "time ...", or "error ..." for a command that failed (the session goes on).
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

#include "gomoku/players/agents.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/clock.hpp"

namespace gomoku::cli {

class EngineSession {
 public:
  // Throws SpecError when `spec` is not an agent spec.
  EngineSession(std::string_view spec, const Position& start)
      : agent_(make_agent(spec)), start_(start), pos_(start) {
    agent_->reset(seed_);
  }

  // Handles one command line (without its '\n'): its one answer line, or nothing after
  // "quit". Never throws for bad input: every std::exception of a command becomes an "error"
  // answer.
  std::optional<std::string> handle(std::string_view line) {
    const auto w = words(line);
    if (w.empty()) return "error empty command";
    const std::string& cmd = w[0];
    try {
      if (cmd == "quit") return std::nullopt;
      if (cmd == "new") {
        if (w.size() != 1) return "error usage: new";
        pos_ = start_;
        agent_->reset(++seed_);
        return "ok";
      }
      if (cmd == "position") return position(w);
      if (cmd == "play") {
        if (w.size() != 2) return "error usage: play MOVE";
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
      if (cmd == "text") return "text " + pos_.text();
      if (cmd == "time") {
        if (!last_time_) return "time none";
        char buf[96];
        std::snprintf(buf, sizeof buf, "time allotted %.0f ms used %.0f ms", last_time_->first,
                      last_time_->second);
        return buf;
      }
      std::string shown = cmd.size() > 40 ? cmd.substr(0, 40) + "..." : cmd;
      return "error unknown command \"" + shown +
             "\" (new, position, play, go, agent, text, time, quit)";
    } catch (const std::exception& e) {
      return std::string("error ") + e.what();
    }
  }

  [[nodiscard]] const Position& position() const noexcept { return pos_; }

  // The words of `line`, split at whitespace.
  static std::vector<std::string> words(std::string_view line) {
    std::istringstream in{std::string(line)};
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }

 private:
  // position TEXT [moves ...] | position startpos [moves ...]; TEXT has 3 or 4 fields, ended
  // by "moves" or the end of the line.
  std::string position(const std::vector<std::string>& w) {
    std::size_t i = 1;
    std::string text;
    for (; i < w.size() && w[i] != "moves"; ++i) text += (text.empty() ? "" : " ") + w[i];
    if (text.empty()) return "error usage: position TEXT|startpos [moves MOVE...]";
    Position p = text == "startpos" ? start_ : Position::from_text(text);
    if (i < w.size()) ++i;  // "moves"
    for (std::size_t k = 1; i < w.size(); ++i, ++k) {
      try {
        p.apply(p.parse_move(w[i]));
      } catch (const NotationError& e) {
        return "error move " + std::to_string(k) + ": " + e.what();
      }
    }
    pos_ = p;
    return "ok";
  }

  // A whole number in [lo, 1e9] from a go argument, or an error answer in `error`.
  static std::optional<std::uint64_t> go_number(const std::string& v, std::uint64_t lo,
                                                std::string& error) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc() && end == v.data() + v.size() && n >= lo && n <= 1'000'000'000) return n;
    const std::string shown = v.size() > 40 ? v.substr(0, 40) + "..." : v;
    error = "error go: \"" + shown + "\" is not a whole number in [" + std::to_string(lo) +
            ", 1000000000]";
    return std::nullopt;
  }

  // go btime B wtime W [binc I] [winc I] [movestogo N]: the mover's clock, its budget by
  // gsearch::move_time_ms. Black is player 0 (btime), White player 1 (wtime).
  std::string go_clock(const std::vector<std::string>& w) {
    std::optional<std::uint64_t> times[2], incs[2], to_go;
    for (std::size_t i = 1; i < w.size(); i += 2) {
      const std::string& key = w[i];
      if (i + 1 >= w.size()) return "error go: " + key + " needs one number";
      std::optional<std::uint64_t>* slot = key == "btime"       ? &times[kBlack]
                                           : key == "wtime"     ? &times[kWhite]
                                           : key == "binc"      ? &incs[kBlack]
                                           : key == "winc"      ? &incs[kWhite]
                                           : key == "movestogo" ? &to_go
                                                                : nullptr;
      if (!slot) return "error go: \"" + key + "\" is not btime, wtime, binc, winc or movestogo";
      std::string error;
      *slot = go_number(w[i + 1], key == "movestogo" ? 1 : 0, error);
      if (!*slot) return error;
    }
    const int me = pos_.to_move();
    if (!times[me])
      return std::string("error go: the mover's clock is missing (") +
             (me == kBlack ? "btime" : "wtime") + ")";
    if (pos_.is_terminal()) return "bestmove none";
    const gsearch::GameClock clock{.remaining_ms = static_cast<double>(*times[me]),
                                   .increment_ms = static_cast<double>(incs[me].value_or(0)),
                                   .moves_to_go = static_cast<int>(to_go.value_or(0))};
    const double allotted = gsearch::move_time_ms(clock, pos_.stone_count() / 2);
    gsearch::Stopwatch watch;
    const Move m = agent_->choose(pos_, gsearch::Budget::millis(allotted));
    last_time_.emplace(allotted, 1e3 * watch.seconds());
    return "bestmove " + pos_.move_to_string(m);
  }

  std::string go(const std::vector<std::string>& w) {
    std::optional<gsearch::Budget> budget;
    if (w.size() > 1 && (w[1] == "btime" || w[1] == "wtime")) return go_clock(w);
    if (w.size() > 1) {
      const std::string& kind = w[1];
      if (kind != "iters" && kind != "ms") {
        const std::string shown = kind.size() > 40 ? kind.substr(0, 40) + "..." : kind;
        return "error go: \"" + shown +
               "\" is not iters, ms, btime or wtime (go, go iters N, go ms T, go btime B wtime W "
               "...)";
      }
      if (w.size() != 3) return "error go: " + kind + " needs one number (go " + kind + " N)";
      std::string error;
      const auto n = go_number(w[2], 1, error);
      if (!n) return error;
      if (kind == "iters")
        budget = gsearch::Budget::iters(*n);
      else
        budget = gsearch::Budget::millis(static_cast<double>(*n));
    }
    if (pos_.is_terminal()) return "bestmove none";
    return "bestmove " + pos_.move_to_string(agent_->choose(pos_, budget));
  }

  std::unique_ptr<Agent> agent_;
  Position start_, pos_;
  std::optional<std::pair<double, double>> last_time_;  // the last clocked go: allotted, used
  std::uint64_t seed_ = 1;
};

}  // namespace gomoku::cli
