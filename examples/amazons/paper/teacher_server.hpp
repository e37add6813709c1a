// amazons/paper/teacher_server.hpp — the local teacher behind an OpenAI-compatible endpoint.
//
// TeacherServer answers POST /v1/chat/completions (and /chat/completions) on loopback with
// cpp-httplib — an HTTP implementation independent of the labeler's client, so each checks
// the other. It reads the paper's prompt from the request (parse_prompt), scores the move
// with teacher_scores (teacher.hpp), and answers "move_score place_score" as a chat model
// would, except when it injects a fault (TeacherFaults). `amazons teacher-serve` runs one.
//
// Requests it cannot read get 400 with an OpenAI-style error body; with an API key set,
// requests without "Authorization: Bearer <key>" get 401. The key is never echoed.
//
// Besides the teacher's faults (TeacherFaults), it can answer as a rate-limited API does
// (ApiFaults): 429 with OpenAI's rate-limit headers, 429 insufficient_quota, and good replies
// padded past the client's body cap.
//
// Build: cpp-httplib from Debian is a compiled library; link it through pkg-config
// (pkg_check_modules(HTTPLIB IMPORTED_TARGET cpp-httplib)), whose flags also define
// CPPHTTPLIB_OPENSSL_SUPPORT etc., which the header's class layouts depend on.
#pragma once

#include <httplib.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include "amazons/paper/teacher.hpp"
#include "amazons/paper/teacher_protocol.hpp"

namespace amazons {

// Faults of a rate-limited API, drawn (like TeacherFaults) from the prompt, how often it was
// asked before, and the seed, on requests TeacherFaults left alone.
struct ApiFaults {
  // Probability of 429 "rate_limit_exceeded" with retry-after-ms: retry_after_ms,
  // x-ratelimit-remaining-requests: 0 and x-ratelimit-reset-requests (a duration).
  double rate_limited = 0;
  int retry_after_ms = 20;  // the wait a rate-limited reply asks for
  // Probability of a good reply padded with leading whitespace to huge_bytes (still JSON:
  // a client with a larger cap reads it).
  double huge = 0;
  std::size_t huge_bytes = (std::size_t{1} << 20) + 1;  // just over the client's default cap
  // Every request gets 429 "insufficient_quota" (after the key check).
  bool quota_exhausted = false;

  // Throws std::invalid_argument when a probability is not in [0, 1] (NaN included), their
  // sum is above 1, or retry_after_ms is negative.
  void validate() const {
    for (const auto& [name, p] : {std::pair{"rate_limited", rate_limited}, std::pair{"huge", huge}})
      if (!(p >= 0 && p <= 1))
        throw std::invalid_argument(std::string("API fault probability ") + name +
                                    " must be in [0, 1]");
    if (rate_limited + huge > 1)
      throw std::invalid_argument("API fault probabilities add up to more than 1");
    if (retry_after_ms < 0) throw std::invalid_argument("retry_after_ms must not be negative");
  }
};

struct TeacherServerParams {
  TeacherParams teacher{};         // the scores: knobs of the local teacher
  TeacherFaults faults{};          // the faults injected, and how often
  ApiFaults api{};                 // rate limits, quota, huge replies
  std::string host = "127.0.0.1";  // address to listen on
  int port = 0;                    // port to listen on; 0: any free port (see port())
  std::string api_key{};           // not empty: requests must send "Authorization: Bearer <key>"
  int threads = 16;                // connections served at once (a kept-alive one holds a thread)
  // Called with the number (from 1) of each request to the endpoint before it is answered,
  // on the server's thread. Tests use it to act at a chosen request.
  std::function<void(std::uint64_t)> on_request{};
};

struct TeacherServerStats {
  std::uint64_t requests = 0;                       // requests to the endpoint
  std::uint64_t scored = 0;                         // requests whose prompt was read and scored
  std::uint64_t bad_requests = 0;                   // answered 400
  std::uint64_t unauthorized = 0;                   // answered 401
  std::array<std::uint64_t, kFaultKinds> faults{};  // scored requests by the fault injected
  std::uint64_t rate_limited = 0;                   // answered 429 rate_limit_exceeded (ApiFaults)
  std::uint64_t huge = 0;                           // answered with a padded reply
  std::uint64_t quota = 0;                          // answered 429 insufficient_quota
};

class TeacherServer {
 public:
  // Throws std::invalid_argument when the teacher's knobs or the fault probabilities are out
  // of range (TeacherParams::validate, TeacherFaults::validate, ApiFaults::validate).
  explicit TeacherServer(TeacherServerParams params) : params_(std::move(params)) {
    params_.teacher.validate();
    params_.faults.validate();
    params_.api.validate();
  }
  ~TeacherServer() { stop(); }
  TeacherServer(const TeacherServer&) = delete;
  TeacherServer& operator=(const TeacherServer&) = delete;

  // Binds and starts serving on a background thread; returns the port. Connections made
  // from now on are accepted (they wait in the listen queue until served). Throws
  // std::runtime_error when the address cannot be bound.
  int start() {
    const int threads = std::max(1, params_.threads);
    server_.new_task_queue = [threads] {
      return new httplib::ThreadPool(static_cast<std::size_t>(threads));
    };
    server_.set_keep_alive_max_count(1u << 20);
    server_.set_tcp_nodelay(true);
    server_.set_payload_max_length(1 << 20);
    const auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      handle(req, res);
    };
    server_.Post("/v1/chat/completions", handler);
    server_.Post("/chat/completions", handler);
    port_ = params_.port == 0
                ? server_.bind_to_any_port(params_.host)
                : (server_.bind_to_port(params_.host, params_.port) ? params_.port : -1);
    if (port_ <= 0)
      throw std::runtime_error("cannot listen on " + params_.host + ":" +
                               std::to_string(params_.port));
    // cpp-httplib listens with a backlog of 5: connections opened at once beyond that wait
    // for a SYN retransmission (1 s). Listening again raises the backlog.
    ::listen(server_.socket(), SOMAXCONN);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // cpp-httplib ignores stop() until its thread is listening: wait for that.
    while (!server_.is_running()) std::this_thread::yield();
    return port_;
  }

  // Stops serving (a slow reply in progress is cut short) and waits for the threads; a
  // connection a client keeps open idle holds its thread up to cpp-httplib's keep-alive
  // timeout (5 s).
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }

  [[nodiscard]] int port() const noexcept { return port_; }
  // "http://127.0.0.1:<port>/v1/chat/completions".
  [[nodiscard]] std::string url() const {
    return "http://" + params_.host + ":" + std::to_string(port_) + "/v1/chat/completions";
  }
  [[nodiscard]] TeacherServerStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }

 private:
  // An OpenAI-style error: {"error":{"message":...,"type":...[,"code":...]}}.
  static void error(httplib::Response& res, int status, const std::string& message,
                    const char* type, const char* code = nullptr) {
    res.status = status;
    nlohmann::json e = {{"message", message}, {"type", type}};
    if (code) e["code"] = code;
    res.set_content(nlohmann::json{{"error", e}}.dump(), "application/json");
  }

  void handle(const httplib::Request& req, httplib::Response& res) {
    std::uint64_t number;
    {
      std::lock_guard lock(mutex_);
      number = ++stats_.requests;
    }
    if (params_.on_request) params_.on_request(number);
    if (!params_.api_key.empty() &&
        req.get_header_value("Authorization") != "Bearer " + params_.api_key) {
      std::lock_guard lock(mutex_);
      ++stats_.unauthorized;
      return error(res, 401, "missing or wrong API key", "invalid_request_error");
    }
    if (params_.api.quota_exhausted) {
      {
        std::lock_guard lock(mutex_);
        ++stats_.quota;
      }
      return error(res, 429,
                   "You exceeded your current quota, please check your plan and billing details.",
                   "insufficient_quota", "insufficient_quota");
    }
    ChatRequest chat;
    PromptContents prompt;
    try {
      chat = parse_request_body(req.body);
      prompt = parse_prompt(chat.prompt);
    } catch (const PromptError& e) {
      std::lock_guard lock(mutex_);
      ++stats_.bad_requests;
      return error(res, 400, e.what(), "invalid_request_error");
    }
    const Scores scores = teacher_scores(prompt.before, prompt.move, params_.teacher);
    // The fault: from the prompt, how often it was asked before, and the seed.
    const std::uint64_t prompt_hash = detail::fnv1a(chat.prompt);
    std::uint64_t key;
    Fault fault;
    bool rate_limited = false, huge = false;
    {
      std::lock_guard lock(mutex_);
      key = detail::mix(detail::mix(params_.teacher.seed, prompt_hash), asked_[prompt_hash]++);
      fault = choose_fault(params_.faults, key);
      ++stats_.scored;
      ++stats_.faults[static_cast<std::size_t>(fault)];
      if (fault == Fault::kNone) {
        const double u = static_cast<double>(detail::mix(key, 5) >> 11) * 0x1.0p-53;
        rate_limited = u < params_.api.rate_limited;
        huge = !rate_limited && u < params_.api.rate_limited + params_.api.huge;
        stats_.rate_limited += rate_limited;
        stats_.huge += huge;
      }
    }
    if (rate_limited) {
      const int ms = params_.api.retry_after_ms;
      res.set_header("retry-after-ms", std::to_string(ms));
      res.set_header("x-ratelimit-limit-requests", "60");
      res.set_header("x-ratelimit-remaining-requests", "0");
      res.set_header("x-ratelimit-reset-requests", std::to_string(ms) + "ms");
      res.set_header("x-ratelimit-remaining-tokens", "150000");
      res.set_header("x-ratelimit-reset-tokens", "6m0s");
      return error(res, 429, "Rate limit reached for requests (injected)", "requests",
                   "rate_limit_exceeded");
    }
    const std::string model = chat.model.empty() ? "local-teacher" : chat.model;
    std::string body = make_reply_body(format_scores(scores), model, number);
    if (huge && body.size() < params_.api.huge_bytes)
      body.insert(0, params_.api.huge_bytes - body.size(), ' ');
    switch (fault) {
      case Fault::kNone:
        break;
      case Fault::kMalformed: {
        const MalformedReply m = malformed_reply(scores, key);
        body = m.body ? m.text : make_reply_body(m.text, model, number);
        break;
      }
      case Fault::kOutOfRange:
        body = make_reply_body(out_of_range_reply(scores), model, number);
        break;
      case Fault::kSlow: {
        std::unique_lock lock(mutex_);
        wake_.wait_for(lock, std::chrono::milliseconds(params_.faults.slow_ms),
                       [this] { return stopping_; });
        break;
      }
      case Fault::kDrop: {
        auto shared = std::make_shared<std::string>(std::move(body));
        res.set_content_provider(shared->size(), "application/json",
                                 [shared](std::size_t, std::size_t, httplib::DataSink& sink) {
                                   sink.write(shared->data(), shared->size() / 2);
                                   return false;  // closes the connection
                                 });
        return;
      }
      case Fault::kError500:
        return error(res, 500, "the local teacher failed (injected)", "server_error");
      case Fault::kError429:
        return error(res, 429, "rate limited (injected)", "rate_limit_exceeded");
    }
    if (static_cast<double>(detail::mix(key, 3) >> 11) * 0x1.0p-53 < params_.faults.chunked) {
      auto shared = std::make_shared<std::string>(std::move(body));
      res.set_chunked_content_provider("application/json",
                                       [shared](std::size_t offset, httplib::DataSink& sink) {
                                         // Two chunks, so that the reader joins them.
                                         const std::size_t half = shared->size() / 2;
                                         if (offset == 0) {
                                           sink.write(shared->data(), half);
                                         } else {
                                           sink.write(shared->data() + half, shared->size() - half);
                                           sink.done();
                                         }
                                         return true;
                                       });
      return;
    }
    res.set_content(body, "application/json");
  }

  // httplib::Server with its listening socket in reach.
  struct HttpServer : httplib::Server {
    [[nodiscard]] int socket() const { return svr_sock_; }
  };

  TeacherServerParams params_;
  HttpServer server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;  // guards the members below
  std::condition_variable wake_;
  bool stopping_ = false;
  TeacherServerStats stats_;
  std::unordered_map<std::uint64_t, std::uint64_t> asked_;  // prompt hash -> requests so far
};

}  // namespace amazons
