// gsearch/core/game.hpp — the Game concept every search in gsearch works on.
//
// A game is a value type: a state is copied, never shared. The searches copy a state for
// each child they visit (MCTS one copy of the root per iteration, played forward; alpha-beta
// and df-pn a copy per child); none uses undo today, so keep the state small. Two players,
// 0 and 1, alternate in any pattern the game likes: a game may split a turn into several
// decisions (Amazons: which queen, where to, where to shoot) and keep the same player to
// move for consecutive plies.
// Searches flip the sign of a value only when the player to move changes.
//
// Required (concept Game):
//   G::Move           small, trivially copyable, equality comparable;
//   G::max_moves      a proven upper bound on the number of legal moves in any state;
//   to_move()         the player to move, 0 or 1 (meaningless but valid when terminal);
//   legal_moves(list) replaces the contents of `list` with every legal move, each once;
//   apply(move)       plays a legal move (anything else is a programming error);
//   is_terminal()     true exactly when there is no legal move;
//   result(player)    the outcome for `player` of a terminal state, in [-1, 1];
//   hash()            a 64-bit hash of the position, equal for equal positions.
//
// Optional capabilities, detected by the concepts below and used when present:
//   undo(move)        reverses apply(move) exactly (UndoableGame);
//   evaluate()        a static value in [-1, 1] for the player to move (EvaluableGame);
//   count_moves()     the number of legal moves, without listing them (CountableGame);
//   compute_hash()    the hash recomputed from scratch, for checks (RehashableGame);
//   random_move(rng)  a legal move drawn uniformly, without listing them (RandomMoveGame);
//   playout_move(rng) the same draw by a faster method with other draws from rng, for
//                     playouts (PlayoutMoveGame);
//   mid_turn()        true between the decisions of a turn split into several
//                     (TurnSplitGame; such games keep the player to move within a turn);
//   move_to_string(m) / parse_move(text)  move notation (NotatedGame);
//   proven_outcome()  the outcome for the player to move when the game can prove it without
//                     search: +1, -1, or 0 for not known (ProvableGame);
//   essential_moves(list)  the legal moves less some that another listed move dominates
//                     (ReducibleGame; exact solvers search these instead).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "gsearch/core/assert.hpp"
#include "gsearch/core/move_list.hpp"

namespace gsearch {

// Players are numbered 0 (moves first in the standard start) and 1.
using Player = int;

// The other player.
constexpr Player opponent(Player p) noexcept { return 1 - p; }

// A move: small enough to store by the thousand in search trees, copied with memcpy.
template <class M>
concept MoveType = std::is_trivially_copyable_v<M> && std::equality_comparable<M> &&
    (sizeof(M) <= 8);

// The move list a game fills: capacity max_moves, on the caller's stack.
template <class G>
using MoveListOf = MoveList<typename G::Move, G::max_moves>;

template <class G>
concept Game = std::copyable<G> && std::equality_comparable<G> && requires {
  typename G::Move;
} && MoveType<typename G::Move> &&
    requires(const G& cg, G& g, const typename G::Move& m, MoveListOf<G>& list, Player p) {
  // A compile-time upper bound on the number of legal moves, with its proof next to it.
  { G::max_moves } -> std::convertible_to<std::size_t>;
  // The player to move: 0 or 1.
  { cg.to_move() } -> std::convertible_to<Player>;
  // Clears `list`, then appends every legal move exactly once. Never allocates.
  { cg.legal_moves(list) } -> std::same_as<void>;
  // Plays `m`, which must be legal in this state.
  { g.apply(m) } -> std::same_as<void>;
  // True exactly when legal_moves() would produce an empty list.
  { cg.is_terminal() } -> std::convertible_to<bool>;
  // For a terminal state: +1 win, -1 loss, 0 draw for `p` (values between are allowed,
  // e.g. a scored margin). Zero-sum: result(0) == -result(1).
  { cg.result(p) } -> std::convertible_to<double>;
  // Zobrist-style hash of everything that decides the legal moves and the outcome.
  { cg.hash() } -> std::convertible_to<std::uint64_t>;
};

// undo(m) restores the state exactly as it was before apply(m), hash included. Checked by
// gsearch::testing::check_game; for your own code (the searches copy states instead).
template <class G>
concept UndoableGame = Game<G> && requires(G& g, const typename G::Move& m) {
  { g.undo(m) } -> std::same_as<void>;
};

// evaluate(): a heuristic value of a non-terminal state in [-1, 1] for the player to move.
template <class G>
concept EvaluableGame = Game<G> && requires(const G& cg) {
  { cg.evaluate() } -> std::convertible_to<double>;
};

// count_moves(): the number of legal moves, often much cheaper than listing them (Amazons
// counts arrows with bitboard fills). Perft uses it for bulk counting at the last ply; the
// exact solvers use it to try first the moves that leave the opponent fewest replies
// (alpha-beta) and for a new leaf's proof and disproof numbers (df-pn).
template <class G>
concept CountableGame = Game<G> && requires(const G& cg) {
  { cg.count_moves() } -> std::convertible_to<std::uint64_t>;
};

// compute_hash(): the hash recomputed from the whole position; hash() keeps it incrementally.
template <class G>
concept RehashableGame = Game<G> && requires(const G& cg) {
  { cg.compute_hash() } -> std::convertible_to<std::uint64_t>;
};

// random_move(rng): one legal move, each with equal probability, for a non-terminal state;
// usually much cheaper than listing all moves (random playouts use it).
template <class G, class R>
concept RandomMoveGame = Game<G> && requires(const G& cg, R& rng) {
  { cg.random_move(rng) } -> std::same_as<typename G::Move>;
};

// playout_move(rng): a legal move drawn uniformly, as random_move draws it, by a method that
// makes other draws from rng. A game offers it when the faster method would change what
// random_move's callers made with a seed (opening books, label sets): playouts, whose draws
// nothing records, take it (playout_random_move).
template <class G, class R>
concept PlayoutMoveGame = Game<G> && requires(const G& cg, R& rng) {
  { cg.playout_move(rng) } -> std::same_as<typename G::Move>;
};

// mid_turn(): true when the player to move is in the middle of a turn made of several
// decisions (Amazons' queen, destination, arrow). Playouts cut at turn boundaries only.
template <class G>
concept TurnSplitGame = Game<G> && requires(const G& cg) {
  { cg.mid_turn() } -> std::convertible_to<bool>;
};

// Move text: move_to_string(m) for a legal move m; parse_move(text) returns the move the text
// names in this state or throws std::invalid_argument with a one-line reason.
template <class G>
concept NotatedGame = Game<G> &&
    requires(const G& cg, const typename G::Move& m, std::string_view text) {
  { cg.move_to_string(m) } -> std::convertible_to<std::string>;
  { cg.parse_move(text) } -> std::same_as<typename G::Move>;
};

// proven_outcome(): for a non-terminal state, +1 when the player to move is proven to win
// against any defence, -1 when proven to lose, 0 when the game cannot tell. It must be exact
// (solvers take it as a proof), so a game answers only what it can prove, e.g. Amazons
// positions whose regions are separated (examples/amazons/rules/regions.hpp).
template <class G>
concept ProvableGame = Game<G> && requires(const G& cg) {
  { cg.proven_outcome() } -> std::convertible_to<int>;
};

// essential_moves(list): like legal_moves(list), but may leave out moves that are dominated:
// for each move left out, some listed move is at least as good for the player to move against
// any play (so if a winning move exists, a listed one wins). Exact solvers search these; the
// result is exact as long as the game's claim of dominance is.
template <class G>
concept ReducibleGame = Game<G> && requires(const G& cg, MoveListOf<G>& list) {
  { cg.essential_moves(list) } -> std::same_as<void>;
};

// True when `m` is one of the legal moves of `state`. Linear in the number of moves; meant
// for checks, not for search loops.
template <Game G>
[[nodiscard]] bool is_legal(const G& state, const typename G::Move& m) {
  MoveListOf<G> list;
  state.legal_moves(list);
  for (const auto& x : list)
    if (x == m) return true;
  return false;
}

// A legal move drawn uniformly at random: random_move() when the game offers it, otherwise
// by listing the legal moves. `state` must not be terminal.
template <Game G, class R>
[[nodiscard]] typename G::Move uniform_random_move(const G& state, R& rng) {
  if constexpr (RandomMoveGame<G, R>) {
    return state.random_move(rng);
  } else {
    MoveListOf<G> list;
    state.legal_moves(list);
    GSEARCH_ASSERT(!list.empty());
    return list[rng.below(list.size())];
  }
}

// A legal move drawn uniformly at random for a playout: playout_move() when the game offers
// it, otherwise uniform_random_move(). `state` must not be terminal.
template <Game G, class R>
[[nodiscard]] typename G::Move playout_random_move(const G& state, R& rng) {
  if constexpr (PlayoutMoveGame<G, R>) {
    return state.playout_move(rng);
  } else {
    return uniform_random_move(state, rng);
  }
}

// Plays `m` on `state`; in builds with assertions, first checks that the game is not over and
// that the move is legal. Searches call apply() directly on moves they generated themselves.
template <Game G>
void play(G& state, const typename G::Move& m) {
  GSEARCH_ASSERT(!state.is_terminal());
  GSEARCH_ASSERT(is_legal(state, m));
  state.apply(m);
}

}  // namespace gsearch
