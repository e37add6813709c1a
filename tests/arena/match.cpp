// Matches: colours alternate, openings are shared by pairs of games, the same seed replays
// the same games whatever the thread count, records replay, errors come back.
#include "gsearch/arena/match.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>

#include "support/mnk.hpp"

using test_games::TicTacToe;

namespace {

// Plays the first legal move, or a random one.
struct Simple {
  std::string label;
  bool random = false;
  gsearch::Rng rng{0};
  std::string name() const { return label; }
  void reset(std::uint64_t seed) { rng.reseed(seed); }
  TicTacToe::Move choose(const TicTacToe& g) {
    gsearch::MoveListOf<TicTacToe> moves;
    g.legal_moves(moves);
    return random ? moves[rng.below(moves.size())] : moves[0];
  }
};
static_assert(gsearch::arena::Agent<Simple, TicTacToe>);

struct Failing {
  std::string name() const { return "failing"; }
  void reset(std::uint64_t) {}
  TicTacToe::Move choose(const TicTacToe&) { throw std::runtime_error("agent failed"); }
};

}  // namespace

TEST_CASE("colours alternate and each pair of games shares its opening") {
  const auto records = gsearch::arena::play_match(
      TicTacToe{}, [] { return Simple{"A"}; },
      [] {
        return Simple{"B", true};
      },
      {.games = 20, .threads = 1, .seed = 3, .opening_plies = 2});
  REQUIRE(records.size() == 20);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    CHECK(r.index == i);
    CHECK(r.a_first == (i % 2 == 0));
    CHECK(r.players[0] == (i % 2 == 0 ? "A" : "B"));
    CHECK(r.opening_plies == 2);
    CHECK(gsearch::arena::replay_error(TicTacToe{}, r).empty());
    if (i % 2 == 1) {
      CHECK(r.moves[0] == records[i - 1].moves[0]);
      CHECK(r.moves[1] == records[i - 1].moves[1]);
      CHECK(r.opening_seed == records[i - 1].opening_seed);
    }
  }
}

TEST_CASE("the same seed gives the same games with one thread or two") {
  auto run = [](unsigned threads) {
    return gsearch::arena::play_match(
        TicTacToe{},
        [] {
          return Simple{"A", true};
        },
        [] {
          return Simple{"B", true};
        },
        {.games = 30, .threads = threads, .seed = 9});
  };
  const auto one = run(1), two = run(2);
  for (std::size_t i = 0; i < one.size(); ++i) {
    CHECK(one[i].moves == two[i].moves);
    CHECK(one[i].result == two[i].result);
  }
}

TEST_CASE("summaries count from A's side; a broken record fails to replay") {
  auto records = gsearch::arena::play_match(
      TicTacToe{},
      [] {
        return Simple{"A", true};
      },
      [] {
        return Simple{"B", true};
      },
      {.games = 40, .seed = 4});
  const auto s = gsearch::arena::summarize(records);
  CHECK(s.games == 40);
  CHECK(s.wins + s.losses + s.draws == 40);
  CHECK(s.score == doctest::Approx(s.wins + 0.5 * s.draws));
  CHECK(s.score_ci.low <= s.score / 40);
  CHECK(s.score_ci.high >= s.score / 40);
  auto broken = records[0];
  broken.moves.push_back(broken.moves.front());
  CHECK_FALSE(gsearch::arena::replay_error(TicTacToe{}, broken).empty());
  auto wrong = records[1];
  wrong.result = -wrong.result + (wrong.result == 0 ? 1 : 0);
  CHECK_FALSE(gsearch::arena::replay_error(TicTacToe{}, wrong).empty());
}

TEST_CASE("an agent's exception stops the match and reaches the caller") {
  CHECK_THROWS_WITH(gsearch::arena::play_match(
                        TicTacToe{}, [] { return Failing{}; }, [] { return Simple{"B"}; },
                        {.games = 4, .threads = 2, .opening_plies = 0}),
                    "agent failed");
}

namespace {

// Plays like Simple, and sets `stop` when asked to choose its `at`-th move (counting from 1).
struct Stopping : Simple {
  std::atomic<bool>* stop = nullptr;
  int at = 0;
  int chosen = 0;
  TicTacToe::Move choose(const TicTacToe& g) {
    if (++chosen == at) stop->store(true);
    return Simple::choose(g);
  }
};

}  // namespace

TEST_CASE("a stopped match returns the games played, each whole and as the full match has it") {
  const auto full = gsearch::arena::play_match(
      TicTacToe{},
      [] {
        return Simple{"A", true};
      },
      [] {
        return Simple{"B", true};
      },
      {.games = 20, .threads = 1, .seed = 5});
  REQUIRE(full.size() == 20);

  SUBCASE("stopped between games") {
    std::atomic<bool> stop{false};
    const auto some = gsearch::arena::play_match(
        TicTacToe{},
        [] {
          return Simple{"A", true};
        },
        [] {
          return Simple{"B", true};
        },
        {.games = 20, .threads = 1, .seed = 5, .stop = &stop},
        [&](const auto&, std::size_t done, std::size_t) {
          if (done == 3) stop = true;
        });
    REQUIRE(some.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(some[i].index == i);
      CHECK(some[i].moves == full[i].moves);
      CHECK(some[i].finished);
    }
  }
  SUBCASE("stopped in the middle of a game, on two threads") {
    std::atomic<bool> stop{false};
    const auto some = gsearch::arena::play_match(
        TicTacToe{},
        [&] {
          Stopping a;
          a.label = "A";
          a.random = true;
          a.stop = &stop;
          a.at = 12;  // in A's third or fourth game
          return a;
        },
        [] {
          return Simple{"B", true};
        },
        {.games = 20, .threads = 2, .seed = 5, .stop = &stop});
    CHECK(some.size() < 20);
    CHECK(some.size() >= 2);
    for (std::size_t k = 0; k < some.size(); ++k) {
      if (k > 0) CHECK(some[k].index > some[k - 1].index);
      CHECK(some[k].finished);
      CHECK(some[k].moves == full[some[k].index].moves);
    }
  }
}

TEST_CASE("games_decided_by_opening counts the games a long random opening ends") {
  using gsearch::arena::games_decided_by_opening;
  CHECK(games_decided_by_opening(TicTacToe{}, {.games = 10, .opening_plies = 0}) == 0);
  CHECK(games_decided_by_opening(TicTacToe{}, {.games = 10, .opening_plies = 9}) == 10);
  CHECK(games_decided_by_opening(TicTacToe{}, {.games = 7, .opening_plies = 9}) == 7);
  const std::size_t some =
      games_decided_by_opening(TicTacToe{}, {.games = 200, .opening_plies = 6});
  CHECK(some > 0);
  CHECK(some < 200);
  CHECK(some % 2 == 0);
  // Exactly the games whose played opening ended them.
  const auto records = gsearch::arena::play_match(
      TicTacToe{}, [] { return Simple{"A"}; }, [] { return Simple{"B"}; },
      {.games = 200, .opening_plies = 6});
  std::size_t no_agent_moves = 0;
  for (const auto& r : records) no_agent_moves += r.agent_moves[0] + r.agent_moves[1] == 0;
  CHECK(no_agent_moves == some);
}

TEST_CASE("a progress callback that returns false ends the match; no game starts after it") {
  for (unsigned threads : {1u, 3u}) {
    std::size_t calls = 0;
    const auto records = gsearch::arena::play_match(
        TicTacToe{},
        [] {
          return Simple{"a", true};
        },
        [] {
          return Simple{"b", true};
        },
        {.games = 40, .threads = threads, .seed = 5},
        [&](const auto&, std::size_t done, std::size_t) {
          ++calls;
          return done < 6;
        });
    // The sixth game ends it; games already under way on other threads still finish.
    CHECK(records.size() == calls);
    CHECK(records.size() >= 6);
    CHECK(records.size() < 6 + threads);
    // The games played are the full match's, whichever they are.
    const auto full = gsearch::arena::play_match(
        TicTacToe{},
        [] {
          return Simple{"a", true};
        },
        [] {
          return Simple{"b", true};
        },
        {.games = 40, .threads = 1, .seed = 5});
    for (const auto& r : records) CHECK(r.moves == full[r.index].moves);
  }
}

TEST_CASE("an opening book: pair p of games starts from the book's position p mod its size") {
  std::vector<TicTacToe> book(3);
  book[1].apply({4});
  book[2].apply({0});
  book[2].apply({4});
  const auto records = gsearch::arena::play_match(
      std::span<const TicTacToe>(book), [] { return Simple{"a"}; }, [] { return Simple{"b"}; },
      {.games = 10, .threads = 2, .seed = 3, .opening_plies = 0});
  REQUIRE(records.size() == 10);
  for (const auto& r : records) {
    // The moves replay, legal, from the pair's book position to the recorded result.
    TicTacToe g = book[(r.index / 2) % book.size()];
    for (const auto& m : r.moves) {
      REQUIRE(gsearch::is_legal(g, m));
      g.apply(m);
    }
    CHECK(g.is_terminal());
    CHECK(g.result(0) == r.result);
  }
  // First-legal-move players end the empty board's game in 7 plies (X: 0, 2, 4, 6) and the
  // third position's, two stones in, in 5 more (X: 0, 1, 3, 6).
  CHECK(records[4].moves.size() + 2 == records[0].moves.size());
}
