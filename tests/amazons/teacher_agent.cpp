// The teacher agent: the move with the best score sum, in-process or over HTTP alike.
#include "amazons/teacher_agent.hpp"

#include <doctest/doctest.h>

#include "amazons/candidates.hpp"
#include "amazons/teacher_server.hpp"

using namespace amazons;

TEST_CASE("in-process: the candidate with the highest move_score + place_score") {
  const Position small = Position::from_fen("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1");
  auto agent = make_teacher_agent({.name = "teacher:k=0", .teacher = {.seed = 3}});
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
  // Top K by prior: the choice is among them.
  auto top = make_teacher_agent({.teacher = {.seed = 3}, .candidates = 5});
  top->reset(1);
  const auto five = prior_candidates(small, 5);
  CHECK(std::find(five.begin(), five.end(), top->choose(small)) != five.end());
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
  CHECK_THROWS_AS(make_teacher_agent({.url = "https://api.openai.com/v1"}), http::UrlError);
}
