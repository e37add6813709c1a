// Exhaustive Amazons values for the tests of the solvers and of the region knowledge: plain
// search over every legal move, memoised on the exact position (never a hash), and random
// small positions to run it on. Deliberately simple: no knowledge, no move ordering.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "amazons/rules/position.hpp"
#include "gsearch/core/rng.hpp"

namespace exact {

using amazons::Bitboard;
using amazons::Position;

class Solver {
 public:
  // True when the player to move at `pos` wins against any defence.
  bool wins(const Position& pos) {
    const Key key{static_cast<int>(pos.to_move()), pos.queens(amazons::kWhite),
                  pos.queens(amazons::kBlack), pos.arrows(), pos.mask()};
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    bool win = false;
    gsearch::MoveListOf<Position> moves;
    pos.legal_moves(moves);  // none at a terminal position: the player to move loses
    for (const auto& m : moves) {
      Position child = pos;
      child.apply(m);
      if (!wins(child)) {
        win = true;
        break;
      }
    }
    memo_.emplace(key, win);
    return win;
  }

  // The most turns queens `queens` can play alone on the empty squares `empty`, stepping
  // square by square along the eight lines (no bitboard attack code involved).
  int solitaire(Bitboard queens, Bitboard empty) {
    const auto key = std::make_tuple(queens, empty);
    if (const auto it = solitaire_memo_.find(key); it != solitaire_memo_.end()) return it->second;
    static constexpr int kSteps[8] = {1, -1, 11, -11, 12, -12, 10, -10};
    int best = 0;
    for (int from = 0; from < 128; ++from) {
      if (!(queens & amazons::bit(static_cast<amazons::Square>(from)))) continue;
      for (int d : kSteps)
        for (int to = from + d; to >= 0 && to < 128 && (empty & bit_of(to)); to += d) {
          const Bitboard after = (empty | bit_of(from)) & ~bit_of(to);
          for (int a : kSteps)
            for (int arrow = to + a; arrow >= 0 && arrow < 128 && (after & bit_of(arrow));
                 arrow += a) {
              const int v =
                  1 + solitaire(queens ^ bit_of(from) ^ bit_of(to), after & ~bit_of(arrow));
              if (v > best) best = v;
            }
        }
    }
    solitaire_memo_.emplace(key, best);
    return best;
  }

 private:
  static Bitboard bit_of(int s) { return amazons::bit(static_cast<amazons::Square>(s)); }

  using Key = std::tuple<int, Bitboard, Bitboard, Bitboard, Bitboard>;
  std::map<Key, bool> memo_;
  std::map<std::tuple<Bitboard, Bitboard>, int> solitaire_memo_;
};

// A random cols × rows position: `white` and `black` queens and about `arrow_share` of the
// other squares blocked, on distinct random squares; `side` to move ('w' or 'b'), or either
// at random.
inline Position random_position(gsearch::Rng& rng, int cols, int rows, int white, int black,
                                double arrow_share, char side = 0) {
  char grid[10][10];
  int free_squares = cols * rows;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) grid[r][c] = '.';
  const auto place = [&](char piece) {
    int k = static_cast<int>(rng.below(static_cast<std::uint64_t>(free_squares--)));
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        if (grid[r][c] == '.' && k-- == 0) grid[r][c] = piece;
  };
  for (int i = 0; i < white; ++i) place('Q');
  for (int i = 0; i < black; ++i) place('q');
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (grid[r][c] == '.' && rng.bernoulli(arrow_share)) grid[r][c] = '*';
  std::string fen;
  for (int r = rows - 1; r >= 0; --r) {
    int run = 0;
    for (int c = 0; c < cols; ++c) {
      if (grid[r][c] == '.') {
        ++run;
        continue;
      }
      if (run) fen += std::to_string(run), run = 0;
      fen += grid[r][c];
    }
    if (run) fen += std::to_string(run);
    if (r) fen += '/';
  }
  if (side == 0) side = rng.below(2) ? 'b' : 'w';
  fen += ' ';
  fen += side;
  return Position::from_fen(fen);
}

// A small random position for checking solvers against Solver: 3 to 5 columns, 3 or 4 rows,
// 1 to 3 queens a side, about 30 % of the other squares blocked; nullopt when it is terminal
// or has more than 8 empty squares (so that exhaustive search stays quick).
inline std::optional<Position> random_small_position(gsearch::Rng& rng) {
  const int cols = 3 + static_cast<int>(rng.below(3));
  const int rows = 3 + static_cast<int>(rng.below(2));
  const int white = 1 + static_cast<int>(rng.below(3));
  const int black = 1 + static_cast<int>(rng.below(3));
  const Position pos = random_position(rng, cols, rows, white, black, 0.3);
  if (pos.is_terminal() || amazons::popcount(pos.empty()) > 8) return std::nullopt;
  return pos;
}

}  // namespace exact
