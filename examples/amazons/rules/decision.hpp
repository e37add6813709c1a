// amazons/rules/decision.hpp — the Game of the Amazons, one decision per move.
//
// A turn is three decisions by the same player: which queen (stage kQueen), where it goes
// (kDestination), where it shoots (kArrow). This is the tree of the paper's framework: four
// head nodes (the queens), then destinations, then arrows, so no node has more than 35
// children where the whole-turn model has about 2,000. Searches see the player to move stay
// the same for three plies and flip the sign of a value only when it changes.
//
// The rules are Position's (position.hpp): the queen decision offers only queens that can
// move, and a queen that has moved can always shoot back to the square it left, so every
// started turn can be completed and a state is terminal exactly when, at the queen decision,
// no queen of the player to move can move.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "amazons/rules/position.hpp"

namespace amazons {

enum class Stage : std::uint8_t { kQueen = 0, kDestination = 1, kArrow = 2 };

// One decision. It names where it starts and where it ends, so that it can be undone and
// printed without its state:
//   kQueen        from = to = the chosen queen's square          text "d1"
//   kDestination  from = the queen's square, to = its destination text "d1-d6"
//   kArrow        from = the queen's (new) square, to = the arrow text "d6/g9"
struct Decision {
  Stage stage = Stage::kQueen;
  Square from = 0;
  Square to = 0;
  friend constexpr bool operator==(const Decision&, const Decision&) = default;
};
static_assert(sizeof(Decision) == 3);

class DecisionPosition {
 public:
  using Move = Decision;

  // Proof of the bound: at most 4 queens to choose from; a queen reaches at most 35 squares
  // and an arrow at most 35 (see Position::max_moves).
  static constexpr std::size_t max_moves = 35;

  DecisionPosition() = default;
  explicit DecisionPosition(const Position& position) noexcept : pos_(position) {}

  // --- gsearch::Game -------------------------------------------------------------------
  [[nodiscard]] Player to_move() const noexcept { return pos_.to_move(); }
  void legal_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept;
  void apply(const Move& m) noexcept;
  void undo(const Move& m) noexcept;
  [[nodiscard]] bool is_terminal() const noexcept {
    return stage_ == Stage::kQueen && pos_.is_terminal();
  }
  [[nodiscard]] double result(Player p) const noexcept {
    if (!is_terminal()) return 0.0;
    return p == to_move() ? -1.0 : 1.0;
  }
  // The position's hash, plus the pending choice within the turn.
  [[nodiscard]] std::uint64_t hash() const noexcept { return pos_.hash() ^ pending_key(); }
  [[nodiscard]] std::uint64_t compute_hash() const noexcept {
    return pos_.compute_hash() ^ pending_key();
  }
  [[nodiscard]] std::uint64_t count_moves() const noexcept;
  // A decision drawn uniformly from this stage's legal decisions (not terminal).
  [[nodiscard]] Move random_move(gsearch::Rng& rng) const noexcept;
  // True after the queen or destination decision, before the arrow: the turn is unfinished.
  [[nodiscard]] bool mid_turn() const noexcept { return stage_ != Stage::kQueen; }
  [[nodiscard]] std::string move_to_string(const Move& m) const;
  // Parses a decision for the current stage: "d1" (queen), "d1-d6" or "d6" (destination),
  // "d6/g9" or "g9" (arrow), and checks that it is legal here.
  [[nodiscard]] Move parse_move(std::string_view text) const;

  // --- Accessors ------------------------------------------------------------------------
  // The board as it stands: after a destination decision the queen is already on its new
  // square, and the arrow is still to come.
  [[nodiscard]] const Position& position() const noexcept { return pos_; }
  [[nodiscard]] Stage stage() const noexcept { return stage_; }
  // The chosen queen (kDestination) or its new square (kArrow); 0 at kQueen.
  [[nodiscard]] Square pending() const noexcept { return pending_; }

  friend bool operator==(const DecisionPosition&, const DecisionPosition&) = default;

 private:
  [[nodiscard]] std::uint64_t pending_key() const noexcept {
    return stage_ == Stage::kQueen
               ? 0
               : detail::kZobrist.pending[static_cast<int>(stage_) - 1][pending_];
  }

  Position pos_;
  Stage stage_ = Stage::kQueen;
  Square pending_ = 0;
};

inline void DecisionPosition::legal_moves(gsearch::MoveList<Move, max_moves>& list) const noexcept {
  list.clear();
  const Bitboard occ = pos_.occupied();
  switch (stage_) {
    case Stage::kQueen: {
      const Bitboard free = pos_.empty();
      for (Bitboard qs = pos_.queens(pos_.to_move()); qs;) {
        const Square q = pop_lsb(qs);
        if (king_moves(q) & free) list.push_back({Stage::kQueen, q, q});
      }
      break;
    }
    case Stage::kDestination:
    case Stage::kArrow:
      for (Bitboard targets = queen_attacks(pending_, occ); targets;)
        list.push_back({stage_, pending_, pop_lsb(targets)});
      break;
  }
}

inline std::uint64_t DecisionPosition::count_moves() const noexcept {
  if (stage_ != Stage::kQueen)
    return static_cast<std::uint64_t>(popcount(queen_attacks(pending_, pos_.occupied())));
  const Bitboard free = pos_.empty();
  std::uint64_t n = 0;
  for (Bitboard qs = pos_.queens(pos_.to_move()); qs;) n += (king_moves(pop_lsb(qs)) & free) != 0;
  return n;
}

inline DecisionPosition::Move DecisionPosition::random_move(gsearch::Rng& rng) const noexcept {
  if (stage_ != Stage::kQueen) {
    const Bitboard targets = queen_attacks(pending_, pos_.occupied());
    const auto k = static_cast<int>(rng.below(static_cast<std::uint64_t>(popcount(targets))));
    return {stage_, pending_, select_bit(targets, k)};
  }
  const Bitboard free = pos_.empty();
  Square movable[kMaxQueens];
  int n = 0;
  for (Bitboard qs = pos_.queens(pos_.to_move()); qs;) {
    const Square q = pop_lsb(qs);
    if (king_moves(q) & free) movable[n++] = q;
  }
  GSEARCH_ASSERT(n > 0);
  const Square q = movable[rng.below(static_cast<std::uint64_t>(n))];
  return {Stage::kQueen, q, q};
}

inline void DecisionPosition::apply(const Move& m) noexcept {
  switch (m.stage) {
    case Stage::kQueen:
      stage_ = Stage::kDestination;
      pending_ = m.from;
      break;
    case Stage::kDestination:
      pos_.move_queen(m.from, m.to);
      stage_ = Stage::kArrow;
      pending_ = m.to;
      break;
    case Stage::kArrow:
      pos_.shoot(m.to);
      stage_ = Stage::kQueen;
      pending_ = 0;
      break;
  }
}

inline void DecisionPosition::undo(const Move& m) noexcept {
  switch (m.stage) {
    case Stage::kQueen:
      stage_ = Stage::kQueen;
      pending_ = 0;
      break;
    case Stage::kDestination:
      pos_.move_queen(m.to, m.from);
      stage_ = Stage::kDestination;
      pending_ = m.from;
      break;
    case Stage::kArrow:
      pos_.unshoot(m.to);
      stage_ = Stage::kArrow;
      pending_ = m.from;
      break;
  }
}

inline std::string DecisionPosition::move_to_string(const Move& m) const {
  switch (m.stage) {
    case Stage::kQueen:
      return square_name(m.from);
    case Stage::kDestination:
      return square_name(m.from) + "-" + square_name(m.to);
    case Stage::kArrow:
      break;
  }
  return square_name(m.from) + "/" + square_name(m.to);
}

inline DecisionPosition::Move DecisionPosition::parse_move(std::string_view text) const {
  const auto fail = [&](const std::string& why) {
    return NotationError("bad decision " + detail::quoted(text) + ": " + why);
  };
  if (is_terminal()) throw fail("the game is over");
  // The part after the separator of this stage names the target; the part before, if any,
  // must name the pending square.
  std::string_view target = text;
  if (stage_ != Stage::kQueen) {
    const char sep = stage_ == Stage::kDestination ? '-' : '/';
    if (const auto at = text.find(sep); at != std::string_view::npos) {
      if (pos_.parse_square(text.substr(0, at)) != pending_)
        throw fail("this decision starts from " + square_name(pending_));
      target = text.substr(at + 1);
    }
  }
  const Square s = pos_.parse_square(target);
  const Move m = stage_ == Stage::kQueen ? Move{Stage::kQueen, s, s} : Move{stage_, pending_, s};
  if (!gsearch::is_legal(*this, m)) {
    const char* expected = stage_ == Stage::kQueen ? "a queen of the side to move that can move"
                           : stage_ == Stage::kDestination ? "a square the chosen queen reaches"
                                                           : "a square the queen can shoot at";
    throw NotationError("illegal decision " + detail::quoted(text) + ": expected " + expected);
  }
  return m;
}

static_assert(gsearch::Game<DecisionPosition>);
static_assert(gsearch::UndoableGame<DecisionPosition>);
static_assert(gsearch::CountableGame<DecisionPosition>);
static_assert(gsearch::RehashableGame<DecisionPosition>);
static_assert(gsearch::NotatedGame<DecisionPosition>);
static_assert(gsearch::RandomMoveGame<DecisionPosition, gsearch::Rng>);
static_assert(gsearch::TurnSplitGame<DecisionPosition>);

}  // namespace amazons
