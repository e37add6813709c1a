// A deliberately simple Amazons move generator for the tests: a grid of characters and loops
// over coordinates, sharing no code with the bitboard generator it checks (examples/amazons).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace reference {

struct Board {
  int cols = 0, rows = 0;
  char cell[10][10] = {};  // [row][col], row 0 = rank 1: '.', 'W', 'B', 'x'
  char side = 'W';
};

// (from col, from row, to col, to row, arrow col, arrow row)
using Move = std::tuple<int, int, int, int, int, int>;

inline Board parse_fen(std::string_view fen) {
  Board b;
  std::vector<std::string> rows(1);
  std::size_t i = 0;
  for (; i < fen.size() && fen[i] != ' '; ++i) {
    if (fen[i] == '/')
      rows.emplace_back();
    else
      rows.back() += fen[i];
  }
  b.side = fen.substr(i + 1, 1) == "b" ? 'B' : 'W';
  b.rows = static_cast<int>(rows.size());
  for (int r = 0; r < b.rows; ++r) {
    int c = 0;
    const std::string& text = rows[b.rows - 1 - r];
    for (std::size_t k = 0; k < text.size(); ++k) {
      if (text[k] >= '0' && text[k] <= '9') {
        int n = text[k] - '0';
        if (k + 1 < text.size() && text[k + 1] == '0') n = 10, ++k;
        while (n--) b.cell[r][c++] = '.';
      } else {
        b.cell[r][c++] = text[k] == 'Q' ? 'W' : text[k] == 'q' ? 'B' : 'x';
      }
    }
    b.cols = c;
  }
  return b;
}

inline std::vector<Move> moves(const Board& b) {
  static const int dc[8] = {1, 1, 0, -1, -1, -1, 0, 1};
  static const int dr[8] = {0, 1, 1, 1, 0, -1, -1, -1};
  std::vector<Move> out;
  Board t = b;
  for (int r = 0; r < b.rows; ++r)
    for (int c = 0; c < b.cols; ++c) {
      if (b.cell[r][c] != b.side) continue;
      for (int d = 0; d < 8; ++d) {
        for (int r2 = r + dr[d], c2 = c + dc[d];
             r2 >= 0 && r2 < b.rows && c2 >= 0 && c2 < b.cols && b.cell[r2][c2] == '.';
             r2 += dr[d], c2 += dc[d]) {
          t.cell[r][c] = '.';
          t.cell[r2][c2] = b.side;
          for (int e = 0; e < 8; ++e)
            for (int r3 = r2 + dr[e], c3 = c2 + dc[e];
                 r3 >= 0 && r3 < b.rows && c3 >= 0 && c3 < b.cols && t.cell[r3][c3] == '.';
                 r3 += dr[e], c3 += dc[e])
              out.emplace_back(c, r, c2, r2, c3, r3);
          t.cell[r2][c2] = '.';
          t.cell[r][c] = b.side;
        }
      }
    }
  return out;
}

inline Board play(Board b, const Move& m) {
  const auto [c, r, c2, r2, c3, r3] = m;
  b.cell[r][c] = '.';
  b.cell[r2][c2] = b.side;
  b.cell[r3][c3] = 'x';
  b.side = b.side == 'W' ? 'B' : 'W';
  return b;
}

inline std::uint64_t perft(const Board& b, int depth) {
  if (depth == 0) return 1;
  const auto ms = moves(b);
  if (depth == 1) return ms.size();
  std::uint64_t n = 0;
  for (const auto& m : ms) n += perft(play(b, m), depth - 1);
  return n;
}

}  // namespace reference
