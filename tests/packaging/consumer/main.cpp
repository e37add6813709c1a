// A user's own game, checked and counted with gsearch as installed.
#include <gsearch/gsearch.hpp>
#include <gsearch/testing/game_conformance.hpp>
#include <gsearch/testing/perft.hpp>

#include <cstdint>
#include <cstdio>

// Nim with one heap: take 1, 2 or 3 stones; whoever cannot move loses.
struct Nim {
  struct Move {
    std::uint8_t take = 1;
    friend bool operator==(const Move&, const Move&) = default;
  };
  // At most three choices: take 1, 2 or 3.
  static constexpr std::size_t max_moves = 3;

  int stones = 10;
  gsearch::Player side = 0;

  gsearch::Player to_move() const { return side; }
  void legal_moves(gsearch::MoveList<Move, max_moves>& list) const {
    list.clear();
    for (int k = 1; k <= 3 && k <= stones; ++k) list.push_back({static_cast<std::uint8_t>(k)});
  }
  void apply(const Move& m) {
    stones -= m.take;
    side = gsearch::opponent(side);
  }
  bool is_terminal() const { return stones == 0; }
  double result(gsearch::Player p) const { return p == side ? -1.0 : 1.0; }
  std::uint64_t hash() const { return static_cast<std::uint64_t>(stones) * 2 + side; }
  friend bool operator==(const Nim&, const Nim&) = default;
};
static_assert(gsearch::Game<Nim>);

int main() {
  const auto report = gsearch::testing::check_game(Nim{}, {.games = 100});
  // 3^4 = 81 sequences of takes, less the 5 that would take more than the 10 stones.
  const auto leaves = gsearch::testing::perft(Nim{}, 4);
  std::printf("conformance %s, perft(4) = %llu\n", report.ok ? "ok" : report.failure.c_str(),
              static_cast<unsigned long long>(leaves));
  return report.ok && leaves == 76 ? 0 : 1;
}
