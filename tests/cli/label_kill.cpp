// `amazons label` as a user runs it, against the local teacher: killed with SIGKILL in the
// middle of a run (twice), left with a torn last line, rerun — and then every label is in the
// file exactly once, with the scores of an uninterrupted run. Also: the API key appears in
// no output and no file, a wrong key stops the run, and `amazons teacher-serve` serves a run
// (and, at another port and as localhost, finds the labels of the first server complete).
//
//   label_kill_test <path of amazons> <work directory>
//
// The teacher runs in this process, so it can kill the labeler at a chosen request: no
// timing is involved. Exit code 0 when every check passes.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "amazons/paper/label_store.hpp"
#include "amazons/paper/teacher_server.hpp"

extern char** environ;

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int status = 0;  // as waitpid reports it
  std::string out, err;
  [[nodiscard]] bool exited(int code) const {
    return WIFEXITED(status) && WEXITSTATUS(status) == code;
  }
  [[nodiscard]] bool killed() const { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }
};

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The environment with `extra` ("NAME=value") added.
std::vector<std::string> environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env(extra);
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  return env;
}

// Runs `args` with stdout and stderr in files named after `tag`; `child` holds its pid while
// it runs.
Result run(std::vector<std::string> args, std::vector<std::string> env, const std::string& dir,
           const std::string& tag, std::atomic<pid_t>& child) {
  const std::string out = dir + "/" + tag + ".out", err = dir + "/" + tag + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto argv = c_strings(args);
  auto envp = c_strings(env);
  pid_t pid = 0;
  Result r;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) {
    check(false, "cannot start " + args[0]);
    return r;
  }
  posix_spawn_file_actions_destroy(&actions);
  child = pid;
  waitpid(pid, &r.status, 0);
  child = 0;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// (FEN, move) -> "move_score place_score", checking that no (model, prompt, FEN, move)
// repeats.
std::map<std::string, std::string> labels_of(const std::string& path) {
  std::map<std::string, std::string> m;
  std::size_t duplicates = 0;
  const auto labels = amazons::read_labels(path, nullptr, &duplicates);
  check(duplicates == 0, path + ": no label twice");
  for (const amazons::Label& l : labels) {
    check(l.model == labels.front().model && l.prompt == labels.front().prompt,
          path + ": one teacher");
    const bool fresh = m.emplace(l.fen + "|" + l.move,
                                 std::to_string(l.move_score) + " " + std::to_string(l.place_score))
                           .second;
    check(fresh, path + ": a label appears twice: " + l.fen + " " + l.move);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: label_kill_test AMAZONS WORKDIR\n");
    return 2;
  }
  const std::string amazons = argv[1], dir = argv[2];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string secret = "sk-gsearch-kill-test-51c0ffee";

  std::atomic<pid_t> child{0};
  std::atomic<std::uint64_t> kill_at{0};
  amazons::TeacherServer server({.teacher = {.seed = 11},
                                 .faults = {.malformed = 0.15,
                                            .out_of_range = 0.05,
                                            .drop = 0.05,
                                            .error_500 = 0.05,
                                            .error_429 = 0.05,
                                            .chunked = 0.5},
                                 .api_key = secret,
                                 .threads = 8,
                                 .on_request = [&](std::uint64_t n) {
                                   const pid_t pid = child;
                                   if (n == kill_at && pid > 0) ::kill(pid, SIGKILL);
                                 }});
  server.start();
  const auto label_args = [&](const std::string& url, const std::string& out) {
    return std::vector<std::string>{amazons,
                                    "label",
                                    "--url",
                                    url,
                                    "--out",
                                    out,
                                    "--players",
                                    "random",
                                    "random",
                                    "--games",
                                    "2",
                                    "--seed",
                                    "5",
                                    "--candidates",
                                    "random:n=4",
                                    "--every",
                                    "3",
                                    "--connections",
                                    "4",
                                    "--backoff-ms",
                                    "0",
                                    "--max-attempts",
                                    "50",
                                    "--retries",
                                    "50",
                                    "--key-env",
                                    "GSEARCH_LABEL_TEST_KEY"};
  };
  const auto env = environment({"GSEARCH_LABEL_TEST_KEY=" + secret});
  std::vector<Result> results;

  // An uninterrupted run: the labels every other run must end with.
  const std::string reference = dir + "/reference.jsonl";
  results.push_back(run(label_args(server.url(), reference), env, dir, "reference", child));
  check(results.back().exited(0), "the reference run exits 0: " + results.back().err);
  const auto expected = labels_of(reference);
  check(expected.size() > 100, "the reference run writes more than 100 labels");

  // Killed twice in the middle, then a torn last line, then run to the end.
  const std::string resumed = dir + "/resumed.jsonl";
  for (int k = 0; k < 2; ++k) {
    kill_at = server.stats().requests + expected.size() / 4;
    results.push_back(
        run(label_args(server.url(), resumed), env, dir, "killed" + std::to_string(k), child));
    check(results.back().killed(), "run " + std::to_string(k + 1) + " is killed by SIGKILL");
    const auto partial = labels_of(resumed);
    check(!partial.empty() && partial.size() < expected.size(),
          "a killed run leaves some labels, not all");
    for (const auto& [key, scores] : partial)
      check(expected.at(key) == scores, "a label's scores: " + key);
  }
  kill_at = 0;
  {
    std::ofstream torn(resumed, std::ios::app);
    torn << R"({"fen":"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1","move":"d1-d6)";
  }
  results.push_back(run(label_args(server.url(), resumed), env, dir, "resumed", child));
  const Result& last = results.back();
  check(last.exited(0), "the rerun exits 0: " + last.err);
  check(last.err.find("cut a torn last line (70 bytes)") != std::string::npos,
        "the torn line is reported: " + last.err);
  check(last.err.find("labels already there; resuming") != std::string::npos,
        "the rerun resumes: " + last.err);
  check(last.out.find("already in the file") != std::string::npos,
        "the summary counts what was there");
  check(labels_of(resumed) == expected,
        "after the kills every label is there once, with the same scores");

  // A wrong key: the endpoint refuses it, the run stops at once, and the key is not shown.
  const std::string wrong = "sk-wrong-key-0badf00d";
  results.push_back(run(label_args(server.url(), dir + "/wrong.jsonl"),
                        environment({"GSEARCH_LABEL_TEST_KEY=" + wrong}), dir, "wrong_key", child));
  check(results.back().exited(1), "a wrong key exits 1");
  check(results.back().err.find("HTTP 401") != std::string::npos,
        "a wrong key is reported: " + results.back().err);
  for (const Result& r : results)
    check(r.out.find(secret) == std::string::npos && r.err.find(secret) == std::string::npos &&
              r.out.find(wrong) == std::string::npos && r.err.find(wrong) == std::string::npos,
          "the key appears in no output");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string data = slurp(entry.path().string());
    check(data.find(secret) == std::string::npos && data.find(wrong) == std::string::npos,
          "the key appears in no file: " + entry.path().string());
  }
  server.stop();

  // `amazons teacher-serve` on a free port, the same seed: the same labels as the reference.
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return 1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<std::string> serve_args{
      amazons,     "teacher-serve",          "--port",      "0",   "--seed",    "11",
      "--key-env", "GSEARCH_LABEL_TEST_KEY", "--malformed", "0.1", "--chunked", "0.5"};
  auto serve_argv = c_strings(serve_args);
  auto serve_env_strings = env;
  auto serve_env = c_strings(serve_env_strings);
  pid_t serve_pid = 0;
  const int spawned = posix_spawn(&serve_pid, serve_argv[0], &actions, nullptr, serve_argv.data(),
                                  serve_env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  check(spawned == 0, "teacher-serve starts");
  FILE* serve_out = ::fdopen(pipe_fds[0], "r");
  char line[256] = {};
  const bool got_line = std::fgets(line, sizeof line, serve_out) != nullptr;
  const std::string first(line);
  const auto url_at = first.find("http://");
  check(got_line && url_at != std::string::npos, "teacher-serve prints its URL: " + first);
  if (url_at != std::string::npos) {
    const std::string url = first.substr(url_at, first.find_last_not_of("\r\n") + 1 - url_at);
    const std::string served = dir + "/served.jsonl";
    results.push_back(run(label_args(url, served), env, dir, "served", child));
    check(results.back().exited(0), "a run against teacher-serve exits 0: " + results.back().err);
    check(labels_of(served) == expected, "teacher-serve gives the labels of the in-process server");
    // The same teacher at another port, and named localhost: labels are keyed by model and
    // prompt, so the reference file (written at another port) needs nothing more.
    const std::string before = slurp(reference);
    std::string moved = url;
    if (const auto at = moved.find("127.0.0.1"); at != std::string::npos)
      moved.replace(at, 9, "localhost");
    results.push_back(run(label_args(moved, reference), env, dir, "moved", child));
    check(results.back().exited(0),
          "a run against the moved teacher exits 0: " + results.back().err);
    check(results.back().out.find("labels     0 written, ") != std::string::npos,
          "a run against the moved teacher asks for nothing: " + results.back().out);
    check(slurp(reference) == before, "a run against the moved teacher adds no line");
  }
  ::kill(serve_pid, SIGTERM);
  std::string rest;
  while (std::fgets(line, sizeof line, serve_out)) rest += line;
  std::fclose(serve_out);
  int status = 0;
  waitpid(serve_pid, &status, 0);
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "teacher-serve exits 0 on SIGTERM");
  check(rest.find("requests") != std::string::npos && rest.find("malformed") != std::string::npos,
        "teacher-serve ends with its counts: " + rest);

  if (failures == 0) std::filesystem::remove_all(dir);
  std::printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
