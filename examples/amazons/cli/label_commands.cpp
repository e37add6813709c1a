// amazons label | teacher-serve — the labeler and the local teacher (docs/labeler.md).
#include "cli/command.hpp"

// Eigen (through train.hpp) before cpp-httplib (teacher_server.hpp): httplib includes
// <resolv.h>, whose macro `_res` would rename a parameter inside Eigen's headers.
#include "amazons/paper/train.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "amazons/paper/candidates.hpp"
#include "amazons/paper/label_store.hpp"
#include "amazons/paper/labeler.hpp"
#include "amazons/paper/teacher_server.hpp"
#include "amazons/players/agents.hpp"
#include "gsearch/arena/match.hpp"

namespace amazons::cli {
namespace {

struct LabelOptions {
  std::string out;
  std::string fen{Position::kStartFen};
  std::vector<std::string> players{"invader:iters=300,trap=0", "uct:iters=200"};
  std::size_t games = 4;
  std::uint64_t seed = 1;
  std::size_t random_plies = 2;
  std::size_t every = 1;
  std::size_t max_plies = 0;
  std::string candidates = "tree:nodes=60,seed=1";
  std::string board = "after";
  std::size_t sync_every = 1;
  LabelerParams labeler;
};

// Counters of the run, kept by the game loop and the sink (on the labeler's threads).
struct RunCounts {
  std::atomic<std::uint64_t> positions{0};   // positions whose candidates were taken
  std::atomic<std::uint64_t> candidates{0};  // candidate moves of those positions
  std::atomic<std::uint64_t> present{0};     // already in the file
  std::atomic<std::uint64_t> repeated{0};    // asked for earlier in this run
  std::atomic<std::uint64_t> written{0};     // appended to the file
  std::atomic<std::uint64_t> failed{0};      // labels that failed
  std::atomic<std::size_t> game{0};          // the game being played (from 1)
};

std::string rejections_text(const LabelStats& s, bool examples) {
  std::string out;
  for (std::size_t k = 0; k < kRejectionKinds; ++k) {
    if (!s.rejected[k]) continue;
    out += (out.empty() ? "" : ", ") + std::string(rejection_name(static_cast<Rejection>(k))) +
           " " + std::to_string(s.rejected[k]);
    if (examples && !s.example[k].empty()) out += " (e.g. " + s.example[k] + ")";
  }
  return out.empty() ? "none" : out;
}

std::string retries_text(const LabelStats& s) {
  std::string out;
  const auto add = [&](const std::string& what, std::uint64_t n) {
    if (n) out += (out.empty() ? "" : ", ") + what + " " + std::to_string(n);
  };
  add("408", s.status_408);
  add("429", s.status_429);
  add("5xx", s.status_5xx);
  for (std::size_t k = 0; k < http::kErrorKinds; ++k)
    add(http::kind_name(static_cast<http::ErrorKind>(k)), s.http_errors[k]);
  return std::to_string(s.http_retries) + (out.empty() ? "" : " (failed attempts: " + out + ")");
}

void print_progress(const RunCounts& c, const LabelStats& s, double seconds, std::size_t games) {
  std::fprintf(stderr,
               "\r\033[Kgame %zu/%zu  labels %llu new, %llu present  %.1f labels/s  rejected %llu  "
               "retries %llu  failed %llu",
               c.game.load(), games, static_cast<unsigned long long>(c.written),
               static_cast<unsigned long long>(c.present),
               seconds > 0 ? static_cast<double>(c.written) / seconds : 0.0,
               static_cast<unsigned long long>(s.rejected_total()),
               static_cast<unsigned long long>(s.http_retries),
               static_cast<unsigned long long>(c.failed));
  std::fflush(stderr);
}

void run_label(const LabelOptions& o) {
  // Everything that can be wrong in the options fails here, before any game is played.
  if (o.players.size() != 2) throw BadInput("--players takes two agent specs");
  const Position start = Position::from_fen(o.fen);
  if (start.is_terminal()) throw BadInput("the start position is already decided");
  const std::string names[2] = {make_agent(o.players[0])->name(), make_agent(o.players[1])->name()};
  const CandidateSource source = make_candidate_source(o.candidates, paper::label_candidates);
  if (o.board != "after" && o.board != "before") throw BadInput("--board is after or before");
  LabelerParams params = o.labeler;
  params.client.prompt.board_after_move = o.board == "after";
  const TeacherId teacher = teacher_id(params.client);
  const std::string endpoint = endpoint_name(params.client);

  // The file is opened (and locked, and read) before any game is played: a directory, a
  // missing parent, an unwritable path or a file that is not a label file stops here (exit 2).
  std::optional<LabelStore> opened;
  try {
    opened.emplace(o.out,
                   LabelStoreParams{.sync_every = o.sync_every, .legacy_prompt = teacher.prompt});
  } catch (const StoreError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw BadInput(e.what());
  }
  LabelStore& store = *opened;
  if (store.torn_bytes())
    std::fprintf(stderr,
                 "amazons: %s: cut a torn last line (%zu bytes) left by an interrupted run\n",
                 o.out.c_str(), store.torn_bytes());
  if (store.duplicates())
    std::fprintf(stderr, "amazons: %s: %zu repeated labels (each counts once)\n", o.out.c_str(),
                 store.duplicates());
  if (store.loaded())
    std::fprintf(stderr, "amazons: %s: %zu labels already there; resuming\n", o.out.c_str(),
                 store.loaded());

  const bool tty = isatty(STDERR_FILENO);
  const gsearch::Stopwatch watch;
  RunCounts counts;
  auto last_print = std::chrono::steady_clock::now();
  std::string error;
  LabelStats stats;
  {
    std::unique_ptr<Labeler> labeler;
    labeler = std::make_unique<Labeler>(params, [&](const LabelJob& job, const ScoreOutcome& out) {
      if (out.scores) {
        const Label label{.fen = job.position.fen(),
                          .move = job.position.move_to_string(job.move),
                          .move_score = out.scores->move,
                          .place_score = out.scores->place,
                          .model = teacher.model,
                          .attempts = out.attempts,
                          .ms = out.seconds * 1000,
                          .prompt = teacher.prompt,
                          .endpoint = endpoint};
        ++(store.append(label) ? counts.written : counts.repeated);
      } else {
        ++counts.failed;
      }
      const auto now = std::chrono::steady_clock::now();
      if (tty && now - last_print > std::chrono::milliseconds(250)) {
        last_print = now;
        print_progress(counts, labeler->stats(), watch.seconds(), o.games);
      }
    });
    try {
      std::unordered_set<std::string> asked;
      for (std::size_t g = 0; g < o.games; ++g) {
        counts.game = g + 1;
        const std::uint64_t game_seed = gsearch::arena::game_seed(o.seed, g);  // as a match's
        // Colours alternate: the first player is White in even games.
        std::unique_ptr<Agent> agents[2] = {make_agent(o.players[g % 2]),
                                            make_agent(o.players[1 - g % 2])};
        agents[0]->reset(game_seed);
        agents[1]->reset(game_seed ^ 0x5bd1e995ULL);
        gsearch::Rng opening(game_seed);
        Position pos = start;
        for (std::size_t ply = 0; !pos.is_terminal() && (o.max_plies == 0 || ply < o.max_plies);
             ++ply) {
          if (ply % o.every == 0) {
            ++counts.positions;
            const std::string fen = pos.fen();
            for (const Move& m : source(pos, game_seed + ply)) {
              ++counts.candidates;
              const std::string text = pos.move_to_string(m);
              if (store.contains(teacher, fen, text)) {
                ++counts.present;
              } else if (!asked.insert(fen + " " + text).second) {
                ++counts.repeated;
              } else {
                labeler->submit({pos, m});
              }
            }
          }
          pos.apply(ply < o.random_plies ? pos.random_move(opening)
                                         : agents[pos.to_move()]->choose(pos));
        }
      }
      labeler->finish();
    } catch (const TeacherUnreachable& e) {
      // Nothing was asked: no summary, just why (exit 1).
      labeler.reset();
      throw std::runtime_error(std::string("label: ") + e.what());
    } catch (const TeacherError& e) {
      error = e.what();
    }
    stats = labeler->stats();
    labeler.reset();
  }
  if (tty) {
    print_progress(counts, stats, watch.seconds(), o.games);
    std::fputc('\n', stderr);
  }

  const double seconds = watch.seconds();
  std::printf("teacher    %s (prompt %s) at %s\n", teacher.model.c_str(), teacher.prompt.c_str(),
              endpoint.c_str());
  std::printf("players    %s vs %s\n", names[0].c_str(), names[1].c_str());
  std::printf("games      %zu: %llu positions, %llu candidate moves (%s)\n", o.games,
              static_cast<unsigned long long>(counts.positions),
              static_cast<unsigned long long>(counts.candidates), o.candidates.c_str());
  std::printf(
      "labels     %llu written, %llu already in the file, %llu repeated in this run, %llu failed\n",
      static_cast<unsigned long long>(counts.written),
      static_cast<unsigned long long>(counts.present),
      static_cast<unsigned long long>(counts.repeated),
      static_cast<unsigned long long>(counts.failed));
  std::printf("replies    %llu read, %llu rejected: %s\n",
              static_cast<unsigned long long>(stats.replies),
              static_cast<unsigned long long>(stats.rejected_total()),
              rejections_text(stats, true).c_str());
  std::printf("retries    %s\n", retries_text(stats).c_str());
  std::printf("speed      %.1f labels/s (%llu in %.1f s)\n",
              seconds > 0 ? static_cast<double>(counts.written) / seconds : 0.0,
              static_cast<unsigned long long>(counts.written), seconds);
  std::printf("file       %s: %zu labels\n", o.out.c_str(), store.size());
  std::fflush(stdout);
  if (!error.empty()) throw std::runtime_error("stopped: " + error + "; rerun to resume");
  if (counts.failed)
    throw std::runtime_error(std::to_string(counts.failed.load()) + " labels failed (last: " +
                             stats.last_error + "); rerun to retry them");
}

void add_label(CLI::App& app) {
  auto o = std::make_shared<LabelOptions>();
  auto& c = o->labeler.client;
  auto* cmd = app.add_subcommand(
      "label", "Score candidate moves of positions from games with a teacher (an LLM endpoint)");
  cmd->add_option("--out,-o", o->out, "Label file (JSON lines); a rerun resumes it")->required();
  cmd->add_option("--url", c.url,
                  "Teacher endpoint (OpenAI-compatible chat completions, http:// or https://)")
      ->capture_default_str();
  cmd->add_option("--ca-file", c.http.ca_file,
                  "https: trust the CA certificates in this PEM file instead of the system's")
      ->check(CLI::ExistingFile);
  cmd->add_option("--model", c.request.model, "Model name sent to the teacher")
      ->capture_default_str();
  cmd->add_option("--key-env", c.key_env,
                  "Environment variable holding the API key (sent as Bearer)")
      ->capture_default_str();
  cmd->add_option("--players", o->players, "The two agents whose games give the positions")
      ->expected(2)
      ->capture_default_str();
  add_number(*cmd, "--games,-g", o->games, "Games to play", 1, 1000000);
  add_seed(*cmd, "--seed,-s", o->seed,
           "Seed of the games and candidates: the same seed, the same labels");
  cmd->add_option("--fen", o->fen, "Start position of every game (default: the 10x10 start)");
  add_number(*cmd, "--random-plies", o->random_plies, "Random moves that open each game", 0, 50)
      ->capture_default_str();
  add_number(*cmd, "--every", o->every, "Label every k-th position of a game", 1, 100)
      ->capture_default_str();
  add_number(*cmd, "--max-plies", o->max_plies,
             "Stop each game after this many plies (0: play it out)", 0, 100000);
  cmd->add_option(
         "--candidates", o->candidates,
         "Candidate moves: tree:nodes=60,seed=1 (what `train` reads) | search:n=8,iters=400 | "
         "prior:n=8 | random:n=8 | all")
      ->capture_default_str();
  add_number(*cmd, "--connections,-c", o->labeler.connections, "Labels asked for at once", 1, 256)
      ->capture_default_str();
  add_number(*cmd, "--max-attempts", c.max_attempts,
             "Replies asked for per label (rejected ones are asked again)", 1, 100)
      ->capture_default_str();
  add_number(*cmd, "--retries", c.http.retries,
             "Retries of a request after a connection error, timeout, 408, 429 or 5xx", 0, 100)
      ->capture_default_str();
  add_number(*cmd, "--backoff-ms", c.http.backoff_ms,
             "Delay before the first retry (doubles, with jitter)", 0, 600000)
      ->capture_default_str();
  add_number(*cmd, "--timeout-ms", c.http.read_timeout_ms, "Longest wait for a whole reply", 1,
             3600000)
      ->capture_default_str();
  add_number(*cmd, "--connect-timeout-ms", c.http.connect_timeout_ms,
             "Longest wait for a connection", 1, 600000)
      ->capture_default_str();
  add_number(*cmd, "--temperature", c.request.temperature,
             "Sampling temperature sent (default: not sent)", 0.0, 2.0);
  add_number(*cmd, "--max-tokens", c.request.max_tokens, "max_tokens sent (0: not sent)", 0, 100000)
      ->capture_default_str();
  add_number(*cmd, "--max-completion-tokens", c.request.max_completion_tokens,
             "Send max_completion_tokens N instead of max_tokens (for models that refuse "
             "max_tokens; 0: not sent)",
             0, 100000)
      ->capture_default_str();
  cmd->add_option("--board", o->board, "The prompt's board: after or before the move")
      ->check(CLI::IsMember({"after", "before"}))
      ->capture_default_str();
  add_number(*cmd, "--give-up-after", o->labeler.give_up_after,
             "Stop after this many labels in a row failed (0: never)", 0, 1000000000)
      ->capture_default_str();
  add_number(*cmd, "--sync-every", o->sync_every,
             "fdatasync the file after this many labels (0: only at the end)", 0, 1000000000)
      ->capture_default_str();
  cmd->callback([o] { run_label(*o); });
}

void add_teacher_serve(CLI::App& app) {
  struct Opts {
    TeacherServerParams server;
    std::string key_env;
  };
  auto o = std::make_shared<Opts>();
  o->server.port = 8080;
  auto& f = o->server.faults;
  auto* cmd = app.add_subcommand(
      "teacher-serve",
      "Serve the local teacher (an OpenAI-compatible endpoint) on 127.0.0.1 until interrupted");
  add_number(*cmd, "--port,-p", o->server.port, "Port (0: any free port, printed)", 0, 65535)
      ->capture_default_str();
  auto& teacher = o->server.teacher;
  add_seed(*cmd, "--seed,-s", teacher.seed, "Seed of the noise, the hallucinations and the faults")
      ->capture_default_str();
  add_number(*cmd, "--noise", teacher.noise,
             "Standard deviation of the Gaussian noise on each score", 0.0, 10.0)
      ->capture_default_str();
  add_number(*cmd, "--hallucination", teacher.hallucination,
             "Probability that a label's two scores are uniform random numbers", 0.0, 1.0)
      ->capture_default_str();
  add_number(*cmd, "--bias", teacher.bias,
             "bias*(d-0.5) is added to both scores, d the queen move's length over the "
             "longest possible (> 0: long moves score higher)",
             -1.0, 1.0)
      ->capture_default_str();
  add_number(*cmd, "--scale", teacher.scale,
             "A score is 0.5+0.5*tanh(h/scale) of the hidden gain h (about squares of territory)",
             0.001, 100.0)
      ->capture_default_str();
  const auto probability = [&](const char* name, double& p, const char* help) {
    add_number(*cmd, name, p, help, 0.0, 1.0)->capture_default_str();
  };
  probability("--malformed", f.malformed, "Probability of a malformed reply");
  probability("--out-of-range", f.out_of_range, "Probability of scores outside [0, 1]");
  probability("--slow", f.slow, "Probability of a reply delayed by --slow-ms");
  probability("--drop", f.drop, "Probability of a connection dropped in the middle of the reply");
  probability("--error500", f.error_500, "Probability of HTTP 500");
  probability("--error429", f.error_429, "Probability of HTTP 429");
  probability("--chunked", f.chunked, "Probability of a good reply sent chunked");
  auto& api = o->server.api;
  probability("--rate-limited", api.rate_limited,
              "Probability of HTTP 429 with OpenAI's rate-limit headers (retry-after-ms, "
              "x-ratelimit-*)");
  add_number(*cmd, "--retry-after-ms", api.retry_after_ms, "The wait a rate-limited reply asks for",
             0, 3600000)
      ->capture_default_str();
  probability("--huge", api.huge, "Probability of a good reply padded past --huge-bytes");
  add_number(*cmd, "--huge-bytes", api.huge_bytes,
             "Size of a huge reply (default: just over the labeler's 1 MiB cap)", 1,
             std::size_t{1} << 30)
      ->capture_default_str();
  cmd->add_flag("--quota-exhausted", api.quota_exhausted,
                "Answer every request 429 insufficient_quota");
  add_number(*cmd, "--slow-ms", f.slow_ms, "Delay of a slow reply", 0, 3600000)
      ->capture_default_str();
  cmd->add_option("--key-env", o->key_env, "Require the API key held in this environment variable");
  add_number(*cmd, "--threads", o->server.threads, "Connections served at once", 1, 1024)
      ->capture_default_str();
  cmd->callback([o] {
    TeacherServerParams params = o->server;
    if (!o->key_env.empty()) {
      const char* key = std::getenv(o->key_env.c_str());
      if (!key || !*key) throw BadInput("--key-env " + o->key_env + ": the variable is not set");
      params.api_key = key;
    }
    try {
      params.teacher.validate();
      params.faults.validate();
      params.api.validate();
    } catch (const std::invalid_argument& e) {
      throw BadInput(e.what());
    }
    // SIGINT and SIGTERM are taken by sigwait below; the server's threads inherit the mask.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    TeacherServer server(params);
    server.start();
    std::printf("teacher: listening on %s\n", server.url().c_str());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&signals, &signal);
    server.stop();
    const TeacherServerStats s = server.stats();
    std::printf("teacher: %llu requests, %llu scored, %llu bad, %llu unauthorized; faults:",
                static_cast<unsigned long long>(s.requests),
                static_cast<unsigned long long>(s.scored),
                static_cast<unsigned long long>(s.bad_requests),
                static_cast<unsigned long long>(s.unauthorized));
    for (std::size_t k = 1; k < kFaultKinds; ++k)
      std::printf(" %s %llu", fault_name(static_cast<Fault>(k)),
                  static_cast<unsigned long long>(s.faults[k]));
    std::printf(" rate_limited %llu huge %llu quota %llu\n",
                static_cast<unsigned long long>(s.rate_limited),
                static_cast<unsigned long long>(s.huge), static_cast<unsigned long long>(s.quota));
  });
}

}  // namespace

void add_label_commands(CLI::App& app) {
  add_label(app);
  add_teacher_serve(app);
}

}  // namespace amazons::cli
