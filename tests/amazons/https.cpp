// https:// through the labeler's client, against a local TLS server (cpp-httplib's SSLServer)
// whose CA and certificates the test makes at run time with OpenSSL: a good request with the
// test CA given; the system's trust store refusing it; a certificate for another host name; a
// self-signed one; a plain-HTTP server; the labeler and its start-up check over TLS.
#include "amazons/paper/http_client.hpp"

#include <doctest/doctest.h>

#if defined(GSEARCH_HAVE_OPENSSL)

#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "amazons/paper/labeler.hpp"
#include "amazons/paper/teacher.hpp"

using namespace amazons;

namespace {

// A key and a certificate, freed at the end.
struct Cert {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{nullptr, EVP_PKEY_free};
  std::unique_ptr<X509, decltype(&X509_free)> x509{nullptr, X509_free};
};

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  REQUIRE(ext != nullptr);
  REQUIRE(X509_add_ext(cert, ext, -1) == 1);
  X509_EXTENSION_free(ext);
}

// A P-256 key and a certificate for `cn`, valid from an hour ago for a day, signed by
// `issuer` (nullptr: by itself). A CA when `ca`; otherwise a server certificate whose
// subjectAltName is `san` (e.g. "DNS:localhost,IP:127.0.0.1").
Cert make_cert(const char* cn, const Cert* issuer, bool ca, const char* san, long serial) {
  Cert c;
  c.key.reset(EVP_EC_gen("P-256"));
  REQUIRE(c.key);
  c.x509.reset(X509_new());
  X509* x = c.x509.get();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 86400);
  X509_set_pubkey(x, c.key.get());
  X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509* signer = issuer ? issuer->x509.get() : x;
  X509_set_issuer_name(x, X509_get_subject_name(signer));
  add_ext(x, signer, NID_subject_key_identifier, "hash");
  add_ext(x, signer, NID_authority_key_identifier, "keyid:always");
  if (ca) {
    add_ext(x, signer, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(x, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    add_ext(x, signer, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(x, signer, NID_ext_key_usage, "serverAuth");
    add_ext(x, signer, NID_subject_alt_name, san);
  }
  REQUIRE(X509_sign(x, issuer ? issuer->key.get() : c.key.get(), EVP_sha256()) > 0);
  return c;
}

void write_pem(const std::string& path, const Cert& c, bool key) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  const int ok = key ? PEM_write_PrivateKey(f, c.key.get(), nullptr, nullptr, 0, nullptr, nullptr)
                     : PEM_write_X509(f, c.x509.get());
  std::fclose(f);
  REQUIRE(ok == 1);
}

// A test CA and three server certificates, as PEM files in a temporary directory: "good"
// (localhost and 127.0.0.1, signed by the CA), "other" (other.example, signed by the CA),
// "self" (localhost and 127.0.0.1, self-signed).
struct Pki {
  Pki() {
    char tmpl[] = "/tmp/gsearch-tls-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    const Cert ca = make_cert("gsearch test CA", nullptr, true, nullptr, 1);
    write_pem(ca_file(), ca, false);
    const Cert good = make_cert("localhost", &ca, false, "DNS:localhost,IP:127.0.0.1", 2);
    const Cert other = make_cert("other.example", &ca, false, "DNS:other.example", 3);
    const Cert self = make_cert("localhost", nullptr, false, "DNS:localhost,IP:127.0.0.1", 4);
    for (const auto& [name, cert] :
         {std::pair<const char*, const Cert*>{"good", &good}, {"other", &other}, {"self", &self}}) {
      write_pem(dir + "/" + name + ".crt", *cert, false);
      write_pem(dir + "/" + name + ".key", *cert, true);
    }
  }
  ~Pki() { std::filesystem::remove_all(dir); }
  [[nodiscard]] std::string ca_file() const { return dir + "/ca.crt"; }
  std::string dir;
};

const Pki& pki() {
  static const Pki p;
  return p;
}

// cpp-httplib's SSLServer on an ephemeral loopback port with certificate `name` of pki(),
// answering POST /v1/chat/completions as the local teacher does (seed 3, no faults).
class TlsServer {
 public:
  explicit TlsServer(const std::string& name)
      : server_((pki().dir + "/" + name + ".crt").c_str(),
                (pki().dir + "/" + name + ".key").c_str()) {
    REQUIRE(server_.is_valid());
    server_.Post("/v1/chat/completions", [](const httplib::Request& req, httplib::Response& res) {
      const ChatRequest chat = parse_request_body(req.body);
      const PromptContents p = parse_prompt(chat.prompt);
      res.set_content(
          make_reply_body(format_scores(teacher_scores(p.before, p.move, {.seed = 3})), "m", 1),
          "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~TlsServer() {
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] std::string url(const std::string& host = "localhost") const {
    return "https://" + host + ":" + std::to_string(port_) + "/v1/chat/completions";
  }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
};

http::ClientParams tls_params(std::string ca_file, int retries = 0) {
  http::ClientParams p;
  p.retries = retries;
  p.backoff_ms = 0;
  p.read_timeout_ms = 5000;
  p.connect_timeout_ms = 5000;
  p.ca_file = std::move(ca_file);
  return p;
}

std::string body_for(const Position& pos, const Move& m) {
  return make_request_body(make_prompt(pos, m), {.model = "m"});
}

// The HttpError of one POST ("no error" when it succeeds).
std::string error_of(const std::string& url, const http::ClientParams& p,
                     http::ErrorKind* kind = nullptr, std::uint64_t* retries = nullptr) {
  http::HttpClient client(http::parse_url(url), p);
  const Position start;
  try {
    (void)client.post(body_for(start, start.parse_move("d1-d6/g9")));
  } catch (const http::HttpError& e) {
    if (kind) *kind = e.kind();
    if (retries) *retries = client.stats().retries;
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("https: a good request with the test CA, by host name and by IP; keep-alive") {
  TlsServer server("good");
  for (const char* host : {"localhost", "127.0.0.1"}) {
    CAPTURE(host);
    const http::Url url = http::parse_url(server.url(host));
    CHECK(url.tls);
    http::HttpClient client(url, tls_params(pki().ca_file()));
    Position pos;
    gsearch::Rng rng(5);
    for (int i = 0; i < 3; ++i) {
      const Move m = pos.random_move(rng);
      const http::Response r = client.post(body_for(pos, m));
      REQUIRE(r.status == 200);
      CHECK(parse_reply(r.body).scores == teacher_scores(pos, m, {.seed = 3}));
      pos.apply(m);
    }
    CHECK(client.stats().connections == 1);
    CHECK(client.stats().retries == 0);
  }
}

TEST_CASE("https: certificates that are not accepted fail at once, one line naming why") {
  struct Case {
    const char* server;
    const char* host;
    bool test_ca;
    const char* says;
  };
  const Case cases[] = {
      {"good", "localhost", false, "certificate verify failed: unable to get local issuer"},
      {"other", "localhost", true,
       "certificate verify failed: hostname mismatch (the certificate is not for localhost)"},
      {"other", "127.0.0.1", true, "certificate verify failed: IP address mismatch"},
      {"self", "localhost", false, "certificate verify failed: self-signed certificate"},
      {"self", "localhost", true, "certificate verify failed: self-signed certificate"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.server);
    CAPTURE(c.host);
    CAPTURE(c.test_ca);
    TlsServer server(c.server);
    http::ErrorKind kind{};
    std::uint64_t retries = 99;
    const std::string what = error_of(
        server.url(c.host), tls_params(c.test_ca ? pki().ca_file() : "", 3), &kind, &retries);
    CAPTURE(what);
    CHECK(kind == http::ErrorKind::kTls);
    CHECK(what.find(c.says) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(retries == 0);  // a certificate that is not trusted stays untrusted
  }
}

TEST_CASE("https to a plain-HTTP server: the handshake fails, one line, not retried") {
  httplib::Server plain;
  plain.Post("/v1/chat/completions",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "x"); });
  const int port = plain.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { plain.listen_after_bind(); });
  while (!plain.is_running()) std::this_thread::yield();
  http::ErrorKind kind{};
  std::uint64_t retries = 99;
  const std::string what =
      error_of("https://127.0.0.1:" + std::to_string(port) + "/v1/chat/completions",
               tls_params(pki().ca_file(), 2), &kind, &retries);
  plain.stop();
  thread.join();
  CAPTURE(what);
  CHECK(kind == http::ErrorKind::kTls);
  CHECK(what.find("TLS handshake failed: ") != std::string::npos);
  CHECK(what.find('\n') == std::string::npos);
  CHECK(retries == 0);
}

TEST_CASE("https: a CA file that cannot be read is refused when the client is made") {
  CHECK_THROWS_WITH_AS(http::HttpClient(http::parse_url("https://localhost:1/"),
                                        tls_params(pki().dir + "/missing.crt")),
                       doctest::Contains("cannot read the CA file"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(http::HttpClient(http::parse_url("https://localhost:1/"),
                                        tls_params(pki().dir + "/good.key")),
                       doctest::Contains("holds no PEM certificate"), std::invalid_argument);
}

TEST_CASE("the labeler over https: labels with the test CA; without it, unreachable at once") {
  TlsServer server("good");
  TeacherClientParams p;
  p.url = server.url();
  p.key_env = "GSEARCH_TEST_NO_SUCH_KEY";
  p.http = tls_params(pki().ca_file(), 3);
  std::vector<std::optional<Scores>> got(6);
  std::vector<std::pair<Position, Move>> jobs;
  Position pos;
  gsearch::Rng rng(8);
  for (int i = 0; i < 6; ++i) {
    jobs.emplace_back(pos, pos.random_move(rng));
    pos.apply(jobs.back().second);
  }
  {
    Labeler labeler(
        {.client = p, .connections = 2},
        [&](const LabelJob& job, const ScoreOutcome& out) { got[job.tag] = out.scores; });
    for (std::size_t i = 0; i < jobs.size(); ++i)
      labeler.submit({jobs[i].first, jobs[i].second, i});
    labeler.finish();
  }
  for (std::size_t i = 0; i < jobs.size(); ++i)
    CHECK(got[i] == teacher_scores(jobs[i].first, jobs[i].second, {.seed = 3}));
  CHECK(endpoint_name(p) == server.url());

  p.http.ca_file.clear();  // the system's store does not know the test CA
  Labeler labeler({.client = p, .connections = 2}, [](const LabelJob&, const ScoreOutcome&) {});
  const auto start = std::chrono::steady_clock::now();
  const std::string expected = "cannot reach the teacher at " + server.url() +
                               ": certificate verify failed: unable to get local issuer";
  CHECK_THROWS_WITH_AS(labeler.submit({jobs[0].first, jobs[0].second, 0}),
                       doctest::Contains(expected.c_str()), TeacherUnreachable);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

#else

TEST_CASE("without OpenSSL, an https URL is refused with one line saying why") {
  CHECK_THROWS_WITH_AS(amazons::http::parse_url("https://api.openai.com/v1"),
                       doctest::Contains("https needs OpenSSL"), amazons::http::UrlError);
}

#endif
