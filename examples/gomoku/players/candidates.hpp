// gomoku/players/candidates.hpp — candidate restriction: which legal moves a search considers.
//
// The report (../shared/papers/gomoku-candidate-restriction-report.txt, §Method) restricts
// MCTS to the candidate set C(s) ⊆ A(s):
//   - local window: the legal moves inside a window×window square centred on the centroid of
//     the occupied cells. The window is placed at round(centroid − (window − 1) / 2) and moved
//     back onto the board where it would stick out, so it always has window² cells. On the
//     empty board the centroid is the board's centre. The full move list is used when the
//     board is no larger than the window in both directions, or when no legal move is inside;
//   - threat-aware exceptions (threats=1): every legal move that wins at once for the player
//     to move, or blocks the opponent's immediate win (a cell where the opponent would win),
//     is added back;
//   - beyond the report, as its future work suggests: threats=2 also adds the moves that make
//     or block an open (k−1) — k−1 in a row with both ends empty, an open four in connect-5 —
//     and threats=3 an open (k−2), an open three. "In a row" means contiguous stones through
//     the cell; split shapes (x.xx) are not recognised.
// Policy top-k filtering is the search's (gsearch::mcts::Expansion::top_k over the network's
// priors), applied after this filter: the two compose.
//
// The same filter serves expansion and the root's move choice (the root's children are
// expanded by it too), as in the report.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "gomoku/rules/position.hpp"

namespace gomoku {

struct Restriction {
  int window = 0;   // side of the local window; 0 = no window
  int threats = 0;  // 0 none; 1 wins and blocks of wins; 2 also open (k−1)s; 3 also open (k−2)s
  [[nodiscard]] bool none() const noexcept { return window == 0 && threats == 0; }
  friend bool operator==(const Restriction&, const Restriction&) = default;
};

// "none", or comma-separated "window=N" (N in [1, 15]), "threats" (= threats=1), "threats=L"
// (L in [0, 3]): "window=6,threats". Throws std::invalid_argument with a one-line reason.
[[nodiscard]] inline Restriction parse_restriction(std::string_view text) {
  Restriction r;
  if (text == "none" || text.empty()) return r;
  const auto bad = [&](std::string_view part, const std::string& why) {
    return std::invalid_argument("restriction \"" + std::string(text) + "\": \"" +
                                 std::string(part) + "\" " + why);
  };
  for (std::size_t i = 0; i <= text.size();) {
    std::size_t j = text.find(',', i);
    if (j == std::string_view::npos) j = text.size();
    const std::string_view part = text.substr(i, j - i);
    const std::size_t eq = part.find('=');
    const std::string_view key = part.substr(0, eq);
    int value = 1;
    if (eq != std::string_view::npos) {
      const std::string_view v = part.substr(eq + 1);
      const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
      if (ec != std::errc() || ptr != v.data() + v.size() || v.empty())
        throw bad(part, "needs a whole number after '='");
    }
    if (key == "window") {
      if (eq == std::string_view::npos || value < 1 || value > kMaxSide)
        throw bad(part, "needs a size in [1, 15]");
      r.window = value;
    } else if (key == "threats") {
      if (value < 0 || value > 3) throw bad(part, "needs a level in [0, 3]");
      r.threats = value;
    } else {
      throw bad(part, "is not window=N or threats[=L]");
    }
    i = j + 1;
  }
  return r;
}

// The canonical text: "none", "window=6", "threats=1", "window=6,threats=1".
[[nodiscard]] inline std::string to_string(const Restriction& r) {
  if (r.none()) return "none";
  std::string out;
  if (r.window) out = "window=" + std::to_string(r.window);
  if (r.threats)
    out += (out.empty() ? "" : ",") + std::string("threats=") + std::to_string(r.threats);
  return out;
}

// True when `p` placing a stone on the empty `cell` makes `len` or more in a row, in some
// direction, with the cells just beyond both ends of that row on the board and empty.
[[nodiscard]] inline bool makes_open_line(const Position& pos, int cell, Player p,
                                          int len) noexcept {
  const Bits& empty = pos.empty_cells();
  for (int d = 0; d < 4; ++d) {
    const int fwd = pos.run_from(cell, p, d, 1), back = pos.run_from(cell, p, d, -1);
    if (1 + fwd + back < len) continue;
    const int r = row_of(cell), c = col_of(cell);
    const int r1 = r + (fwd + 1) * kDirRow[d], c1 = c + (fwd + 1) * kDirCol[d];
    const int r0 = r - (back + 1) * kDirRow[d], c0 = c - (back + 1) * kDirCol[d];
    if (pos.on_board(r1, c1) && pos.on_board(r0, c0) && empty.test(cell_at(r1, c1)) &&
        empty.test(cell_at(r0, c0)))
      return true;
  }
  return false;
}

// True when the empty `cell` is a threat move at `level` (Restriction::threats) for the player
// to move: it wins, blocks a win, or (level ≥ 2, 3) makes or blocks an open (k−1), (k−2).
[[nodiscard]] inline bool is_threat_move(const Position& pos, int cell, int level) noexcept {
  if (level <= 0) return false;
  const Player me = pos.to_move(), opp = gsearch::opponent(me);
  if (pos.wins_at(cell, me) || pos.wins_at(cell, opp)) return true;
  for (int l = 2; l <= level; ++l) {
    const int len = pos.k() + 1 - l;  // level 2: k − 1, level 3: k − 2
    if (len < 2) break;
    if (makes_open_line(pos, cell, me, len) || makes_open_line(pos, cell, opp, len)) return true;
  }
  return false;
}

// The local window of `pos` for side `window`: rows [row0, row0 + window) and columns
// [col0, col0 + window), clipped to the board; `all` when the board fits inside it.
struct Window {
  int row0 = 0, col0 = 0, rows = 0, cols = 0;
  bool all = true;
  [[nodiscard]] bool contains(int cell) const noexcept {
    const int r = row_of(cell), c = col_of(cell);
    return all || (r >= row0 && r < row0 + rows && c >= col0 && c < col0 + cols);
  }
};

[[nodiscard]] inline Window local_window(const Position& pos, int window) noexcept {
  Window w;
  if (window <= 0 || (pos.width() <= window && pos.height() <= window)) return w;
  double sum_r = 0, sum_c = 0;
  int n = 0;
  (pos.stones(kBlack) | pos.stones(kWhite)).for_each([&](int cell) {
    sum_r += row_of(cell);
    sum_c += col_of(cell);
    ++n;
  });
  const double mr = n ? sum_r / n : (pos.height() - 1) / 2.0;
  const double mc = n ? sum_c / n : (pos.width() - 1) / 2.0;
  const auto place = [&](double centre, int side) {
    const int size = std::min(window, side);
    const int lo = static_cast<int>(std::floor(centre - (size - 1) / 2.0 + 0.5));
    return std::pair{std::clamp(lo, 0, side - size), size};
  };
  std::tie(w.row0, w.rows) = place(mr, pos.height());
  std::tie(w.col0, w.cols) = place(mc, pos.width());
  w.all = false;
  return w;
}

// The filter, in the form gsearch::mcts::Expansion calls: removes from `moves` (the legal
// moves of `pos`) every move outside the candidate set, keeping the order. When nothing would
// be left the list is kept whole (Expansion does the same).
struct CandidateFilter {
  Restriction restriction;

  void operator()(const Position& pos, gsearch::MoveListOf<Position>& moves) const {
    if (restriction.window == 0) return;  // threats only add back to a window
    const Window w = local_window(pos, restriction.window);
    if (w.all) return;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (w.contains(moves[i].cell) || is_threat_move(pos, moves[i].cell, restriction.threats))
        moves[kept++] = moves[i];
    if (kept > 0) moves.truncate(kept);
  }
};

}  // namespace gomoku
