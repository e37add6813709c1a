// amazons/rules/render.hpp — drawing a position as text for a terminal.
#pragma once

#include <string>

#include "amazons/rules/position.hpp"

namespace amazons {

enum class RenderStyle {
  kAscii,    // W, B, x and . — safe everywhere
  kUnicode,  // ♕, ♛, ✕ and · — needs a UTF-8 terminal
};

// The board with row numbers on the left and column letters below, row 10 (or the top row of
// a smaller board) first. Squares in `highlight` (e.g. the last move's three squares) are
// drawn in brackets. A line below says whose turn it is.
inline std::string render(const Position& pos, RenderStyle style = RenderStyle::kAscii,
                          Bitboard highlight = 0) {
  const bool uni = style == RenderStyle::kUnicode;
  std::string out;
  for (int r = pos.rows() - 1; r >= 0; --r) {
    const std::string label = std::to_string(r + 1);
    out += std::string(3 - label.size(), ' ') + label + ' ';
    for (int c = 0; c < pos.cols(); ++c) {
      const Bitboard b = bit(make_square(c, r));
      const char* piece = (pos.queens(kWhite) & b)   ? (uni ? "\u2655" : "W")
                          : (pos.queens(kBlack) & b) ? (uni ? "\u265b" : "B")
                          : (pos.arrows() & b)       ? (uni ? "\u2715" : "x")
                                                     : (uni ? "\u00b7" : ".");
      const bool mark = (highlight & b) != 0;
      out += mark ? '[' : ' ';
      out += piece;
      out += mark ? ']' : ' ';
    }
    out += '\n';
  }
  out += "    ";
  for (int c = 0; c < pos.cols(); ++c) {
    out += ' ';
    out += static_cast<char>('a' + c);
    out += ' ';
  }
  out += '\n';
  if (pos.is_terminal())
    out +=
        std::string(pos.to_move() == kWhite ? "White" : "Black") + " cannot move and has lost.\n";
  else
    out += std::string(pos.to_move() == kWhite ? "White" : "Black") + " to move, move " +
           std::to_string(pos.fullmove()) + ".\n";
  return out;
}

}  // namespace amazons
