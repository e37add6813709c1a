// The teacher agent: the best score sum among the few moves it thinks of, in-process or over
// HTTP alike.
#include "amazons/paper/teacher_agent.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "amazons/paper/candidates.hpp"
#include "amazons/paper/teacher_server.hpp"

using namespace amazons;

TEST_CASE("teacher_candidates: k distinct legal moves from (seed, position); 0: every move") {
  Position pos;
  gsearch::Rng rng(5);
  for (int ply = 0; ply < 12; ++ply) pos.apply(pos.random_move(rng));
  const std::vector<Move> eight = teacher_candidates(pos, 8, 1);
  REQUIRE(eight.size() == 8);
  for (const Move& m : eight) CHECK(gsearch::is_legal(pos, m));
  std::set<std::tuple<int, int, int>> distinct;
  for (const Move& m : eight) distinct.emplace(m.from, m.to, m.arrow);
  CHECK(distinct.size() == 8);
  CHECK(teacher_candidates(pos, 8, 1) == eight);
  CHECK(teacher_candidates(pos, 8, 2) != eight);
  CHECK(teacher_candidates(pos, 0, 1) == all_candidates(pos));
  // More than there are: all of them.
  const Position tiny = Position::from_fen("q*2/**2/Q3/4 w");
  CHECK(teacher_candidates(tiny, 100, 1).size() == all_candidates(tiny).size());
}

TEST_CASE("in-process: the best move_score + place_score among its candidates") {
  SUBCASE("candidates=0: every legal move") {
    const Position small = Position::from_fen("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1");
    auto agent =
        make_teacher_agent({.name = "teacher:k=0", .teacher = {.seed = 3}, .candidates = 0});
    CHECK(agent->name() == "teacher:k=0");
    agent->reset(1);
    Position pos = small;
    for (int ply = 0; ply < 6 && !pos.is_terminal(); ++ply) {
      const Move m = agent->choose(pos);
      REQUIRE(gsearch::is_legal(pos, m));
      double best = -1;
      for (const Move& c : all_candidates(pos)) {
        const Scores s = teacher_scores(pos, c, {.seed = 3});
        best = std::max(best, s.move + s.place);
      }
      const Scores chosen = teacher_scores(pos, m, {.seed = 3});
      CHECK(chosen.move + chosen.place == best);
      CHECK(agent->info().value == doctest::Approx(best - 1));
      CHECK(agent->info().iterations == all_candidates(pos).size());
      pos.apply(m);
    }
  }
  SUBCASE("candidates=K: only ever one of its K candidates, the best of them") {
    for (const std::size_t k : {1, 3, 8}) {
      CAPTURE(k);
      auto agent = make_teacher_agent({.teacher = {.seed = 6}, .candidates = k});
      agent->reset(17);
      Position pos;
      for (int ply = 0; ply < 30 && !pos.is_terminal(); ++ply) {
        const Move m = agent->choose(pos);
        const std::vector<Move> thought = teacher_candidates(pos, k, 17);
        REQUIRE(std::find(thought.begin(), thought.end(), m) != thought.end());
        double best = -1;
        for (const Move& c : thought) {
          const Scores s = teacher_scores(pos, c, {.seed = 6});
          best = std::max(best, s.move + s.place);
        }
        const Scores chosen = teacher_scores(pos, m, {.seed = 6});
        CHECK(chosen.move + chosen.place == best);
        CHECK(agent->info().iterations == thought.size());
        pos.apply(m);
      }
    }
  }
}

TEST_CASE("a game replays identically with the same seed, and not with another") {
  const auto game = [](std::uint64_t seed, std::string_view spec) {
    auto white = make_agent(spec), black = make_agent(spec);
    white->reset(seed);
    black->reset(seed ^ 0x5bd1e995ULL);
    std::vector<Move> moves;
    Position pos;
    while (!pos.is_terminal() && moves.size() < 200) {
      moves.push_back((pos.to_move() == kWhite ? white : black)->choose(pos));
      pos.apply(moves.back());
    }
    return moves;
  };
  const std::vector<Move> a = game(3, "teacher");
  CHECK(a.size() > 20);
  CHECK(game(3, "teacher") == a);
  CHECK(game(4, "teacher") != a);
  // The spec's url=local is the in-process teacher with the spec's knobs.
  CHECK(game(3,
             "teacher:url=local,candidates=8,seed=1,noise=0.1,hallucination=0.05,bias=0.1,"
             "scale=8") == a);
  CHECK(game(3, "teacher:noise=0.3") != a);
}

TEST_CASE("bad knobs are refused by the agent and by its spec") {
  CHECK_THROWS_AS(make_teacher_agent({.teacher = {.noise = -1}}), std::invalid_argument);
  CHECK_THROWS_AS(make_teacher_agent({.teacher = {.hallucination = 2}}), std::invalid_argument);
  for (const char* spec :
       {"teacher:noise=-0.1", "teacher:noise=nan", "teacher:noise=inf", "teacher:hallucination=1.5",
        "teacher:hallucination=nan", "teacher:bias=2", "teacher:bias=nan", "teacher:scale=0",
        "teacher:scale=NaN", "teacher:scale=-nan"}) {
    CAPTURE(spec);
    CHECK_THROWS_AS((void)make_agent(spec), SpecError);
  }
  CHECK_THROWS_WITH_AS((void)make_agent("teacher:hallucination=nan"),
                       "agent teacher: hallucination=\"nan\" is not a number in [0, 1]", SpecError);
  CHECK_NOTHROW((void)make_agent("teacher:hallucination=1,bias=-1,scale=0.001,noise=0"));
}

TEST_CASE("over HTTP the teacher agent plays what it plays in-process, faults or not") {
  TeacherServer server({.teacher = {.seed = 4}, .faults = {.malformed = 0.2, .error_500 = 0.1}});
  server.start();
  TeacherAgentOptions remote{.url = server.url(), .candidates = 12, .connections = 3};
  remote.client.key_env = "GSEARCH_TEST_NO_SUCH_KEY";
  remote.client.max_attempts = 30;
  remote.client.http.backoff_ms = 0;
  remote.client.http.retries = 20;
  auto http_agent = make_teacher_agent(remote);
  auto local_agent = make_teacher_agent({.teacher = {.seed = 4}, .candidates = 12});
  http_agent->reset(2);
  local_agent->reset(2);
  Position pos;
  for (int ply = 0; ply < 4; ++ply) {
    const Move m = http_agent->choose(pos);
    CHECK(local_agent->choose(pos) == m);
    pos.apply(m);
  }
  server.stop();
  CHECK_THROWS_WITH_AS(http_agent->choose(pos), doctest::Contains("no candidate move was scored"),
                       std::runtime_error);
  CHECK_THROWS_AS(make_teacher_agent({.url = "ftp://api.openai.com/v1"}), http::UrlError);
}
