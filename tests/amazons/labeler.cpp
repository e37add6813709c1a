// TeacherClient and Labeler against the local teacher server: retries under faults, rejection
// counts, failures, the key (sent, never shown), bounded concurrency, stopping.
#include "amazons/paper/labeler.hpp"

#include <doctest/doctest.h>
#include <httplib.h>
#include <stdlib.h>

#include <map>
#include <mutex>
#include <set>

#include "amazons/paper/teacher_server.hpp"

using namespace amazons;

namespace {

TeacherClientParams client_for(const TeacherServer& server, int max_attempts = 4, int retries = 5) {
  TeacherClientParams p;
  p.url = server.url();
  p.key_env = "GSEARCH_TEST_NO_SUCH_KEY";
  p.max_attempts = max_attempts;
  p.http.retries = retries;
  p.http.backoff_ms = 0;
  p.http.read_timeout_ms = 5000;
  return p;
}

// Sets an environment variable for the scope of a test.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

std::vector<std::pair<Position, Move>> sample_jobs(std::size_t n, std::uint64_t seed) {
  std::vector<std::pair<Position, Move>> jobs;
  gsearch::Rng rng(seed);
  Position pos;
  while (jobs.size() < n) {
    if (pos.is_terminal()) pos = Position{};
    jobs.emplace_back(pos, pos.random_move(rng));
    pos.apply(pos.random_move(rng));
  }
  return jobs;
}

}  // namespace

TEST_CASE("teacher URLs: base URLs get the chat-completions path; the name leaves out the query") {
  CHECK(teacher_endpoint("http://localhost:8080").target == "/v1/chat/completions");
  CHECK(teacher_endpoint("http://localhost:11434/v1").target == "/v1/chat/completions");
  CHECK(teacher_endpoint("http://localhost:11434/v1/").target == "/v1/chat/completions");
  CHECK(teacher_endpoint("http://h/openai/v1?api-version=2").target ==
        "/openai/v1/chat/completions?api-version=2");
  CHECK(teacher_endpoint("http://h/custom/endpoint").target == "/custom/endpoint");
  TeacherClientParams p;
  p.url = "http://h:1/v1?x=secret";
  p.request.model = "qwen2.5";
  CHECK(teacher_name(p) == "qwen2.5@http://h:1/v1/chat/completions");
  CHECK_THROWS_AS((void)teacher_endpoint("https://api.openai.com/v1"), http::UrlError);
}

TEST_CASE("under every fault at once, each label is scored, and rejections are counted by kind") {
  TeacherServer server({.teacher = {.seed = 5},
                        .faults = {.malformed = 0.25,
                                   .out_of_range = 0.1,
                                   .drop = 0.05,
                                   .error_500 = 0.05,
                                   .error_429 = 0.05,
                                   .chunked = 0.5}});
  server.start();
  TeacherClient client(client_for(server, 30, 30), 1);
  for (const auto& [pos, m] : sample_jobs(60, 1)) {
    const ScoreOutcome out = client.score(pos, m);
    REQUIRE(out.scores);
    CHECK(*out.scores == teacher_scores(pos, m, {.seed = 5}));
    CHECK(out.attempts >= 1);
    CHECK(out.error.empty());
  }
  const LabelStats& s = client.stats();
  CHECK(s.labels == 60);
  CHECK(s.scored == 60);
  CHECK(s.failed == 0);
  CHECK(s.rejected_total() > 5);
  CHECK(s.rejected[static_cast<std::size_t>(Rejection::out_of_range)] > 0);
  CHECK(s.replies == 60 + s.rejected_total());
  CHECK(s.http_retries > 0);
  CHECK(s.status_5xx + s.status_429 > 0);
  for (std::size_t k = 0; k < kRejectionKinds; ++k)
    CHECK((s.rejected[k] == 0) == s.example[k].empty());
}

TEST_CASE(
    "a label fails, with a one-line reason, when every reply is rejected or the server is gone") {
  const Position start;
  const Move m = start.parse_move("d1-d6/g9");
  {
    TeacherServer server({.faults = {.out_of_range = 1}});
    server.start();
    TeacherClient client(client_for(server, 3), 1);
    const ScoreOutcome out = client.score(start, m);
    CHECK(!out.scores);
    CHECK(out.attempts == 3);
    CHECK(out.error == "no acceptable reply in 3 attempts (last: out_of_range)");
    CHECK(client.stats().rejected[static_cast<std::size_t>(Rejection::out_of_range)] == 3);
    CHECK(client.stats().failed == 1);
  }
  TeacherServer gone({});
  gone.start();
  TeacherClientParams p = client_for(gone, 3, 1);
  gone.stop();
  TeacherClient client(p, 1);
  const ScoreOutcome out = client.score(start, m);
  CHECK(!out.scores);
  CHECK(out.error.find("cannot connect") != std::string::npos);
  CHECK(out.error.find("(2 attempts)") != std::string::npos);
}

TEST_CASE("the key: read from the named variable, sent as Bearer, redacted from every message") {
  const char* secret = "sk-gsearch-test-7f3a9c";
  ScopedEnv env("GSEARCH_TEST_KEY", secret);
  TeacherServer server({.api_key = secret});
  server.start();
  TeacherClientParams p = client_for(server);
  const Position start;
  const Move m = start.parse_move("d1-d6/g9");
  {
    TeacherClient without_key(p, 1);  // the variable it names is unset: no key, 401
    CHECK_THROWS_WITH_AS(without_key.score(start, m), doctest::Contains("HTTP 401"), TeacherError);
  }
  p.key_env = "GSEARCH_TEST_KEY";
  TeacherClient client(p, 1);
  CHECK(client.score(start, m).scores);

  // A server that echoes the Authorization header in its error: the message shows no key.
  httplib::Server echo;
  echo.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
    res.status = req.body.find("d1 to square d6") != std::string::npos ? 400 : 401;
    res.set_content(
        "{\"error\":{\"message\":\"bad header " + req.get_header_value("Authorization") + "\"}}",
        "application/json");
  });
  const int port = echo.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { echo.listen_after_bind(); });
  while (!echo.is_running()) std::this_thread::yield();
  p.url = "http://127.0.0.1:" + std::to_string(port);
  {
    TeacherClient echoed(p, 1);
    const ScoreOutcome out = echoed.score(start, m);
    CHECK(out.error.find("HTTP 400") != std::string::npos);
    CHECK(out.error.find("[redacted]") != std::string::npos);
    CHECK(out.error.find(secret) == std::string::npos);
    try {
      (void)echoed.score(start, start.parse_move("g1-g5/g1"));
      FAIL("expected a TeacherError");
    } catch (const TeacherError& e) {
      CHECK(std::string(e.what()).find(secret) == std::string::npos);
      CHECK(std::string(e.what()).find("$GSEARCH_TEST_KEY") != std::string::npos);
    }
    CHECK(echoed.stats().last_error.find(secret) == std::string::npos);
  }  // its connection closes before the server stops
  echo.stop();
  thread.join();

  ScopedEnv bad("GSEARCH_TEST_BAD_KEY", "sk-abc\r\nX-Injected: 1");
  p.key_env = "GSEARCH_TEST_BAD_KEY";
  CHECK_THROWS_WITH_AS(TeacherClient(p, 1),
                       "the API key in $GSEARCH_TEST_BAD_KEY holds control characters, "
                       "which an HTTP header cannot carry",
                       std::invalid_argument);
}

TEST_CASE(
    "Labeler: every job reaches the sink once, with the teacher's scores, over 4 connections") {
  TeacherServer server({.teacher = {.seed = 8}, .faults = {.malformed = 0.2, .error_500 = 0.05}});
  server.start();
  const auto jobs = sample_jobs(200, 2);
  std::map<std::uint64_t, Scores> got;
  std::multiset<std::uint64_t> calls;
  Labeler labeler({.client = client_for(server, 30), .connections = 4, .queue = 3},
                  [&](const LabelJob& job, const ScoreOutcome& out) {
                    calls.insert(job.tag);
                    if (out.scores) got[job.tag] = *out.scores;
                  });
  for (std::size_t i = 0; i < jobs.size(); ++i) labeler.submit({jobs[i].first, jobs[i].second, i});
  labeler.finish();
  CHECK(calls.size() == jobs.size());
  CHECK(std::set<std::uint64_t>(calls.begin(), calls.end()).size() == jobs.size());
  REQUIRE(got.size() == jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    CHECK(got[i] == teacher_scores(jobs[i].first, jobs[i].second, {.seed = 8}));
  const LabelStats s = labeler.stats();
  CHECK(s.labels == 200);
  CHECK(s.scored == 200);
  CHECK(s.rejected_total() > 10);
}

TEST_CASE("Labeler stops: a refused request, too many failures in a row, a sink that throws") {
  const auto jobs = sample_jobs(50, 3);
  SUBCASE("401 is not retried and stops everything") {
    TeacherServer server({.api_key = "k"});
    server.start();
    Labeler labeler({.client = client_for(server), .connections = 2},
                    [](const LabelJob&, const ScoreOutcome&) {});
    std::string what;
    try {
      for (const auto& [pos, m] : jobs) labeler.submit({pos, m});
      labeler.finish();
    } catch (const TeacherError& e) {
      what = e.what();
    }
    CHECK(what.find("HTTP 401") != std::string::npos);
    CHECK(server.stats().requests < 10);
  }
  SUBCASE("give_up_after labels failed in a row") {
    TeacherServer server({.faults = {.out_of_range = 1}});
    server.start();
    int sunk = 0;
    Labeler labeler({.client = client_for(server, 2), .connections = 1, .give_up_after = 5},
                    [&](const LabelJob&, const ScoreOutcome& out) {
                      CHECK(!out.scores);
                      ++sunk;
                    });
    CHECK_THROWS_WITH_AS(
        [&] {
          for (const auto& [pos, m] : jobs) labeler.submit({pos, m});
          labeler.finish();
        }(),
        doctest::Contains("5 labels in a row failed; the last: no acceptable reply in 2 attempts"),
        TeacherError);
    CHECK(sunk == 5);
  }
  SUBCASE("the sink's exception") {
    TeacherServer server({});
    server.start();
    Labeler labeler(
        {.client = client_for(server), .connections = 3},
        [](const LabelJob&, const ScoreOutcome&) { throw std::runtime_error("disk full"); });
    CHECK_THROWS_WITH_AS(
        [&] {
          for (const auto& [pos, m] : jobs) labeler.submit({pos, m});
          labeler.finish();
        }(),
        "disk full", std::runtime_error);
  }
  SUBCASE("destroyed with jobs queued: they are abandoned") {
    TeacherServer server({});
    server.start();
    std::atomic<int> sunk{0};
    {
      Labeler labeler({.client = client_for(server), .connections = 1, .queue = 100},
                      [&](const LabelJob&, const ScoreOutcome&) { ++sunk; });
      for (const auto& [pos, m] : jobs) labeler.submit({pos, m});
    }
    CHECK(sunk < 50);
  }
}
