// amazons/players/agents.cpp — agents from specs: the spec syntax and checks, and the registry
// of every agent with its parameters (the classic players are in classic.hpp, the paper's in
// amazons/paper/).
#include "amazons/players/agents.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "amazons/paper/paper_agent.hpp"
#include "amazons/paper/teacher_agent.hpp"
#include "amazons/players/classic.hpp"
#include "amazons/players/eval.hpp"
#include "amazons/players/eval_io.hpp"
#include "gsearch/alphabeta/alphabeta.hpp"
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
  explicit Values(std::map<std::string, std::string> v, std::set<std::string> given = {})
      : v_(std::move(v)), given_(std::move(given)) {}
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
  // Whether the spec wrote k (not its default).
  [[nodiscard]] bool given(const std::string& k) const { return given_.count(k) != 0; }

 private:
  std::map<std::string, std::string> v_;
  std::set<std::string> given_;
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

// The evaluation weights a spec's eval= names. Throws SpecError.
LieberumWeights eval_weights(const Values& v) {
  try {
    LieberumWeights w = lieberum_weights_named(v.text("eval"));
    w.trap = v.number("trap");
    return w;
  } catch (const EvalWeightsError& e) {
    throw SpecError(e.what());
  }
}

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
                        "shipped), spsa (amazons spsa's, shipped) or a weight file",
                        {"*"}};
    // The trapped-queen term's weight, the same for `ab` and `invader` (docs/strength.md
    // measures it for each).
    const ParamDef trap{"trap",
                        "6",
                        "weight of the evaluation's trapped-queen term in the opening: about the "
                        "squares a shut-in queen costs (0: off)",
                        {},
                        0,
                        100};
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
           return std::unique_ptr<Agent>(new classic::RandomAgent(n));
         }});
    d.push_back({"greedy",
                 "one ply: the move whose position the Lieberum evaluation likes best",
                 {},
                 [](const Values&, const std::string& n) {
                   return std::unique_ptr<Agent>(new classic::GreedyAgent(n));
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
           "order moves by their one-ply evaluation at nodes orderdepth+ plies from the leaves "
           "(1) or by killers and history only, full width (0)",
           {"0", "1"}},
          {"orderdepth",
           "2",
           "with order=1: the plies from the leaves from which nodes are ordered (and pruned) "
           "by the one-ply evaluation",
           {},
           1,
           64,
           true},
          {"qk",
           "0",
           "with order=1: score each queen move first and evaluate the arrows of only the best "
           "qk queen moves (0: every move evaluated)",
           {},
           0,
           4900,
           true},
          {"width",
           "30",
           "with order=1: forward pruning below the root, best moves kept (0: all)",
           {},
           0,
           5000,
           true},
          {"rootwidth",
           "60",
           "with order=1: forward pruning at the root, best moves kept (0: all)",
           {},
           0,
           5000,
           true},
          {"frontier",
           "0",
           "with order=1: at nodes one ply from the leaves, after the table's move and the "
           "killers, only the best this many moves by the one-ply evaluation (0: all, by "
           "killers and history)",
           {},
           0,
           5000,
           true},
          {"frontierqk",
           "0",
           "with frontier: rank the frontier's moves as qk does, evaluating the arrows of only "
           "the best frontierqk queen moves (0: every move evaluated)",
           {},
           0,
           4900,
           true},
          {"futility",
           "0.1",
           "with order=1: below the root, skip the moves whose one-ply value plus this margin "
           "per ply below the first is at most alpha, in evaluation units (0: off)",
           {},
           0,
           2},
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
          trap,
          threads},
         [](const Values& v, const std::string& n) {
           const ab::Params p{
               .max_depth = static_cast<int>(v.count("depth")),
               .tt_megabytes = v.count("tt"),
               .score_depth = v.text("order") == "1" ? static_cast<int>(v.count("orderdepth")) : 0,
               .width = static_cast<std::uint32_t>(v.count("width")),
               .root_width = static_cast<std::uint32_t>(v.count("rootwidth")),
               .frontier_width = static_cast<std::uint32_t>(v.count("frontier")),
               .futility = static_cast<ab::Score>(std::lround(v.number("futility") * 10000)),
               .lmr_depth = static_cast<int>(v.count("lmr")),
               .lmr_after = static_cast<std::uint32_t>(v.count("lmrafter")),
               .aspiration = static_cast<ab::Score>(std::lround(v.number("asp") * 10000)),
               .proven_outcomes = v.text("endgame") == "1",
               .use_interrupted = v.text("partial") == "1",
               .threads = static_cast<unsigned>(v.count("threads"))};
           return std::unique_ptr<Agent>(new classic::AlphaBetaAgent(
               n, p, budget_of(v, true), v.text("schedule") == "1", eval_weights(v),
               v.given("depth"), static_cast<std::uint32_t>(v.count("qk")),
               static_cast<std::uint32_t>(v.count("frontierqk"))));
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
           return std::unique_ptr<Agent>(
               new classic::UctAgent(n, budget_of(v, false), v.number("c"),
                                     v.text("model") == "decision", thread_params(v)));
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
                  {"imfade",
                   "0",
                   "with im: the weight falls as im·F/(F + n) with a child's visits n (0: fixed)",
                   {},
                   0,
                   1e9},
                  schedule,
                  {"endgame", "1", "alpha-beta once the territories are settled", {"0", "1"}},
                  {"contested",
                   "0",
                   "with endgame=1: alpha-beta once at most this many empty squares are "
                   "reachable by both sides (0: once none is)",
                   {},
                   0,
                   100,
                   true},
                  {"reuse",
                   "0",
                   "keep the subtree of the position reached (own move, then the reply) for the "
                   "next move's search (1)",
                   {"0", "1"}},
                  eval,
                  trap,
                  threads,
                  parallel},
                 [](const Values& v, const std::string& n) {
                   const classic::InvaderParams p{
                       .budget = budget_of(v, false),
                       .top_k = static_cast<std::uint32_t>(v.count("k")),
                       .widen = static_cast<std::uint32_t>(v.count("widen")),
                       .step = static_cast<std::uint32_t>(v.count("step")),
                       .every = static_cast<std::uint32_t>(v.count("every")),
                       .threshold = static_cast<std::uint32_t>(v.count("threshold")),
                       .plies = static_cast<std::uint32_t>(v.count("plies")),
                       .queen_moves = static_cast<std::uint32_t>(v.count("qk")),
                       .contested = static_cast<std::uint32_t>(v.count("contested")),
                       .c = v.number("c"),
                       .implicit = v.number("im"),
                       .implicit_fade = v.number("imfade"),
                       .schedule = v.text("schedule") == "1",
                       .endgame = v.text("endgame") == "1",
                       .reuse = v.text("reuse") == "1",
                       .expected_moves = classic::kExpectedMoves,
                       .threads = thread_params(v),
                       .weights = eval_weights(v)};
                   return std::unique_ptr<Agent>(new classic::InvaderAgent(n, p));
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
  std::set<std::string> given;  // the keys the spec wrote
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
  return {&*def, std::move(values), std::move(canonical), std::move(given)};
}

}  // namespace

std::string canonical_spec(std::string_view spec) { return parse_spec(spec).canonical; }

std::unique_ptr<Agent> make_agent(std::string_view spec) {
  ParsedSpec p = parse_spec(spec);
  return p.def->make(Values(std::move(p.values), std::move(p.given)), p.canonical);
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
