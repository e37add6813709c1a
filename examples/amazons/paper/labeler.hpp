// amazons/paper/labeler.hpp — asks a teacher for the scores of moves, over HTTP, several at once.
//
// TeacherClient labels one move at a time on one kept-alive connection: it writes the
// paper's prompt (teacher_protocol.hpp), POSTs it to an OpenAI-compatible chat-completions
// endpoint over http:// or https:// (http_client.hpp retries connection failures, timeouts,
// replies over the caps, 408, 429 and 5xx with backoff, and waits as the rate-limit headers
// ask), and reads the reply; a reply that is not exactly two numbers in [0, 1] is rejected,
// counted by kind, and asked again, up to max_attempts replies per label.
//
// Labeler runs `connections` TeacherClients on as many threads over a bounded queue of jobs
// and hands each finished job to a sink (the label store, a progress line, an agent's score
// table). Its first job checks that the teacher can be reached at all (a connection, TLS
// included), within probe_ms: a teacher that is not there fails the run in seconds, while
// faults after that point get the full retries. It stops with a TeacherError when retrying
// cannot help: the teacher cannot be reached at the start (TeacherUnreachable), the endpoint
// refuses the request itself (401, 403, 404, 405), the quota is exhausted (429
// insufficient_quota), or `give_up_after` labels in a row failed (the server is down or
// answers garbage) — what was handed to the sink stays handed.
//
// The API key is read from an environment variable (named by key_env), sent as
// "Authorization: Bearer <key>", and never written anywhere: messages are redacted.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "amazons/paper/http_client.hpp"
#include "amazons/paper/label_store.hpp"
#include "amazons/paper/teacher_protocol.hpp"

namespace amazons {

// The endpoint a teacher URL (http:// or https://) names: the URL itself, except that an
// empty path (or "/")
// becomes /v1/chat/completions and a path ending in /v1 gets /chat/completions added, so
// that base URLs as OpenAI clients take them work too. Throws http::UrlError.
inline http::Url teacher_endpoint(std::string_view text) {
  http::Url url = http::parse_url(text);
  const auto query_at = url.target.find('?');
  std::string path = url.target.substr(0, query_at);
  const std::string query = query_at == std::string::npos ? "" : url.target.substr(query_at);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/")
    path = "/v1/chat/completions";
  else if (path.size() >= 3 && path.substr(path.size() - 3) == "/v1")
    path += "/chat/completions";
  url.target = path + query;
  return url;
}

struct TeacherClientParams {
  std::string url = "http://127.0.0.1:8080/v1/chat/completions";  // see teacher_endpoint
  RequestParams request{};  // model, temperature, max_tokens or max_completion_tokens
  PromptParams prompt{};    // the board before or after the move
  // The environment variable that holds the API key; unset or empty: no key is sent.
  std::string key_env = "OPENAI_API_KEY";
  int max_attempts = 4;       // replies asked for per label (a rejected reply is asked again)
  http::ClientParams http{};  // timeouts, caps, transport retries and backoff, CA file
};

// What the labels of this teacher are keyed by, besides position and move: the model and
// the prompt version (label_store.hpp). The URL is not part of it: the same model behind
// another port or host name gives the same labels.
inline TeacherId teacher_id(const TeacherClientParams& params) {
  return {params.request.model, prompt_version(params.prompt)};
}

// The endpoint as a label records it: "http://host:port/path" (https:// for TLS), without
// the query string. Throws http::UrlError.
inline std::string endpoint_name(const TeacherClientParams& params) {
  http::Url url = teacher_endpoint(params.url);
  url.target = url.target.substr(0, url.target.find('?'));
  return url.str();
}

// A failure that asking again cannot fix: the endpoint refused the request itself, the
// quota is exhausted, or many labels in a row failed. One line, with the API key redacted.
class TeacherError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The teacher could not be reached when the labeler started: "cannot reach the teacher at
// <url>: <why>". Nothing was asked.
class TeacherUnreachable : public TeacherError {
 public:
  using TeacherError::TeacherError;
};

// Counters of one client or, added up, of a labeler.
struct LabelStats {
  std::uint64_t labels = 0;   // labels asked for
  std::uint64_t scored = 0;   // labels scored
  std::uint64_t failed = 0;   // labels given up (see ScoreOutcome::error)
  std::uint64_t replies = 0;  // replies read with a 2xx status
  std::array<std::uint64_t, kRejectionKinds> rejected{};  // rejected replies, by kind
  std::array<std::string, kRejectionKinds> example{};     // the first of each kind, quoted
  std::uint64_t other_status = 0;  // replies whose status failed a label (e.g. 400)
  std::uint64_t http_retries = 0;  // transport retries (each after a backoff delay)
  std::uint64_t status_408 = 0;    // 408 replies (retried)
  std::uint64_t status_429 = 0;    // 429 replies (retried, but for insufficient_quota)
  std::uint64_t status_5xx = 0;    // 5xx replies (retried)
  std::array<std::uint64_t, http::kErrorKinds> http_errors{};  // failed attempts, by kind
  std::string last_error;                                      // the last failed label's reason

  [[nodiscard]] std::uint64_t rejected_total() const {
    std::uint64_t n = 0;
    for (const auto r : rejected) n += r;
    return n;
  }
  void add(const LabelStats& o) {
    labels += o.labels, scored += o.scored, failed += o.failed, replies += o.replies;
    for (std::size_t k = 0; k < kRejectionKinds; ++k) {
      rejected[k] += o.rejected[k];
      if (example[k].empty()) example[k] = o.example[k];
    }
    other_status += o.other_status, http_retries += o.http_retries;
    status_408 += o.status_408, status_429 += o.status_429, status_5xx += o.status_5xx;
    for (std::size_t k = 0; k < http::kErrorKinds; ++k) http_errors[k] += o.http_errors[k];
    if (!o.last_error.empty()) last_error = o.last_error;
  }
};

// One label's result.
struct ScoreOutcome {
  std::optional<Scores> scores{};  // absent when the label failed
  int attempts = 0;                // replies asked for (not counting transport retries)
  double seconds = 0;              // wall time spent on the label
  std::string error{};             // why the label failed, one line
};

class TeacherClient {
 public:
  // Reads the API key from the environment now. `seed` drives the backoff jitter. Throws
  // http::UrlError for a bad URL, and std::invalid_argument for max_attempts < 1, a key
  // with control characters (the message names the variable, never the key), or a CA file
  // that cannot be read.
  TeacherClient(const TeacherClientParams& params, std::uint64_t seed)
      : params_(params), http_(teacher_endpoint(params.url), with_seed(params.http, seed)) {
    if (params_.max_attempts < 1) throw std::invalid_argument("max_attempts must be at least 1");
    if (const char* v = params_.key_env.empty() ? nullptr : std::getenv(params_.key_env.c_str())) {
      std::string_view key(v);
      while (!key.empty() && (key.front() == ' ' || key.front() == '\t' || key.front() == '\n' ||
                              key.front() == '\r'))
        key.remove_prefix(1);
      while (!key.empty() &&
             (key.back() == ' ' || key.back() == '\t' || key.back() == '\n' || key.back() == '\r'))
        key.remove_suffix(1);
      for (const char c : key)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
          throw std::invalid_argument(
              "the API key in $" + params_.key_env +
              " holds control characters, which an HTTP header cannot carry");
      key_ = std::string(key);
    }
    if (!key_.empty()) headers_.push_back({"Authorization", "Bearer " + key_});
    headers_.push_back({"Content-Type", "application/json"});
  }

  // Asks for the scores of `m`, legal in `before`. A failed label is an outcome with an
  // error; throws TeacherError only when the endpoint refuses the request itself (HTTP 401,
  // 403, 404, 405: a wrong key, URL or method) or says the quota is exhausted (429
  // insufficient_quota), which no retry would change.
  ScoreOutcome score(const Position& before, const Move& m) {
    const auto start = std::chrono::steady_clock::now();
    const std::string body =
        make_request_body(make_prompt(before, m, params_.prompt), params_.request);
    ScoreOutcome out;
    ++stats_.labels;
    const auto finish = [&](std::string error) {
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!out.scores) {
        out.error = redact(std::move(error));
        stats_.last_error = out.error;
        ++stats_.failed;
      } else {
        ++stats_.scored;
      }
      sync_http_stats();
      return out;
    };
    Rejection last = Rejection::kNotJson;
    for (out.attempts = 1; out.attempts <= params_.max_attempts; ++out.attempts) {
      http::Response r;
      try {
        r = http_.post(body, headers_);
      } catch (const http::HttpError& e) {
        return finish(e.what());
      }
      if (r.status == 401 || r.status == 403 || r.status == 404 || r.status == 405) {
        sync_http_stats();
        throw TeacherError(redact(
            status_text(r) + ": the endpoint refuses the request (check --url and the key in $" +
            params_.key_env + ")"));
      }
      if (http::quota_exhausted(r)) {
        sync_http_stats();
        throw TeacherError(redact("quota exhausted: " + status_text(r) +
                                  " (insufficient_quota: add credit or use another key)"));
      }
      if (r.status < 200 || r.status > 299) {
        ++stats_.other_status;
        return finish(status_text(r));
      }
      ++stats_.replies;
      Reply reply = parse_reply(r.body);
      if (reply.scores) {
        out.scores = reply.scores;
        return finish({});
      }
      last = reply.rejection;
      const auto k = static_cast<std::size_t>(last);
      ++stats_.rejected[k];
      if (stats_.example[k].empty()) stats_.example[k] = redact(http::excerpt(reply.content, 60));
    }
    out.attempts = params_.max_attempts;
    return finish("no acceptable reply in " + std::to_string(params_.max_attempts) +
                  " attempts (last: " + rejection_name(last) + ")");
  }

  // Opens the connection now (TLS handshake included), unless one is open: one attempt.
  // Throws http::HttpError, its message redacted.
  void open() {
    try {
      http_.open();
    } catch (const http::HttpError& e) {
      throw http::HttpError(e.kind(), redact(e.what()), e.status());
    }
  }

  [[nodiscard]] const LabelStats& stats() const noexcept { return stats_; }
  [[nodiscard]] const http::Url& endpoint() const noexcept { return http_.url(); }

  // `text` with every occurrence of the API key replaced by "[redacted]".
  [[nodiscard]] std::string redact(std::string text) const {
    if (key_.empty()) return text;
    for (auto at = text.find(key_); at != std::string::npos; at = text.find(key_, at))
      text.replace(at, key_.size(), "[redacted]");
    return text;
  }

 private:
  static http::ClientParams with_seed(http::ClientParams p, std::uint64_t seed) {
    p.seed = seed;
    return p;
  }

  // "HTTP 400 Bad Request from host:port: <the error message or the start of the body>".
  std::string status_text(const http::Response& r) const {
    std::string detail = r.body;
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        detail = e["message"].get<std::string>();
      else if (e.is_string())
        detail = e.get<std::string>();
    }
    std::string reason;
    for (const char c : r.reason.substr(0, 40)) reason += (c >= 0x20 && c < 0x7f) ? c : '?';
    return "HTTP " + std::to_string(r.status) + (reason.empty() ? "" : " " + reason) + " from " +
           http_.url().authority() + (detail.empty() ? "" : ": " + http::excerpt(detail, 100));
  }

  void sync_http_stats() {
    const http::ClientStats& h = http_.stats();
    stats_.http_retries = h.retries;
    stats_.status_408 = h.status_408;
    stats_.status_429 = h.status_429;
    stats_.status_5xx = h.status_5xx;
    stats_.http_errors = h.errors;
  }

  TeacherClientParams params_;
  http::HttpClient http_;
  std::string key_;
  std::vector<http::Header> headers_;
  LabelStats stats_;
};

// ---------------------------------------------------------------------------------------
// Many labels at once

struct LabelJob {
  Position position{};    // before the move
  Move move{};            // legal in `position`
  std::uint64_t tag = 0;  // the caller's, passed back to the sink
};

struct LabelerParams {
  TeacherClientParams client{};    // the teacher and how to ask it
  std::size_t connections = 4;     // labels asked for at once, one connection and thread each
  std::size_t queue = 0;           // jobs waiting at most (submit blocks); 0: 4 × connections
  std::size_t give_up_after = 20;  // stop after this many labels in a row failed; 0: never
  std::uint64_t seed = 1;          // backoff jitter: connection k uses seed + k
  // The first submit() checks that the teacher can be reached: a connection (TLS included)
  // is tried, again after 100, 200, 400, ... ms while probe_ms have not passed, and a
  // TeacherUnreachable is thrown when none is made (at once for a host name that does not
  // resolve or a certificate that is not accepted). 0: no check (failures then go through
  // the full retries of every label).
  int probe_ms = 2000;
};

class Labeler {
 public:
  // Receives every finished job, failed ones included, one call at a time, on a worker
  // thread. An exception from it stops the labeler; submit() or finish() rethrows it.
  using Sink = std::function<void(const LabelJob&, const ScoreOutcome&)>;

  // Starts the connections' threads. Throws what TeacherClient's constructor throws.
  Labeler(const LabelerParams& params, Sink sink) : params_(params), sink_(std::move(sink)) {
    const std::size_t n = std::max<std::size_t>(1, params_.connections);
    capacity_ = params_.queue ? params_.queue : 4 * n;
    for (std::size_t i = 0; i < n; ++i)
      clients_.push_back(std::make_unique<TeacherClient>(params_.client, params_.seed + i));
    worker_stats_.resize(n);
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { work(i); });
  }

  // Abandons the jobs still queued and waits for the ones in flight, whose outcomes still go
  // to the sink: destroy a labeler before what its sink uses.
  ~Labeler() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
      queue_.clear();
    }
    more_.notify_all();
    join();
  }
  Labeler(const Labeler&) = delete;
  Labeler& operator=(const Labeler&) = delete;

  // Queues a job; blocks while the queue is full. The first call checks that the teacher
  // can be reached (LabelerParams::probe_ms) and throws TeacherUnreachable when it cannot.
  // Rethrows the error that stopped the labeler, if one did.
  void submit(LabelJob job) {
    if (!probed_) {
      probe();  // no job is queued yet, so no worker uses clients_[0]
      probed_ = true;
    }
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return queue_.size() < capacity_ || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(job));
    more_.notify_one();
  }

  // Waits until every queued job is finished and stops the threads. Rethrows the error that
  // stopped the labeler, if one did.
  void finish() {
    {
      std::unique_lock lock(mutex_);
      idle_.wait(lock, [&] { return (queue_.empty() && busy_ == 0) || error_; });
      closing_ = true;
    }
    more_.notify_all();
    join();
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

  // The counters of all connections so far. The sink may call it.
  [[nodiscard]] LabelStats stats() const {
    std::lock_guard lock(stats_mutex_);
    LabelStats total;
    for (const auto& s : worker_stats_) total.add(s);
    return total;
  }

 private:
  void probe() {
    if (params_.probe_ms <= 0) return;
    TeacherClient& client = *clients_[0];
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(params_.probe_ms);
    std::chrono::milliseconds delay(100);
    for (;;) {
      try {
        client.open();
        return;
      } catch (const http::HttpError& e) {
        if (!e.retryable() || std::chrono::steady_clock::now() + delay > deadline)
          throw TeacherUnreachable("cannot reach the teacher at " + client.endpoint().str() + ": " +
                                   e.what());
      }
      std::this_thread::sleep_for(delay);
      delay *= 2;
    }
  }

  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  void work(std::size_t i) {
    for (;;) {
      LabelJob job;
      {
        std::unique_lock lock(mutex_);
        more_.wait(lock, [&] { return !queue_.empty() || closing_ || error_; });
        if (error_ || queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
        room_.notify_one();
      }
      ScoreOutcome out;
      std::exception_ptr fatal;
      try {
        out = clients_[i]->score(job.position, job.move);
      } catch (...) {
        fatal = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      {
        std::lock_guard stats_lock(stats_mutex_);
        worker_stats_[i] = clients_[i]->stats();
      }
      if (!fatal) {
        failures_in_a_row_ = out.scores ? 0 : failures_in_a_row_ + 1;
        try {
          sink_(job, out);
        } catch (...) {
          fatal = std::current_exception();
        }
        if (!fatal && params_.give_up_after && failures_in_a_row_ >= params_.give_up_after)
          fatal = std::make_exception_ptr(
              TeacherError(std::to_string(failures_in_a_row_) +
                           " labels in a row failed; the last: " + out.error));
      }
      if (fatal && !error_) error_ = fatal;
      --busy_;
      if (error_) {
        more_.notify_all();
        room_.notify_all();
      }
      idle_.notify_all();
    }
  }

  LabelerParams params_;
  Sink sink_;
  std::size_t capacity_ = 0;
  std::vector<std::unique_ptr<TeacherClient>> clients_;  // one per thread, used by it only
  std::vector<std::thread> threads_;
  bool probed_ = false;       // the first submit() has checked the teacher (caller's thread)
  mutable std::mutex mutex_;  // guards everything below, and calls of sink_
  std::condition_variable more_, room_, idle_;
  std::deque<LabelJob> queue_;
  std::size_t busy_ = 0;  // jobs taken and not yet finished
  bool closing_ = false;
  std::exception_ptr error_;
  std::size_t failures_in_a_row_ = 0;
  mutable std::mutex stats_mutex_;  // guards worker_stats_ (taken after mutex_, if both)
  std::vector<LabelStats> worker_stats_;
};

}  // namespace amazons
