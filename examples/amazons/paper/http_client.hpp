// amazons/paper/http_client.hpp — a small HTTP/1.1 client on POSIX sockets, for the labeler.
//
// The labeler talks to one OpenAI-compatible endpoint with small JSON POSTs, so this client
// does exactly that and no more: http:// and https:// URLs (TLS through OpenSSL, certificates
// and host names verified), one keep-alive connection per client, connect and read timeouts,
// replies with Content-Length, chunked, or close-delimited bodies, a cap on the body size,
// and retries with exponential backoff and seeded jitter on connection errors, timeouts,
// replies over the caps, 408, 429 and 5xx, waiting as long as the server's rate-limit headers
// ask (retry-after-ms, Retry-After, x-ratelimit-reset-*).
//
// Layers: a Transport is a byte stream (a plain socket, TLS over a socket, or bytes in memory
// for tests and fuzzing); the ReplyReader reads one reply from any transport; HttpClient
// connects, sends, reads and retries. parse_response() runs the reader over a string.
//
// Whatever bytes a server sends, the client never crashes and never reads past its caps:
// every failure is an HttpError whose message is one line naming what happened (server bytes
// are quoted, non-printable ones as \xNN, and cut short). Request headers are never part of
// any message, so a key sent in a header cannot leak through an error.
//
// TLS needs OpenSSL at build time (CMake defines GSEARCH_HAVE_OPENSSL when it finds it);
// without it an https:// URL is refused with a message saying so.
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

#if defined(GSEARCH_HAVE_OPENSSL)
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#endif

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gsearch/core/rng.hpp"

namespace amazons::http {

// Whether this build can speak TLS (https:// URLs).
#if defined(GSEARCH_HAVE_OPENSSL)
inline constexpr bool kHaveTls = true;
#else
inline constexpr bool kHaveTls = false;
#endif

// A URL this client cannot use (not http[s]://host[:port][/path], credentials in it, https
// in a build without OpenSSL). One line; it is bad input, so commands exit with code 2.
class UrlError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Why an attempt failed.
enum class ErrorKind : std::uint8_t {
  kResolve,   // the host name did not resolve
  kConnect,   // no connection (refused, unreachable, or not within the connect timeout)
  kTimeout,   // no complete reply within the read timeout
  kClosed,    // the server closed or reset the connection before the reply was complete
  kProtocol,  // the bytes received are not an HTTP/1.x reply this client can read
  kTooLarge,  // the reply (body or headers) is larger than the caps
  kStatus,    // the server answered 408, 429 or 5xx on every attempt
  kTls,       // the TLS handshake failed, or the server's certificate was not accepted
};
inline constexpr std::size_t kErrorKinds = 8;

// Short names, for counters and messages: "resolve", "connect", "timeout", ...
inline const char* kind_name(ErrorKind k) noexcept {
  static constexpr const char* kNames[kErrorKinds] = {"resolve",  "connect",   "timeout", "closed",
                                                      "protocol", "too_large", "status",  "tls"};
  return kNames[static_cast<std::size_t>(k)];
}

// A failed request: the kind, a one-line message, and for `status` the last HTTP status.
class HttpError : public std::runtime_error {
 public:
  HttpError(ErrorKind kind, const std::string& message, int status = 0)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  [[nodiscard]] ErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] int status() const noexcept { return status_; }
  // True when another attempt may succeed: everything but a host name that does not exist
  // and a TLS failure (a certificate that is not trusted stays untrusted).
  [[nodiscard]] bool retryable() const noexcept {
    return kind_ != ErrorKind::kResolve && kind_ != ErrorKind::kTls;
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
  std::uint16_t port = 80;   // 80 (http) or 443 (https) when the URL gives none
  std::string target = "/";  // path and query, as sent in the request line
  bool tls = false;          // https://
  // "host:port" for the Host header ("[::1]:8080" for IPv6).
  [[nodiscard]] std::string authority() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  }
  // "http://host:port/path?query" (https:// for TLS).
  [[nodiscard]] std::string str() const {
    return (tls ? "https://" : "http://") + authority() + target;
  }
};

// Parses "http[s]://host[:port][/path][?query]" (a fragment is dropped). Throws UrlError for
// other schemes, https in a build without OpenSSL, user credentials in the URL (a key belongs
// in an environment variable, never in text that is printed), a missing host, a bad port, or
// spaces and control characters.
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
  Url url;
  std::string_view rest;
  if (lower_prefix("https://")) {
    if (!kHaveTls)
      throw fail(
          "https needs OpenSSL, and this build has none (install libssl-dev and rebuild, or "
          "run a local TLS proxy and give its http:// URL)");
    url.tls = true;
    url.port = 443;
    rest = text.substr(8);
  } else if (lower_prefix("http://")) {
    rest = text.substr(7);
  } else {
    if (text.find("://") != std::string_view::npos)
      throw fail("only http:// and https:// URLs are supported");
    throw fail("expected http://host[:port][/path]");
  }
  if (const auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  const auto target_start = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, target_start);
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
// Replies and parameters

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
  int connect_timeout_ms = 10000;           // to connect, TLS handshake included
  int read_timeout_ms = 120000;             // from sending a request to the end of its reply
  std::size_t max_body_bytes = 1 << 20;     // longer reply bodies fail the attempt (too_large)
  std::size_t max_header_bytes = 64 << 10;  // status line and headers together
  int retries = 5;                          // further attempts after a retryable failure
  int backoff_ms = 500;                     // delay before the first retry; doubles each time
  int backoff_max_ms = 30000;               // ceiling of the backoff delay
  int retry_after_max_ms = 60000;  // ceiling of a wait the server asks for (rate-limit headers)
  std::uint64_t seed = 1;          // jitter of the delays
  // https: a PEM file of CA certificates to trust instead of the system's store (empty: the
  // system's, SSL_CTX_set_default_verify_paths, which also reads $SSL_CERT_FILE).
  std::string ca_file{};
  // Waits between attempts; empty: std::this_thread::sleep_for. Tests record the delays.
  std::function<void(std::chrono::milliseconds)> sleep{};
};

// What a client has done since it was made.
struct ClientStats {
  std::uint64_t requests = 0;     // calls of post()
  std::uint64_t attempts = 0;     // exchanges tried: requests plus retries
  std::uint64_t retries = 0;      // attempts after a retryable failure
  std::uint64_t connections = 0;  // connections opened
  std::uint64_t status_408 = 0;   // 408 replies (each retried, or the last one reported)
  std::uint64_t status_429 = 0;   // 429 replies (likewise; insufficient_quota is not retried)
  std::uint64_t status_5xx = 0;   // 5xx replies (likewise)
  std::array<std::uint64_t, kErrorKinds> errors{};  // failed attempts by kind (not statuses)
};

// True for a 429 whose body says the account's quota is used up (OpenAI's
// "insufficient_quota"): waiting does not mend it, so it is not retried.
inline bool quota_exhausted(const Response& r) {
  return r.status == 429 && r.body.find("insufficient_quota") != std::string::npos;
}

namespace detail {

using Clock = std::chrono::steady_clock;

// `what`, and " (where)" when `where` is not empty.
[[noreturn]] inline void fail(ErrorKind kind, const std::string& what, std::string_view where) {
  throw HttpError(kind, where.empty() ? what : what + " (" + std::string(where) + ")");
}

// A decimal number of milliseconds ("1234", "1.5"); nullopt when `text` is not one.
inline std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(v >= 0) ||
      v > 1e12)
    return std::nullopt;
  return v;
}

// A Go-style duration as OpenAI writes its x-ratelimit-reset-* headers ("1s", "6m0s", "20ms",
// "1.5s", "1h2m3.5s", also "250us" and "10ns"), in milliseconds; nullopt when `text` is not
// one.
inline std::optional<double> parse_duration_ms(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  while (!text.empty()) {
    std::size_t n = 0;
    while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.'))
      ++n;
    const auto number = parse_number(text.substr(0, n));
    if (!number) return std::nullopt;
    text.remove_prefix(n);
    std::size_t u = 0;
    while (u < text.size() && std::isalpha(static_cast<unsigned char>(text[u]))) ++u;
    const std::string_view unit = text.substr(0, u);
    text.remove_prefix(u);
    double scale = 0;
    if (unit == "h")
      scale = 3600e3;
    else if (unit == "m")
      scale = 60e3;
    else if (unit == "s")
      scale = 1e3;
    else if (unit == "ms")
      scale = 1;
    else if (unit == "us")
      scale = 1e-3;
    else if (unit == "ns")
      scale = 1e-6;
    else
      return std::nullopt;
    total += *number * scale;
  }
  return total;
}

// The wait before the next attempt that reply `r` asks for, in milliseconds, or 0 when it
// asks for none. In order: retry-after-ms (milliseconds), Retry-After (seconds; an HTTP date
// is ignored), then x-ratelimit-reset-requests / x-ratelimit-reset-tokens (durations): the
// one whose x-ratelimit-remaining-* is 0, or else the longer of the two.
inline double server_wait_ms(const Response& r) {
  if (const std::string* v = r.header("retry-after-ms"))
    if (const auto ms = parse_number(*v)) return *ms;
  if (const std::string* v = r.header("Retry-After"))
    if (const auto s = parse_number(*v)) return *s * 1000;
  double any = 0, exhausted = -1;  // the longest reset; the longest of exhausted limits
  for (const char* kind : {"requests", "tokens"}) {
    const std::string* reset = r.header(std::string("x-ratelimit-reset-") + kind);
    const auto ms = reset ? parse_duration_ms(*reset) : std::nullopt;
    if (!ms) continue;
    any = std::max(any, *ms);
    const std::string* left = r.header(std::string("x-ratelimit-remaining-") + kind);
    if (left && *left == "0") exhausted = std::max(exhausted, *ms);
  }
  return exhausted >= 0 ? exhausted : any;
}

// ---------------------------------------------------------------------------------------
// Transports

// A byte stream a request is written to and its reply read from.
class Transport {
 public:
  virtual ~Transport() = default;
  // Appends the next bytes that arrive (at least one) to `out`; false at the end of the
  // stream. Throws HttpError: kTimeout when `deadline` passes, kClosed when the connection
  // fails, kTls when TLS does.
  virtual bool receive(std::string& out, Clock::time_point deadline) = 0;
  // Writes all of `data`. Throws HttpError as receive() does.
  virtual void send(std::string_view data, Clock::time_point deadline) = 0;
};

// Bytes in memory, handed out `piece` bytes at a time (tests and fuzzing read replies from
// it); what is sent is dropped.
class MemoryTransport final : public Transport {
 public:
  explicit MemoryTransport(std::string_view bytes,
                           std::size_t piece = std::numeric_limits<std::size_t>::max())
      : bytes_(bytes), piece_(std::max<std::size_t>(1, piece)) {}
  bool receive(std::string& out, Clock::time_point) override {
    if (bytes_.empty()) return false;
    const std::size_t n = std::min(piece_, bytes_.size());
    out.append(bytes_.data(), n);
    bytes_.remove_prefix(n);
    return true;
  }
  void send(std::string_view, Clock::time_point) override {}

 private:
  std::string_view bytes_;
  std::size_t piece_;
};

// A connected non-blocking TCP socket (owned).
class SocketTransport final : public Transport {
 public:
  // `where` names the server in messages; `timeout_text` is the message of a timeout.
  SocketTransport(int fd, std::string where, std::string timeout_text)
      : fd_(fd), where_(std::move(where)), timeout_text_(std::move(timeout_text)) {}
  ~SocketTransport() override { ::close(fd_); }
  SocketTransport(const SocketTransport&) = delete;
  SocketTransport& operator=(const SocketTransport&) = delete;

  void set_timeout_text(std::string text) { timeout_text_ = std::move(text); }
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

  bool receive(std::string& out, Clock::time_point deadline) override {
    char chunk[16384];
    for (;;) {
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        out.append(chunk, static_cast<std::size_t>(n));
        return true;
      }
      if (n == 0) return false;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        wait(POLLIN, deadline);
      } else if (errno != EINTR) {
        fail(ErrorKind::kClosed, std::string("the connection failed: ") + std::strerror(errno),
             where_);
      }
    }
  }

  void send(std::string_view data, Clock::time_point deadline) override {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        wait(POLLOUT, deadline);
      } else if (n < 0 && errno != EINTR) {
        fail(ErrorKind::kClosed, std::string("sending the request failed: ") + std::strerror(errno),
             where_);
      }
    }
  }

 private:
  // Waits for `events` until `deadline`; a timeout error when it passes.
  void wait(short events, Clock::time_point deadline) const {
    for (;;) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) break;
      pollfd p{fd_, events, 0};
      const int rc = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 1 << 30)));
      if (rc > 0) return;
      if (rc < 0 && errno != EINTR)
        fail(ErrorKind::kClosed, std::string("poll: ") + std::strerror(errno), where_);
    }
    fail(ErrorKind::kTimeout, timeout_text_, where_);
  }

  int fd_;
  std::string where_;
  std::string timeout_text_;
};

// Opens a TCP connection to url's host and port within `timeout_ms`. Throws HttpError:
// kResolve (no such host), kConnect.
inline int connect_socket(const Url& url, int timeout_ms) {
  const std::string where = url.authority();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    if (rc == EAI_AGAIN)
      fail(ErrorKind::kConnect, "cannot resolve the host name now, try again", where);
    fail(ErrorKind::kResolve, std::string("cannot resolve the host name: ") + gai_strerror(rc),
         where);
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
      do rc = ::poll(&p, 1, timeout_ms);
      while (rc < 0 && errno == EINTR);
      if (rc == 0) {
        why = "no connection within " + std::to_string(timeout_ms) + " ms";
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
    return fd;
  }
  ::freeaddrinfo(found);
  fail(ErrorKind::kConnect, "cannot connect: " + why, where);
}

#if defined(GSEARCH_HAVE_OPENSSL)

// The reason of the first error on OpenSSL's queue of this thread ("unknown" when empty),
// and the queue cleared.
inline std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (!e) return "unknown error";
  const char* reason = ERR_reason_error_string(e);
  return reason ? reason : "error " + std::to_string(e);
}

struct SslCtxFree {
  void operator()(SSL_CTX* c) const noexcept { SSL_CTX_free(c); }
};
using SslCtx = std::unique_ptr<SSL_CTX, SslCtxFree>;

// A client context: TLS 1.2 or later, the peer's certificate verified against `ca_file` (a
// PEM file) or, when empty, the system's trust store. Throws std::invalid_argument naming a
// CA file that cannot be read or holds no certificate.
inline SslCtx make_tls_context(const std::string& ca_file) {
  SslCtx ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) throw std::runtime_error("cannot set up TLS: " + openssl_error());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (ca_file.empty()) {
    if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1)
      throw std::runtime_error("cannot load the system's CA certificates: " + openssl_error());
  } else {
    if (std::FILE* f = std::fopen(ca_file.c_str(), "rb")) {
      std::fclose(f);
    } else {
      throw std::invalid_argument("cannot read the CA file " + ca_file + ": " +
                                  std::strerror(errno));
    }
    if (SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) != 1)
      throw std::invalid_argument("the CA file " + ca_file +
                                  " holds no PEM certificate: " + openssl_error());
  }
  return ctx;
}

// TLS over a socket, through memory BIOs: OpenSSL encrypts and decrypts, the socket
// transport moves the bytes (so sends never raise SIGPIPE, and every wait has a deadline).
class TlsTransport final : public Transport {
 public:
  // Runs the handshake with `host` (SNI unless it is an IP address; the certificate must be
  // for it) until `deadline`. Throws HttpError: kTls naming why the handshake or the
  // certificate failed (e.g. "certificate verify failed: self-signed certificate"), kTimeout,
  // kClosed.
  TlsTransport(SSL_CTX* ctx, std::unique_ptr<SocketTransport> socket, const std::string& host,
               int handshake_ms, std::string reply_timeout_text)
      : socket_(std::move(socket)) {
    const std::string& where = socket_->where();
    ERR_clear_error();
    ssl_ = SSL_new(ctx);
    rbio_ = BIO_new(BIO_s_mem());
    wbio_ = BIO_new(BIO_s_mem());
    if (!ssl_ || !rbio_ || !wbio_) {
      if (rbio_) BIO_free(rbio_);
      if (wbio_) BIO_free(wbio_);
      if (ssl_) SSL_free(ssl_);
      fail(ErrorKind::kTls, "cannot set up TLS: " + openssl_error(), where);
    }
    SSL_set_bio(ssl_, rbio_, wbio_);  // ssl_ owns them now
    SSL_set_connect_state(ssl_);
    in6_addr addr{};
    const bool ip = ::inet_pton(AF_INET, host.c_str(), &addr) == 1 ||
                    ::inet_pton(AF_INET6, host.c_str(), &addr) == 1;
    const bool named = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str()) == 1
                          : SSL_set_tlsext_host_name(ssl_, host.c_str()) == 1 &&
                                SSL_set1_host(ssl_, host.c_str()) == 1;
    if (!named) {
      SSL_free(ssl_);
      fail(ErrorKind::kTls, "cannot set the TLS host name: " + openssl_error(), where);
    }
    try {
      handshake(host, handshake_ms);
    } catch (...) {
      SSL_free(ssl_);
      throw;
    }
    socket_->set_timeout_text(std::move(reply_timeout_text));
  }
  ~TlsTransport() override { SSL_free(ssl_); }
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  bool receive(std::string& out, Clock::time_point deadline) override {
    char chunk[16384];
    for (;;) {
      ERR_clear_error();
      std::size_t n = 0;
      const int rc = SSL_read_ex(ssl_, chunk, sizeof chunk, &n);
      if (rc == 1) {
        out.append(chunk, n);
        return true;
      }
      const int err = SSL_get_error(ssl_, rc);
      if (err == SSL_ERROR_ZERO_RETURN) return false;  // close_notify
      if (err != SSL_ERROR_WANT_READ)
        fail(ErrorKind::kTls, "TLS read failed: " + openssl_error(), socket_->where());
      flush(deadline);  // e.g. an answer to a key update
      // The peer closed the TCP connection without close_notify: the end of the stream
      // (what a close-delimited body or a dropped connection then means is the reader's).
      if (!pull(deadline)) return false;
    }
  }

  void send(std::string_view data, Clock::time_point deadline) override {
    while (!data.empty()) {
      ERR_clear_error();
      std::size_t n = 0;
      if (SSL_write_ex(ssl_, data.data(), data.size(), &n) != 1)
        fail(ErrorKind::kTls, "TLS write failed: " + openssl_error(), socket_->where());
      data.remove_prefix(n);
      flush(deadline);
    }
  }

 private:
  void handshake(const std::string& host, int handshake_ms) {
    const std::string& where = socket_->where();
    socket_->set_timeout_text("no TLS handshake within " + std::to_string(handshake_ms) + " ms");
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(handshake_ms);
    for (;;) {
      ERR_clear_error();
      const int rc = SSL_do_handshake(ssl_);
      if (rc == 1) {
        flush(deadline);
        return;
      }
      const int err = SSL_get_error(ssl_, rc);
      if (err == SSL_ERROR_WANT_READ) {
        flush(deadline);
        if (!pull(deadline))
          fail(ErrorKind::kClosed, "the server closed the connection in the TLS handshake", where);
        continue;
      }
      // Failed: say why, then send the alert OpenSSL wrote, if the server still listens.
      std::string why;
      if (const long v = SSL_get_verify_result(ssl_); v != X509_V_OK) {
        why = std::string("certificate verify failed: ") + X509_verify_cert_error_string(v);
        if (v == X509_V_ERR_HOSTNAME_MISMATCH || v == X509_V_ERR_IP_ADDRESS_MISMATCH)
          why += " (the certificate is not for " + host + ")";
      } else {
        why = "TLS handshake failed: " + openssl_error();
      }
      ERR_clear_error();
      try {
        flush(deadline);
      } catch (const HttpError&) {}
      fail(ErrorKind::kTls, why, where);
    }
  }

  // Sends what OpenSSL has written.
  void flush(Clock::time_point deadline) {
    char buf[16384];
    while (BIO_ctrl_pending(wbio_) > 0) {
      const int n = BIO_read(wbio_, buf, sizeof buf);
      if (n <= 0) break;
      socket_->send(std::string_view(buf, static_cast<std::size_t>(n)), deadline);
    }
  }

  // Hands the next bytes from the socket to OpenSSL; false at the end of the stream.
  bool pull(Clock::time_point deadline) {
    std::string in;
    if (!socket_->receive(in, deadline)) return false;
    if (BIO_write(rbio_, in.data(), static_cast<int>(in.size())) != static_cast<int>(in.size()))
      fail(ErrorKind::kTls, "TLS buffer write failed", socket_->where());
    return true;
  }

  std::unique_ptr<SocketTransport> socket_;
  SSL* ssl_ = nullptr;
  BIO* rbio_ = nullptr;  // owned by ssl_: bytes from the server
  BIO* wbio_ = nullptr;  // owned by ssl_: bytes to the server
};

#endif  // GSEARCH_HAVE_OPENSSL

// ---------------------------------------------------------------------------------------
// The reply reader

// Reads HTTP/1.x replies from a transport, within the caps of ClientParams. Bytes of the
// stream that follow a reply stay buffered for the next one.
class ReplyReader {
 public:
  // `where` names the server in messages (empty: nothing is added).
  ReplyReader(const ClientParams& params, std::string where)
      : max_body_(params.max_body_bytes),
        max_header_(params.max_header_bytes),
        where_(std::move(where)) {}

  // Reads one reply; `keep_alive` tells whether the connection may carry another request.
  // Throws HttpError (kClosed, kProtocol, kTooLarge, and what the transport throws).
  Response read(Transport& in, Clock::time_point deadline, bool& keep_alive) {
    in_ = &in;
    deadline_ = deadline;
    received_any_ = false;
    Response r;
    std::size_t header_bytes = 0;
    const std::size_t cap = max_header_;
    for (;;) {  // 1xx interim replies are skipped
      const std::string_view status = line(cap, "status");
      header_bytes = status.size();
      // "HTTP/1.x NNN[ reason]"
      if (status.size() < 12 || status.substr(0, 7) != "HTTP/1." ||
          !std::isdigit(static_cast<unsigned char>(status[7])) || status[8] != ' ' ||
          !std::isdigit(static_cast<unsigned char>(status[9])) ||
          !std::isdigit(static_cast<unsigned char>(status[10])) ||
          !std::isdigit(static_cast<unsigned char>(status[11])) ||
          (status.size() > 12 && status[12] != ' '))
        fail(ErrorKind::kProtocol, "not an HTTP reply: " + excerpt(status), where_);
      const bool http10 = status[7] == '0';
      r.status = (status[9] - '0') * 100 + (status[10] - '0') * 10 + (status[11] - '0');
      r.reason = status.size() > 13 ? std::string(status.substr(13)) : std::string();
      if (r.status < 100)
        fail(ErrorKind::kProtocol, "not an HTTP status: " + excerpt(status), where_);
      r.headers.clear();
      for (;;) {
        const std::string_view h = line(cap, "header");
        header_bytes += h.size() + 2;
        if (header_bytes > cap)
          fail(ErrorKind::kTooLarge, "reply headers longer than " + std::to_string(cap) + " bytes",
               where_);
        if (h.empty()) break;
        const auto colon = h.find(':');
        if (colon == 0 || colon == std::string_view::npos || h.front() == ' ' || h.front() == '\t')
          fail(ErrorKind::kProtocol, "malformed header line " + excerpt(h), where_);
        std::string_view name = h.substr(0, colon), value = h.substr(colon + 1);
        for (const char c : name)
          if (c <= 0x20 || c >= 0x7f)
            fail(ErrorKind::kProtocol, "malformed header name " + excerpt(name), where_);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
          value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
          value.remove_suffix(1);
        r.headers.push_back({std::string(name), std::string(value)});
      }
      if (r.status == 101)
        fail(ErrorKind::kProtocol, "the server wants to switch protocols", where_);
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
    read_body(r, keep_alive);
    return r;
  }

  // A byte of the last reply read (or being read) arrived.
  [[nodiscard]] bool received_any() const noexcept { return received_any_; }
  // Bytes after the last reply are buffered.
  [[nodiscard]] bool leftover() const noexcept { return pos_ != buf_.size(); }
  // Drops the buffered bytes (the connection they came from is gone).
  void reset() noexcept {
    buf_.clear();
    pos_ = 0;
  }

 private:
  static std::string printable(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 60)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out;
  }

  // Reads more bytes into buf_; false at the end of the stream.
  bool receive() {
    if (pos_ > (1u << 16) && pos_ * 2 > buf_.size()) {  // drop what was consumed
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    if (!in_->receive(buf_, deadline_)) return false;
    received_any_ = true;
    return true;
  }

  // The next line without its CR LF (or LF), at most `limit` bytes before the CR LF.
  std::string_view line(std::size_t limit, const char* where) {
    for (;;) {
      const auto nl = buf_.find('\n', pos_);
      if (nl != std::string::npos && nl - pos_ <= limit + 1) {
        std::string_view l(buf_.data() + pos_, nl - pos_);
        pos_ = nl + 1;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return l;
      }
      if (buf_.size() - pos_ > limit + 1)
        fail(where == std::string_view("header") ? ErrorKind::kTooLarge : ErrorKind::kProtocol,
             std::string("a ") + where + " line longer than " + std::to_string(limit) + " bytes",
             where_);
      if (!receive()) {
        if (!received_any_)
          fail(ErrorKind::kClosed, "the server closed the connection without replying", where_);
        fail(ErrorKind::kClosed,
             std::string("the server closed the connection in the middle of a ") + where + " line",
             where_);
      }
    }
  }

  // Appends exactly `n` bytes of the stream to `out`.
  void take(std::size_t n, std::string& out) {
    while (buf_.size() - pos_ < n) {
      if (!receive())
        fail(ErrorKind::kClosed,
             "the server closed the connection with " + std::to_string(n - (buf_.size() - pos_)) +
                 " bytes of the body still to come",
             where_);
    }
    out.append(buf_, pos_, n);
    pos_ += n;
  }

  void read_body(Response& r, bool& keep_alive) {
    const std::size_t cap = max_body_;
    if (r.status == 204 || r.status == 304) return;
    if (const std::string* e = r.header("Content-Encoding"); e && !e->empty() && *e != "identity")
      fail(ErrorKind::kProtocol,
           "the reply is compressed (Content-Encoding: " + printable(*e) +
               "), which this client does not ask for or read",
           where_);
    const std::string* te = r.header("Transfer-Encoding");
    if (te) {
      if (!iequals(*te, "chunked"))
        fail(ErrorKind::kProtocol, "unsupported Transfer-Encoding " + excerpt(*te), where_);
      if (r.header("Content-Length")) keep_alive = false;  // RFC 9112 6.3: do not trust it
      for (;;) {
        const std::string_view size_line = line(1024, "chunk size");
        std::string_view hex = size_line.substr(0, size_line.find(';'));
        while (!hex.empty() && (hex.back() == ' ' || hex.back() == '\t')) hex.remove_suffix(1);
        std::size_t size = 0;
        const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
        if (hex.empty() || ec == std::errc::result_out_of_range)
          fail(ec == std::errc::result_out_of_range ? ErrorKind::kTooLarge : ErrorKind::kProtocol,
               "bad chunk size " + excerpt(size_line), where_);
        if (ec != std::errc() || end != hex.data() + hex.size())
          fail(ErrorKind::kProtocol, "bad chunk size " + excerpt(size_line), where_);
        if (size == 0) break;
        if (size > cap - r.body.size())
          fail(ErrorKind::kTooLarge, "reply body longer than " + std::to_string(cap) + " bytes",
               where_);
        take(size, r.body);
        std::string crlf;
        take(2, crlf);
        if (crlf != "\r\n")
          fail(ErrorKind::kProtocol, "a chunk is longer than its size says", where_);
      }
      for (std::size_t trailer = 0;; ++trailer) {  // trailer fields, then an empty line
        if (line(max_header_, "trailer").empty()) break;
        if (trailer > 100) fail(ErrorKind::kTooLarge, "too many trailer lines", where_);
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
        fail(ErrorKind::kTooLarge, "reply body longer than " + std::to_string(cap) + " bytes",
             where_);
      if (h.value.empty() || ec != std::errc() || end != h.value.data() + h.value.size() ||
          (has_length && v != length))
        fail(ErrorKind::kProtocol, "bad Content-Length " + excerpt(h.value), where_);
      length = v;
      has_length = true;
    }
    if (has_length) {
      if (length > cap)
        fail(ErrorKind::kTooLarge,
             "reply body of " + std::to_string(length) + " bytes, longer than " +
                 std::to_string(cap),
             where_);
      take(length, r.body);
      return;
    }
    // No length: the body runs to the end of the connection.
    keep_alive = false;
    for (;;) {
      if (buf_.size() - pos_ > cap)
        fail(ErrorKind::kTooLarge, "reply body longer than " + std::to_string(cap) + " bytes",
             where_);
      if (!receive()) break;
    }
    r.body.append(buf_, pos_, std::string::npos);
    pos_ = buf_.size();
  }

  std::size_t max_body_, max_header_;
  std::string where_;
  Transport* in_ = nullptr;
  Clock::time_point deadline_{};
  std::string buf_;  // bytes received and not yet consumed start at pos_
  std::size_t pos_ = 0;
  bool received_any_ = false;  // a byte of the current reply has arrived
};

}  // namespace detail

// Reads the first HTTP/1.x reply in `bytes` (status line, headers, a Content-Length, chunked
// or close-delimited body) within the caps of `params`, as the client reads one from a
// server; bytes after it are ignored. Throws HttpError as the client would (kClosed for
// bytes that end too soon). For tests and the fuzz target of the parser.
inline Response parse_response(std::string_view bytes, const ClientParams& params = {}) {
  detail::MemoryTransport in(bytes);
  detail::ReplyReader reader(params, "");
  bool keep_alive = false;
  return reader.read(in, detail::Clock::time_point::max(), keep_alive);
}

// ---------------------------------------------------------------------------------------
// The client

class HttpClient {
 public:
  // Throws std::invalid_argument for an https URL whose CA file cannot be read, and
  // UrlError for an https URL in a build without OpenSSL.
  explicit HttpClient(Url url, ClientParams params = {})
      : url_(std::move(url)),
        params_(std::move(params)),
        rng_(params_.seed),
        reader_(params_, url_.authority()) {
    if (url_.tls) {
#if defined(GSEARCH_HAVE_OPENSSL)
      tls_ = detail::make_tls_context(params_.ca_file);
#else
      throw UrlError("bad URL " + excerpt(url_.str()) +
                     ": https needs OpenSSL, and this build "
                     "has none (install libssl-dev and rebuild)");
#endif
    }
  }
  ~HttpClient() = default;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs `body` to the URL's target with `headers` added (names and values must hold no
  // CR, LF or NUL; std::invalid_argument otherwise). Retries connection failures, timeouts,
  // malformed replies, replies over the caps, 408, 429 and 5xx up to params.retries times,
  // waiting
  //   d_k = min(backoff_max, backoff · 2^k),  then a uniform delay in [d_k / 2, d_k]
  // before retry k (k = 0, 1, ...), or the wait the server asks for when longer
  // (detail::server_wait_ms: retry-after-ms, Retry-After, x-ratelimit-reset-*), up to
  // retry_after_max. Returns the reply of any other status (2xx, other 4xx), and a 429 that
  // says insufficient_quota, for the caller to judge. Throws HttpError when the last attempt
  // fails, or at once when retrying cannot help (kResolve, kTls), naming the kind and the
  // attempts made.
  Response post(std::string_view body, const std::vector<Header>& headers = {}) {
    const std::string request = format_request(body, headers);
    ++stats_.requests;
    for (int attempt = 0;; ++attempt) {
      ++stats_.attempts;
      std::chrono::milliseconds wait{0};
      try {
        Response r = exchange(request);
        if (r.status != 408 && r.status != 429 && r.status < 500) return r;
        ++(r.status == 408   ? stats_.status_408
           : r.status == 429 ? stats_.status_429
                             : stats_.status_5xx);
        if (quota_exhausted(r)) return r;
        if (attempt >= params_.retries)
          throw HttpError(ErrorKind::kStatus,
                          "HTTP " + std::to_string(r.status) + " " + printable(r.reason) +
                              " from " + url_.authority() + " (" + attempts_text(attempt) + ")",
                          r.status);
        const double asked =
            std::min<double>(detail::server_wait_ms(r), params_.retry_after_max_ms);
        wait = std::max(backoff(attempt),
                        std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(asked))));
      } catch (const HttpError& e) {
        if (e.kind() == ErrorKind::kStatus) throw;
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

  // Opens the connection now (TLS handshake included), once, unless one is open. Throws
  // HttpError (kResolve, kConnect, kTls, kTimeout, kClosed). The labeler calls it to learn
  // at the start whether the teacher can be reached at all.
  void open() {
    if (!conn_) connect();
  }

  [[nodiscard]] const Url& url() const noexcept { return url_; }
  [[nodiscard]] const ClientStats& stats() const noexcept { return stats_; }
  // Closes the kept-alive connection, if any (the next request opens a new one).
  void disconnect() noexcept {
    conn_.reset();
    reader_.reset();
  }

 private:
  using Clock = detail::Clock;

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
      const bool reused = conn_ != nullptr;
      if (!reused) connect();
      try {
        conn_->send(request, deadline);
        bool keep = false;
        Response r = reader_.read(*conn_, deadline, keep);
        if (!keep || reader_.leftover()) disconnect();
        reader_.reset();
        return r;
      } catch (const HttpError& e) {
        const bool nothing = !reader_.received_any();
        disconnect();
        if (reused && round == 0 && nothing && e.kind() == ErrorKind::kClosed) continue;
        throw;
      }
    }
  }

  void connect() {
    ++stats_.connections;
    reader_.reset();
    const std::string reply_timeout =
        "no complete reply within " + std::to_string(params_.read_timeout_ms) + " ms";
    auto socket = std::make_unique<detail::SocketTransport>(
        detail::connect_socket(url_, params_.connect_timeout_ms), url_.authority(), reply_timeout);
#if defined(GSEARCH_HAVE_OPENSSL)
    if (tls_) {
      conn_ = std::make_unique<detail::TlsTransport>(tls_.get(), std::move(socket), url_.host,
                                                     params_.connect_timeout_ms, reply_timeout);
      return;
    }
#endif
    conn_ = std::move(socket);
  }

  Url url_;
  ClientParams params_;
  gsearch::Rng rng_;
  ClientStats stats_;
#if defined(GSEARCH_HAVE_OPENSSL)
  detail::SslCtx tls_;  // https only
#endif
  std::unique_ptr<detail::Transport> conn_;  // the kept-alive connection, if any
  detail::ReplyReader reader_;
};

}  // namespace amazons::http
