// gomoku/rules/position.hpp — free-style Gomoku, and every m,n,k-game up to 15×15.
//
// Rules. Two players, Black (player 0, moves first, 'x') and White (player 1, 'o'), take turns
// placing one stone on an empty cell of a width × height board. The first to have k or more
// stones of their colour in an unbroken line — across, down or diagonal — wins ("free-style":
// overlines count). A full board without such a line is a draw. Tic-tac-toe is 3×3 with k = 3;
// the report's games (../shared/papers/gomoku-candidate-restriction-report.txt) are 6×6 and
// 8×8 with k = 4 or 5; standard free-style Gomoku is 15×15 with k = 5.
//
// Notation (docs/gomoku.md):
//   cells   a file letter and a rank number, "h8": files a.. from the left, ranks 1.. from
//           the bottom. A move is the cell it places a stone on.
//   text    a position in one line, "ROWS SIDE K [LAST]":
//             ROWS  the ranks from the top (rank = height) down to rank 1, separated by '/';
//                   each rank lists its cells from file a: 'x' a black stone, 'o' a white
//                   stone, a number for a run of empty cells. The board's size is the ranks'
//                   count and length.
//             SIDE  'x' or 'o', the player to move: Black when both have as many stones,
//                   White when Black has one more.
//             K     the line length that wins.
//             LAST  optional: the cell of the last stone placed (the opponent's), kept so that
//                   a network's "last move" input survives the text round trip.
//           The empty 8×8 board for connect-5 is "8/8/8/8/8/8/8/8 x 5".
//
// Cells are numbered row * 16 + column (row 0 is rank 1), so a Move is one byte on every board
// size and the 4 × 64-bit bitboards have a spare column on the right.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"

namespace gomoku {

using gsearch::Player;
inline constexpr Player kBlack = 0;  // 'x', moves first
inline constexpr Player kWhite = 1;  // 'o'
inline constexpr int kMaxSide = 15;  // largest width and height
inline constexpr int kMinSide = 3;   // smallest width and height
inline constexpr int kStride = 16;   // cell = row * kStride + column

// Text that is not a valid position, cell or move, or a move that is not legal here. The
// message is one line and names what was wrong.
class NotationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A stone placed on `cell` (row * 16 + column).
struct Move {
  std::uint8_t cell = 0;
  friend constexpr bool operator==(const Move&, const Move&) = default;
};

[[nodiscard]] constexpr int row_of(int cell) noexcept { return cell / kStride; }
[[nodiscard]] constexpr int col_of(int cell) noexcept { return cell % kStride; }
[[nodiscard]] constexpr int cell_at(int row, int col) noexcept { return row * kStride + col; }

// 256 cells as four words: bit (cell % 64) of word (cell / 64).
struct Bits {
  std::array<std::uint64_t, 4> w{};

  [[nodiscard]] constexpr bool test(int cell) const noexcept {
    return (w[cell >> 6] >> (cell & 63)) & 1;
  }
  constexpr void set(int cell) noexcept { w[cell >> 6] |= std::uint64_t{1} << (cell & 63); }
  constexpr void reset(int cell) noexcept { w[cell >> 6] &= ~(std::uint64_t{1} << (cell & 63)); }
  [[nodiscard]] constexpr int count() const noexcept {
    return std::popcount(w[0]) + std::popcount(w[1]) + std::popcount(w[2]) + std::popcount(w[3]);
  }
  [[nodiscard]] constexpr bool any() const noexcept { return (w[0] | w[1] | w[2] | w[3]) != 0; }
  // Calls f(cell) for every set bit, lowest first.
  template <class F>
  constexpr void for_each(F&& f) const {
    for (int i = 0; i < 4; ++i)
      for (std::uint64_t b = w[i]; b; b &= b - 1) f(i * 64 + std::countr_zero(b));
  }
  // The cell of the n-th set bit (0-based, lowest first); n < count().
  [[nodiscard]] constexpr int nth(int n) const noexcept {
    for (int i = 0;; ++i) {
      const int c = std::popcount(w[i]);
      if (n < c) {
        std::uint64_t b = w[i];
        for (; n > 0; --n) b &= b - 1;
        return i * 64 + std::countr_zero(b);
      }
      n -= c;
    }
  }
  friend constexpr Bits operator|(Bits a, const Bits& b) noexcept {
    for (int i = 0; i < 4; ++i) a.w[i] |= b.w[i];
    return a;
  }
  friend constexpr Bits operator&(Bits a, const Bits& b) noexcept {
    for (int i = 0; i < 4; ++i) a.w[i] &= b.w[i];
    return a;
  }
  friend constexpr bool operator==(const Bits&, const Bits&) = default;
};

// The four line directions as (row, column) steps: across, down, diagonal, anti-diagonal.
inline constexpr int kDirRow[4] = {0, 1, 1, 1};
inline constexpr int kDirCol[4] = {1, 0, 1, -1};

namespace detail {
// Zobrist keys, from a fixed seed so hashes are the same in every build and process.
struct ZobristKeys {
  std::array<std::array<std::uint64_t, 256>, 2> stone{};
  std::uint64_t side = 0;
  constexpr ZobristKeys() {
    std::uint64_t s = 0x676f6d6f6b75ULL;  // "gomoku"
    for (auto& player : stone)
      for (auto& k : player) k = gsearch::splitmix64(s);
    side = gsearch::splitmix64(s);
  }
};
inline constexpr ZobristKeys kZobrist{};
}  // namespace detail

class Position {
 public:
  using Move = gomoku::Move;
  // One move per cell of the largest board.
  static constexpr std::size_t max_moves = kMaxSide * kMaxSide;

  // The empty width × height board where k in a row wins. Throws NotationError for a size
  // outside [3, 15] or a k outside [2, max(width, height)].
  [[nodiscard]] static Position empty(int width, int height, int k) {
    if (width < kMinSide || width > kMaxSide || height < kMinSide || height > kMaxSide)
      throw NotationError("board " + std::to_string(width) + "x" + std::to_string(height) +
                          ": width and height must be in [3, 15]");
    if (k < 2 || k > std::max(width, height))
      throw NotationError("k = " + std::to_string(k) + ": the line length must be in [2, " +
                          std::to_string(std::max(width, height)) + "] on a " +
                          std::to_string(width) + "x" + std::to_string(height) + " board");
    Position p;
    p.width_ = static_cast<std::uint8_t>(width);
    p.height_ = static_cast<std::uint8_t>(height);
    p.k_ = static_cast<std::uint8_t>(k);
    for (int r = 0; r < height; ++r)
      for (int c = 0; c < width; ++c) p.empty_.set(cell_at(r, c));
    return p;
  }

  // Reads the one-line text format above. Throws NotationError naming what was wrong.
  [[nodiscard]] static Position from_text(std::string_view text);
  // The one-line text format; from_text(p.text()) == p.
  [[nodiscard]] std::string text() const;

  [[nodiscard]] int width() const noexcept { return width_; }
  [[nodiscard]] int height() const noexcept { return height_; }
  [[nodiscard]] int k() const noexcept { return k_; }
  [[nodiscard]] int cells() const noexcept { return width_ * height_; }
  [[nodiscard]] bool on_board(int row, int col) const noexcept {
    return row >= 0 && row < height_ && col >= 0 && col < width_;
  }
  // The stones of `p`, and the empty cells, as bitboards.
  [[nodiscard]] const Bits& stones(Player p) const noexcept { return stones_[p]; }
  [[nodiscard]] const Bits& empty_cells() const noexcept { return empty_; }
  [[nodiscard]] int stone_count() const noexcept { return cells() - empty_.count(); }
  // The cell of the last stone placed, if known.
  [[nodiscard]] std::optional<Move> last_move() const noexcept {
    if (last_ == kNone) return std::nullopt;
    return Move{last_};
  }
  // The player with a line, or -1.
  [[nodiscard]] int winner() const noexcept { return winner_ == kNone ? -1 : winner_; }

  // --- the Game concept -----------------------------------------------------------------
  [[nodiscard]] Player to_move() const noexcept { return side_; }
  void legal_moves(gsearch::MoveListOf<Position>& list) const noexcept {
    list.clear();
    if (winner_ != kNone) return;
    empty_.for_each([&](int cell) { list.push_back({static_cast<std::uint8_t>(cell)}); });
  }
  [[nodiscard]] std::uint64_t count_moves() const noexcept {
    return winner_ != kNone ? 0 : static_cast<std::uint64_t>(empty_.count());
  }
  template <class R>
  [[nodiscard]] Move random_move(R& rng) const noexcept {
    const auto n = static_cast<std::uint64_t>(empty_.count());
    return {static_cast<std::uint8_t>(empty_.nth(static_cast<int>(rng.below(n))))};
  }
  void apply(const Move& m) noexcept {
    stones_[side_].set(m.cell);
    empty_.reset(m.cell);
    hash_ ^= detail::kZobrist.stone[side_][m.cell] ^ detail::kZobrist.side;
    last_ = m.cell;
    if (line_through(m.cell, side_) >= k_) winner_ = static_cast<std::uint8_t>(side_);
    side_ = gsearch::opponent(side_);
  }
  [[nodiscard]] bool is_terminal() const noexcept { return winner_ != kNone || !empty_.any(); }
  [[nodiscard]] double result(Player p) const noexcept {
    if (winner_ == kNone) return 0.0;
    return winner_ == p ? 1.0 : -1.0;
  }
  [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }
  [[nodiscard]] std::uint64_t compute_hash() const noexcept {
    std::uint64_t h = side_ == kWhite ? detail::kZobrist.side : 0;
    for (Player p : {kBlack, kWhite})
      stones_[p].for_each([&](int cell) { h ^= detail::kZobrist.stone[p][cell]; });
    return h;
  }
  [[nodiscard]] std::string move_to_string(const Move& m) const { return cell_name(m.cell); }
  // The move a cell name ("h8") places, when that cell is on the board, empty and the game is
  // not over. Throws NotationError otherwise.
  [[nodiscard]] Move parse_move(std::string_view text) const;

  // --- lines ----------------------------------------------------------------------------
  // The longest line of `p`'s stones through `cell` if `p` had a stone there (whatever is
  // there now), over the four directions.
  [[nodiscard]] int line_through(int cell, Player p) const noexcept {
    int best = 0;
    for (int d = 0; d < 4; ++d) best = std::max(best, run_through(cell, p, d));
    return best;
  }
  // The length of the line of `p`'s stones through `cell` in direction d (0..3), counting
  // `cell` as p's.
  [[nodiscard]] int run_through(int cell, Player p, int d) const noexcept {
    return 1 + run_from(cell, p, d, 1) + run_from(cell, p, d, -1);
  }
  // The number of p's stones in a row from `cell` (exclusive) stepping `sign` along d.
  [[nodiscard]] int run_from(int cell, Player p, int d, int sign) const noexcept {
    int n = 0;
    for (int r = row_of(cell) + sign * kDirRow[d], c = col_of(cell) + sign * kDirCol[d];
         on_board(r, c) && stones_[p].test(cell_at(r, c));
         r += sign * kDirRow[d], c += sign * kDirCol[d])
      ++n;
    return n;
  }
  // True when `p` placing a stone on the empty cell `cell` makes k in a row.
  [[nodiscard]] bool wins_at(int cell, Player p) const noexcept {
    return line_through(cell, p) >= k_;
  }

  // "h8" for a cell.
  [[nodiscard]] static std::string cell_name(int cell) {
    return std::string(1, static_cast<char>('a' + col_of(cell))) + std::to_string(row_of(cell) + 1);
  }
  // The cell a name ("h8") denotes on this board; NotationError when it is not one.
  [[nodiscard]] int parse_cell(std::string_view text) const;

  // Equal positions: the same board, stones, player to move and k. The last move is a note
  // on the position (for a network's input), not part of it: positions reached by different
  // move orders are equal, with equal hashes.
  friend bool operator==(const Position& a, const Position& b) noexcept {
    return a.stones_[0] == b.stones_[0] && a.stones_[1] == b.stones_[1] && a.width_ == b.width_ &&
           a.height_ == b.height_ && a.k_ == b.k_ && a.side_ == b.side_;
  }

 private:
  static constexpr std::uint8_t kNone = 255;

  Bits stones_[2]{};
  Bits empty_{};
  std::uint64_t hash_ = 0;
  std::uint8_t width_ = 0, height_ = 0, k_ = 0;
  std::uint8_t side_ = kBlack;
  std::uint8_t winner_ = kNone;
  std::uint8_t last_ = kNone;
};

static_assert(gsearch::Game<Position>);
static_assert(gsearch::CountableGame<Position> && gsearch::RehashableGame<Position> &&
              gsearch::NotatedGame<Position> && gsearch::RandomMoveGame<Position, gsearch::Rng>);

namespace detail {
inline std::string quoted(std::string_view s) {
  return "\"" + std::string(s.size() > 60 ? s.substr(0, 60) : s) + (s.size() > 60 ? "...\"" : "\"");
}
}  // namespace detail

inline int Position::parse_cell(std::string_view text) const {
  const auto bad = [&](const std::string& why) {
    return NotationError("cell " + detail::quoted(text) + ": " + why);
  };
  if (text.size() < 2 || text[0] < 'a' || text[0] > 'z')
    throw bad("expected a file letter and a rank number, e.g. \"c3\"");
  int rank = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data() + 1, end, rank);
  if (ec != std::errc() || ptr != end || text[1] == '+' || text[1] == '-')
    throw bad("expected a file letter and a rank number, e.g. \"c3\"");
  const int col = text[0] - 'a', row = rank - 1;
  if (!on_board(row, col))
    throw bad("not on the " + std::to_string(width_) + "x" + std::to_string(height_) +
              " board (files a-" + std::string(1, static_cast<char>('a' + width_ - 1)) +
              ", ranks 1-" + std::to_string(height_) + ")");
  return cell_at(row, col);
}

inline Move Position::parse_move(std::string_view text) const {
  const int cell = parse_cell(text);
  if (winner_ != kNone) throw NotationError("move " + detail::quoted(text) + ": the game is over");
  if (!empty_.test(cell))
    throw NotationError("move " + detail::quoted(text) + ": the cell is not empty");
  return {static_cast<std::uint8_t>(cell)};
}

inline std::string Position::text() const {
  std::string out;
  for (int r = height_ - 1; r >= 0; --r) {
    int run = 0;
    for (int c = 0; c < width_; ++c) {
      const int cell = cell_at(r, c);
      const char ch = stones_[kBlack].test(cell) ? 'x' : stones_[kWhite].test(cell) ? 'o' : '.';
      if (ch == '.') {
        ++run;
        continue;
      }
      if (run) out += std::to_string(run);
      run = 0;
      out += ch;
    }
    if (run) out += std::to_string(run);
    if (r) out += '/';
  }
  out += side_ == kBlack ? " x " : " o ";
  out += std::to_string(k_);
  if (last_ != kNone) out += " " + cell_name(last_);
  return out;
}

inline Position Position::from_text(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return NotationError("position " + detail::quoted(text) + ": " + why);
  };
  // Split into fields at spaces.
  std::string_view fields[5];
  int n = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    if (n == 4) throw bad("too many fields; expected \"ROWS SIDE K [LAST]\"");
    fields[n++] = text.substr(i, j - i);
    i = j;
  }
  if (n < 3) throw bad("expected \"ROWS SIDE K [LAST]\", e.g. \"8/8/8/8/8/8/8/8 x 5\"");

  // Ranks, top first.
  int width = -1, height = 0;
  std::array<std::string, kMaxSide> ranks;  // one char per cell: 'x', 'o' or '.'
  for (std::size_t i = 0; i <= fields[0].size();) {
    std::size_t j = fields[0].find('/', i);
    if (j == std::string_view::npos) j = fields[0].size();
    if (height == kMaxSide) throw bad("more than 15 ranks");
    std::string& rank = ranks[height];
    for (std::size_t p = i; p < j;) {
      const char ch = fields[0][p];
      if (ch == 'x' || ch == 'o') {
        rank += ch;
        ++p;
      } else if (ch >= '1' && ch <= '9') {
        int run = 0;
        while (p < j && fields[0][p] >= '0' && fields[0][p] <= '9' && run <= kMaxSide)
          run = run * 10 + (fields[0][p++] - '0');
        if (run > kMaxSide)
          throw bad("rank " + std::to_string(height + 1) + " from the top is longer than 15 cells");
        rank.append(static_cast<std::size_t>(run), '.');
      } else {
        throw bad("unexpected '" + std::string(1, ch) +
                  "' in the ranks (expected x, o, a number or /)");
      }
      if (rank.size() > kMaxSide)
        throw bad("rank " + std::to_string(height + 1) + " from the top is longer than 15 cells");
    }
    if (width < 0) width = static_cast<int>(rank.size());
    if (static_cast<int>(rank.size()) != width)
      throw bad("rank " + std::to_string(height + 1) + " from the top has " +
                std::to_string(rank.size()) + " cells, the first has " + std::to_string(width));
    ++height;
    i = j + 1;
  }
  if (width < kMinSide || height < kMinSide)
    throw bad("the board is " + std::to_string(width) + "x" + std::to_string(height) +
              "; width and height must be in [3, 15]");

  int k = 0;
  {
    const char* end = fields[2].data() + fields[2].size();
    const auto [ptr, ec] = std::from_chars(fields[2].data(), end, k);
    if (ec != std::errc() || ptr != end)
      throw bad("K " + detail::quoted(fields[2]) + " is not a whole number");
  }
  Position p;
  try {
    p = empty(width, height, k);
  } catch (const NotationError& e) {
    throw bad(e.what());
  }
  int counts[2] = {0, 0};
  for (int t = 0; t < height; ++t)
    for (int c = 0; c < width; ++c) {
      const char ch = ranks[t][c];
      if (ch == '.') continue;
      const int cell = cell_at(height - 1 - t, c);
      const Player who = ch == 'x' ? kBlack : kWhite;
      p.stones_[who].set(cell);
      p.empty_.reset(cell);
      ++counts[who];
    }
  if (fields[1] != "x" && fields[1] != "o")
    throw bad("SIDE " + detail::quoted(fields[1]) + " is not x or o");
  const Player side = fields[1] == "x" ? kBlack : kWhite;
  const Player expected = counts[kBlack] == counts[kWhite]       ? kBlack
                          : counts[kBlack] == counts[kWhite] + 1 ? kWhite
                                                                 : -1;
  if (expected < 0)
    throw bad(std::to_string(counts[kBlack]) + " black and " + std::to_string(counts[kWhite]) +
              " white stones: Black moves first, so Black has as many stones as White or one more");
  if (side != expected)
    throw bad(std::string("SIDE is ") + (side == kBlack ? "x" : "o") + " but " +
              (expected == kBlack ? "x" : "o") + " is to move with these stones");
  p.side_ = static_cast<std::uint8_t>(side);
  p.hash_ = p.compute_hash();

  // Lines: only the player who moved last may have one.
  const auto has_line = [&](Player who) {
    bool found = false;
    p.stones_[who].for_each([&](int cell) { found = found || p.line_through(cell, who) >= k; });
    return found;
  };
  if (has_line(side))
    throw bad(std::string(side == kBlack ? "x" : "o") + " is to move but already has " +
              std::to_string(k) + " in a row");
  if (has_line(gsearch::opponent(side)))
    p.winner_ = static_cast<std::uint8_t>(gsearch::opponent(side));

  if (n == 4) {
    int cell = 0;
    try {
      cell = p.parse_cell(fields[3]);
    } catch (const NotationError& e) {
      throw bad(std::string("LAST: ") + e.what());
    }
    if (!p.stones_[gsearch::opponent(side)].test(cell))
      throw bad("LAST " + detail::quoted(fields[3]) +
                " is not a stone of the player who moved last");
    p.last_ = static_cast<std::uint8_t>(cell);
  }
  return p;
}

}  // namespace gomoku
