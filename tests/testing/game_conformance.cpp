// The conformance check passes on a correct game and catches each kind of broken game.
#include "gsearch/testing/game_conformance.hpp"

#include <doctest/doctest.h>

#include "support/mnk.hpp"

using test_games::Mnk;
using test_games::TicTacToe;

TEST_CASE("tic-tac-toe and 4,4,3 pass the conformance check") {
  const auto ttt = gsearch::testing::check_game(TicTacToe{}, {.games = 2000, .seed = 5});
  CHECK_MESSAGE(ttt.ok, ttt.failure);
  CHECK(ttt.games == 2000);
  CHECK(ttt.max_moves_seen == 9);
  const auto big = gsearch::testing::check_game(Mnk<4, 4, 3>{}, {.games = 1000, .seed = 6});
  CHECK_MESSAGE(big.ok, big.failure);
}

namespace {

// Tic-tac-toe with one deliberate defect, chosen by Bug.
enum class Bug { kNone, kStaleHash, kBadUndo, kTerminalTooEarly, kDuplicateMove, kNotZeroSum };

template <Bug B>
struct Broken {
  using Move = TicTacToe::Move;
  static constexpr std::size_t max_moves = 10;
  TicTacToe g;

  gsearch::Player to_move() const { return g.to_move(); }
  void legal_moves(gsearch::MoveList<Move, max_moves>& list) const {
    gsearch::MoveListOf<TicTacToe> inner;
    g.legal_moves(inner);
    list.clear();
    for (auto m : inner) list.push_back(m);
    if (B == Bug::kDuplicateMove && !list.empty()) list.push_back(list[0]);
  }
  void apply(const Move& m) { g.apply(m); }
  void undo(const Move& m) {
    if (B != Bug::kBadUndo) g.undo(m);
  }
  bool is_terminal() const {
    MoveList n;
    legal_moves(n);
    return B == Bug::kTerminalTooEarly ? n.size() <= 1 : n.empty();
  }
  double result(gsearch::Player p) const { return B == Bug::kNotZeroSum ? 1.0 : g.result(p); }
  std::uint64_t hash() const { return B == Bug::kStaleHash ? 0 : g.hash(); }
  std::uint64_t compute_hash() const { return g.compute_hash(); }
  friend bool operator==(const Broken&, const Broken&) = default;

 private:
  using MoveList = gsearch::MoveList<Move, max_moves>;
};

template <Bug B>
std::string failure_of() {
  const auto r = gsearch::testing::check_game(Broken<B>{}, {.games = 50});
  return r.ok ? std::string() : r.failure;
}

}  // namespace

TEST_CASE("the conformance check reports each kind of defect") {
  CHECK(failure_of<Bug::kNone>().empty());
  CHECK(failure_of<Bug::kStaleHash>().find("compute_hash") != std::string::npos);
  CHECK(failure_of<Bug::kBadUndo>().find("undo") != std::string::npos);
  CHECK(failure_of<Bug::kTerminalTooEarly>().find("is_terminal") != std::string::npos);
  CHECK(failure_of<Bug::kDuplicateMove>().find("twice") != std::string::npos);
  CHECK(failure_of<Bug::kNotZeroSum>().find("zero-sum") != std::string::npos);
  CHECK(failure_of<Bug::kStaleHash>().rfind("game 0, ply 1: ", 0) == 0);
}
