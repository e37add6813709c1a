// gomoku/players/agents.hpp — Gomoku players built from a text spec, for matches, the engine
// protocol, analysis and play.
//
// A spec is a name and optional parameters, "mcts:playouts=1000,window=6,threats=1".
// `gomoku agents` lists every agent with its parameters and defaults (describe_agents()).
// Agents are one per thread; each call of choose() searches afresh from the given position
// within the agent's budget (or the budget passed in).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gomoku/learn/network.hpp"
#include "gomoku/players/candidates.hpp"
#include "gomoku/rules/position.hpp"
#include "gsearch/core/budget.hpp"
#include "gsearch/core/clock.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/mcts/mcts.hpp"

namespace gomoku {

// A malformed spec: unknown agent, unknown parameter, bad value. One line.
class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What the last choose() found, for `gomoku analyze` and the engine's "info" line.
struct SearchInfo {
  std::vector<Move> pv;          // best line, first move first (may be just the move)
  double value = 0.0;            // for the player to move, in [-1, 1] (0 when unknown)
  std::uint64_t iterations = 0;  // MCTS playouts (0 for agents that do not search)
  std::size_t candidates = 0;    // moves the agent considered at the root
  double seconds = 0.0;
};

class Agent {
 public:
  virtual ~Agent() = default;
  // The canonical spec, every parameter included.
  [[nodiscard]] virtual std::string name() const = 0;
  // A new game begins: all randomness derives from `seed`.
  virtual void reset(std::uint64_t seed) = 0;
  // A legal move in `pos` (not terminal), within the agent's budget, or within `budget` when
  // given (playouts for MCTS; time for all).
  virtual Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) = 0;
  Move choose(const Position& pos) { return choose(pos, std::nullopt); }
  [[nodiscard]] const SearchInfo& info() const noexcept { return info_; }

 protected:
  SearchInfo info_;
};

namespace detail {

// name:key=value,... → name and the parameters, each key once.
struct Spec {
  std::string name;
  std::map<std::string, std::string, std::less<>> params;
  std::string text;

  // The parameter `key` as a number in [lo, hi], or `fallback` when absent; SpecError otherwise.
  template <class T>
  T number(std::string_view key, T fallback, T lo, T hi) {
    const auto it = params.find(key);
    if (it == params.end()) return fallback;
    const std::string v = it->second;
    params.erase(it);
    T x{};
    const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || ptr != v.data() + v.size() || !(x >= lo && x <= hi) || v.empty())
      throw SpecError("agent \"" + text + "\": " + std::string(key) + "=" + v + " is not a " +
                      (std::is_floating_point_v<T> ? "number" : "whole number") + " in [" +
                      gsearch_text(lo) + ", " + gsearch_text(hi) + "]");
    return x;
  }
  // Fails when a parameter was not used by the agent.
  void finish(std::string_view known) const {
    if (!params.empty())
      throw SpecError("agent \"" + text + "\": unknown parameter \"" + params.begin()->first +
                      "\" (" + name + " takes " + std::string(known) + ")");
  }
  template <class T>
  static std::string gsearch_text(T v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }
};

inline Spec parse_spec(std::string_view text) {
  Spec s;
  s.text = std::string(text.size() > 200 ? text.substr(0, 200) : text);
  const std::size_t colon = text.find(':');
  s.name = std::string(text.substr(0, colon));
  if (s.name.empty())
    throw SpecError("agent \"" + s.text + "\": no agent name (gomoku agents lists them)");
  if (colon == std::string_view::npos) return s;
  const std::string_view rest = text.substr(colon + 1);
  for (std::size_t i = 0; i <= rest.size();) {
    std::size_t j = rest.find(',', i);
    if (j == std::string_view::npos) j = rest.size();
    const std::string_view part = rest.substr(i, j - i);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == part.size())
      throw SpecError("agent \"" + s.text + "\": \"" + std::string(part) + "\" is not key=value");
    const auto [it, fresh] =
        s.params.emplace(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    if (!fresh) throw SpecError("agent \"" + s.text + "\": " + it->first + " given twice");
    i = j + 1;
  }
  return s;
}

inline std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace detail

// random: a legal move drawn uniformly.
class RandomAgent final : public Agent {
 public:
  [[nodiscard]] std::string name() const override { return "random"; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    info_ = {};
    info_.candidates = pos.count_moves();
    const Move m = pos.random_move(rng_);
    info_.pv = {m};
    return m;
  }

 private:
  gsearch::Rng rng_{1};
};

// greedy: one ply of pattern knowledge. It wins at once when it can, else blocks the
// opponent's immediate win, else plays the move with the best score
//     Σ over the 4 directions of  s(own line through the cell) + s(opponent's line it blocks),
//     s(line) = length² × (1 + open ends)  for lines of 2 or more, else 0,
// plus a small pull to the centre; ties are broken at random.
class GreedyAgent final : public Agent {
 public:
  [[nodiscard]] std::string name() const override { return "greedy"; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    info_ = {};
    gsearch::MoveListOf<Position> moves;
    pos.legal_moves(moves);
    info_.candidates = moves.size();
    const Player me = pos.to_move(), opp = gsearch::opponent(me);
    double best = -1;
    Move choice = moves[0];
    std::uint64_t ties = 0;
    for (const Move& m : moves) {
      const double s = score(pos, m.cell, me, opp);
      if (s > best) {
        best = s;
        choice = m;
        ties = 1;
      } else if (s == best && rng_.below(++ties) == 0) {
        choice = m;
      }
    }
    info_.pv = {choice};
    return choice;
  }

  // The score above of placing on the empty `cell`.
  static double score(const Position& pos, int cell, Player me, Player opp) {
    if (pos.wins_at(cell, me)) return 1e9;
    if (pos.wins_at(cell, opp)) return 1e8;
    double s = 0;
    for (Player p : {me, opp})
      for (int d = 0; d < 4; ++d) {
        const int fwd = pos.run_from(cell, p, d, 1), back = pos.run_from(cell, p, d, -1);
        const int len = 1 + fwd + back;
        if (len < 2) continue;
        const int r = row_of(cell), c = col_of(cell);
        int open = 0;
        for (const auto& [dr, dc] : {std::pair{(fwd + 1) * kDirRow[d], (fwd + 1) * kDirCol[d]},
                                     std::pair{-(back + 1) * kDirRow[d], -(back + 1) * kDirCol[d]}})
          open += pos.on_board(r + dr, c + dc) && pos.empty_cells().test(cell_at(r + dr, c + dc));
        s += static_cast<double>(len * len * (1 + open));
      }
    const double dr = row_of(cell) - (pos.height() - 1) / 2.0,
                 dc = col_of(cell) - (pos.width() - 1) / 2.0;
    return s - 0.01 * std::sqrt(dr * dr + dc * dc);
  }

 private:
  gsearch::Rng rng_{1};
};

// mcts: UCT with random playouts to the end of the game — the report's "pure MCTS" opponent
// with its 1,000 playouts per move — restricted to the candidate set of candidates.hpp.
class MctsAgent final : public Agent {
 public:
  struct Params {
    std::uint64_t playouts = 1000;  // iterations per move (0 = none: a time budget must be set)
    double ms = 0;                  // time per move in milliseconds (0 = none)
    double c = 0.5;                 // UCT exploration constant, values in [-1, 1]
    bool solver = false;            // MCTS-Solver: proven wins and losses backed up
    Restriction restriction{};
  };
  using Search =
      gsearch::mcts::Search<Position, gsearch::mcts::Uct,
                            gsearch::mcts::Expansion<gsearch::mcts::NoPrior, CandidateFilter>,
                            gsearch::mcts::RandomPlayout>;

  explicit MctsAgent(const Params& p)
      : params_(p),
        search_({.solver = p.solver}, gsearch::mcts::Uct{.c = p.c},
                gsearch::mcts::Expansion<gsearch::mcts::NoPrior, CandidateFilter>{
                    .filter = CandidateFilter{p.restriction}}) {}

  [[nodiscard]] std::string name() const override {
    return "mcts:playouts=" + std::to_string(params_.playouts) +
           ",ms=" + detail::number_text(params_.ms) + ",c=" + detail::number_text(params_.c) +
           ",solver=" + (params_.solver ? "1" : "0") +
           ",window=" + std::to_string(params_.restriction.window) +
           ",threats=" + std::to_string(params_.restriction.threats);
  }
  void reset(std::uint64_t seed) override { seed_ = seed; }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Stopwatch watch;
    std::uint64_t s =
        seed_ ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(pos.stone_count() + 1));
    search_.reseed(gsearch::splitmix64(s));
    search_.set_root(pos);
    gsearch::Budget b =
        budget ? *budget
               : gsearch::Budget{.iterations = params_.playouts, .seconds = params_.ms / 1000.0};
    b.nodes = 0;
    const auto stats = search_.run(b);
    const Move m = search_.best_move();
    info_ = {};
    info_.pv = search_.principal_variation(16);
    if (info_.pv.empty()) info_.pv = {m};
    for (const auto& child : search_.root_children())
      if (child.move == m) info_.value = child.q;
    info_.iterations = stats.iterations;
    info_.candidates = search_.tree().children(0).size();
    info_.seconds = watch.seconds();
    return m;
  }

 private:
  Params params_;
  Search search_;
  std::uint64_t seed_ = 1;
};

// az: AlphaZero's search — PUCT over the policy-value network's priors and values, leaves
// valued in batches — with the network of a weight file (`gomoku train` writes them), on the
// candidate set of candidates.hpp, the network's priors renormalised over it (the report's
// restricted AlphaZero) and optionally cut to the top k.
class AzAgent final : public Agent {
 public:
  struct Params {
    std::string weights;           // a weight file, or "" with a network given in code
    std::uint64_t playouts = 400;  // iterations per move (0 = none: a time budget is set)
    double ms = 0;                 // time per move in milliseconds (0 = none)
    double c = 5;                  // c_puct
    std::uint32_t batch = 8;       // leaves valued per network call
    std::uint32_t top_k = 0;       // keep the k best candidates by prior (0 = all)
    Restriction restriction{};
  };
  using Expand = gsearch::mcts::Expansion<gsearch::mcts::NoPrior, CandidateFilter>;
  using Search =
      gsearch::mcts::Search<Position, gsearch::mcts::Puct, Expand, learn::NetworkEvaluator>;

  // Reads the network from p.weights at the first move (its board size is the game's).
  explicit AzAgent(const Params& p) : params_(p) {}
  // Plays with `net` (copied).
  AzAgent(const Params& p, const gsearch::nn::PolicyValueConv& net) : params_(p) { build(net); }

  [[nodiscard]] std::string name() const override {
    return "az:weights=" +
           (params_.weights.empty() ? std::string("(in memory)") : params_.weights) +
           ",playouts=" + std::to_string(params_.playouts) +
           ",ms=" + detail::number_text(params_.ms) + ",c=" + detail::number_text(params_.c) +
           ",batch=" + std::to_string(params_.batch) +
           ",window=" + std::to_string(params_.restriction.window) +
           ",threats=" + std::to_string(params_.restriction.threats) +
           ",topk=" + std::to_string(params_.top_k);
  }
  void reset(std::uint64_t seed) override { seed_ = seed; }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Stopwatch watch;
    if (!search_ || pos.width() != width_ || pos.height() != height_) {
      if (params_.weights.empty()) throw SpecError("agent az: a network for another board size");
      build(*learn::load_network(params_.weights, pos.width(), pos.height()));
      width_ = pos.width();
      height_ = pos.height();
    }
    std::uint64_t s =
        seed_ ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(pos.stone_count() + 1));
    search_->reseed(gsearch::splitmix64(s));
    search_->set_root(pos);
    gsearch::Budget b =
        budget ? *budget
               : gsearch::Budget{.iterations = params_.playouts, .seconds = params_.ms / 1000.0};
    b.nodes = 0;
    const auto stats = search_->run(b);
    const Move m = search_->best_move();
    info_ = {};
    info_.pv = search_->principal_variation(16);
    if (info_.pv.empty()) info_.pv = {m};
    for (const auto& child : search_->root_children())
      if (child.move == m) info_.value = child.q;
    info_.iterations = stats.iterations;
    info_.candidates = search_->tree().children(0).size();
    info_.seconds = watch.seconds();
    return m;
  }

 private:
  void build(const gsearch::nn::PolicyValueConv& net) {
    width_ = static_cast<int>(net.shape().width);
    height_ = static_cast<int>(net.shape().height);
    search_.emplace(gsearch::mcts::Params{.batch = params_.batch},
                    gsearch::mcts::Puct{.c = params_.c},
                    Expand{.filter = CandidateFilter{params_.restriction}, .top_k = params_.top_k},
                    learn::NetworkEvaluator(net));
  }

  Params params_;
  std::optional<Search> search_;
  int width_ = 0, height_ = 0;
  std::uint64_t seed_ = 1;
};

// Builds an agent from its spec; throws SpecError naming the problem.
[[nodiscard]] inline std::unique_ptr<Agent> make_agent(std::string_view text) {
  detail::Spec spec = detail::parse_spec(text);
  if (spec.name == "random") {
    spec.finish("nothing");
    return std::make_unique<RandomAgent>();
  }
  if (spec.name == "greedy") {
    spec.finish("nothing");
    return std::make_unique<GreedyAgent>();
  }
  if (spec.name == "mcts") {
    MctsAgent::Params p;
    const bool time_alone = spec.params.contains("ms") && !spec.params.contains("playouts");
    p.playouts = spec.number<std::uint64_t>("playouts", p.playouts, 0, 1'000'000'000);
    p.ms = spec.number<double>("ms", p.ms, 0, 1e9);
    p.c = spec.number<double>("c", p.c, 0, 100);
    p.solver = spec.number<int>("solver", 0, 0, 1) == 1;
    p.restriction.window = spec.number<int>("window", 0, 0, kMaxSide);
    p.restriction.threats = spec.number<int>("threats", 0, 0, 3);
    spec.finish("playouts, ms, c, solver, window, threats");
    if (p.playouts == 0 && p.ms == 0)
      throw SpecError("agent \"" + spec.text + "\": playouts=0 needs a time budget (ms=T)");
    // A time given alone is the whole budget: the default playout count does not cut it short.
    if (time_alone && p.ms > 0) p.playouts = 0;
    return std::make_unique<MctsAgent>(p);
  }
  if (spec.name == "az") {
    AzAgent::Params p;
    const auto it = spec.params.find("weights");
    if (it == spec.params.end())
      throw SpecError("agent \"" + spec.text + "\": az needs weights=FILE");
    p.weights = it->second;
    spec.params.erase(it);
    try {  // read now: a file that is not a network is refused before any game starts
      (void)learn::load_network_shape(p.weights);
    } catch (const gsearch::nn::WeightFileError& e) {
      throw SpecError("agent \"" + spec.text + "\": " + e.what());
    }
    const bool time_alone = spec.params.contains("ms") && !spec.params.contains("playouts");
    p.playouts = spec.number<std::uint64_t>("playouts", p.playouts, 0, 1'000'000'000);
    p.ms = spec.number<double>("ms", p.ms, 0, 1e9);
    p.c = spec.number<double>("c", p.c, 0, 100);
    p.batch = spec.number<std::uint32_t>("batch", p.batch, 1, 1024);
    p.top_k = spec.number<std::uint32_t>("topk", 0, 0, 225);
    p.restriction.window = spec.number<int>("window", 0, 0, kMaxSide);
    p.restriction.threats = spec.number<int>("threats", 0, 0, 3);
    spec.finish("weights, playouts, ms, c, batch, window, threats, topk");
    if (p.playouts == 0 && p.ms == 0)
      throw SpecError("agent \"" + spec.text + "\": playouts=0 needs a time budget (ms=T)");
    if (time_alone && p.ms > 0) p.playouts = 0;
    return std::make_unique<AzAgent>(p);
  }
  throw SpecError("agent \"" + spec.text + "\": unknown agent \"" + spec.name +
                  "\" (random, greedy, mcts, az)");
}

// One line per agent: its name, its parameters with defaults, and what it is.
[[nodiscard]] inline std::string describe_agents() {
  return "random                 a legal move drawn uniformly\n"
         "greedy                 wins, else blocks a win, else the best one-ply line score\n"
         "mcts:playouts=1000,ms=0,c=0.5,solver=0,window=0,threats=0\n"
         "                       UCT with random playouts (pure MCTS), restricted to the local\n"
         "                       window and threat moves (window=0: every legal move); a time\n"
         "                       given alone (ms=T) is the whole budget\n"
         "az:weights=FILE,playouts=400,ms=0,c=5,batch=8,window=0,threats=0,topk=0\n"
         "                       AlphaZero's PUCT over a trained network (gomoku train), on the\n"
         "                       same candidate set, priors renormalised over it; topk=K keeps\n"
         "                       the K best candidates by prior\n";
}

// An owning handle that models gsearch::arena::Agent<Position>, for matches.
class AgentHandle {
 public:
  explicit AgentHandle(std::unique_ptr<Agent> agent) : agent_(std::move(agent)) {}
  [[nodiscard]] std::string name() const { return agent_->name(); }
  void reset(std::uint64_t seed) { agent_->reset(seed); }
  Move choose(const Position& pos) { return agent_->choose(pos); }
  [[nodiscard]] Agent& get() noexcept { return *agent_; }

 private:
  std::unique_ptr<Agent> agent_;
};

}  // namespace gomoku
