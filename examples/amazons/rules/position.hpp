// amazons/rules/position.hpp — the Game of the Amazons, one whole turn per move.
//
// Rules. Two players, White (player 0, moves first) and Black (player 1), each with up to four
// queens ("amazons") on a board of up to 10×10 squares. A turn is a queen move — any number
// of empty squares along a rank, file or diagonal, without passing an occupied square — and
// then an arrow shot from the queen's new square along a queen line, onto an empty square;
// the arrow blocks that square for the rest of the game. The square the queen left is empty,
// so the queen can always shoot back there: a queen with an empty neighbouring square has a
// complete turn. The player to move with no complete turn loses. There are no draws.
//
// Position is the rule core and the whole-turn game model of gsearch (a Move is queen move +
// arrow: about 2,000 moves at the start). DecisionPosition (decision.hpp) is the same rules as
// three decisions per turn and shares every rule below.
//
// Notation (docs/amazons.md): squares a1..j10, column letter then row number; a move
// "d1-d6/g9" (queen d1 to d6, arrow g9), also read as Fairy-Stockfish's "d1d6,d6g9"; FEN in
// Fairy-Stockfish's amazons style, e.g. the start
//     3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1
// with Q a white queen, q a black queen, * an arrow, digits for runs of empty squares.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "amazons/rules/board.hpp"
#include "gsearch/core/game.hpp"
#include "gsearch/core/rng.hpp"

namespace amazons {

using gsearch::Player;
inline constexpr Player kWhite = 0;
inline constexpr Player kBlack = 1;
inline constexpr int kMaxQueens = 4;  // per player

// Text that is not a valid FEN, square or move, or a move that is not legal here. The
// message is one line and names what was wrong and where.
class NotationError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A whole turn: the queen on `from` moves to `to` and shoots an arrow onto `arrow`.
struct Move {
  Square from = 0;
  Square to = 0;
  Square arrow = 0;
  friend constexpr bool operator==(const Move&, const Move&) = default;
};

namespace detail {

// Zobrist keys, fixed at compile time so hashes are the same in every build and process.
struct ZobristKeys {
  std::array<std::array<std::uint64_t, 128>, 2> queen{};
  std::array<std::uint64_t, 128> arrow{};
  std::array<std::array<std::uint64_t, 128>, 2> pending{};  // used by DecisionPosition
  std::uint64_t black_to_move = 0;
};

constexpr ZobristKeys make_zobrist() {
  ZobristKeys z;
  std::uint64_t seed = 0x616d617a6f6e7321ULL;  // "amazons!"
  for (auto& side : z.queen)
    for (auto& k : side) k = gsearch::splitmix64(seed);
  for (auto& k : z.arrow) k = gsearch::splitmix64(seed);
  for (auto& stage : z.pending)
    for (auto& k : stage) k = gsearch::splitmix64(seed);
  z.black_to_move = gsearch::splitmix64(seed);
  return z;
}

inline constexpr ZobristKeys kZobrist = make_zobrist();

}  // namespace detail

// Square names: column letter a..j, row number 1..10.
inline std::string square_name(Square s) {
  std::string name(1, static_cast<char>('a' + col_of(s)));
  name += std::to_string(row_of(s) + 1);
  return name;
}

class Position {
 public:
  using Move = amazons::Move;

  // Proof of the bound. A queen on a 10×10 board reaches at most 35 squares: 9 along its
  // rank, 9 along its file, and at most 17 along its two diagonals (each has at most 10
  // squares, 9 besides the queen, and both have 10 only on the two long diagonals, which
  // share no square on an even-sized board). So a player has at most 4 × 35 destinations,
  // each with at most 35 arrow squares: at most 4 × 35 × 35 = 4,900 moves.
  static constexpr std::size_t max_moves = kMaxQueens * 35 * 35;

  // The standard 10×10 start: White a4 d1 g1 j4, Black a7 d10 g10 j7, White to move.
  // (Parsed once; later constructions copy it.)
  Position() : Position(start()) {}

  static constexpr std::string_view kStartFen = "3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1";

  static const Position& start() {
    static const Position position = from_fen(kStartFen);
    return position;
  }

  // Parses a FEN (see the header comment). Throws NotationError naming the problem.
  static Position from_fen(std::string_view fen);
  [[nodiscard]] std::string fen() const;

  // --- gsearch::Game -------------------------------------------------------------------
  [[nodiscard]] Player to_move() const noexcept { return side_; }
  void legal_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept;
  void apply(const Move& m) noexcept {
    move_queen(m.from, m.to);
    shoot(m.arrow);
  }
  void undo(const Move& m) noexcept {
    unshoot(m.arrow);
    move_queen(m.to, m.from);
  }
  [[nodiscard]] bool is_terminal() const noexcept { return !can_move(side_); }
  // The player to move at a terminal position has lost.
  [[nodiscard]] double result(Player p) const noexcept {
    if (!is_terminal()) return 0.0;
    return p == side_ ? -1.0 : 1.0;
  }
  [[nodiscard]] std::uint64_t hash() const noexcept { return hash_; }
  [[nodiscard]] std::uint64_t compute_hash() const noexcept;
  // Number of legal moves, by bulk counting: for each queen, its destinations D and then
  // count_line_targets(D, empty squares with the queen lifted) arrows.
  [[nodiscard]] std::uint64_t count_moves() const noexcept;
  // A legal move drawn uniformly from all whole moves (the position must not be terminal):
  // a queen with probability proportional to its number of moves, then its destinations
  // walked until the drawn index falls among one's arrows. No move list is built.
  [[nodiscard]] Move random_move(gsearch::Rng& rng) const noexcept;
  // A legal move drawn uniformly from all whole moves, as random_move draws it, but about
  // three times faster (by rejection), and with other draws from `rng` (so random_move keeps
  // the draws that books, label sets and openings were made with). The playouts' sampler
  // (gsearch::PlayoutMoveGame). The position must not be terminal.
  [[nodiscard]] Move playout_move(gsearch::Rng& rng) const noexcept;
  [[nodiscard]] std::string move_to_string(const Move& m) const;
  // Parses "d1-d6/g9" or "d1d6,d6g9" and checks that the move is legal here.
  [[nodiscard]] Move parse_move(std::string_view text) const;

  // --- Rule core, shared with DecisionPosition ------------------------------------------
  // Moves the queen of the side to move from `from` to `to` (legal by the caller's word).
  void move_queen(Square from, Square to) noexcept {
    queens_[side_] ^= bit(from) | bit(to);
    hash_ ^= detail::kZobrist.queen[side_][from] ^ detail::kZobrist.queen[side_][to];
  }
  // Places an arrow on the empty square `a` and ends the turn.
  void shoot(Square a) noexcept {
    blocked_ |= bit(a);
    hash_ ^= detail::kZobrist.arrow[a] ^ detail::kZobrist.black_to_move;
    if (side_ == kBlack) ++fullmove_;
    side_ = gsearch::opponent(side_);
  }
  // Reverses shoot(a).
  void unshoot(Square a) noexcept {
    side_ = gsearch::opponent(side_);
    if (side_ == kBlack) --fullmove_;
    blocked_ &= ~bit(a);
    hash_ ^= detail::kZobrist.arrow[a] ^ detail::kZobrist.black_to_move;
  }
  // True when `p` has a complete turn: some queen of p has an empty neighbouring square.
  [[nodiscard]] bool can_move(Player p) const noexcept {
    const Bitboard free = empty();
    for (Bitboard qs = queens_[p]; qs;)
      if (king_moves(pop_lsb(qs)) & free) return true;
    return false;
  }
  // Why `m` is not legal here, or an empty string when it is.
  [[nodiscard]] std::string why_illegal(const Move& m) const;

  // --- Accessors ------------------------------------------------------------------------
  [[nodiscard]] Bitboard queens(Player p) const noexcept { return queens_[p]; }
  // Arrows on the board (not the blocked squares outside a small board).
  [[nodiscard]] Bitboard arrows() const noexcept { return blocked_ & mask(); }
  // Every square that is not empty, including the 10×10 area outside the board.
  [[nodiscard]] Bitboard occupied() const noexcept { return queens_[0] | queens_[1] | blocked_; }
  [[nodiscard]] Bitboard empty() const noexcept { return kArea & ~occupied(); }
  [[nodiscard]] Bitboard mask() const noexcept { return board_mask(cols_, rows_); }
  [[nodiscard]] int cols() const noexcept { return cols_; }
  [[nodiscard]] int rows() const noexcept { return rows_; }
  // The FEN fullmove number: 1 at the start, +1 after each Black turn.
  [[nodiscard]] int fullmove() const noexcept { return fullmove_; }
  // Turns played since fullmove 1 (0 at the start position).
  [[nodiscard]] int turns_played() const noexcept { return 2 * (fullmove_ - 1) + side_; }
  // The square named `name` ("a1".."j10") if it is on this board; throws otherwise.
  [[nodiscard]] Square parse_square(std::string_view name) const;
  [[nodiscard]] bool on_board(Square s) const noexcept { return (mask() & bit(s)) != 0; }

  friend bool operator==(const Position&, const Position&) = default;

 private:
  Position(int cols, int rows) noexcept
      : blocked_(kArea & ~board_mask(cols, rows)),
        cols_(static_cast<std::uint8_t>(cols)),
        rows_(static_cast<std::uint8_t>(rows)) {}

  Bitboard queens_[2] = {0, 0};
  Bitboard blocked_ = 0;  // arrows, and the 10×10 area outside the board
  std::uint64_t hash_ = 0;
  std::uint16_t fullmove_ = 1;
  std::uint8_t cols_ = kMaxSize;
  std::uint8_t rows_ = kMaxSize;
  Player side_ = kWhite;
};

static_assert(sizeof(Move) == 3);

// ----------------------------------------------------------------------------------------
// Move generation and counting

inline void Position::legal_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept {
  list.clear();
  const Bitboard occ = occupied();
  for (Bitboard qs = queens_[side_]; qs;) {
    const Square from = pop_lsb(qs);
    const Bitboard lifted = occ ^ bit(from);
    for (Bitboard dests = queen_attacks(from, occ); dests;) {
      const Square to = pop_lsb(dests);
      for (Bitboard arrows = queen_attacks(to, lifted); arrows;)
        list.push_back(Move{from, to, pop_lsb(arrows)});
    }
  }
}

inline std::uint64_t Position::count_moves() const noexcept {
  const Bitboard occ = occupied();
  const Bitboard free = empty();
  std::uint64_t n = 0;
  for (Bitboard qs = queens_[side_]; qs;) {
    const Square from = pop_lsb(qs);
    n += static_cast<std::uint64_t>(count_line_targets(queen_attacks(from, occ), free | bit(from)));
  }
  return n;
}

inline Move Position::random_move(gsearch::Rng& rng) const noexcept {
  const Bitboard occ = occupied();
  const Bitboard free = empty();
  Square from[kMaxQueens];
  Bitboard dests[kMaxQueens];
  std::uint64_t counts[kMaxQueens];
  int n = 0;
  std::uint64_t total = 0;
  for (Bitboard qs = queens_[side_]; qs; ++n) {
    from[n] = pop_lsb(qs);
    dests[n] = queen_attacks(from[n], occ);
    counts[n] = static_cast<std::uint64_t>(count_line_targets(dests[n], free | bit(from[n])));
    total += counts[n];
  }
  GSEARCH_ASSERT(total > 0);
  std::uint64_t r = rng.below(total);
  int q = 0;
  while (r >= counts[q]) r -= counts[q++];
  const Bitboard lifted = occ ^ bit(from[q]);
  for (Bitboard ds = dests[q];;) {
    const Square to = pop_lsb(ds);
    const Bitboard arrows = queen_attacks(to, lifted);
    const auto k = static_cast<std::uint64_t>(popcount(arrows));
    if (r < k) return Move{from[q], to, select_bit(arrows, static_cast<int>(r))};
    r -= k;
  }
}

namespace detail {
// The most squares a queen reaches from one square of an empty cols × rows board: a rook's
// (cols - 1) + (rows - 1) and the longest diagonals' sum over the squares.
constexpr int max_queen_reach(int cols, int rows) {
  int most = 0;
  for (int x = 0; x < cols; ++x)
    for (int y = 0; y < rows; ++y) {
      const int diagonals = std::min(x, y) + std::min(x, rows - 1 - y) + std::min(cols - 1 - x, y) +
                            std::min(cols - 1 - x, rows - 1 - y);
      most = std::max(most, cols - 1 + rows - 1 + diagonals);
    }
  return most;
}
inline constexpr auto kMaxQueenReach = [] {
  std::array<std::array<std::uint8_t, kMaxSize + 1>, kMaxSize + 1> t{};
  for (int c = 1; c <= kMaxSize; ++c)
    for (int r = 1; r <= kMaxSize; ++r) t[c][r] = static_cast<std::uint8_t>(max_queen_reach(c, r));
  return t;
}();
}  // namespace detail

// With few queen moves (fewer than kFewQueenMoves, late in a game), each one's arrows are
// looked up and a whole move drawn from them directly. Otherwise by rejection: each round
// draws a queen move (from, to) uniformly from all of them and a number x uniformly below M,
// a bound on the arrows of any queen move: no more than the board's longest queen reach, nor
// than the empty squares (less `to`, plus `from`). If x is below the number of arrows from
// `to`, the move with the x-th arrow is drawn; otherwise the round is repeated. Each whole
// move has the chance 1 / (queen moves × M) in a round, so the draw is uniform. A round costs
// two attack lookups; random_move's bulk count costs eight directional fills per queen. On
// the positions of random games the draw takes 2 to 6 times less time than random_move's
// once there are 16 queen moves or more, and the direct draw below 16 is the faster of the
// two methods there (docs/benchmarks.md).
inline Move Position::playout_move(gsearch::Rng& rng) const noexcept {
  constexpr int kFewQueenMoves = 16;
  const Bitboard occ = occupied();
  Square from[kMaxQueens];
  Bitboard dests[kMaxQueens];
  int counts[kMaxQueens];
  int n = 0, total = 0;
  for (Bitboard qs = queens_[side_]; qs; ++n) {
    from[n] = pop_lsb(qs);
    dests[n] = queen_attacks(from[n], occ);
    counts[n] = popcount(dests[n]);
    total += counts[n];
  }
  GSEARCH_ASSERT(total > 0);
  if (total < kFewQueenMoves) {
    Move moves[kFewQueenMoves];  // the queen moves (arrow unset) and their arrows
    Bitboard arrows[kFewQueenMoves];
    int m = 0, sum = 0;
    for (int q = 0; q < n; ++q) {
      const Bitboard lifted = occ ^ bit(from[q]);
      for (Bitboard ds = dests[q]; ds; ++m) {
        const Square to = pop_lsb(ds);
        moves[m] = Move{from[q], to, 0};
        arrows[m] = queen_attacks(to, lifted);
        sum += popcount(arrows[m]);
      }
    }
    auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(sum)));
    int i = 0;
    while (r >= popcount(arrows[i])) r -= popcount(arrows[i++]);
    return Move{moves[i].from, moves[i].to, select_bit(arrows[i], r)};
  }
  const auto bound = static_cast<std::uint64_t>(
      std::min<int>(detail::kMaxQueenReach[cols_][rows_], popcount(empty())));
  for (;;) {
    auto r = static_cast<int>(rng.below(static_cast<std::uint64_t>(total)));
    int q = 0;
    while (r >= counts[q]) r -= counts[q++];
    const Square to = select_bit(dests[q], r);
    const Bitboard arrows = queen_attacks(to, occ ^ bit(from[q]));
    const auto x = static_cast<int>(rng.below(bound));
    if (x < popcount(arrows)) return Move{from[q], to, select_bit(arrows, x)};
  }
}

inline std::uint64_t Position::compute_hash() const noexcept {
  std::uint64_t h = side_ == kBlack ? detail::kZobrist.black_to_move : 0;
  for (Player p : {kWhite, kBlack})
    for (Bitboard b = queens_[p]; b;) h ^= detail::kZobrist.queen[p][pop_lsb(b)];
  for (Bitboard b = arrows(); b;) h ^= detail::kZobrist.arrow[pop_lsb(b)];
  return h;
}

inline std::string Position::why_illegal(const Move& m) const {
  const auto name = [](Square s) { return square_name(s); };
  const char* who = side_ == kWhite ? "white" : "black";
  if (!on_board(m.from) || !on_board(m.to) || !on_board(m.arrow))
    return "a square is off the board";
  if (!(queens_[side_] & bit(m.from)))
    return std::string("no ") + who + " queen on " + name(m.from);
  const Bitboard occ = occupied();
  if (!(queen_attacks(m.from, occ) & bit(m.to)))
    return "the queen on " + name(m.from) + " cannot reach " + name(m.to);
  if (!(queen_attacks(m.to, occ ^ bit(m.from)) & bit(m.arrow)))
    return "an arrow from " + name(m.to) + " cannot reach " + name(m.arrow);
  return {};
}

// ----------------------------------------------------------------------------------------
// Notation

namespace detail {

// Reads a square name at text[pos...]: a letter a..j and a row number 1..10. Returns false,
// leaving pos unchanged, when there is none.
inline bool read_square(std::string_view text, std::size_t& pos, int& col, int& row) {
  std::size_t i = pos;
  if (i >= text.size() || text[i] < 'a' || text[i] > 'z') return false;
  col = text[i++] - 'a';
  // A row number starts with a digit 1-9: std::from_chars would also take a sign ("g-9").
  if (i >= text.size() || text[i] < '1' || text[i] > '9') return false;
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
  if (ec != std::errc()) return false;
  row = value - 1;
  pos = static_cast<std::size_t>(end - text.data());
  return true;
}

// `text` in double quotes for a message: bytes that are not printable ASCII as \xNN, and
// text longer than `max` bytes cut short, with its length: "QQQQ..." (120000 bytes), so
// that a message stays one short line whatever it quotes.
inline std::string quoted(std::string_view text, std::size_t max = 80) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, '"');
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += text[i];
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (text.size() > max) return out + "...\" (" + std::to_string(text.size()) + " bytes)";
  out += '"';
  return out;
}

}  // namespace detail

inline Square Position::parse_square(std::string_view name) const {
  std::size_t pos = 0;
  int col = 0, row = 0;
  if (!detail::read_square(name, pos, col, row) || pos != name.size())
    throw NotationError("bad square " + detail::quoted(name) +
                        ": expected a letter and a number, e.g. d1");
  if (col >= cols_ || row >= rows_)
    throw NotationError("square " + detail::quoted(name) + " is off the " + std::to_string(cols_) +
                        "x" + std::to_string(rows_) + " board");
  return make_square(col, row);
}

inline std::string Position::move_to_string(const Move& m) const {
  return square_name(m.from) + "-" + square_name(m.to) + "/" + square_name(m.arrow);
}

inline Move Position::parse_move(std::string_view text) const {
  const auto fail = [&](const std::string& why) {
    return NotationError("bad move " + detail::quoted(text) + ": " + why);
  };
  std::size_t pos = 0;
  const auto square = [&] {
    int col = 0, row = 0;
    const std::size_t start = pos;
    if (!detail::read_square(text, pos, col, row))
      throw fail("expected a square at character " + std::to_string(start + 1) +
                 " (moves look like d1-d6/g9 or d1d6,d6g9)");
    if (col >= cols_ || row >= rows_)
      throw fail(std::string(text.substr(start, pos - start)) + " is off the " +
                 std::to_string(cols_) + "x" + std::to_string(rows_) + " board");
    return make_square(col, row);
  };
  const auto separator = [&](char c) {
    if (pos >= text.size() || text[pos] != c)
      throw fail(std::string("expected '") + c + "' at character " + std::to_string(pos + 1));
    ++pos;
  };
  Move m;
  if (text.find(',') == std::string_view::npos) {  // d1-d6/g9
    m.from = square();
    separator('-');
    m.to = square();
    separator('/');
    m.arrow = square();
  } else {  // d1d6,d6g9
    m.from = square();
    m.to = square();
    separator(',');
    if (square() != m.to)
      throw fail("the arrow must be shot from the queen's destination " + square_name(m.to));
    m.arrow = square();
  }
  if (pos != text.size()) throw fail("unexpected text at character " + std::to_string(pos + 1));
  if (const std::string why = why_illegal(m); !why.empty())
    throw NotationError("illegal move " + detail::quoted(text) + ": " + why);
  return m;
}

inline Position Position::from_fen(std::string_view fen) {
  const auto fail = [&](const std::string& why) -> NotationError {
    return NotationError("bad FEN " + detail::quoted(fen) + ": " + why);
  };
  // Fields: board [pocket] side [castling] [en passant] [halfmove] [fullmove].
  std::array<std::string_view, 8> fields;
  std::size_t nfields = 0;
  for (std::size_t i = 0; i < fen.size();) {
    if (fen[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = fen.find(' ', i);
    if (j == std::string_view::npos) j = fen.size();
    if (nfields == fields.size()) throw fail("too many fields");
    fields[nfields++] = fen.substr(i, j - i);
    i = j;
  }
  if (nfields == 0) throw fail("it is empty");
  std::string_view board = fields[0];
  if (const auto bracket = board.find('['); bracket != std::string_view::npos) {
    if (board.back() != ']') throw fail("unterminated pocket '[...]'");
    board = board.substr(0, bracket);  // Fairy-Stockfish's arrow pocket carries no information
  }

  // Rows, top (highest row number) first.
  int rows = 1;
  for (char c : board) rows += c == '/';
  if (rows > kMaxSize) throw fail(std::to_string(rows) + " rows; boards are at most 10x10");
  int cols = -1;
  Bitboard queens[2] = {0, 0}, arrows = 0;
  int row = rows - 1, col = 0;
  for (std::size_t i = 0; i <= board.size(); ++i) {
    const char c = i < board.size() ? board[i] : '/';
    const std::string where =
        " (row " + std::to_string(row + 1) + ", character " + std::to_string(i + 1) + ")";
    if (c == '/') {
      if (col == 0) throw fail("empty row" + where);
      if (cols < 0) cols = col;
      if (col != cols)
        throw fail("row " + std::to_string(row + 1) + " has " + std::to_string(col) +
                   " squares but row " + std::to_string(rows) + " has " + std::to_string(cols));
      --row;
      col = 0;
    } else if (c >= '0' && c <= '9') {
      int run = 0;
      const std::size_t first = i;
      for (; i < board.size() && board[i] >= '0' && board[i] <= '9'; ++i)
        run = std::min(run * 10 + (board[i] - '0'), 99);
      --i;
      if (run == 0) throw fail("a run of 0 empty squares" + where);
      if (board[first] == '0') throw fail("a run of empty squares with a leading 0" + where);
      col += run;
    } else if (c == 'Q' || c == 'q' || c == '*') {
      if (col < kMaxSize) {
        const Bitboard b = bit(make_square(col, row));
        (c == 'Q' ? queens[kWhite] : c == 'q' ? queens[kBlack] : arrows) |= b;
      }
      ++col;
    } else {
      throw fail("unknown piece " + detail::quoted(std::string_view(&board[i], 1)) + where +
                 "; expected Q (white), q (black), * (arrow) or a digit");
    }
    if (col > kMaxSize)
      throw fail("row " + std::to_string(row + 1) +
                 " is wider than 10 squares; boards are at most 10x10");
  }
  for (Player p : {kWhite, kBlack}) {
    const int n = popcount(queens[p]);
    if (n > kMaxQueens)
      throw fail("too many " + std::string(p == kWhite ? "white" : "black") +
                 " queens: " + std::to_string(n) + " (at most 4)");
  }

  Position pos(cols, rows);
  pos.queens_[kWhite] = queens[kWhite];
  pos.queens_[kBlack] = queens[kBlack];
  pos.blocked_ |= arrows;

  if (nfields < 2) throw fail("missing side to move ('w' or 'b') after the board");
  if (fields[1] == "w")
    pos.side_ = kWhite;
  else if (fields[1] == "b")
    pos.side_ = kBlack;
  else
    throw fail("side to move is " + detail::quoted(fields[1]) + "; expected w or b");
  for (std::size_t f = 2; f < 4 && f < nfields; ++f)
    if (fields[f] != "-") throw fail("field " + std::to_string(f + 1) + " must be '-'");
  const auto number = [&](std::size_t f, int min, const char* what) {
    int v = 0;
    const auto [end, ec] =
        std::from_chars(fields[f].data(), fields[f].data() + fields[f].size(), v);
    if (ec != std::errc() || end != fields[f].data() + fields[f].size() || v < min || v > 65535)
      throw fail(std::string(what) + " " + detail::quoted(fields[f]) +
                 " is not a number >= " + std::to_string(min));
    return v;
  };
  if (nfields > 4) (void)number(4, 0, "halfmove clock");
  if (nfields > 5) pos.fullmove_ = static_cast<std::uint16_t>(number(5, 1, "fullmove number"));
  if (nfields > 6) throw fail("unexpected text after the fullmove number");
  pos.hash_ = pos.compute_hash();
  return pos;
}

inline std::string Position::fen() const {
  std::string out;
  for (int r = rows_ - 1; r >= 0; --r) {
    int run = 0;
    for (int c = 0; c < cols_; ++c) {
      const Bitboard b = bit(make_square(c, r));
      const char piece = (queens_[kWhite] & b)   ? 'Q'
                         : (queens_[kBlack] & b) ? 'q'
                         : (blocked_ & b)        ? '*'
                                                 : '\0';
      if (!piece) {
        ++run;
        continue;
      }
      if (run) out += std::to_string(run), run = 0;
      out += piece;
    }
    if (run) out += std::to_string(run);
    if (r) out += '/';
  }
  out += side_ == kWhite ? " w - - 0 " : " b - - 0 ";
  out += std::to_string(fullmove_);
  return out;
}

static_assert(gsearch::Game<Position>);
static_assert(gsearch::UndoableGame<Position>);
static_assert(gsearch::CountableGame<Position>);
static_assert(gsearch::RehashableGame<Position>);
static_assert(gsearch::NotatedGame<Position>);
static_assert(gsearch::RandomMoveGame<Position, gsearch::Rng>);

}  // namespace amazons
