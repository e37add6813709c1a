// amazons/rules/regions.hpp — exact endgame knowledge: regions, solitaire counts, decided
// positions.
//
// Regions. Call two squares neighbours when they are one king step apart. A queen moves, and
// shoots, along a queen line over empty squares, and each square of such a line is a
// neighbour of the one before; so a queen and its arrows never leave the squares connected to
// it through empty squares. A region is a king-connected component of the empty squares and
// the queens' squares together (a queen's square is empty again once it leaves, so it belongs
// to the region it borders). Arrows only ever remove squares, so regions split, never merge,
// and a region without queens of one colour never gets any.
//
// The squares of regions holding queens of one player only are that player's own area; the
// regions holding queens of both players are shared (E empty squares in all). In their own
// area a player plays alone: the other's queens and arrows never enter it.
//
// Solitaire. M(p), the most turns player p can play in their own area, moving alone (queen
// move and arrow, as in the game). Every turn fills exactly one empty square of the region it
// is played in (the queen's old square empties, its new square and the arrow's square fill),
// so M(p) is at most the number of empty squares there. Regions are independent, so M(p) is
// the sum over p's own regions. Solitaire computes it exactly (below).
//
// Decided positions (bound_outcome). Let P be the player to move and O the other, m = M(P),
// t = M(O).
//   1. P wins if m > t + E. P plays in their own area only, one longest solitaire line; O can
//      play at most t turns in O's area and at most E in the shared regions (each fills one of
//      the E squares, which P never touches). After P's turn t + E + 1, which P has (m >=
//      t + E + 1), O has no turn left.
//   2. P loses if m + E <= t. O plays alone the same way; P has at most m + E turns, and O
//      answers each of them (t >= m + E); then P, to move, has none.
// With no shared region (E = 0, the players separated), one of the two always applies: the
// player to move wins exactly when m > t.
//
// Dominated moves (essential_moves). In terms of combinatorial game theory the position is a
// sum: the shared regions, plus P's own area, a game where only P moves, which equals the
// integer m (the value of a game with moves for one side only is that side's longest line),
// minus O's t. A move of P in their own area leaves m' <= m - 1 there, and the outcome of a sum
// is monotonic in an integer part, so a move leaving m - 1 is at least as good as any other
// move in P's own area. A solver therefore needs only one of P's own-area moves: one that
// keeps the solitaire count at m - 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "amazons/rules/position.hpp"
#include "gsearch/core/move_list.hpp"

namespace amazons {

// The squares of `within` king-connected to a square of `seed` through squares of `within`.
inline Bitboard king_component(Bitboard seed, Bitboard within) noexcept {
  Bitboard region = seed & within;
  for (;;) {
    const Bitboard grown = region | (king_box(region) & within);
    if (grown == region) return region;
    region = grown;
  }
}

// How the regions split between the players (see the header comment).
struct Areas {
  Bitboard own[2] = {0, 0};  // squares (empty or a queen) of the regions only p's queens hold
  Bitboard shared = 0;       // squares of the regions holding queens of both players
};

inline Areas find_areas(const Position& pos) noexcept {
  const Bitboard within = pos.empty() | pos.queens(kWhite) | pos.queens(kBlack);
  const Bitboard white = king_component(pos.queens(kWhite), within);
  const Bitboard black = king_component(pos.queens(kBlack), within);
  Areas a;
  a.shared = white & black;
  a.own[kWhite] = white & ~a.shared;
  a.own[kBlack] = black & ~a.shared;
  return a;
}

// Exact solitaire counts: the most turns a player can play alone with the given queens and
// empty squares, by a search over that player's turns in which every region is solved on its
// own, the search of a region stops as soon as a line fills all its empty squares (the upper
// bound), and results are kept in a cache keyed by the exact contents of a region (so a cache
// hit is never wrong). One object per thread; not thread-safe.
class Solitaire {
 public:
  // `cache_bits`: log2 of the number of cache entries (48 bytes each); `node_budget`: the
  // most regions one call may search before it gives up.
  explicit Solitaire(int cache_bits = 16, std::uint64_t node_budget = 100000)
      : entries_(std::size_t{1} << cache_bits),
        mask_((std::size_t{1} << cache_bits) - 1),
        node_budget_(node_budget) {}

  // M for queens `queens` and empty squares `empty`: the queens' regions must hold no other
  // queen. -1 when the node budget runs out first.
  [[nodiscard]] int moves(Bitboard queens, Bitboard empty) noexcept {
    nodes_ = 0;
    return sum(queens, empty);
  }

  // A turn of these queens after which they can still play moves(queens, empty) - 1 turns
  // alone. False when they have no turn or the node budget runs out first.
  [[nodiscard]] bool optimal_move(Bitboard queens, Bitboard empty, Move& out) noexcept {
    nodes_ = 0;
    const int value = sum(queens, empty);
    if (value <= 0) return false;
    bool found = false;
    const bool complete = for_each_turn(queens, empty, [&](const Move& m, int after) {
      if (after != value - 1) return false;
      out = m;
      found = true;
      return true;
    });
    return complete && found;
  }

 private:
  struct Entry {
    Bitboard queens = 0;
    Bitboard empty = 0;
    int value = -1;  // -1: unused
  };

  // Calls visit(move, count after it) for each turn of `queens` until visit returns true.
  // Returns false when the budget ran out.
  template <class Visit>
  bool for_each_turn(Bitboard queens, Bitboard empty, Visit&& visit) noexcept {
    const Bitboard occupied = ~empty;
    for (Bitboard qs = queens; qs;) {
      const Square from = pop_lsb(qs);
      const Bitboard lifted = occupied ^ bit(from);
      for (Bitboard dests = queen_attacks(from, occupied); dests;) {
        const Square to = pop_lsb(dests);
        for (Bitboard arrows = queen_attacks(to, lifted | bit(to)); arrows;) {
          const Square arrow = pop_lsb(arrows);
          const int after =
              sum(queens ^ bit(from) ^ bit(to), (empty ^ bit(from) ^ bit(to)) & ~bit(arrow));
          if (after < 0) return false;
          if (visit(Move{from, to, arrow}, after)) return true;
        }
      }
    }
    return true;
  }

  // The sum over the regions of `queens` of their counts; -1 when out of budget.
  int sum(Bitboard queens, Bitboard empty) noexcept {
    int total = 0;
    const Bitboard within = empty | queens;
    for (Bitboard rest = queens; rest;) {
      const Bitboard region = king_component(bit(lsb(rest)), within);
      rest &= ~region;
      const int v = count(queens & region, empty & region);
      if (v < 0) return -1;
      total += v;
    }
    return total;
  }

  // The count of one region: its queens and its empty squares.
  int count(Bitboard queens, Bitboard empty) noexcept {
    const int bound = popcount(empty);
    if (bound == 0) return 0;
    Entry& e = entries_[index(queens, empty)];
    if (e.value >= 0 && e.queens == queens && e.empty == empty) return e.value;
    if (++nodes_ > node_budget_) return -1;
    // The region holds a queen and an empty square, connected: somewhere on a path between
    // them a queen borders an empty square, so at least one turn exists.
    int best = 0;
    const bool complete = for_each_turn(queens, empty, [&](const Move&, int after) {
      best = std::max(best, after + 1);
      return best == bound;
    });
    if (!complete) return -1;
    e = {queens, empty, best};
    return best;
  }

  [[nodiscard]] std::size_t index(Bitboard queens, Bitboard empty) const noexcept {
    const Bitboard x = queens * 0x9e3779b97f4a7c15ULL ^ empty;
    const std::uint64_t h = (static_cast<std::uint64_t>(x) ^ static_cast<std::uint64_t>(x >> 64)) *
                            0xbf58476d1ce4e5b9ULL;
    return static_cast<std::size_t>(h >> 40) & mask_;
  }

  std::vector<Entry> entries_;
  std::size_t mask_;
  std::uint64_t node_budget_;
  std::uint64_t nodes_ = 0;
};

// +1 when the player to move wins, -1 when they lose, by rules 1 and 2 of the header comment;
// 0 when neither applies (or a solitaire count ran out of budget).
inline int bound_outcome(const Position& pos, Solitaire& solitaire) noexcept {
  const Areas areas = find_areas(pos);
  const Bitboard empty = pos.empty();
  const Player me = pos.to_move(), other = gsearch::opponent(me);
  const int e = popcount(areas.shared & empty);
  const int mine_max = popcount(areas.own[me] & empty);
  const int theirs_max = popcount(areas.own[other] & empty);
  // m <= mine_max, t <= theirs_max, and m + e >= 1 (the player to move has a turn, in their
  // own area or a shared one): skip the counts when no rule can apply.
  if (mine_max <= e && theirs_max < std::max(e, 1)) return 0;
  const int m = solitaire.moves(pos.queens(me) & areas.own[me], areas.own[me] & empty);
  if (m < 0) return 0;
  if (m > theirs_max + e) return 1;            // rule 1, with t <= theirs_max
  if (m <= e && m + e > theirs_max) return 0;  // neither rule can apply, whatever t is
  const int t = solitaire.moves(pos.queens(other) & areas.own[other], areas.own[other] & empty);
  if (t < 0) return 0;
  if (m > t + e) return 1;    // rule 1
  if (m + e <= t) return -1;  // rule 2
  return 0;
}

// Removes from `moves` (the legal moves of `pos`) the dominated moves of the header comment:
// of the moves of the player to move in their own area, only one that keeps their solitaire
// count at m - 1 stays. Leaves `moves` as it is when the count runs out of budget.
template <std::size_t Capacity>
void remove_dominated(const Position& pos, Solitaire& solitaire,
                      gsearch::MoveList<Move, Capacity>& moves) noexcept {
  const Bitboard empty = pos.empty();
  const Bitboard within = empty | pos.queens(kWhite) | pos.queens(kBlack);
  const Player me = pos.to_move();
  const Bitboard theirs = king_component(pos.queens(gsearch::opponent(me)), within);
  const Bitboard own = king_component(pos.queens(me), within) & ~theirs;
  const Bitboard own_queens = pos.queens(me) & own;
  if (!own_queens) return;
  Move keep;
  if (!solitaire.optimal_move(own_queens, own & empty, keep)) return;
  std::size_t n = 0;
  for (std::size_t i = 0; i < moves.size(); ++i)
    if (!(bit(moves[i].from) & own_queens) || moves[i] == keep) moves[n++] = moves[i];
  moves.truncate(n);
}

}  // namespace amazons
