// gsearch/mcts/evaluate.hpp — evaluation policies: the value of a newly added leaf.
//
// An evaluation policy has one member,
//     double evaluate(G& state, Player perspective, Rng& rng)
// returning the value of `state` in [-1, 1] for `perspective` (the root's player to move);
// it may change `state` (it receives the search's scratch copy). A terminal state is worth
// its result. A policy that plays moves may also take an observer,
//     double evaluate(G& state, Player perspective, Rng& rng, OnMove on_move)
// and call on_move(move, player) for each move before playing it (RecordingEvaluation): the
// driver passes one when its backup policy asks for the playout's moves (RAVE).
// Evaluators used below are callables f(const G&) -> double giving a value in [-1, 1] for the
// player to move of a non-terminal state; GameEvaluator calls the game's own evaluate().
//
//   RandomPlayout      uniform random moves to the end (or max_plies, then 0); the moves
//                      are the game's playout_random_move (game.hpp)
//   CutoffPlayout<E>   random moves for `plies` plies, then the evaluator; with `parity`
//                      the playout always stops with the same player to move (INVADERMC's
//                      evaluation parity adjustment) and, for games whose turns are split
//                      into decisions, at a turn boundary
//   StaticEvaluation<E>  the evaluator on the leaf itself
#pragma once

#include <cstdint>

#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"

namespace gsearch::mcts {

// The game's own static evaluation (EvaluableGame).
struct GameEvaluator {
  template <EvaluableGame G>
  double operator()(const G& state) const {
    return state.evaluate();
  }
};

// The observer of a playout that nobody watches.
struct IgnoreMoves {
  template <class Move>
  void operator()(const Move&, Player) const noexcept {}
};

namespace detail {
// The value for `perspective` of an evaluation `v` made for the player to move of `state`.
template <Game G>
double for_player(const G& state, double v, Player perspective) noexcept {
  return state.to_move() == perspective ? v : -v;
}
}  // namespace detail

struct RandomPlayout {
  std::uint32_t max_plies = 0;  // stop after this many plies and score 0 (0 = play to the end)

  template <Game G, class OnMove = IgnoreMoves>
  double evaluate(G& state, Player perspective, Rng& rng, OnMove on_move = {}) const {
    for (std::uint32_t ply = 0; !state.is_terminal(); ++ply) {
      if (max_plies && ply >= max_plies) return 0.0;
      const auto m = playout_random_move(state, rng);
      on_move(m, state.to_move());
      state.apply(m);
    }
    return state.result(perspective);
  }
};

template <class Evaluator = GameEvaluator>
struct CutoffPlayout {
  std::uint32_t plies = 6;  // random plies before the evaluator is called
  bool parity = true;       // stop only with `perspective` to move (and between turns)
  Evaluator evaluator{};

  template <Game G, class OnMove = IgnoreMoves>
  double evaluate(G& state, Player perspective, Rng& rng, OnMove on_move = {}) const {
    for (std::uint32_t ply = 0;; ++ply) {
      if (state.is_terminal()) return state.result(perspective);
      if (ply >= plies && (!parity || stop_here(state, perspective))) break;
      const auto m = playout_random_move(state, rng);
      on_move(m, state.to_move());
      state.apply(m);
    }
    return detail::for_player(state, evaluator(state), perspective);
  }

 private:
  template <Game G>
  static bool stop_here(const G& state, Player perspective) {
    if constexpr (TurnSplitGame<G>) {
      if (state.mid_turn()) return false;
    }
    return state.to_move() == perspective;
  }
};

template <class Evaluator = GameEvaluator>
struct StaticEvaluation {
  Evaluator evaluator{};

  template <Game G>
  double evaluate(G& state, Player perspective, Rng&) const {
    if (state.is_terminal()) return state.result(perspective);
    return detail::for_player(state, evaluator(state), perspective);
  }
};

template <class E, class G>
concept EvaluationPolicy = Game<G> && requires(const E& e, G& state, Player p, Rng& rng) {
  { e.evaluate(state, p, rng) } -> std::convertible_to<double>;
};

// An evaluation policy that reports the moves it plays.
template <class E, class G>
concept RecordingEvaluation = EvaluationPolicy<E, G> &&
    requires(const E& e, G& state, Player p, Rng& rng, IgnoreMoves on_move) {
  { e.evaluate(state, p, rng, on_move) } -> std::convertible_to<double>;
};

}  // namespace gsearch::mcts
