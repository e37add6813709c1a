// gsearch/testing/game_conformance.hpp — one conformance check for every Game.
//
// check_game() plays random games from a start state and checks, at every ply, the contract
// written on the Game concept (core/game.hpp):
//   - to_move() is 0 or 1; a copy compares equal to its original and has the same hash;
//   - hash() equals compute_hash() when the game offers it (RehashableGame);
//   - is_terminal() holds exactly when legal_moves() is empty; count_moves() equals the
//     number of listed moves (CountableGame); no move is listed twice;
//   - a terminal result is in [-1, 1] and zero-sum;
//   - applying a move to a copy leaves the original unchanged; undo(m) after apply(m)
//     restores the state and its hash (UndoableGame) — for the chosen move at every ply,
//     and for every legal move in the first `all_moves_games` games;
//   - move text round-trips: parse_move(move_to_string(m)) == m (NotatedGame);
//   - two states seen with the same hash are equal (a collision or a hash that ignores part
//     of the position shows up here);
//   - no game is longer than max_plies.
// It returns a report instead of throwing, so any test framework can assert on it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"

namespace gsearch::testing {

struct ConformanceOptions {
  std::uint64_t games = 1000;              // random games to play
  std::uint64_t seed = 1;                  // seed of the move choices
  std::uint64_t max_plies = 100000;        // a longer game is reported as a failure
  std::uint64_t all_moves_games = 3;       // games in which every legal move is applied/undone
  std::size_t max_hash_entries = 1 << 20;  // states remembered for the collision check
};

struct ConformanceReport {
  bool ok = true;
  std::string failure;               // what went wrong first, with game and ply; empty when ok
  std::uint64_t games = 0;           // games completed
  std::uint64_t plies = 0;           // plies played in all
  std::uint64_t max_moves_seen = 0;  // the largest legal-move count met
  explicit operator bool() const noexcept { return ok; }
};

namespace detail {

// The bytes of a move as an integer: moves are trivially copyable and at most 8 bytes.
template <class M>
std::uint64_t move_bits(const M& m) noexcept {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &m, sizeof(M));
  return bits;
}

template <Game G>
std::string describe(const G& state, const typename G::Move& m) {
  if constexpr (NotatedGame<G>) {
    return state.move_to_string(m);
  } else {
    std::ostringstream out;
    out << "move#" << std::hex << move_bits(m);
    return out.str();
  }
}

}  // namespace detail

template <Game G>
[[nodiscard]] ConformanceReport check_game(const G& start, const ConformanceOptions& options = {}) {
  ConformanceReport report;
  Rng rng(options.seed);
  std::unordered_map<std::uint64_t, G> seen;
  MoveListOf<G> moves;
  std::vector<std::uint64_t> bits;
  std::uint64_t game = 0;
  std::uint64_t ply = 0;

  auto fail = [&](const std::string& what) {
    std::ostringstream out;
    out << "game " << game << ", ply " << ply << ": " << what;
    report.ok = false;
    report.failure = out.str();
    return report;
  };

  for (game = 0; game < options.games; ++game) {
    G state = start;
    for (ply = 0;; ++ply) {
      if (ply > options.max_plies) return fail("game longer than max_plies");
      const Player p = state.to_move();
      if (p != 0 && p != 1) return fail("to_move() is neither 0 nor 1");

      const G copy = state;
      if (!(copy == state)) return fail("a copy does not compare equal to its original");
      if (copy.hash() != state.hash()) return fail("a copy has a different hash");
      if constexpr (RehashableGame<G>) {
        if (state.hash() != state.compute_hash())
          return fail("incremental hash differs from compute_hash()");
      }
      if (seen.size() < options.max_hash_entries) {
        auto [it, inserted] = seen.try_emplace(state.hash(), state);
        if (!inserted && !(it->second == state))
          return fail("two different states have the same hash");
      }

      state.legal_moves(moves);
      report.max_moves_seen = std::max<std::uint64_t>(report.max_moves_seen, moves.size());
      if (state.is_terminal() != moves.empty())
        return fail(moves.empty() ? "no legal moves but is_terminal() is false"
                                  : "is_terminal() is true but there are legal moves");
      if constexpr (CountableGame<G>) {
        if (static_cast<std::uint64_t>(state.count_moves()) != moves.size())
          return fail("count_moves() differs from the number of legal moves");
      }
      bits.clear();
      for (const auto& m : moves) bits.push_back(detail::move_bits(m));
      std::sort(bits.begin(), bits.end());
      if (std::adjacent_find(bits.begin(), bits.end()) != bits.end())
        return fail("a move is listed twice");

      if (moves.empty()) {
        const double r0 = state.result(0), r1 = state.result(1);
        if (!(std::abs(r0) <= 1.0) || !(std::abs(r1) <= 1.0))
          return fail("result() outside [-1, 1]");
        if (r0 != -r1) return fail("result() is not zero-sum");
        break;
      }

      const bool all = game < options.all_moves_games;
      const std::size_t chosen = rng.below(moves.size());
      for (std::size_t i = 0; i < moves.size(); ++i) {
        if (!all && i != chosen) continue;
        const auto& m = moves[i];
        if constexpr (NotatedGame<G>) {
          const std::string text = state.move_to_string(m);
          try {
            if (!(state.parse_move(text) == m)) return fail("parse_move(\"" + text + "\") differs");
          } catch (const std::exception& e) {
            return fail("parse_move(\"" + text + "\") threw: " + e.what());
          }
        }
        G child = state;
        child.apply(m);
        if (!(state == copy)) return fail("apply() on a copy changed the original");
        if constexpr (UndoableGame<G>) {
          child.undo(m);
          if (!(child == state) || child.hash() != state.hash())
            return fail("undo(" + detail::describe(state, m) + ") does not restore the state");
        }
      }
      state.apply(moves[chosen]);
      ++report.plies;
    }
    ++report.games;
  }
  return report;
}

}  // namespace gsearch::testing
