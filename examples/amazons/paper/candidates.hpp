// amazons/paper/candidates.hpp — which moves of a position go to the teacher.
//
// The paper labels the candidate decisions of an MCTS tree per position. A CandidateSource
// is that choice as a function, so the label command and the teacher agent take any of:
//   search:n=8,iters=400   the n most visited root moves of an INVADERMC-like whole-move MCTS
//                          (Lieberum priors, top-k pruning, cut-off playouts with parity)
//   prior:n=8              the n best moves by the Lieberum evaluation one ply ahead
//   random:n=8             n distinct legal moves drawn uniformly
//   all                    every legal move
//   tree:nodes=60,seed=1   the whole moves present in the paper's label tree, an MCTS tree over
//                          single decisions (paper::label_candidates in train.hpp; the
//                          trainer rebuilds the same trees, so these are the labels it uses)
// or any function of the same type.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "amazons/players/agents.hpp"
#include "amazons/players/eval.hpp"
#include "amazons/rules/position.hpp"
#include "gsearch/mcts/mcts.hpp"

namespace amazons {

// The candidate moves of `pos` (not terminal), distinct and legal; `seed` drives any
// randomness, so the same seed gives the same candidates.
using CandidateSource = std::function<std::vector<Move>(const Position& pos, std::uint64_t seed)>;

namespace detail {

struct LieberumLeafValue {
  LieberumEvaluator eval;
  double operator()(const Position& pos) const { return eval(pos); }
};

}  // namespace detail

// Every legal move, in generation order.
inline std::vector<Move> all_candidates(const Position& pos) {
  gsearch::MoveListOf<Position> moves;
  pos.legal_moves(moves);
  return {moves.begin(), moves.end()};
}

// `n` distinct legal moves drawn uniformly (all of them, shuffled, when there are fewer).
inline std::vector<Move> random_candidates(const Position& pos, std::size_t n, std::uint64_t seed) {
  std::vector<Move> moves = all_candidates(pos);
  gsearch::Rng rng(seed);
  n = std::min(n, moves.size());
  for (std::size_t i = 0; i < n; ++i) std::swap(moves[i], moves[i + rng.below(moves.size() - i)]);
  moves.resize(n);
  return moves;
}

// The `n` best moves by the Lieberum evaluation of the position after them, best first
// (ties in generation order).
inline std::vector<Move> prior_candidates(const Position& pos, std::size_t n) {
  gsearch::MoveListOf<Position> moves;
  pos.legal_moves(moves);
  std::vector<float> priors(moves.size());
  LieberumMovePrior{}(pos, moves, priors.data());
  std::vector<std::size_t> order(moves.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return priors[a] > priors[b]; });
  std::vector<Move> out;
  for (std::size_t i = 0; i < order.size() && out.size() < n; ++i) out.push_back(moves[order[i]]);
  return out;
}

// The `n` most visited root moves after `iters` iterations of a whole-move MCTS in the style
// of the `invader` agent (children pruned to the max(40, 4n) best by the one-ply Lieberum
// prior, leaves expanded after 10 visits, playouts of 6 random plies then the evaluation,
// stopped with the root player to move). When fewer than n were visited, the rest are the
// next best by prior. Deterministic for `seed`.
inline std::vector<Move> search_candidates(const Position& pos, std::size_t n, std::uint64_t iters,
                                           std::uint64_t seed) {
  namespace mcts = gsearch::mcts;
  using Search = mcts::Search<Position, mcts::Uct, mcts::Expansion<LieberumMovePrior>,
                              mcts::CutoffPlayout<detail::LieberumLeafValue>>;
  Search search(
      {.seed = seed}, {.c = 0.3},
      {.top_k = static_cast<std::uint32_t>(std::max<std::size_t>(40, 4 * n)), .threshold = 10},
      {.plies = 6, .parity = true});
  search.set_root(pos);
  search.run(gsearch::Budget::iters(std::max<std::uint64_t>(iters, 1)));
  std::vector<Move> out;
  for (const auto& c : search.root_children()) {
    if (out.size() == n) break;
    out.push_back(c.move);
  }
  for (const auto id : search.tree().children(0)) {  // the rest by prior (children are sorted)
    if (out.size() == n) break;
    const Move m = search.tree()[id].move;
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  return out;
}

// The whole moves of a tree built for `pos` from `seed` with `nodes` nodes (the `tree` source;
// it lives with the paper's networks, so whoever has them passes it in).
using TreeCandidates =
    std::function<std::vector<Move>(const Position& pos, std::uint64_t seed, std::uint64_t nodes)>;

// A source from its spec (see the header comment; defaults n=8, iters=400, nodes=60, seed=1).
// Throws SpecError naming the problem, also for `tree` when no `tree` function is given.
inline CandidateSource make_candidate_source(std::string_view spec,
                                             const TreeCandidates& tree = {}) {
  const std::string text(spec);
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  std::map<std::string, std::uint64_t> values{{"n", 8}, {"iters", 400}, {"nodes", 60}, {"seed", 1}};
  const std::map<std::string, std::vector<std::string>> keys{{"search", {"n", "iters"}},
                                                             {"prior", {"n"}},
                                                             {"random", {"n"}},
                                                             {"all", {}},
                                                             {"tree", {"nodes", "seed"}}};
  const auto known = keys.find(kind);
  if (known == keys.end())
    throw SpecError("unknown candidate source \"" + kind +
                    "\" (known: all, prior, random, search, tree)");
  if (kind == "tree" && !tree)
    throw SpecError("candidate source tree needs the paper's label tree, not available here");
  if (colon != std::string::npos) {
    const std::string rest = text.substr(colon + 1);
    for (std::size_t start = 0; start <= rest.size();) {
      std::size_t end = rest.find(',', start);
      if (end == std::string::npos) end = rest.size();
      const std::string item = rest.substr(start, end - start);
      start = end + 1;
      const auto eq = item.find('=');
      const std::string key = item.substr(0, eq);
      if (eq == std::string::npos ||
          std::find(known->second.begin(), known->second.end(), key) == known->second.end()) {
        std::string takes;
        for (const auto& k : known->second) takes += (takes.empty() ? "" : " and ") + k + "=N";
        throw SpecError("candidate source " + kind + " takes " +
                        (takes.empty() ? "no parameters" : takes) + ", not \"" + item + "\"");
      }
      std::uint64_t v = 0;
      const std::string value = item.substr(eq + 1);
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || ptr != value.data() + value.size() || v == 0 || v > 1000000)
        throw SpecError("candidate source " + kind + ": " + key + "=\"" + value +
                        "\" is not a whole number from 1 to 1000000");
      values[key] = v;
    }
  }
  const std::size_t n = values["n"];
  const std::uint64_t iters = values["iters"];
  if (kind == "tree")
    return [tree, nodes = values["nodes"], seed = values["seed"]](
               const Position& pos, std::uint64_t) { return tree(pos, seed, nodes); };
  if (kind == "search")
    return [n, iters](const Position& pos, std::uint64_t seed) {
      return search_candidates(pos, n, iters, seed);
    };
  if (kind == "prior")
    return [n](const Position& pos, std::uint64_t) { return prior_candidates(pos, n); };
  if (kind == "random")
    return [n](const Position& pos, std::uint64_t seed) { return random_candidates(pos, n, seed); };
  return [](const Position& pos, std::uint64_t) { return all_candidates(pos); };
}

}  // namespace amazons
