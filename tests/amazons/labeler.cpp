// TeacherClient and Labeler against the local teacher server: retries under faults, rejection
// counts, failures, the key (sent, never shown), bounded concurrency, stopping.
#include "amazons/paper/labeler.hpp"

#include <doctest/doctest.h>
#include <httplib.h>
#include <stdlib.h>

#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "amazons/paper/label_store.hpp"
#include "amazons/paper/teacher_server.hpp"
#include "amazons/players/agents.hpp"

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

// A loopback port nothing listens on: bound to port 0, read, closed.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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
  CHECK(endpoint_name(p) == "http://h:1/v1/chat/completions");
  CHECK(teacher_id(p).model == "qwen2.5");
  CHECK(teacher_id(p).prompt == "table1-after");
  p.prompt.board_after_move = false;
  CHECK(teacher_id(p).prompt == "table1-before");
  if (http::kHaveTls) {
    CHECK(teacher_endpoint("https://api.openai.com/v1").target == "/v1/chat/completions");
    p.url = "https://api.openai.com/v1";
    CHECK(endpoint_name(p) == "https://api.openai.com:443/v1/chat/completions");
  }
}

TEST_CASE("labels are keyed by model and prompt, not by URL: a moved teacher asks nothing new") {
  char tmpl[] = "/tmp/gsearch-keys-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, path = dir + "/labels.jsonl";
  const auto jobs = sample_jobs(12, 9);
  // Labels a run's jobs into the file as `amazons label` does; returns the requests the
  // server got.
  const auto run = [&](const std::string& host) {
    TeacherServer server({.teacher = {.seed = 2}});
    server.start();
    TeacherClientParams p = client_for(server);
    p.url = "http://" + host + ":" + std::to_string(server.port()) + "/v1";
    const TeacherId id = teacher_id(p);
    LabelStore store(path, {.legacy_prompt = id.prompt});
    {
      Labeler labeler({.client = p, .connections = 2},
                      [&](const LabelJob& job, const ScoreOutcome& out) {
                        REQUIRE(out.scores);
                        store.append({.fen = job.position.fen(),
                                      .move = job.position.move_to_string(job.move),
                                      .move_score = out.scores->move,
                                      .place_score = out.scores->place,
                                      .model = id.model,
                                      .prompt = id.prompt,
                                      .endpoint = endpoint_name(p)});
                      });
      for (const auto& [pos, m] : jobs)
        if (!store.contains(id, pos.fen(), pos.move_to_string(m))) labeler.submit({pos, m});
      labeler.finish();
    }
    return server.stats().requests;
  };
  CHECK(run("127.0.0.1") == jobs.size());
  const auto size = std::filesystem::file_size(path);
  CHECK(run("127.0.0.1") == 0);  // another port (a new server), the same teacher
  CHECK(run("localhost") == 0);
  CHECK(std::filesystem::file_size(path) == size);
  CHECK(read_labels(path).size() == jobs.size());
  std::filesystem::remove_all(dir);
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
  CHECK(s.rejected[static_cast<std::size_t>(Rejection::kOutOfRange)] > 0);
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
    CHECK(client.stats().rejected[static_cast<std::size_t>(Rejection::kOutOfRange)] == 3);
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

TEST_CASE("a teacher that cannot be reached at the start fails the run within seconds") {
  const int port = free_port();
  TeacherClientParams p;
  p.url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  p.key_env = "GSEARCH_TEST_NO_SUCH_KEY";  // default retries and backoff: 5, from 500 ms
  const auto jobs = sample_jobs(3, 4);
  Labeler labeler({.client = p, .connections = 2}, [](const LabelJob&, const ScoreOutcome&) {});
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(labeler.submit({jobs[0].first, jobs[0].second}),
                       ("cannot reach the teacher at http://127.0.0.1:" + std::to_string(port) +
                        "/v1/chat/completions: cannot connect: Connection refused (127.0.0.1:" +
                        std::to_string(port) + ")")
                           .c_str(),
                       TeacherUnreachable);
  CHECK(seconds_since(start) < 5);

  // The engine's teacher agent: its first move fails as fast.
  auto agent = make_agent("teacher:url=http://127.0.0.1:" + std::to_string(port) + "/v1");
  agent->reset(1);
  const auto move_start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(agent->choose(Position{}), doctest::Contains("cannot reach the teacher"),
                       std::runtime_error);
  CHECK(seconds_since(move_start) < 5);
}

TEST_CASE("after the teacher answered once, a fault gets the full retries") {
  TeacherServer server({.teacher = {.seed = 1}});
  server.start();
  const auto jobs = sample_jobs(2, 6);
  std::mutex m;
  std::condition_variable cv;
  std::vector<ScoreOutcome> outs;
  Labeler labeler({.client = client_for(server, 4, 2), .connections = 1},
                  [&](const LabelJob&, const ScoreOutcome& out) {
                    std::lock_guard lock(m);
                    outs.push_back(out);
                    cv.notify_all();
                  });
  labeler.submit({jobs[0].first, jobs[0].second});
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return outs.size() == 1; });
  }
  server.stop();  // gone in the middle of the run
  labeler.submit({jobs[1].first, jobs[1].second});
  labeler.finish();
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].scores);
  CHECK(!outs[1].scores);
  CHECK(outs[1].error.find("cannot connect") != std::string::npos);
  CHECK(outs[1].error.find("(3 attempts)") != std::string::npos);
}

TEST_CASE("rate limits and huge replies are waited out and asked again: one pass scores all") {
  TeacherServer server({.teacher = {.seed = 12},
                        .faults = {.malformed = 0.1, .error_429 = 0.05},
                        .api = {.rate_limited = 0.25, .retry_after_ms = 40, .huge = 0.2}});
  server.start();
  std::mutex m;
  std::vector<std::int64_t> waits;
  TeacherClientParams p = client_for(server, 10, 20);
  p.http.sleep = [&](std::chrono::milliseconds d) {
    std::lock_guard lock(m);
    waits.push_back(d.count());
  };
  const auto jobs = sample_jobs(40, 7);
  std::size_t scored = 0;
  Labeler labeler({.client = p, .connections = 3},
                  [&](const LabelJob& job, const ScoreOutcome& out) {
                    REQUIRE(out.scores);
                    CHECK(*out.scores == teacher_scores(job.position, job.move, {.seed = 12}));
                    ++scored;
                  });
  for (const auto& [pos, mv] : jobs) labeler.submit({pos, mv});
  labeler.finish();
  CHECK(scored == jobs.size());
  const LabelStats s = labeler.stats();
  CHECK(s.failed == 0);
  CHECK(s.status_429 > 0);
  CHECK(s.http_errors[static_cast<std::size_t>(http::ErrorKind::kTooLarge)] > 0);
  CHECK(server.stats().rate_limited > 0);
  CHECK(server.stats().huge > 0);
  std::lock_guard lock(m);
  CHECK(std::count(waits.begin(), waits.end(), 40) >=
        static_cast<long>(server.stats().rate_limited));
}

// Labels `jobs` from `server` over two connections; the TeacherError that stopped the run
// ("" if none did).
template <class Jobs>
std::string labeling_error(TeacherServer& server, const Jobs& jobs) {
  Labeler labeler({.client = client_for(server), .connections = 2},
                  [](const LabelJob&, const ScoreOutcome&) {});
  try {
    for (const auto& [pos, m] : jobs) labeler.submit({pos, m});
    labeler.finish();
  } catch (const TeacherError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("an exhausted quota stops the labeler at once, one line saying so") {
  TeacherServer server({.api = {.quota_exhausted = true}});
  server.start();
  const std::string what = labeling_error(server, sample_jobs(20, 5));
  CHECK(what.find("quota exhausted: HTTP 429") != std::string::npos);
  CHECK(what.find("insufficient_quota") != std::string::npos);
  CHECK(what.find('\n') == std::string::npos);
  CHECK(server.stats().requests <= 2);
}

TEST_CASE("max_completion_tokens is sent instead of max_tokens when set") {
  std::mutex m;
  std::vector<std::string> bodies;
  httplib::Server echo;
  echo.Post("/v1/chat/completions", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(m);
      bodies.push_back(req.body);
    }
    res.set_content(make_reply_body("0.5 0.5", "m", 1), "application/json");
  });
  const int port = echo.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { echo.listen_after_bind(); });
  while (!echo.is_running()) std::this_thread::yield();
  const Position start;
  {
    TeacherClientParams p;
    p.url = "http://127.0.0.1:" + std::to_string(port);
    p.key_env = "GSEARCH_TEST_NO_SUCH_KEY";
    TeacherClient plain(p, 1);
    CHECK(plain.score(start, start.parse_move("d1-d6/g9")).scores);
    p.request.max_completion_tokens = 32;
    TeacherClient completion(p, 1);
    CHECK(completion.score(start, start.parse_move("d1-d6/g9")).scores);
  }
  echo.stop();
  thread.join();
  REQUIRE(bodies.size() == 2);
  const auto a = nlohmann::json::parse(bodies[0]), b = nlohmann::json::parse(bodies[1]);
  CHECK(a["max_tokens"] == 16);
  CHECK(!a.contains("max_completion_tokens"));
  CHECK(b["max_completion_tokens"] == 32);
  CHECK(!b.contains("max_tokens"));
}

TEST_CASE("Labeler stops: a refused request, too many failures in a row, a sink that throws") {
  const auto jobs = sample_jobs(50, 3);
  SUBCASE("401 is not retried and stops everything") {
    TeacherServer server({.api_key = "k"});
    server.start();
    const std::string what = labeling_error(server, jobs);
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
