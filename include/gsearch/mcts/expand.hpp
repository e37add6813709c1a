// gsearch/mcts/expand.hpp — expansion policies: which children a node gets, in which order,
// and how many of them selection may consider.
//
// An expansion policy has three members:
//   children(state, moves, priors)   fills `moves` with the node's children in the order
//                                    selection should prefer them, and `priors` (one per
//                                    move, float) with their priors;
//   open(visits, n)                  how many of the n children selection may consider at a
//                                    node with `visits` visits (progressive widening);
//   expand_threshold()               visits a leaf needs before it is expanded.
// It may also say whether a search with tree parallelism should list a node's children
// outside its lock (mcts.hpp): static constexpr bool list_unlocked; true when absent. Worth it
// when the listing costs more than a second trip through the lock (a prior that evaluates
// every child); a plain move list is cheaper under the lock.
//
// Expansion<Prior, Filter> covers the classic variants with one mechanism:
//   - all children (the default, ExpandAll);
//   - a user candidate filter that removes moves, keeping the order of the others (e.g.
//     Gomoku's local window);
//   - priors from a user function, children sorted by prior (best first);
//   - forward pruning: only the top_k children by prior are kept (INVADERMC keeps ~400);
//   - progressive widening: widen_initial children open at first, widen_step more every
//     widen_every visits (INVADERMC: 5, +5 per 1000 visits);
//   - an expansion threshold (INVADERMC expands a leaf after ~40 visits).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "gsearch/core/game.hpp"

namespace gsearch::mcts {

// Marker types: no prior (all priors 0, generation order kept), no filter.
struct NoPrior {};
struct NoFilter {};

// Adapts a per-move prior f(state, move) -> float to the bulk form Expansion calls.
template <class F>
struct PerMovePrior {
  F f;
  template <Game G>
  void operator()(const G& state, const MoveListOf<G>& moves, float* priors) const {
    for (std::size_t i = 0; i < moves.size(); ++i)
      priors[i] = static_cast<float>(f(state, moves[i]));
  }
};
template <class F>
PerMovePrior(F) -> PerMovePrior<F>;

template <class Prior = NoPrior, class Filter = NoFilter>
struct Expansion {
  // prior(state, moves, priors): writes one prior per move (bulk, so a network can batch).
  Prior prior{};
  // filter(state, moves): removes moves in place, keeping the order of the others. If it
  // removes every move, the unfiltered list is used (a non-terminal node must have a child).
  Filter filter{};
  std::uint32_t top_k = 0;           // keep only the best top_k children by prior (0 = all)
  std::uint32_t widen_initial = 0;   // progressive widening: children open at first (0 = off)
  std::uint32_t widen_step = 5;      // ... and this many more
  std::uint32_t widen_every = 1000;  // ... every this many visits
  std::uint32_t threshold = 1;       // visits before a leaf is expanded (>= 1)

  // Tree parallelism lists the children outside its lock when there are priors to compute.
  static constexpr bool list_unlocked = !std::is_same_v<Prior, NoPrior>;

  [[nodiscard]] std::uint32_t expand_threshold() const noexcept { return threshold; }

  [[nodiscard]] std::uint32_t open(std::uint32_t visits, std::uint32_t n) const noexcept {
    if (widen_initial == 0) return n;
    const std::uint64_t k =
        widen_initial + std::uint64_t{widen_step} * (visits / (widen_every ? widen_every : 1));
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(k, n));
  }

  template <Game G>
  void children(const G& state, MoveListOf<G>& moves, float* priors) const {
    state.legal_moves(moves);
    if constexpr (!std::is_same_v<Filter, NoFilter>) {
      if (!moves.empty()) {
        MoveListOf<G> all = moves;
        filter(state, moves);
        if (moves.empty()) moves = all;
      }
    }
    if constexpr (std::is_same_v<Prior, NoPrior>) {
      std::fill(priors, priors + moves.size(), 0.0f);
      if (top_k && moves.size() > top_k) moves.truncate(top_k);
    } else {
      prior(state, static_cast<const MoveListOf<G>&>(moves), priors);
      sort_by_key_descending(moves, priors, 0, top_k ? top_k : moves.size());
    }
  }

  // With a prior-value evaluator (mcts.hpp), whose network gives the priors: keeps of the
  // legal moves `moves`, whose priors are `priors` (one per move, same order), those the
  // filter keeps — each prior follows its move — then the top_k by prior, and when any move
  // was removed, rescales the kept priors to sum 1 (the Gomoku report renormalises the
  // filtered priors before expansion).
  template <Game G>
  void restrict_priors(const G& state, MoveListOf<G>& moves, float* priors) const {
    const std::size_t before = moves.size();
    if constexpr (!std::is_same_v<Filter, NoFilter>) {
      if (!moves.empty()) {
        MoveListOf<G> kept = moves;
        filter(state, kept);
        if (!kept.empty() && kept.size() < moves.size()) {
          std::size_t j = 0;
          for (std::size_t i = 0; i < moves.size() && j < kept.size(); ++i)
            if (moves[i] == kept[j]) priors[j++] = priors[i];
          GSEARCH_ASSERT(j == kept.size());  // the filter kept the moves' order
          moves = kept;
        }
      }
    }
    if (top_k && moves.size() > top_k) sort_by_key_descending(moves, priors, 0, top_k);
    if (moves.size() == before) return;
    double total = 0;
    for (std::size_t i = 0; i < moves.size(); ++i) total += priors[i];
    if (total > 0)
      for (std::size_t i = 0; i < moves.size(); ++i)
        priors[i] = static_cast<float>(priors[i] / total);
  }
};

using ExpandAll = Expansion<>;

template <class E, class G>
concept ExpansionPolicy = Game<G> &&
    requires(const E& e, const G& state, MoveListOf<G>& moves, float* priors, std::uint32_t k) {
  { e.children(state, moves, priors) } -> std::same_as<void>;
  { e.open(k, k) } -> std::convertible_to<std::uint32_t>;
  { e.expand_threshold() } -> std::convertible_to<std::uint32_t>;
};

}  // namespace gsearch::mcts
