// amazons/players/agents.cpp — the classic Amazons players: random, greedy, alpha-beta, plain UCT,
// and INVADERMC-style MCTS (Lorentz, "Amazons discover Monte-Carlo", CG 2008).
#include "amazons/players/agents.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "amazons/paper/paper_agent.hpp"
#include "amazons/paper/teacher_agent.hpp"
#include "amazons/players/eval.hpp"
#include "amazons/players/eval_io.hpp"
#include "amazons/rules/decision.hpp"
#include "amazons/rules/solver.hpp"
#include "gsearch/alphabeta/alphabeta.hpp"
#include "gsearch/mcts/implicit.hpp"
#include "gsearch/mcts/mcts.hpp"

namespace amazons {
namespace {

namespace mcts = gsearch::mcts;
namespace ab = gsearch::alphabeta;

// ---------------------------------------------------------------------------------------
// Specs: "name:key=value,key=value"

// One parameter of a spec. Its type: an enumeration (choices; {"*"}: any non-empty text), a
// whole number (integer), or a real number; numbers must be finite and in [min, max].
struct ParamDef {
  std::string name;
  std::string fallback;  // default value, as text
  std::string help;
  std::vector<std::string> choices;  // for enumerations; empty for numbers
  double min = 0, max = 0;           // for numbers
  bool integer = false;              // for numbers: whole numbers only
};

class Values {
 public:
  explicit Values(std::map<std::string, std::string> v) : v_(std::move(v)) {}
  // A number parameter's value, which the spec check has read with std::from_chars (not
  // std::stod: that throws std::out_of_range for a subnormal such as 1e-310).
  [[nodiscard]] double number(const std::string& k) const {
    const std::string& s = v_.at(k);
    double v = 0;
    (void)std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  }
  [[nodiscard]] std::uint64_t count(const std::string& k) const {
    return static_cast<std::uint64_t>(number(k));
  }
  [[nodiscard]] const std::string& text(const std::string& k) const { return v_.at(k); }

 private:
  std::map<std::string, std::string> v_;
};

struct AgentDef {
  std::string name;
  std::string help;
  std::vector<ParamDef> params;
  std::function<std::unique_ptr<Agent>(const Values&, const std::string& canonical)> make;
};

// Budget from the common parameters: iters (or nodes) and ms; 0 = absent.
gsearch::Budget budget_of(const Values& v, bool nodes) {
  gsearch::Budget b;
  (nodes ? b.nodes : b.iterations) = v.count(nodes ? "nodes" : "iters");
  b.seconds = v.number("ms") / 1000.0;
  return b;
}

// The spec's threads, as MCTS parameters.
mcts::Params thread_params(const Values& v) {
  return {.threads = static_cast<unsigned>(v.count("threads")),
          .parallel = v.text("parallel") == "tree" ? mcts::Parallel::kTree : mcts::Parallel::kRoot};
}

// `params` with `seed`.
mcts::Params with_seed(mcts::Params params, std::uint64_t seed) {
  params.seed = seed;
  return params;
}

// The evaluation weights a spec's eval= names. Throws SpecError.
LieberumWeights eval_weights(const Values& v) {
  try {
    return lieberum_weights_named(v.text("eval"));
  } catch (const EvalWeightsError& e) {
    throw SpecError(e.what());
  }
}

// The player's own move number in the game (1 for each player's first move).
int own_move_number(const Position& pos) { return pos.turns_played() / 2 + 1; }

// The time schedule of the agents that spend more early (schedule=1): the factor on the time
// per move for the player's n-th own move, ×3, ×2, ×1.5 of a base for the first 10, 10, 10
// own moves and the base after, the base chosen so that `expected_moves` moves use
// expected_moves times the time per move in all.
double early_time_factor(int n, int expected_moves) {
  const auto weight = [](int k) { return k <= 10 ? 3.0 : k <= 20 ? 2.0 : k <= 30 ? 1.5 : 1.0; };
  double sum = 0;
  for (int k = 1; k <= expected_moves; ++k) sum += weight(k);
  return weight(n) * expected_moves / sum;
}

// Own moves in a typical 10×10 game, for the schedule.
constexpr int kExpectedMoves = 40;

// ---------------------------------------------------------------------------------------
// random, greedy

class RandomAgent final : public Agent {
 public:
  explicit RandomAgent(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    const Move m = pos.random_move(rng_);
    info_ = SearchInfo{};
    info_.pv = {m};
    return m;
  }

 private:
  std::string name_;
  gsearch::Rng rng_;
};

// One ply: every move's resulting position is evaluated; the best for the mover wins (a move
// that leaves the opponent without a move wins outright). Ties are broken at random.
class GreedyAgent final : public Agent {
 public:
  explicit GreedyAgent(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { rng_.reseed(seed); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    gsearch::Stopwatch watch;
    gsearch::MoveListOf<Position> moves;
    pos.legal_moves(moves);
    double best = -std::numeric_limits<double>::infinity();
    Move choice = moves[0];
    int ties = 0;
    for (const Move& m : moves) {
      Position child = pos;
      child.apply(m);
      const double v = child.is_terminal() ? 2.0 : -eval_(child);
      if (v > best) {
        best = v, choice = m, ties = 1;
      } else if (v == best && rng_.below(static_cast<std::uint64_t>(++ties)) == 0) {
        choice = m;
      }
    }
    info_ = SearchInfo{};
    info_.pv = {choice};
    info_.value = std::min(best, 1.0);
    info_.iterations = moves.size();
    info_.seconds = watch.seconds();
    return choice;
  }

 private:
  std::string name_;
  gsearch::Rng rng_;
  LieberumEvaluator eval_;
};

// ---------------------------------------------------------------------------------------
// alpha-beta

struct LieberumRef {
  LieberumEvaluator eval;
  double operator()(const Position& p) const { return eval(p); }
  double operator()(const DecisionPosition& d) const {
    // Between the decisions of a turn the mover is still to move; the position is scored as
    // it stands (queen moved, arrow not yet shot).
    return eval(d.position());
  }
};

SearchInfo alpha_beta_info(const ab::Result<Move>& r) {
  SearchInfo info;
  info.pv = r.pv;
  info.value = std::clamp(r.score / 10000.0, -1.0, 1.0);
  info.iterations = r.nodes;
  info.nodes = r.nodes;
  info.depth = r.depth;
  info.seconds = r.seconds;
  if (r.proven_win || r.proven_loss) info.details = r.proven_win ? "proven win\n" : "proven loss\n";
  return info;
}

// Alpha-beta over whole moves: the Lieberum evaluation at the leaves, the one-ply Lieberum
// value of each move as the scorer of the selective techniques (gsearch/alphabeta), and the
// region rules of SolverPosition as its proven outcomes (the endgame mode); with `schedule`,
// the spec's time per move follows early_time_factor (a budget passed to choose() is kept).
class AlphaBetaAgent final : public Agent {
 public:
  AlphaBetaAgent(std::string name, const ab::Params& params, gsearch::Budget budget, bool schedule,
                 const LieberumWeights& weights)
      : name_(std::move(name)),
        budget_(budget),
        schedule_(schedule),
        search_(params, LieberumRef{LieberumEvaluator(weights)},
                LieberumMovePrior{LieberumEvaluator(weights)}) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t) override { search_.clear(); }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Budget b = budget.value_or(budget_);
    if (schedule_ && !budget) b.seconds *= early_time_factor(own_move_number(pos), kExpectedMoves);
    const auto r = search_.search(SolverPosition(pos), b);
    info_ = alpha_beta_info(r);
    return r.best;
  }

 private:
  std::string name_;
  gsearch::Budget budget_;
  bool schedule_;
  ab::AlphaBeta<SolverPosition, LieberumRef, LieberumMovePrior> search_;
};

// ---------------------------------------------------------------------------------------
// MCTS helpers

template <class Search>
std::string root_table(const Search& search) {
  std::ostringstream out;
  int shown = 0;
  for (const auto& c : search.root_children()) {
    if (shown++ == 8) break;
    out << "  " << search.root_state().move_to_string(c.move) << "  visits " << c.visits
        << "  value " << c.q << "\n";
  }
  return out.str();
}

template <class Search>
SearchInfo mcts_info(const Search& search, const mcts::SearchStats& stats) {
  SearchInfo info;
  info.pv = search.principal_variation(8);
  info.iterations = stats.iterations;
  info.nodes = search.tree().total_visits();
  info.seconds = stats.seconds;
  info.details = root_table(search);
  const auto children = search.root_children();
  if (!children.empty()) info.value = children.front().q;
  return info;
}

// Searches a turn in the decision model: one search from the start of the turn, then the
// most visited queen, destination and arrow in turn. A decision the first search left
// unexplored (no visited child) gets a short search of its own: `top_up` iterations.
template <class Search>
Move decide_turn(Search& search, const Position& pos, const gsearch::Budget& budget,
                 SearchInfo& info, std::uint64_t top_up = 64) {
  gsearch::Stopwatch watch;
  search.set_root(DecisionPosition{pos});
  const auto stats = search.run(budget);
  info.details = root_table(search);
  info.iterations = stats.iterations;
  info.nodes = search.tree().total_visits();
  double value = 0;
  Decision path[3];
  for (int k = 0; k < 3; ++k) {
    if (search.root_children().empty()) {
      const std::uint64_t before = search.tree().total_visits();
      info.iterations += search.run(gsearch::Budget::iters(top_up)).iterations;
      info.nodes += search.tree().total_visits() - before;
    }
    const auto children = search.root_children();
    if (k == 0 && !children.empty()) value = children.front().q;
    path[k] = search.best_move();
    search.advance(path[k]);
  }
  const Move m{path[1].from, path[1].to, path[2].to};
  info.pv = {m};
  info.value = value;
  info.seconds = watch.seconds();
  return m;
}

// Plain UCT: random playouts to the end, UCT selection, all children.
class UctAgent final : public Agent {
 public:
  UctAgent(std::string name, gsearch::Budget budget, double c, bool decisions,
           const mcts::Params& threads)
      : name_(std::move(name)), budget_(budget), decisions_(decisions), c_(c), threads_(threads) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override { seed_ = seed; }
  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    const std::uint64_t seed =
        gsearch::derive_seed(seed_, static_cast<std::uint64_t>(pos.turns_played()));
    if (decisions_) {
      mcts::Search<DecisionPosition> search(with_seed(threads_, seed), {.c = c_});
      return decide_turn(search, pos, budget.value_or(budget_), info_);
    }
    mcts::Search<Position> search(with_seed(threads_, seed), {.c = c_});
    search.set_root(pos);
    info_ = mcts_info(search, search.run(budget.value_or(budget_)));
    return search.best_move();
  }

 private:
  std::string name_;
  gsearch::Budget budget_;
  bool decisions_;
  double c_;
  mcts::Params threads_;
  std::uint64_t seed_ = 0;
};

// ---------------------------------------------------------------------------------------
// INVADERMC-style MCTS

using InvaderSearch = mcts::Search<Position, mcts::ImplicitUct, mcts::Expansion<LieberumMovePrior>,
                                   mcts::CutoffPlayout<LieberumRef>, mcts::ImplicitBackup>;

struct InvaderParams {
  gsearch::Budget budget;
  std::uint32_t top_k, widen, step, every, threshold, plies, queen_moves;
  double c, implicit;
  bool schedule, endgame, reuse;
  int expected_moves;
  mcts::Params threads;  // threads and parallel
  LieberumWeights weights;
};

// UCT over whole moves with: forward pruning to the top_k moves by evaluation (with
// queen_moves, a two-stage one: LieberumMovePrior); progressive
// widening (widen children open, +step every `every` visits); leaves expanded after
// `threshold` visits; playouts cut after `plies` random plies and scored by the Lieberum
// evaluation, always with the root player to move (the parity adjustment); a time schedule
// that spends more early (×3, ×2, ×1.5 of the base for the first 10, 10, 10 own moves, then
// the base, scaled so that `expected_moves` moves use expected_moves × ms in all);
// alpha-beta once the territories are settled (no empty square reachable by both sides);
// with `reuse`, the tree kept from one move to the next; and with `implicit` > 0, selection
// blends each child's mean with the minimax of the expansions' evaluations below it
// (gsearch/mcts/implicit.hpp; 0 is plain UCT).
class InvaderAgent final : public Agent {
 public:
  InvaderAgent(std::string name, const InvaderParams& p) : name_(std::move(name)), p_(p) {}
  std::string name() const override { return name_; }
  void reset(std::uint64_t seed) override {
    seed_ = seed;
    search_.reset();
  }

  Move choose(const Position& pos, const std::optional<gsearch::Budget>& budget) override {
    gsearch::Budget b = budget.value_or(p_.budget);
    if (p_.schedule && !budget) b.seconds *= schedule(own_move_number(pos));
    if (p_.endgame && settled(pos)) {
      search_.reset();
      ab::AlphaBeta<Position, LieberumRef> endgame(ab::Params{.max_depth = 64},
                                                   LieberumRef{LieberumEvaluator(p_.weights)});
      gsearch::Budget ab_budget{.nodes = b.iterations * 20, .seconds = b.seconds};
      const auto r = endgame.search(pos, ab_budget);
      info_ = {.pv = r.pv,
               .value = std::clamp(r.score / 10000.0, -1.0, 1.0),
               .iterations = r.nodes,
               .nodes = r.nodes,
               .depth = r.depth,
               .seconds = r.seconds,
               .details = "endgame: alpha-beta\n"};
      return r.best;
    }
    const std::uint64_t seed =
        gsearch::derive_seed(seed_, static_cast<std::uint64_t>(pos.turns_played()));
    InvaderSearch& search = root_at(pos);
    search.reseed(seed);
    info_ = mcts_info(search, search.run(b));
    const Move m = search.best_move();
    if (p_.reuse) search.advance(m);
    return m;
  }

 private:
  // The search to run at `pos`. With reuse, the last search's tree, rooted after the move it
  // chose, keeps the subtree of the opponent's reply when the reply was visited; otherwise a
  // fresh tree.
  InvaderSearch& root_at(const Position& pos) {
    if (p_.reuse && search_) {
      for (const auto& c : search_->root_children()) {
        Position next = search_->root_state();
        next.apply(c.move);
        if (next == pos) {
          search_->advance(c.move);
          return *search_;
        }
      }
    }
    if (!search_) {
      search_.emplace(with_seed(p_.threads, 0), mcts::ImplicitUct{.c = p_.c, .alpha = p_.implicit},
                      mcts::Expansion<LieberumMovePrior>{
                          .prior = LieberumMovePrior{.eval = LieberumEvaluator(p_.weights),
                                                     .queen_moves = p_.queen_moves},
                          .top_k = p_.top_k,
                          .widen_initial = p_.widen,
                          .widen_step = p_.step,
                          .widen_every = p_.every,
                          .threshold = p_.threshold},
                      mcts::CutoffPlayout<LieberumRef>{
                          .plies = p_.plies,
                          .parity = true,
                          .evaluator = LieberumRef{LieberumEvaluator(p_.weights)}});
    }
    search_->set_root(pos);
    return *search_;
  }

  // The time multiplier for the player's n-th move.
  double schedule(int n) const { return early_time_factor(n, p_.expected_moves); }
  static bool settled(const Position& pos) {
    DistanceMaps maps;
    compute_distances(pos, maps);
    for (Bitboard b = maps.empty; b;) {
      const Square s = pop_lsb(b);
      if (maps.queen[kWhite][s] < kFar && maps.queen[kBlack][s] < kFar) return false;
    }
    return true;
  }

  std::string name_;
  InvaderParams p_;
  std::uint64_t seed_ = 0;
  std::optional<InvaderSearch> search_;
};

// The networks of a paper agent's spec: the reading's shipped weights, with those the spec
// names replaced from files.
std::shared_ptr<paper::Networks> load_networks(const Values& v) {
  const paper::Reading reading = paper::parse_reading(v.text("reading"));
  const auto file = [&](const char* key) {
    const std::string& f = v.text(key);
    return f == "shipped" ? std::string() : f;
  };
  if (reading == paper::Reading::kLiteral && !file("value").empty())
    throw SpecError("the literal reading has no value network (value=" + v.text("value") + ")");
  try {
    return std::make_shared<paper::Networks>(
        paper::Networks::from_files(reading, file("uctae"), file("gatae"), file("value")));
  } catch (const gsearch::nn::WeightFileError& e) {  // a bad file is bad input to the spec
    throw SpecError(e.what());
  }
}

// The teacher agent's options from its spec values.
TeacherAgentOptions teacher_options(const Values& v, const std::string& name) {
  TeacherAgentOptions o;
  o.name = name;
  if (v.text("url") != "local") o.url = v.text("url");
  if (v.text("ca") != "system") {
    if (o.url.rfind("https://", 0) != 0)
      throw SpecError("agent teacher: ca= is for an https:// url");
    o.client.http.ca_file = v.text("ca");
  }
  o.teacher.seed = v.count("seed");
  o.teacher.noise = v.number("noise");
  o.teacher.hallucination = v.number("hallucination");
  o.teacher.bias = v.number("bias");
  o.teacher.scale = v.number("scale");
  o.candidates = v.count("candidates");
  o.connections = v.count("connections");
  try {
    o.teacher.validate();  // the spec's ranges let NaN through ("nan" compares false)
  } catch (const std::invalid_argument& e) {
    throw SpecError("agent teacher: " + std::string(e.what()));
  }
  return o;
}

// ---------------------------------------------------------------------------------------
// The registry

const std::vector<AgentDef>& registry() {
  static const std::vector<AgentDef> defs = [] {
    const ParamDef iters{"iters", "1000", "MCTS iterations per move (0: none, use ms)", {}, 0,
                         1e9,     true};
    const ParamDef ms{"ms", "0", "milliseconds per move (0: none, use iters)", {}, 0, 1e7};
    const ParamDef threads{"threads", "1", "search threads", {}, 1, 256, true};
    const ParamDef eval{"eval",
                        "lieberum",
                        "evaluation weights: lieberum (Lieberum's), tuned (amazons tune's, "
                        "shipped) or a weight file",
                        {"*"}};
    const ParamDef schedule{"schedule",
                            "1",
                            "with ms: spend more time early (1) or the same on every move (0)",
                            {"0", "1"}};
    const ParamDef parallel{"parallel",
                            "root",
                            "with threads: a tree per thread, merged (root; reproducible) or one "
                            "shared tree with virtual loss (tree)",
                            {"root", "tree"}};
    std::vector<AgentDef> d;
    d.push_back(
        {"random", "uniformly random whole moves", {}, [](const Values&, const std::string& n) {
           return std::unique_ptr<Agent>(new RandomAgent(n));
         }});
    d.push_back({"greedy",
                 "one ply: the move whose position the Lieberum evaluation likes best",
                 {},
                 [](const Values&, const std::string& n) {
                   return std::unique_ptr<Agent>(new GreedyAgent(n));
                 }});
    d.push_back(
        {"ab",
         "alpha-beta (PVS, TT, killers, history) over whole moves with the Lieberum evaluation; "
         "selective techniques switched below (docs/strength.md measures each); threads: Lazy "
         "SMP",
         {{"depth", "2", "deepest iteration in plies", {}, 1, 64, true},
          {"nodes", "0", "node budget per move (0: none)", {}, 0, 1e12, true},
          ms,
          {"tt", "16", "transposition table MiB", {}, 1, 4096, true},
          {"order",
           "1",
           "order moves by their one-ply evaluation at nodes 2+ plies from the leaves (1) or "
           "by killers and history only, full width (0)",
           {"0", "1"}},
          {"width",
           "20",
           "with order=1: forward pruning below the root, best moves kept (0: all)",
           {},
           0,
           5000,
           true},
          {"rootwidth",
           "40",
           "with order=1: forward pruning at the root, best moves kept (0: all)",
           {},
           0,
           5000,
           true},
          {"lmr",
           "0",
           "late-move reductions at nodes this many plies from the leaves or more (0: off)",
           {},
           0,
           64,
           true},
          {"lmrafter", "3", "moves searched at full depth before reductions", {}, 1, 5000, true},
          {"asp", "0", "aspiration window half-width, in evaluation units (0: off)", {}, 0, 1},
          {"endgame",
           "0",
           "score positions the region rules decide as won or lost (1)",
           {"0", "1"}},
          {"partial",
           "1",
           "with ms or nodes: the iteration the budget interrupts may change the move (1)",
           {"0", "1"}},
          schedule,
          eval,
          threads},
         [](const Values& v, const std::string& n) {
           const ab::Params p{
               .max_depth = static_cast<int>(v.count("depth")),
               .tt_megabytes = v.count("tt"),
               .score_depth = v.text("order") == "1" ? 2 : 0,
               .width = static_cast<std::uint32_t>(v.count("width")),
               .root_width = static_cast<std::uint32_t>(v.count("rootwidth")),
               .lmr_depth = static_cast<int>(v.count("lmr")),
               .lmr_after = static_cast<std::uint32_t>(v.count("lmrafter")),
               .aspiration = static_cast<ab::Score>(std::lround(v.number("asp") * 10000)),
               .proven_outcomes = v.text("endgame") == "1",
               .use_interrupted = v.text("partial") == "1",
               .threads = static_cast<unsigned>(v.count("threads"))};
           return std::unique_ptr<Agent>(new AlphaBetaAgent(
               n, p, budget_of(v, true), v.text("schedule") == "1", eval_weights(v)));
         }});
    d.push_back(
        {"uct",
         "plain UCT with uniformly random playouts to the end",
         {iters,
          ms,
          {"c", "0.7", "UCT exploration constant (for values in [-1, 1])", {}, 0, 100},
          {"model", "decision", "tree over single decisions or whole moves", {"decision", "whole"}},
          threads,
          parallel},
         [](const Values& v, const std::string& n) {
           return std::unique_ptr<Agent>(new UctAgent(n, budget_of(v, false), v.number("c"),
                                                      v.text("model") == "decision",
                                                      thread_params(v)));
         }});
    d.push_back({"invader",
                 "INVADERMC-style MCTS: pruning, widening, cut-off playouts + evaluation, parity, "
                 "time schedule, alpha-beta endgame",
                 {{"iters", "3000", "MCTS iterations per move (0: none, use ms)", {}, 0, 1e9, true},
                  ms,
                  {"k", "400", "forward pruning: whole moves kept per node", {}, 1, 4900, true},
                  {"widen",
                   "5",
                   "progressive widening: children open at first (0: off)",
                   {},
                   0,
                   4900,
                   true},
                  {"step", "5", "progressive widening: more children per step", {}, 1, 4900, true},
                  {"every", "1000", "progressive widening: visits per step", {}, 1, 1e9, true},
                  {"threshold", "40", "visits before a leaf is expanded", {}, 1, 1e6, true},
                  {"qk",
                   "0",
                   "expansions evaluate every arrow of only the best qk queen moves, each "
                   "first scored with its arrow on the square it left (0: every move)",
                   {},
                   0,
                   140,
                   true},
                  {"plies", "6", "random plies before the evaluation", {}, 0, 200, true},
                  {"c", "0.3", "UCT exploration constant", {}, 0, 100},
                  {"im",
                   "0",
                   "implicit minimax backups: the weight of the minimax of the expansions' "
                   "evaluations against the playouts' mean in selection (0: plain UCT)",
                   {},
                   0,
                   1},
                  schedule,
                  {"endgame", "1", "alpha-beta once the territories are settled", {"0", "1"}},
                  {"reuse",
                   "0",
                   "keep the subtree of the position reached (own move, then the reply) for the "
                   "next move's search (1)",
                   {"0", "1"}},
                  eval,
                  threads,
                  parallel},
                 [](const Values& v, const std::string& n) {
                   const InvaderParams p{
                       .budget = budget_of(v, false),
                       .top_k = static_cast<std::uint32_t>(v.count("k")),
                       .widen = static_cast<std::uint32_t>(v.count("widen")),
                       .step = static_cast<std::uint32_t>(v.count("step")),
                       .every = static_cast<std::uint32_t>(v.count("every")),
                       .threshold = static_cast<std::uint32_t>(v.count("threshold")),
                       .plies = static_cast<std::uint32_t>(v.count("plies")),
                       .queen_moves = static_cast<std::uint32_t>(v.count("qk")),
                       .c = v.number("c"),
                       .implicit = v.number("im"),
                       .schedule = v.text("schedule") == "1",
                       .endgame = v.text("endgame") == "1",
                       .reuse = v.text("reuse") == "1",
                       .expected_moves = kExpectedMoves,
                       .threads = thread_params(v),
                       .weights = eval_weights(v)};
                   return std::unique_ptr<Agent>(new InvaderAgent(n, p));
                 }});
    const auto paper_agent = [](const char* name, paper::PaperMode mode, const char* help) {
      return AgentDef{
          name,
          help,
          {{"n", "30", "nodes added to the tree per move (the paper's N)", {}, 1, 1e7, true},
           {"reading",
            "relative",
            "how the paper is read (docs/paper-mapping.md): relative features, ranking and "
            "values, or the equations as printed",
            {"relative", "literal"}},
           {"uctae",
            "shipped",
            "UCT-AE weight file (shipped: the reading's trained default)",
            {"*"}},
           {"gatae",
            "shipped",
            "GAT-AE weight file (shipped: the reading's trained default)",
            {"*"}},
           {"value",
            "shipped",
            "value scorer weight file (relative reading; shipped: the trained default)",
            {"*"}},
           {"temperature",
            "0.1",
            "SGGA's softmax temperature (objectives lie in [0, 1])",
            {},
            1e-3,
            100},
           {"c", "1.5", "relative reading: PUCT's exploration constant", {}, 0, 100},
           {"sharpness", "1", "relative reading: the prior's softmax sharpness", {}, 0, 100},
           {"widen",
            "1",
            "relative reading: depth-focused widening (1) or all children (0)",
            {"0", "1"}},
           {"share",
            "0.3",
            "relative reading: SGGA and GAT-AE see the children visited at least this share of "
            "their parent's visits",
            {},
            0,
            1}},
          [mode](const Values& v, const std::string& n) {
            paper::PaperAgentOptions o;
            o.name = n;
            o.mode = mode;
            o.nodes = v.count("n");
            o.nets = load_networks(v);
            o.sgga_temperature = v.number("temperature");
            o.knobs.c = v.number("c");
            o.knobs.sharpness = v.number("sharpness");
            o.knobs.depth_focused = v.text("widen") == "1";
            o.knobs.visit_share = v.number("share");
            return paper::make_paper_agent(o);
          }};
    };
    d.push_back(
        paper_agent("uctae", paper::PaperMode::kUctAe,
                    "MCTS with UCT-AE (eq. 13-14) and the depth-normalising update (eq. 10-12)"));
    d.push_back(paper_agent("sgga", paper::PaperMode::kSgga,
                            "MCTS with UCT-AE, decision by SGGA (eq. 16)"));
    d.push_back(paper_agent("gatae", paper::PaperMode::kGatAe,
                            "MCTS with UCT-AE, decision by GAT-AE (eq. 6-8, 15)"));
    d.push_back(paper_agent(
        "hybrid", paper::PaperMode::kHybrid,
        "the paper's Algorithm 1: UCT-AE search, SGGA, then GAT-AE around SGGA's node"));
    d.push_back(
        {"teacher",
         "thinks of a few random legal moves, as a chat model does, and plays the one its "
         "teacher scores highest (move_score + place_score): the local teacher in-process (a "
         "noisy, hallucinating, biased one-ply Lieberum judge), or an OpenAI-compatible "
         "endpoint (docs/labeler.md)",
         {{"url",
           "local",
           "chat-completions endpoint, http:// or https:// (local: the local teacher)",
           {"*"}},
          {"candidates",
           "8",
           "moves thought of per turn: K distinct uniformly random legal moves, seeded by the "
           "game's seed and the position (8: a chat model's handful); 0: every legal move",
           {},
           0,
           5000,
           true},
          {"seed", "1", "local teacher: seed of its noise and hallucinations", {}, 0, 1e15, true},
          {"noise", "0.1", "local teacher: standard deviation of its noise", {}, 0, 10},
          {"hallucination",
           "0.05",
           "local teacher: probability that a label's scores are random",
           {},
           0,
           1},
          {"bias",
           "0.1",
           "local teacher: bias*(d-0.5) added to both scores, d the queen move's length / the "
           "longest (>0: long moves up)",
           {},
           -1,
           1},
          {"scale",
           "8",
           "local teacher: scores are 0.5+0.5*tanh(h/scale) of the hidden gain h",
           {},
           0.001,
           100},
          {"connections", "4", "with a URL: labels asked for at once", {}, 1, 256, true},
          {"ca",
           "system",
           "with an https URL: a PEM file of CA certificates to trust (system: the system's "
           "store)",
           {"*"}}},
         [](const Values& v, const std::string& n) {
           if (v.text("url") != "local") {
             try {
               (void)teacher_endpoint(v.text("url"));
             } catch (const std::exception& e) {
               throw SpecError("agent teacher: " + std::string(e.what()));
             }
           }
           try {
             return make_teacher_agent(teacher_options(v, n));
           } catch (const SpecError&) {
             throw;
           } catch (const std::invalid_argument& e) {  // e.g. a CA file that is no PEM file
             throw SpecError("agent teacher: " + std::string(e.what()));
           }
         }});
    return d;
  }();
  return defs;
}

bool is_number(const std::string& s, double& out) {
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::string format_number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// A spec read and checked: its agent, every parameter's value (defaults filled in) and the
// canonical spec. Throws SpecError.
struct ParsedSpec {
  const AgentDef* def = nullptr;
  std::map<std::string, std::string> values;
  std::string canonical;
};

ParsedSpec parse_spec(std::string_view spec) {
  const std::string text(spec);
  const auto colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const auto& defs = registry();
  const auto def =
      std::find_if(defs.begin(), defs.end(), [&](const AgentDef& d) { return d.name == name; });
  if (def == defs.end()) {
    std::string known;
    for (const auto& d : defs) known += (known.empty() ? "" : ", ") + d.name;
    throw SpecError("unknown agent \"" + name + "\" (known: " + known + ")");
  }
  std::map<std::string, std::string> values;
  std::set<std::string> given;
  for (const auto& p : def->params) values[p.name] = p.fallback;
  if (colon != std::string::npos) {
    std::string rest = text.substr(colon + 1);
    std::size_t start = 0;
    while (start <= rest.size()) {
      std::size_t end = rest.find(',', start);
      if (end == std::string::npos) end = rest.size();
      const std::string item = rest.substr(start, end - start);
      start = end + 1;
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw SpecError("agent " + name + ": expected key=value, got \"" + item + "\"");
      const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
      const auto p = std::find_if(def->params.begin(), def->params.end(),
                                  [&](const ParamDef& x) { return x.name == key; });
      if (p == def->params.end()) {
        std::string known;
        for (const auto& x : def->params) known += (known.empty() ? "" : ", ") + x.name;
        throw SpecError(
            "agent " + name + " has no parameter \"" + key + "\"" +
            (known.empty() ? std::string(" (it takes none)") : " (known: " + known + ")"));
      }
      if (p->choices.size() == 1 && p->choices[0] == "*") {
        if (value.empty()) throw SpecError("agent " + name + ": " + key + " is empty");
      } else if (!p->choices.empty()) {
        if (std::find(p->choices.begin(), p->choices.end(), value) == p->choices.end()) {
          std::string allowed;
          for (const auto& c : p->choices) allowed += (allowed.empty() ? "" : ", ") + c;
          throw SpecError("agent " + name + ": " + key + "=" + value + " is not one of " + allowed);
        }
      } else {
        double v = 0;
        const char* what = p->integer ? "a whole number" : "a number";
        // !(in range) also refuses NaN; infinities are out of every range.
        if (!is_number(value, v) || !(v >= p->min && v <= p->max) ||
            (p->integer && v != std::floor(v)))
          throw SpecError("agent " + name + ": " + key + "=\"" + value + "\" is not " + what +
                          " in [" + format_number(p->min) + ", " + format_number(p->max) + "]");
      }
      if (!given.insert(key).second)
        throw SpecError("agent " + name + ": " + key + " is given twice");
      values[key] = value;
    }
  }
  // A time the spec names is the budget: the work caps it does not name (iters, depth) are
  // lifted, so that no default cuts short a search the user timed (invader:ms=1000 used to
  // stop at its default 3,000 iterations, about 15 ms a move).
  if (given.count("ms") && Values(values).number("ms") > 0) {
    for (const ParamDef& p : def->params)
      if ((p.name == "iters" || p.name == "depth") && !given.count(p.name))
        values[p.name] = p.name == "iters" ? "0" : format_number(p.max);
  }
  std::string canonical = name;
  for (std::size_t i = 0; i < def->params.size(); ++i)
    canonical += (i == 0 ? ":" : ",") + def->params[i].name + "=" + values[def->params[i].name];
  const Values v(values);
  if (values.count("iters") && values.count("ms") && v.count("iters") == 0 && v.number("ms") == 0)
    throw SpecError("agent " + name + ": give iters or ms a positive value");
  return {&*def, std::move(values), std::move(canonical)};
}

}  // namespace

std::string canonical_spec(std::string_view spec) { return parse_spec(spec).canonical; }

std::unique_ptr<Agent> make_agent(std::string_view spec) {
  ParsedSpec p = parse_spec(spec);
  return p.def->make(Values(std::move(p.values)), p.canonical);
}

std::string describe_agents() {
  std::ostringstream out;
  for (const auto& d : registry()) {
    out << d.name;
    for (std::size_t i = 0; i < d.params.size(); ++i)
      out << (i == 0 ? ":" : ",") << d.params[i].name << "=" << d.params[i].fallback;
    out << "\n    " << d.help << "\n";
    for (const auto& p : d.params) {
      out << "      " << p.name << "  " << p.help;
      if (!p.choices.empty() && p.choices[0] != "*") {
        out << " (";
        for (std::size_t i = 0; i < p.choices.size(); ++i) out << (i ? "|" : "") << p.choices[i];
        out << ")";
      } else if (p.choices.empty()) {
        out << " (" << (p.integer ? "whole number" : "number") << " in [" << format_number(p.min)
            << ", " << format_number(p.max) << "])";
      }
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace amazons
