// The local teacher server (cpp-httplib) read by the labeler's client: the same scores as
// in-process, each fault as the client sees it, the key check, bad requests.
#include "amazons/paper/teacher_server.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <atomic>

#include "amazons/paper/http_client.hpp"

using namespace amazons;

namespace {

http::ClientParams no_retries(int read_timeout_ms = 5000) {
  http::ClientParams p;
  p.retries = 0;
  p.backoff_ms = 0;
  p.read_timeout_ms = read_timeout_ms;
  return p;
}

std::string request(const Position& pos, const Move& m, bool after = true) {
  return make_request_body(make_prompt(pos, m, {.board_after_move = after}),
                           {.model = "test-model"});
}

}  // namespace

TEST_CASE("the server's scores are the in-process scores, whichever board the prompt shows") {
  TeacherServer server({.teacher = {.seed = 9}, .faults = {.chunked = 0.5}});
  server.start();
  http::HttpClient client(http::parse_url(server.url()), no_retries());
  Position pos;
  gsearch::Rng rng(3);
  for (int ply = 0; ply < 30; ++ply) {
    const Move m = pos.random_move(rng);
    for (const bool after : {true, false}) {
      const http::Response r = client.post(request(pos, m, after));
      REQUIRE(r.status == 200);
      const Reply reply = parse_reply(r.body);
      REQUIRE(reply.scores);
      CHECK(*reply.scores == teacher_scores(pos, m, {.seed = 9}));
      CHECK(nlohmann::json::parse(r.body)["model"] == "test-model");
    }
    pos.apply(m);
  }
  CHECK(client.stats().connections == 1);
  const TeacherServerStats s = server.stats();
  CHECK(s.requests == 60);
  CHECK(s.scored == 60);
  CHECK(s.faults[0] == 60);
  // /chat/completions answers too.
  http::HttpClient short_path(
      http::parse_url("http://127.0.0.1:" + std::to_string(server.port()) + "/chat/completions"),
      no_retries());
  CHECK(short_path.post(request(Position{}, Position{}.parse_move("d1-d6/g9"))).status == 200);
}

TEST_CASE("each fault, as the client sees it") {
  const Position start;
  const Move m = start.parse_move("d1-d6/g9");
  SUBCASE("malformed and out of range: 200 with a reply the parser rejects") {
    for (const TeacherFaults f :
         {TeacherFaults{.malformed = 1}, TeacherFaults{.out_of_range = 1}}) {
      TeacherServer server({.faults = f});
      server.start();
      http::HttpClient client(http::parse_url(server.url()), no_retries());
      for (int i = 0; i < 8; ++i) {
        const http::Response r = client.post(request(start, m));
        CHECK(r.status == 200);
        CHECK(!parse_reply(r.body).scores);
      }
    }
  }
  SUBCASE("drop: the connection closes in the middle of the body") {
    TeacherServer server({.faults = {.drop = 1}});
    server.start();
    http::HttpClient client(http::parse_url(server.url()), no_retries());
    try {
      (void)client.post(request(start, m));
      FAIL("expected an error");
    } catch (const http::HttpError& e) {
      CHECK(e.kind() == http::ErrorKind::kClosed);
    }
  }
  SUBCASE("500 and 429: retried by the client, then reported") {
    for (const int status : {500, 429}) {
      TeacherServer server({.faults = {.error_500 = status == 500 ? 1.0 : 0.0,
                                       .error_429 = status == 429 ? 1.0 : 0.0}});
      server.start();
      http::ClientParams p = no_retries();
      p.retries = 2;
      http::HttpClient client(http::parse_url(server.url()), p);
      try {
        (void)client.post(request(start, m));
        FAIL("expected an error");
      } catch (const http::HttpError& e) {
        CHECK(e.status() == status);
      }
      CHECK(server.stats().requests == 3);
    }
  }
  SUBCASE("slow: past the client's timeout; stopping the server cuts the wait short") {
    TeacherServer server({.faults = {.slow = 1, .slow_ms = 600000}});
    server.start();
    http::HttpClient client(http::parse_url(server.url()), no_retries(100));
    try {
      (void)client.post(request(start, m));
      FAIL("expected a timeout");
    } catch (const http::HttpError& e) {
      CHECK(e.kind() == http::ErrorKind::kTimeout);
    }
  }
  SUBCASE("a prompt asked again gets the next fault of its own repeatable sequence") {
    std::vector<int> a, b;
    for (auto* out : {&a, &b}) {
      TeacherServer server({.teacher = {.seed = 4}, .faults = {.malformed = 0.5}});
      server.start();
      http::HttpClient client(http::parse_url(server.url()), no_retries());
      for (int i = 0; i < 16; ++i)
        out->push_back(parse_reply(client.post(request(start, m)).body).scores ? 1 : 0);
    }
    CHECK(a == b);
    CHECK(std::count(a.begin(), a.end(), 1) > 2);
    CHECK(std::count(a.begin(), a.end(), 0) > 2);
  }
}

TEST_CASE("API faults: rate limits with OpenAI's headers, an exhausted quota, huge replies") {
  const Position start;
  const std::string body = request(start, start.parse_move("d1-d6/g9"));
  SUBCASE("rate limited") {
    TeacherServer server({.api = {.rate_limited = 1, .retry_after_ms = 250}});
    server.start();
    http::HttpClient client(http::parse_url(server.url()), no_retries());
    try {
      (void)client.post(body);
      FAIL("expected an error");
    } catch (const http::HttpError& e) {
      CHECK(e.status() == 429);
    }
    CHECK(server.stats().rate_limited == 1);
    // Read as a reply, the headers ask for 250 ms.
    httplib::Client raw("127.0.0.1", server.port());
    const auto res = raw.Post("/v1/chat/completions", body, "application/json");
    REQUIRE(res);
    CHECK(res->status == 429);
    CHECK(res->get_header_value("retry-after-ms") == "250");
    CHECK(res->get_header_value("x-ratelimit-remaining-requests") == "0");
    CHECK(res->get_header_value("x-ratelimit-reset-requests") == "250ms");
    http::Response r;
    r.status = 429;
    for (const auto& [name, value] : res->headers) r.headers.push_back({name, value});
    CHECK(http::detail::server_wait_ms(r) == 250);
    CHECK(res->body.find("rate_limit_exceeded") != std::string::npos);
  }
  SUBCASE("quota exhausted: 429 insufficient_quota, returned by the client at once") {
    TeacherServer server({.api = {.quota_exhausted = true}});
    server.start();
    http::ClientParams p = no_retries();
    p.retries = 3;
    http::HttpClient client(http::parse_url(server.url()), p);
    const http::Response r = client.post(body);
    CHECK(r.status == 429);
    CHECK(http::quota_exhausted(r));
    CHECK(server.stats().requests == 1);
    CHECK(server.stats().quota == 1);
  }
  SUBCASE("huge: a good reply padded past the cap; a client with a larger cap reads it") {
    TeacherServer server({.teacher = {.seed = 2}, .api = {.huge = 1, .huge_bytes = 5000}});
    server.start();
    http::ClientParams p = no_retries();
    p.max_body_bytes = 4096;
    http::HttpClient small(http::parse_url(server.url()), p);
    try {
      (void)small.post(body);
      FAIL("expected too_large");
    } catch (const http::HttpError& e) {
      CHECK(e.kind() == http::ErrorKind::kTooLarge);
    }
    p.max_body_bytes = 5000;
    http::HttpClient large(http::parse_url(server.url()), p);
    const http::Response r = large.post(body);
    CHECK(r.body.size() == 5000);
    CHECK(parse_reply(r.body).scores ==
          teacher_scores(start, start.parse_move("d1-d6/g9"), {.seed = 2}));
    CHECK(server.stats().huge == 2);
  }
  CHECK_THROWS_AS(TeacherServer({.api = {.rate_limited = 0.7, .huge = 0.7}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(TeacherServer({.api = {.huge = -0.1}}), std::invalid_argument);
}

TEST_CASE("the key check, bad requests, and the request hook") {
  std::atomic<std::uint64_t> last{0};
  TeacherServer server(
      {.api_key = "sk-test-1234", .on_request = [&](std::uint64_t n) { last = n; }});
  server.start();
  const Position start;
  const std::string body = request(start, start.parse_move("d1-d6/g9"));
  http::HttpClient client(http::parse_url(server.url()), no_retries());
  http::Response r = client.post(body);
  CHECK(r.status == 401);
  CHECK(r.body.find("sk-test") == std::string::npos);
  CHECK(client.post(body, {{"Authorization", "Bearer wrong"}}).status == 401);
  CHECK(client.post(body, {{"Authorization", "Bearer sk-test-1234"}}).status == 200);
  r = client.post("not json", {{"Authorization", "Bearer sk-test-1234"}});
  CHECK(r.status == 400);
  CHECK(r.body.find("not JSON") != std::string::npos);
  r = client.post(make_request_body("hello", {}), {{"Authorization", "Bearer sk-test-1234"}});
  CHECK(r.status == 400);
  CHECK(r.body.find("bad prompt") != std::string::npos);
  CHECK(last == 5);
  const TeacherServerStats s = server.stats();
  CHECK(s.unauthorized == 2);
  CHECK(s.bad_requests == 2);
  CHECK(s.scored == 1);
  CHECK_THROWS_AS(TeacherServer({.faults = {.malformed = 2}}), std::invalid_argument);
}
