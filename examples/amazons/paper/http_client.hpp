// amazons/paper/http_client.hpp — a small HTTP/1.1 client on POSIX sockets, for the labeler.
//
// The labeler talks to one OpenAI-compatible endpoint with small JSON POSTs, so this client
// does exactly that and no more: plain http:// URLs (https is refused: run a local TLS proxy,
// docs/labeler.md), one keep-alive connection per client, connect and read timeouts, replies
// with Content-Length, chunked, or close-delimited bodies, a cap on the body size, and retries
// with exponential backoff and seeded jitter on connection errors, timeouts, 429 and 5xx.
//
// Whatever bytes a server sends, the client never crashes and never reads past its caps:
// every failure is an HttpError whose message is one line naming what happened (server bytes
// are quoted, non-printable ones as \xNN, and cut short). Request headers are never part of
// any message, so a key sent in a header cannot leak through an error.
//
// One HttpClient is one connection: use one per thread.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace amazons::http {

// A URL this client cannot use (not http://host[:port][/path], https, credentials in it).
// One line; it is bad input, so commands exit with code 2.
class UrlError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Why an attempt failed.
enum class ErrorKind : std::uint8_t {
  resolve,    // the host name did not resolve
  connect,    // no connection (refused, unreachable, or not within the connect timeout)
  timeout,    // no complete reply within the read timeout
  closed,     // the server closed or reset the connection before the reply was complete
  protocol,   // the bytes received are not an HTTP/1.x reply this client can read
  too_large,  // the reply (body or headers) is larger than the caps
  status,     // the server answered 429 or 5xx on every attempt
};
inline constexpr std::size_t kErrorKinds = 7;

// Short names, for counters and messages: "resolve", "connect", "timeout", ...
inline const char* kind_name(ErrorKind k) noexcept {
  static constexpr const char* kNames[kErrorKinds] = {"resolve",  "connect",   "timeout", "closed",
                                                      "protocol", "too_large", "status"};
  return kNames[static_cast<std::size_t>(k)];
}

// A failed request: the kind, a one-line message, and for `status` the last HTTP status.
class HttpError : public std::runtime_error {
 public:
  HttpError(ErrorKind kind, const std::string& message, int status = 0)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] int status() const noexcept { return status_; }
  // True when another attempt may succeed: everything but a body or headers over the cap
  // and a host name that does not exist.
  [[nodiscard]] bool retryable() const noexcept {
    return kind_ != ErrorKind::too_large && kind_ != ErrorKind::resolve;
  }

 private:
  ErrorKind kind_;
  int status_;
};

// `text` cut to `max` bytes and quoted, with " and \ escaped and bytes that are not
// printable ASCII written as \xNN: server bytes in a message stay one readable line.
inline std::string excerpt(std::string_view text, std::size_t max = 60) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, '"');
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  out += text.size() > max ? "\"..." : "\"";
  return out;
}

// True when `a` and `b` are equal ignoring ASCII case (header names, schemes).
inline bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// ---------------------------------------------------------------------------------------
// URLs

struct Url {
  std::string host;          // a name, an IPv4 address, or an IPv6 address (no brackets)
  std::uint16_t port = 80;   // 80 when the URL gives none
  std::string target = "/";  // path and query, as sent in the request line
  // "host:port" for the Host header ("[::1]:8080" for IPv6).
  [[nodiscard]] std::string authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
  // "http://host:port/path?query".
  [[nodiscard]] std::string str() const { return "http://" + authority() + target; }
};

// Parses "http://host[:port][/path][?query]" (a fragment is dropped). Throws UrlError for
// https (this client has no TLS: point it at a local TLS proxy), other schemes, user
// credentials in the URL (a key belongs in an environment variable, never in text that is
// printed), a missing host, a bad port, or spaces and control characters.
inline Url parse_url(std::string_view text) {
  const auto fail = [&](const std::string& why) {
    return UrlError("bad URL " + excerpt(text) + ": " + why);
  };
  const auto lower_prefix = [&](std::string_view p) {
    return iequals(text.substr(0, p.size()), p);
  };
  for (const char ch : text)
    if (static_cast<unsigned char>(ch) <= 0x20 || ch == 0x7f)
      throw fail("spaces and control characters are not allowed");
  if (lower_prefix("https://"))
    throw fail(
        "https is not supported; run a local TLS proxy and give its http:// URL "
        "(see docs/labeler.md)");
  if (!lower_prefix("http://")) {
    if (text.find("://") != std::string_view::npos) throw fail("only http:// URLs are supported");
    throw fail("expected http://host[:port][/path]");
  }
  std::string_view rest = text.substr(7);
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const auto target_start = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, target_start);
  Url url;
  if (target_start != std::string_view::npos) {
    url.target = std::string(rest.substr(target_start));
    if (url.target.front() == '?') url.target.insert(url.target.begin(), '/');
  }
  if (authority.find('@') != std::string_view::npos)
    throw fail(
        "credentials in the URL are not supported; put the key in an environment "
        "variable and name it with --key-env");
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw fail("unterminated IPv6 address '['");
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') throw fail("unexpected text after the IPv6 address");
      port = after.substr(1);
    }
    for (const char c : host)
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
        throw fail("bad IPv6 address");
  } else {
    const auto colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
    for (const char c : host)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
        throw fail("bad character in the host name");
  }
  if (host.empty()) throw fail("no host");
  url.host = std::string(host);
  if (!port.empty() || authority.find(':') != std::string_view::npos) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
      throw fail("the port must be a number from 1 to 65535");
    url.port = static_cast<std::uint16_t>(value);
  }
  return url;
}

// ---------------------------------------------------------------------------------------
// The client

struct Header {
  std::string name;
  std::string value;
};

struct Response {
  int status = 0;      // e.g. 200
  std::string reason;  // e.g. "OK" (as the server wrote it)
  std::vector<Header> headers;
  std::string body;  // decoded from chunked transfer coding when it was chunked
  // The first header called `name` (compared without case), or nullptr.
  [[nodiscard]] const std::string* header(std::string_view name) const {
    for (const auto& h : headers)
      if (iequals(h.name, name)) return &h.value;
    return nullptr;
  }
};

struct ClientParams {
  int connect_timeout_ms = 10000;           // to establish a connection
  int read_timeout_ms = 120000;             // from sending a request to the end of its reply
  std::size_t max_body_bytes = 1 << 20;     // longer reply bodies are refused (too_large)
  std::size_t max_header_bytes = 64 << 10;  // status line and headers together
  int retries = 5;                          // further attempts after a retryable failure
  int backoff_ms = 500;                     // delay before the first retry; doubles each time
  int backoff_max_ms = 30000;               // ceiling of a delay (and of a Retry-After)
  std::uint64_t seed = 1;                   // jitter of the delays
  // Waits between attempts; empty: std::this_thread::sleep_for. Tests record the delays.
  std::function<void(std::chrono::milliseconds)> sleep{};
};

// What a client has done since it was made.
struct ClientStats {
  std::uint64_t requests = 0;     // calls of post()
  std::uint64_t attempts = 0;     // exchanges tried: requests plus retries
  std::uint64_t retries = 0;      // attempts after a retryable failure
  std::uint64_t connections = 0;  // connections opened
  std::uint64_t status_429 = 0;   // 429 replies (each retried, or the last one reported)
  std::uint64_t status_5xx = 0;   // 5xx replies (likewise)
  std::array<std::uint64_t, kErrorKinds> errors{};  // failed attempts by kind (not statuses)
};

class HttpClient {
 public:
  explicit HttpClient(Url url, ClientParams params = {})
      : url_(std::move(url)), params_(std::move(params)), rng_(params_.seed) {}
  ~HttpClient() { disconnect(); }
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs `body` to the URL's target with `headers` added (names and values must hold no
  // CR, LF or NUL; std::invalid_argument otherwise). Retries connection failures, timeouts,
  // malformed replies, 429 and 5xx up to params.retries times, waiting
  //   d_k = min(backoff_max, backoff · 2^k),  then a uniform delay in [d_k / 2, d_k]
  // before retry k (k = 0, 1, ...), or the server's Retry-After (seconds) when longer, up to
  // backoff_max. Returns the reply of any other status (2xx, 4xx) for the caller to judge.
  // Throws HttpError when the last attempt fails, naming the kind and the attempts made.
  Response post(std::string_view body, const std::vector<Header>& headers = {}) {
    const std::string request = format_request(body, headers);
    ++stats_.requests;
    for (int attempt = 0;; ++attempt) {
      ++stats_.attempts;
      std::chrono::milliseconds wait{0};
      std::string last;
      try {
        Response r = exchange(request);
        if (r.status != 429 && r.status < 500) return r;
        ++(r.status == 429 ? stats_.status_429 : stats_.status_5xx);
        last = "HTTP " + std::to_string(r.status) + " " + printable(r.reason);
        if (attempt >= params_.retries)
          throw HttpError(ErrorKind::status,
                          last + " from " + url_.authority() + " (" + attempts_text(attempt) + ")",
                          r.status);
        wait = std::max(backoff(attempt), retry_after(r));
      } catch (const HttpError& e) {
        if (e.kind() == ErrorKind::status) throw;
        ++stats_.errors[static_cast<std::size_t>(e.kind())];
        if (!e.retryable() || attempt >= params_.retries)
          throw HttpError(e.kind(), std::string(e.what()) +
                                        (attempt ? " (" + attempts_text(attempt) + ")" : ""));
        wait = backoff(attempt);
      }
      ++stats_.retries;
      if (params_.sleep)
        params_.sleep(wait);
      else
        std::this_thread::sleep_for(wait);
    }
  }

  [[nodiscard]] const Url& url() const noexcept { return url_; }
  [[nodiscard]] const ClientStats& stats() const noexcept { return stats_; }
  // Closes the kept-alive connection, if any (the next request opens a new one).
  void disconnect() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
    pos_ = 0;
  }

 private:
  using Clock = std::chrono::steady_clock;

  static std::string attempts_text(int attempt) {
    return std::to_string(attempt + 1) + (attempt ? " attempts" : " attempt");
  }

  // Printable ASCII only (for reasons and other short server text in messages).
  static std::string printable(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 60)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out;
  }

  std::chrono::milliseconds backoff(int attempt) {
    double d = params_.backoff_ms;
    for (int k = 0; k < attempt && d < params_.backoff_max_ms; ++k) d *= 2;
    d = std::min<double>(d, params_.backoff_max_ms);
    return std::chrono::milliseconds(static_cast<std::int64_t>(d / 2 + rng_.uniform() * d / 2));
  }

  std::chrono::milliseconds retry_after(const Response& r) const {
    const std::string* v = r.header("Retry-After");
    if (!v) return std::chrono::milliseconds(0);
    unsigned seconds = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), seconds);
    if (ec != std::errc() || end != v->data() + v->size()) return std::chrono::milliseconds(0);
    return std::chrono::milliseconds(
        std::min<std::int64_t>(std::int64_t{seconds} * 1000, params_.backoff_max_ms));
  }

  std::string format_request(std::string_view body, const std::vector<Header>& headers) const {
    const auto check = [](std::string_view s) {
      for (const char c : s)
        if (c == '\r' || c == '\n' || c == '\0')
          throw std::invalid_argument("an HTTP header holds a line break or NUL");
    };
    std::string r = "POST " + url_.target + " HTTP/1.1\r\nHost: " + url_.authority() +
                    "\r\nUser-Agent: gsearch-amazons-labeler\r\nAccept: application/json\r\n"
                    "Connection: keep-alive\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n";
    for (const auto& h : headers) {
      check(h.name);
      check(h.value);
      r += h.name + ": " + h.value + "\r\n";
    }
    r += "\r\n";
    r += body;
    return r;
  }

  // One request and its reply on the kept-alive connection, or on a new one. A kept-alive
  // connection that the server closed meanwhile (nothing received) is replaced once, at no
  // cost to the retry budget.
  Response exchange(const std::string& request) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(params_.read_timeout_ms);
    for (int round = 0;; ++round) {
      const bool reused = fd_ >= 0;
      if (!reused) connect();
      received_any_ = false;
      try {
        send_all(request, deadline);
        bool keep = false;
        Response r = read_response(deadline, keep);
        if (!keep || pos_ != buf_.size()) disconnect();
        buf_.clear();
        pos_ = 0;
        return r;
      } catch (const HttpError& e) {
        disconnect();
        if (reused && round == 0 && !received_any_ && e.kind() == ErrorKind::closed) continue;
        throw;
      }
    }
  }

  [[noreturn]] void fail(ErrorKind kind, const std::string& what) const {
    throw HttpError(kind, what + " (" + url_.authority() + ")");
  }

  void connect() {
    ++stats_.connections;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(url_.port);
    if (const int rc = ::getaddrinfo(url_.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
      if (rc == EAI_AGAIN) fail(ErrorKind::connect, "cannot resolve the host name now, try again");
      fail(ErrorKind::resolve, std::string("cannot resolve the host name: ") + gai_strerror(rc));
    }
    std::string why = "no address";
    for (addrinfo* a = found; a; a = a->ai_next) {
      const int fd =
          ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        why = std::strerror(errno);
        continue;
      }
      int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
      if (rc != 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        do rc = ::poll(&p, 1, params_.connect_timeout_ms);
        while (rc < 0 && errno == EINTR);
        if (rc == 0) {
          why = "no connection within " + std::to_string(params_.connect_timeout_ms) + " ms";
          ::close(fd);
          continue;
        }
        int err = 0;
        socklen_t len = sizeof err;
        if (rc < 0)
          err = errno;
        else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
          err = errno;
        rc = err ? -1 : 0;
        errno = err;
      }
      if (rc != 0) {
        why = std::strerror(errno);
        ::close(fd);
        continue;
      }
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::freeaddrinfo(found);
      fd_ = fd;
      return;
    }
    ::freeaddrinfo(found);
    fail(ErrorKind::connect, "cannot connect: " + why);
  }

  // Waits for `events` on the socket until `deadline`; a timeout error when it passes.
  void wait(short events, Clock::time_point deadline) const {
    for (;;) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) break;
      pollfd p{fd_, events, 0};
      const int rc = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 1 << 30)));
      if (rc > 0) return;
      if (rc < 0 && errno != EINTR)
        fail(ErrorKind::closed, std::string("poll: ") + std::strerror(errno));
    }
    fail(ErrorKind::timeout,
         "no complete reply within " + std::to_string(params_.read_timeout_ms) + " ms");
  }

  void send_all(std::string_view data, Clock::time_point deadline) const {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        wait(POLLOUT, deadline);
      } else if (n < 0 && errno != EINTR) {
        fail(ErrorKind::closed, std::string("sending the request failed: ") + std::strerror(errno));
      }
    }
  }

  // Reads more bytes into buf_; false at the end of the stream.
  bool receive(Clock::time_point deadline) {
    char chunk[16384];
    for (;;) {
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buf_.append(chunk, static_cast<std::size_t>(n));
        received_any_ = true;
        return true;
      }
      if (n == 0) return false;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait(POLLIN, deadline);
      } else if (errno != EINTR) {
        fail(ErrorKind::closed, std::string("the connection failed: ") + std::strerror(errno));
      }
    }
  }

  // The next line without its CR LF (or LF), at most `limit` bytes before the CR LF.
  std::string_view line(Clock::time_point deadline, std::size_t limit, const char* where) {
    for (;;) {
      const auto nl = buf_.find('\n', pos_);
      if (nl != std::string::npos && nl - pos_ <= limit + 1) {
        std::string_view l(buf_.data() + pos_, nl - pos_);
        pos_ = nl + 1;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return l;
      }
      if (buf_.size() - pos_ > limit + 1)
        fail(where == std::string_view("header") ? ErrorKind::too_large : ErrorKind::protocol,
             std::string("a ") + where + " line longer than " + std::to_string(limit) + " bytes");
      if (!receive(deadline)) {
        if (!received_any_)
          fail(ErrorKind::closed, "the server closed the connection without replying");
        fail(ErrorKind::closed,
             std::string("the server closed the connection in the middle of a ") + where + " line");
      }
    }
  }

  // Appends exactly `n` bytes of the stream to `out`.
  void take(std::size_t n, std::string& out, Clock::time_point deadline) {
    while (buf_.size() - pos_ < n) {
      if (!receive(deadline))
        fail(ErrorKind::closed, "the server closed the connection with " +
                                    std::to_string(n - (buf_.size() - pos_)) +
                                    " bytes of the body still to come");
    }
    out.append(buf_, pos_, n);
    pos_ += n;
  }

  Response read_response(Clock::time_point deadline, bool& keep_alive) {
    Response r;
    std::size_t header_bytes = 0;
    const std::size_t cap = params_.max_header_bytes;
    for (;;) {  // 1xx interim replies are skipped
      const std::string_view status = line(deadline, cap, "status");
      header_bytes = status.size();
      // "HTTP/1.x NNN[ reason]"
      if (status.size() < 12 || status.substr(0, 7) != "HTTP/1." ||
          !std::isdigit(static_cast<unsigned char>(status[7])) || status[8] != ' ' ||
          !std::isdigit(static_cast<unsigned char>(status[9])) ||
          !std::isdigit(static_cast<unsigned char>(status[10])) ||
          !std::isdigit(static_cast<unsigned char>(status[11])) ||
          (status.size() > 12 && status[12] != ' '))
        fail(ErrorKind::protocol, "not an HTTP reply: " + excerpt(status));
      const bool http10 = status[7] == '0';
      r.status = (status[9] - '0') * 100 + (status[10] - '0') * 10 + (status[11] - '0');
      r.reason = status.size() > 13 ? std::string(status.substr(13)) : std::string();
      if (r.status < 100) fail(ErrorKind::protocol, "not an HTTP status: " + excerpt(status));
      r.headers.clear();
      for (;;) {
        const std::string_view h = line(deadline, cap, "header");
        header_bytes += h.size() + 2;
        if (header_bytes > cap)
          fail(ErrorKind::too_large, "reply headers longer than " + std::to_string(cap) + " bytes");
        if (h.empty()) break;
        const auto colon = h.find(':');
        if (colon == 0 || colon == std::string_view::npos || h.front() == ' ' || h.front() == '\t')
          fail(ErrorKind::protocol, "malformed header line " + excerpt(h));
        std::string_view name = h.substr(0, colon), value = h.substr(colon + 1);
        for (const char c : name)
          if (c <= 0x20 || c >= 0x7f)
            fail(ErrorKind::protocol, "malformed header name " + excerpt(name));
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
          value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
          value.remove_suffix(1);
        r.headers.push_back({std::string(name), std::string(value)});
      }
      if (r.status == 101) fail(ErrorKind::protocol, "the server wants to switch protocols");
      if (r.status >= 200) {
        keep_alive = !http10;
        if (const std::string* c = r.header("Connection")) {
          std::string v = *c;
          for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          if (v.find("close") != std::string::npos) keep_alive = false;
          if (http10 && v.find("keep-alive") != std::string::npos) keep_alive = true;
        }
        break;
      }
    }
    read_body(r, deadline, keep_alive);
    return r;
  }

  void read_body(Response& r, Clock::time_point deadline, bool& keep_alive) {
    const std::size_t cap = params_.max_body_bytes;
    if (r.status == 204 || r.status == 304) return;
    if (const std::string* e = r.header("Content-Encoding"); e && !e->empty() && *e != "identity")
      fail(ErrorKind::protocol, "the reply is compressed (Content-Encoding: " + printable(*e) +
                                    "), which this client does not ask for or read");
    const std::string* te = r.header("Transfer-Encoding");
    if (te) {
      if (!iequals(*te, "chunked"))
        fail(ErrorKind::protocol, "unsupported Transfer-Encoding " + excerpt(*te));
      if (r.header("Content-Length")) keep_alive = false;  // RFC 9112 6.3: do not trust it
      for (;;) {
        const std::string_view size_line = line(deadline, 1024, "chunk size");
        std::string_view hex = size_line.substr(0, size_line.find(';'));
        while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t')) hex.remove_suffix(1);
        std::size_t size = 0;
        const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
        if (hex.empty() || ec == std::errc::result_out_of_range)
          fail(ec == std::errc::result_out_of_range ? ErrorKind::too_large : ErrorKind::protocol,
               "bad chunk size " + excerpt(size_line));
        if (ec != std::errc() || end != hex.data() + hex.size())
          fail(ErrorKind::protocol, "bad chunk size " + excerpt(size_line));
        if (size == 0) break;
        if (size > cap - r.body.size())
          fail(ErrorKind::too_large, "reply body longer than " + std::to_string(cap) + " bytes");
        take(size, r.body, deadline);
        std::string crlf;
        take(2, crlf, deadline);
        if (crlf != "\r\n") fail(ErrorKind::protocol, "a chunk is longer than its size says");
      }
      for (std::size_t trailer = 0;; ++trailer) {  // trailer fields, then an empty line
        if (line(deadline, params_.max_header_bytes, "trailer").empty()) break;
        if (trailer > 100) fail(ErrorKind::too_large, "too many trailer lines");
      }
      return;
    }
    std::size_t length = 0;
    bool has_length = false;
    for (const auto& h : r.headers) {
      if (!iequals(h.name, "Content-Length")) continue;
      std::size_t v = 0;
      const auto [end, ec] = std::from_chars(h.value.data(), h.value.data() + h.value.size(), v);
      if (ec == std::errc::result_out_of_range)
        fail(ErrorKind::too_large, "reply body longer than " + std::to_string(cap) + " bytes");
      if (h.value.empty() || ec != std::errc() || end != h.value.data() + h.value.size() ||
          (has_length && v != length))
        fail(ErrorKind::protocol, "bad Content-Length " + excerpt(h.value));
      length = v;
      has_length = true;
    }
    if (has_length) {
      if (length > cap)
        fail(ErrorKind::too_large, "reply body of " + std::to_string(length) +
                                       " bytes, longer than " + std::to_string(cap));
      take(length, r.body, deadline);
      return;
    }
    // No length: the body runs to the end of the connection.
    keep_alive = false;
    for (;;) {
      if (buf_.size() - pos_ > cap)
        fail(ErrorKind::too_large, "reply body longer than " + std::to_string(cap) + " bytes");
      if (!receive(deadline)) break;
    }
    r.body.append(buf_, pos_, std::string::npos);
    pos_ = buf_.size();
  }

  Url url_;
  ClientParams params_;
  gsearch::Rng rng_;
  ClientStats stats_;
  int fd_ = -1;
  std::string buf_;  // bytes received and not yet consumed start at pos_
  std::size_t pos_ = 0;
  bool received_any_ = false;  // a byte of the current reply has arrived
};

}  // namespace amazons::http
