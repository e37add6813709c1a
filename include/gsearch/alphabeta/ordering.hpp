// gsearch/alphabeta/ordering.hpp — move ordering: killer moves and the history heuristic.
//
// Alpha-beta prunes best when the best move comes first. After the transposition table's
// move, a search tries the killers of the ply (the last two moves that caused a cutoff at
// this ply, elsewhere in the tree) and then the moves with the highest history score
// (depth² added each time a move causes a cutoff; Schaeffer 1989). Moves of any game are
// keyed by their bytes, hashed into a table per player.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gsearch/alphabeta/tt.hpp"

namespace gsearch::alphabeta {

template <MoveType Move>
class MoveOrdering {
 public:
  MoveOrdering() : history_(2 * kHistorySize, 0) {}

  void clear() {
    std::fill(history_.begin(), history_.end(), 0);
    for (auto& k : killers_) k = {};
  }

  [[nodiscard]] bool is_killer(int ply, const Move& m) const noexcept {
    const auto& k = killers_[static_cast<std::size_t>(ply)];
    return (k.count > 0 && k.moves[0] == m) || (k.count > 1 && k.moves[1] == m);
  }
  [[nodiscard]] std::int32_t history(Player p, const Move& m) const noexcept {
    return history_[index(p, m)];
  }

  // Records that `m` caused a cutoff at `ply` with `depth` plies left.
  void cutoff(Player p, int ply, int depth, const Move& m) noexcept {
    auto& k = killers_[static_cast<std::size_t>(ply)];
    if (!(k.count > 0 && k.moves[0] == m)) {
      k.moves[1] = k.moves[0];
      k.moves[0] = m;
      if (k.count < 2) ++k.count;
    }
    auto& h = history_[index(p, m)];
    h += depth * depth;
    if (h > (1 << 28)) age();
  }

 private:
  static constexpr std::size_t kHistorySize = 1 << 16;

  static std::size_t index(Player p, const Move& m) noexcept {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &m, sizeof(Move));
    bits *= 0x9e3779b97f4a7c15ULL;
    return static_cast<std::size_t>(p) * kHistorySize + static_cast<std::size_t>(bits >> 48);
  }
  void age() noexcept {
    for (auto& h : history_) h /= 2;
  }

  struct Killers {
    Move moves[2]{};
    int count = 0;
  };
  std::array<Killers, kMaxPly + 1> killers_{};
  std::vector<std::int32_t> history_;
};

}  // namespace gsearch::alphabeta
