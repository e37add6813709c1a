// The HTTP client against cpp-httplib on loopback (an independent implementation) and against
// a raw socket server that sends exactly the bytes a test wants, garbage included.
#include "amazons/paper/http_client.hpp"

#include <doctest/doctest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace amazons::http;

namespace {

// A cpp-httplib server on an ephemeral loopback port, stopped when the test ends.
class Server {
 public:
  explicit Server(std::function<void(const httplib::Request&, httplib::Response&)> handler) {
    server_.Post("/v1/chat/completions", std::move(handler));
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is lost on a server whose thread has not started listening yet.
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~Server() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] Url url() const {
    return parse_url("http://127.0.0.1:" + std::to_string(port_) + "/v1/chat/completions");
  }
  httplib::Server& get() { return server_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A loopback server that answers each connection with fixed bytes: it reads the request
// (headers and Content-Length body), writes replies[k] for the k-th request on the
// connection, and closes the connection after the last reply (or keeps reading when
// keep_open is set and more replies remain).
class RawServer {
 public:
  explicit RawServer(std::vector<std::string> replies, bool close_after_each = true)
      : replies_(std::move(replies)), close_after_each_(close_after_each) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  [[nodiscard]] Url url() const {
    return parse_url("http://127.0.0.1:" + std::to_string(port_) + "/x");
  }
  [[nodiscard]] int connections() const { return connections_; }

 private:
  // Reads one request; false when the client closed the connection.
  static bool read_request(int c) {
    std::string in;
    char buf[4096];
    for (;;) {
      const auto end = in.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::size_t length = 0;
        const auto cl = in.find("Content-Length: ");
        if (cl != std::string::npos) length = std::stoul(in.substr(cl + 16));
        if (in.size() >= end + 4 + length) return true;
      }
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) return false;
      in.append(buf, static_cast<std::size_t>(n));
    }
  }
  void serve() {
    std::size_t next = 0;
    while (next < replies_.size()) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      ++connections_;
      while (next < replies_.size() && read_request(c)) {
        const std::string& r = replies_[next++];
        (void)::send(c, r.data(), r.size(), MSG_NOSIGNAL);
        if (close_after_each_) break;
      }
      ::shutdown(c, SHUT_WR);
      char drain[256];
      while (::recv(c, drain, sizeof drain, 0) > 0) {}
      ::close(c);
    }
  }
  std::vector<std::string> replies_;
  bool close_after_each_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

ClientParams quick(int retries = 0) {
  ClientParams p;
  p.retries = retries;
  p.backoff_ms = 0;
  p.read_timeout_ms = 5000;
  p.connect_timeout_ms = 5000;
  return p;
}

std::string error_of(HttpClient& client, ErrorKind* kind = nullptr) {
  try {
    (void)client.post("{}");
  } catch (const HttpError& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("URLs: http and https, host, port, path; one-line errors for everything else") {
  Url u = parse_url("http://127.0.0.1:8080/v1/chat/completions");
  CHECK(u.host == "127.0.0.1");
  CHECK(u.port == 8080);
  CHECK(u.target == "/v1/chat/completions");
  CHECK(u.str() == "http://127.0.0.1:8080/v1/chat/completions");
  u = parse_url("HTTP://localhost");
  CHECK(u.host == "localhost");
  CHECK(u.port == 80);
  CHECK(u.target == "/");
  u = parse_url("http://[::1]:11434/v1?a=b#frag");
  CHECK(u.host == "::1");
  CHECK(u.authority() == "[::1]:11434");
  CHECK(u.target == "/v1?a=b");
  CHECK(parse_url("http://h?q=1").target == "/?q=1");

  CHECK(!u.tls);
  if (kHaveTls) {
    u = parse_url("HTTPS://api.openai.com/v1");
    CHECK(u.tls);
    CHECK(u.host == "api.openai.com");
    CHECK(u.port == 443);
    CHECK(u.str() == "https://api.openai.com:443/v1");
    CHECK(parse_url("https://[::1]:8443").str() == "https://[::1]:8443/");
  } else {
    CHECK_THROWS_WITH_AS(parse_url("https://api.openai.com/v1"),
                         doctest::Contains("https needs OpenSSL"), UrlError);
  }
  CHECK_THROWS_WITH_AS(parse_url("ftp://x"), doctest::Contains("only http:// and https:// URLs"),
                       UrlError);
  CHECK_THROWS_WITH_AS(parse_url("localhost:8080"), doctest::Contains("expected http://host"),
                       UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http://user:sk-123@host/"),
                       doctest::Contains("credentials in the URL"), UrlError);
  for (const char* bad : {"http://h:0/", "http://h:70000/", "http://h:x/", "http://h:/"})
    CHECK_THROWS_WITH_AS(parse_url(bad), doctest::Contains("port must be a number"), UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http:///path"), doctest::Contains("no host"), UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http://h/a b"), doctest::Contains("spaces and control"),
                       UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http://h\r\nX: y/"), doctest::Contains("\\x0d\\x0a"), UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http://[::1/"), doctest::Contains("unterminated IPv6"), UrlError);
  CHECK_THROWS_WITH_AS(parse_url("http://h%41/"), doctest::Contains("bad character"), UrlError);
}

TEST_CASE("Content-Length and chunked bodies from cpp-httplib; one kept-alive connection") {
  std::atomic<int> calls{0};
  std::string seen_auth, seen_body;
  std::mutex m;
  Server server([&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard lock(m);
      seen_auth = req.get_header_value("Authorization");
      seen_body = req.body;
    }
    if (++calls % 2) {
      res.set_content("plain " + req.body, "application/json");
      return;
    }
    res.set_chunked_content_provider("application/json",
                                     [](std::size_t offset, httplib::DataSink& sink) {
                                       static const std::string parts[] = {"chu", "nked", " body"};
                                       std::size_t at = 0, k = 0;
                                       while (k < 3 && at < offset) at += parts[k++].size();
                                       if (k == 3) {
                                         sink.done();
                                       } else {
                                         sink.write(parts[k].data(), parts[k].size());
                                       }
                                       return true;
                                     });
  });
  HttpClient client(server.url(), quick());
  Response r = client.post("hello", {{"Authorization", "Bearer k"}});
  CHECK(r.status == 200);
  CHECK(r.body == "plain hello");
  CHECK(*r.header("content-type") == "application/json");
  r = client.post("again");
  CHECK(r.body == "chunked body");
  CHECK(r.header("Transfer-Encoding") != nullptr);
  r = client.post("third");
  CHECK(r.body == "plain third");
  CHECK(client.stats().connections == 1);
  CHECK(client.stats().attempts == 3);
  std::lock_guard lock(m);
  CHECK(seen_body == "third");
  CHECK(seen_auth.empty());
  CHECK_THROWS_AS((void)client.post("x", {{"X-Bad", "a\r\nInjected: 1"}}), std::invalid_argument);
}

TEST_CASE("a body over the cap fails the attempt, Content-Length or chunked, and is asked again") {
  Server server([](const httplib::Request& req, httplib::Response& res) {
    const std::string big(5000, 'x');
    if (req.body == "chunked") {
      res.set_chunked_content_provider("text/plain",
                                       [big](std::size_t offset, httplib::DataSink& sink) {
                                         if (offset >= big.size()) {
                                           sink.done();
                                         } else {
                                           sink.write(big.data() + offset, 1000);
                                         }
                                         return true;
                                       });
    } else {
      res.set_content(big, "text/plain");
    }
  });
  ClientParams p = quick(3);
  p.max_body_bytes = 4096;
  HttpClient client(server.url(), p);
  for (const char* body : {"plain", "chunked"}) {
    CAPTURE(body);
    try {
      (void)client.post(body);
      FAIL("expected too_large");
    } catch (const HttpError& e) {
      CHECK(e.kind() == ErrorKind::kTooLarge);
      CHECK(e.retryable());
      CHECK(std::string(e.what()).find("longer than 4096") != std::string::npos);
      CHECK(std::string(e.what()).find("(4 attempts)") != std::string::npos);
    }
  }
  CHECK(client.stats().retries == 6);
  CHECK(client.stats().errors[static_cast<std::size_t>(ErrorKind::kTooLarge)] == 8);
  p.max_body_bytes = 5000;  // exactly the size: accepted
  HttpClient fits(server.url(), p);
  CHECK(fits.post("chunked").body.size() == 5000);
  CHECK(fits.post("plain").body.size() == 5000);
}

TEST_CASE("server down: connection refused, retried, then one line naming it") {
  Url url;
  {
    Server server([](const httplib::Request&, httplib::Response&) {});
    url = server.url();
  }  // stopped: nothing listens on the port now
  HttpClient client(url, quick(2));
  ErrorKind kind{};
  const std::string what = error_of(client, &kind);
  CHECK(kind == ErrorKind::kConnect);
  CHECK(what.find("cannot connect") != std::string::npos);
  CHECK(what.find("(3 attempts)") != std::string::npos);
  CHECK(what.find('\n') == std::string::npos);
  CHECK(client.stats().retries == 2);
  CHECK(client.stats().errors[static_cast<std::size_t>(ErrorKind::kConnect)] == 3);
}

TEST_CASE("a reply slower than the read timeout is a timeout") {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  Server server([&](const httplib::Request&, httplib::Response& res) {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return release; });  // held until the client has given up
    res.set_content("late", "text/plain");
  });
  ClientParams p = quick(1);
  p.read_timeout_ms = 50;
  HttpClient client(server.url(), p);
  ErrorKind kind{};
  const std::string what = error_of(client, &kind);
  CHECK(kind == ErrorKind::kTimeout);
  CHECK(what.find("no complete reply within 50 ms") != std::string::npos);
  CHECK(client.stats().retries == 1);
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_all();
}

TEST_CASE("a dropped connection is retried; 500 then success; 429 with exponential backoff") {
  std::atomic<int> calls{0};
  Server server([&](const httplib::Request& req, httplib::Response& res) {
    const int n = ++calls;
    if (req.body == "drop" && n == 1) {
      res.set_content_provider(100, "text/plain",
                               [](std::size_t, std::size_t, httplib::DataSink& sink) {
                                 sink.write("half", 4);
                                 return false;
                               });
      return;
    }
    if (req.body == "500" && n == 1) {
      res.status = 500;
      res.set_content("boom", "text/plain");
      return;
    }
    if (req.body == "429" && n <= 4) {
      res.status = 429;
      if (n == 4) res.set_header("Retry-After", "7");
      return;
    }
    if (req.body == "always429") {
      res.status = 429;
      return;
    }
    res.set_content("ok", "text/plain");
  });

  SUBCASE("dropped") {
    HttpClient client(server.url(), quick(1));
    CHECK(client.post("drop").body == "ok");
    CHECK(client.stats().retries == 1);
    CHECK(client.stats().errors[static_cast<std::size_t>(ErrorKind::kClosed)] == 1);
    HttpClient no_retry(server.url(), quick(0));
    calls = 0;
    ErrorKind kind{};
    try {
      (void)no_retry.post("drop");
    } catch (const HttpError& e) {
      kind = e.kind();
      CHECK(std::string(e.what()).find("bytes of the body still to come") != std::string::npos);
    }
    CHECK(kind == ErrorKind::kClosed);
  }
  SUBCASE("500 then success") {
    HttpClient client(server.url(), quick(1));
    CHECK(client.post("500").body == "ok");
    CHECK(client.stats().status_5xx == 1);
    CHECK(client.stats().retries == 1);
  }
  SUBCASE(
      "429: delays double, with jitter in [d/2, d], and Retry-After is honoured up to the cap") {
    std::vector<std::int64_t> delays;
    ClientParams p = quick(5);
    p.backoff_ms = 100;
    p.backoff_max_ms = 5000;
    p.retry_after_max_ms = 5000;
    p.sleep = [&](std::chrono::milliseconds d) { delays.push_back(d.count()); };
    HttpClient client(server.url(), p);
    CHECK(client.post("429").body == "ok");
    REQUIRE(delays.size() == 4);
    for (int k = 0; k < 3; ++k) {
      CAPTURE(k);
      CHECK(delays[k] >= (100 << k) / 2);
      CHECK(delays[k] <= (100 << k));
    }
    CHECK(delays[3] == 5000);  // Retry-After 7 s, capped at retry_after_max
    CHECK(client.stats().status_429 == 4);

    delays.clear();
    HttpClient gives_up(server.url(), p);
    try {
      (void)gives_up.post("always429");
      FAIL("expected an error");
    } catch (const HttpError& e) {
      CHECK(e.kind() == ErrorKind::kStatus);
      CHECK(e.status() == 429);
      CHECK(std::string(e.what()).find("HTTP 429") != std::string::npos);
      CHECK(std::string(e.what()).find("(6 attempts)") != std::string::npos);
    }
    CHECK(delays.size() == 5);
  }
  SUBCASE("the same seed gives the same delays") {
    std::vector<std::int64_t> a, b;
    for (auto* out : {&a, &b}) {
      calls = 0;
      ClientParams p = quick(5);
      p.backoff_ms = 1000;
      p.seed = 42;
      p.sleep = [out](std::chrono::milliseconds d) { out->push_back(d.count()); };
      HttpClient client(server.url(), p);
      (void)client.post("429");
    }
    CHECK(a == b);
  }
}

TEST_CASE("other statuses are returned for the caller to judge, not retried") {
  Server server([](const httplib::Request& req, httplib::Response& res) {
    res.status = std::stoi(req.body);
    res.set_content("{\"error\":\"no\"}", "application/json");
  });
  for (const int status : {400, 401, 403, 404, 409, 413, 422}) {
    CAPTURE(status);
    HttpClient client(server.url(), quick(3));
    const Response r = client.post(std::to_string(status));
    CHECK(r.status == status);
    CHECK(r.body == "{\"error\":\"no\"}");
    CHECK(client.stats().retries == 0);
  }
}

TEST_CASE("rate limits as OpenAI sends them: the wait asked for, capped, with the backoff floor") {
  std::atomic<int> calls{0};
  Server server([&](const httplib::Request& req, httplib::Response& res) {
    if (++calls > 1) {
      res.set_content("ok", "text/plain");
      return;
    }
    res.status = 429;
    const auto colon = req.body.find(':');
    if (colon != std::string::npos) {
      std::string rest = req.body;
      while (!rest.empty()) {  // "name:value;name:value"
        const auto end = rest.find(';');
        const std::string pair = rest.substr(0, end);
        const auto c = pair.find(':');
        res.set_header(pair.substr(0, c), pair.substr(c + 1));
        rest = end == std::string::npos ? "" : rest.substr(end + 1);
      }
    }
    if (req.body == "408") res.status = 408;
    res.set_content("{\"error\":{\"message\":\"slow down\",\"code\":\"rate_limit_exceeded\"}}",
                    "application/json");
  });
  struct Case {
    const char* headers;
    std::int64_t wait;  // ms; -1: the backoff's (in [5, 10])
  };
  const Case cases[] = {
      {"retry-after-ms:1234", 1234},
      {"retry-after-ms:12.5", 13},
      {"retry-after-ms:2", -1},                     // shorter than the backoff: the backoff
      {"retry-after-ms:1500;retry-after:9", 1500},  // the ms header comes first
      {"Retry-After:2", 2000},
      {"Retry-After:120", 60000},  // capped at retry_after_max
      {"Retry-After:Wed, 21 Oct 2015 07:28:00 GMT", -1},
      {"x-ratelimit-reset-requests:1.5s", 1500},
      {"x-ratelimit-reset-requests:20ms;x-ratelimit-reset-tokens:6m0s", 60000},
      {"x-ratelimit-remaining-requests:0;x-ratelimit-reset-requests:20ms;"
       "x-ratelimit-remaining-tokens:900;x-ratelimit-reset-tokens:6m0s",
       20},  // the exhausted limit decides
      {"x-ratelimit-remaining-requests:5;x-ratelimit-reset-requests:1s;"
       "x-ratelimit-remaining-tokens:0;x-ratelimit-reset-tokens:2m3s",
       60000},
      {"x-ratelimit-remaining-tokens:0;x-ratelimit-reset-tokens:1m0.5s", 60000},
      {"x-ratelimit-remaining-tokens:0;x-ratelimit-reset-tokens:3s", 3000},
      {"x-ratelimit-reset-tokens:bogus", -1},
      {"408", -1},  // 408 Request Timeout is retried too
  };
  for (const Case& c : cases) {
    CAPTURE(c.headers);
    calls = 0;
    std::vector<std::int64_t> delays;
    ClientParams p = quick(1);
    p.backoff_ms = 10;
    p.sleep = [&](std::chrono::milliseconds d) { delays.push_back(d.count()); };
    HttpClient client(server.url(), p);
    CHECK(client.post(c.headers).body == "ok");
    REQUIRE(delays.size() == 1);
    if (c.wait < 0) {
      CHECK(delays[0] >= 5);
      CHECK(delays[0] <= 10);
    } else {
      CHECK(delays[0] == c.wait);
    }
  }
}

TEST_CASE("429 insufficient_quota is returned at once: waiting does not refill a quota") {
  std::atomic<int> calls{0};
  Server server([&](const httplib::Request&, httplib::Response& res) {
    ++calls;
    res.status = 429;
    res.set_header("retry-after-ms", "10");
    res.set_content(
        "{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":"
        "\"insufficient_quota\",\"code\":\"insufficient_quota\"}}",
        "application/json");
  });
  HttpClient client(server.url(), quick(5));
  const Response r = client.post("x");
  CHECK(r.status == 429);
  CHECK(quota_exhausted(r));
  CHECK(calls == 1);
  CHECK(client.stats().retries == 0);
  CHECK(client.stats().status_429 == 1);
}

TEST_CASE("durations as x-ratelimit-reset-* writes them") {
  CHECK(detail::parse_duration_ms("1s") == 1000);
  CHECK(detail::parse_duration_ms("6m0s") == 360000);
  CHECK(detail::parse_duration_ms("20ms") == 20);
  CHECK(detail::parse_duration_ms("1.5s") == 1500);
  CHECK(detail::parse_duration_ms("1h2m3.5s") == 3723500);
  CHECK(detail::parse_duration_ms("250us") == doctest::Approx(0.25));
  for (const char* bad : {"", "s", "1", "1x", "-1s", "1s2", "1 s", "ms"}) {
    CAPTURE(bad);
    CHECK(!detail::parse_duration_ms(bad));
  }
}

TEST_CASE("hand-written replies: every way a reply can be wrong is one line, never a crash") {
  struct Case {
    const char* name;
    std::string reply;
    ErrorKind kind;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", ErrorKind::kProtocol, "not an HTTP reply: \"SSH-2.0"},
      {"binary", std::string("\x00\xff\x10garbage\r\n", 12), ErrorKind::kProtocol,
       "\\x00\\xff\\x10garbage"},
      {"nothing", "", ErrorKind::kClosed, "closed the connection without replying"},
      {"cut in the headers", "HTTP/1.1 200 OK\r\nContent-Le", ErrorKind::kClosed,
       "in the middle of a header"},
      {"bad header", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", ErrorKind::kProtocol,
       "malformed header line"},
      {"bad length", "HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", ErrorKind::kProtocol,
       "bad Content-Length \"12abc\""},
      {"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
       ErrorKind::kProtocol, "bad Content-Length"},
      {"huge length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
       ErrorKind::kTooLarge, "longer than"},
      {"short body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b", ErrorKind::kClosed,
       "90 bytes of the body still to come"},
      {"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
       ErrorKind::kProtocol, "bad chunk size \"zz\""},
      {"huge chunk",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\n",
       ErrorKind::kTooLarge, "bad chunk size"},
      {"chunk overrun",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
       ErrorKind::kProtocol, "longer than its size says"},
      {"cut chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
       ErrorKind::kClosed, "still to come"},
      {"gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\nxx",
       ErrorKind::kProtocol, "compressed"},
      {"other coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
       ErrorKind::kProtocol, "unsupported Transfer-Encoding"},
      {"switch", "HTTP/1.1 101 Switching Protocols\r\n\r\n", ErrorKind::kProtocol,
       "switch protocols"},
      {"long header", "HTTP/1.1 200 OK\r\nX: " + std::string(70000, 'a') + "\r\n\r\n",
       ErrorKind::kTooLarge, "longer than"},
      {"status 99", "HTTP/1.1 099 What\r\n\r\n", ErrorKind::kProtocol, "not an HTTP status"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    RawServer server({c.reply});
    HttpClient client(server.url(), quick());
    ErrorKind kind{};
    const std::string what = error_of(client, &kind);
    CAPTURE(what);
    CHECK(kind == c.kind);
    CHECK(what.find(c.says) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find("127.0.0.1:") != std::string::npos);
  }
}

TEST_CASE("parse_response reads the same replies from memory, whole or a byte at a time") {
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n3;e=1\r\nabc\r\n2\r\nde\r\n"
      "0\r\nT: x\r\n\r\n";
  const Response r = parse_response(chunked);
  CHECK(r.status == 200);
  CHECK(r.body == "abcde");
  CHECK(*r.header("x-a") == "b");
  CHECK(parse_response("HTTP/1.1 200 OK\r\n\r\nto the end").body == "to the end");
  CHECK(parse_response("HTTP/1.1 204 No Content\r\n\r\nignored").body.empty());
  for (const std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}}) {
    CAPTURE(piece);
    detail::MemoryTransport in(chunked, piece);
    detail::ReplyReader reader(ClientParams{}, "");
    bool keep = false;
    const Response split = reader.read(in, detail::Clock::time_point::max(), keep);
    CHECK(split.body == "abcde");
    CHECK(keep);
  }
  ClientParams small;
  small.max_body_bytes = 4;
  CHECK_THROWS_WITH_AS(parse_response(chunked, small), "reply body longer than 4 bytes", HttpError);
  CHECK_THROWS_WITH_AS(parse_response("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"),
                       "the server closed the connection with 6 bytes of the body still to come",
                       HttpError);
  CHECK_THROWS_WITH_AS(parse_response("garbage\r\n"), "not an HTTP reply: \"garbage\"", HttpError);
}

TEST_CASE("hand-written replies that are fine: 1.0, 100 Continue, close-delimited, trailers") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok"},
      {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes", "yes"},
      {"HTTP/1.1 200 OK\r\n\r\nuntil the end", "until the end"},
      {"HTTP/1.1 200 OK\nContent-Length: 2\n\nlf", "lf"},
      {"HTTP/1.1 200\r\nTransfer-Encoding: Chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: "
       "x\r\n\r\n",
       "abc"},
      {"HTTP/1.1 204 No Content\r\n\r\n", ""},
  };
  for (const auto& [reply, body] : cases) {
    CAPTURE(reply);
    RawServer server({reply});
    HttpClient client(server.url(), quick());
    CHECK(client.post("{}").body == body);
  }
}

TEST_CASE(
    "a kept-alive connection the server closed meanwhile is replaced, not counted as a retry") {
  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  RawServer server({ok, ok}, /*close_after_each=*/true);  // keep-alive promised, then closed
  HttpClient client(server.url(), quick(0));
  CHECK(client.post("a").body == "ok");
  CHECK(client.post("b").body == "ok");
  CHECK(client.stats().retries == 0);
  CHECK(client.stats().connections == 2);
}

TEST_CASE("random and mutated bytes: a reply or an HttpError, never a crash") {
  gsearch::Rng rng(2024);
  const std::string valid =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
      "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
  std::vector<std::string> replies;
  for (int i = 0; i < 120; ++i) {
    std::string r;
    if (i % 3 == 0) {  // random bytes
      r.resize(rng.below(200));
      for (char& c : r) c = static_cast<char>(rng.below(256));
    } else {  // a valid reply with a few bytes changed, cut or repeated
      r = valid;
      for (int k = 0, n = 1 + static_cast<int>(rng.below(4)); k < n; ++k) {
        const std::size_t at = rng.below(r.size());
        switch (rng.below(3)) {
          case 0:
            r[at] = static_cast<char>(rng.below(256));
            break;
          case 1:
            r.resize(at);
            break;
          default:
            r.insert(at, r.substr(at, rng.below(20)));
            break;
        }
        if (r.empty()) break;
      }
    }
    replies.push_back(r);
  }
  int ok = 0, failed = 0;
  for (const std::string& r : replies) {
    RawServer server({r});
    HttpClient client(server.url(), quick());
    try {
      (void)client.post("{}");
      ++ok;
    } catch (const HttpError& e) {
      ++failed;
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
  CHECK(ok + failed == 120);
  CHECK(failed > 40);
}
