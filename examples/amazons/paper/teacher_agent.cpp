// amazons/paper/teacher_agent.cpp — the teacher agent (teacher_agent.hpp).
#include "amazons/paper/teacher_agent.hpp"

#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "amazons/paper/candidates.hpp"

namespace amazons {
namespace {

class TeacherAgent final : public Agent {
 public:
  explicit TeacherAgent(const TeacherAgentOptions& options) : options_(options) {
    options_.teacher.validate();
    options_.client.url = options_.url;
    if (!options_.url.empty()) {  // a bad URL, or a CA file that cannot be read, fails now
      const http::Url url = teacher_endpoint(options_.url);
      if (url.tls) (void)http::HttpClient(url, options_.client.http);
    }
  }

  std::string name() const override { return options_.name; }
  void reset(std::uint64_t seed) override { seed_ = seed; }

  Move choose(const Position& pos, const std::optional<gsearch::Budget>&) override {
    gsearch::Stopwatch watch;
    const std::vector<Move> candidates = teacher_candidates(pos, options_.candidates, seed_);
    // Ties: from (seed, position) too (another stream than the candidates'), so a choice
    // depends on nothing played before it.
    gsearch::Rng rng(detail::mix(detail::mix(seed_, pos.hash()), 1));
    std::vector<std::optional<Scores>> scores(candidates.size());
    std::string failure;
    if (options_.url.empty()) {
      for (std::size_t i = 0; i < candidates.size(); ++i)
        scores[i] = teacher_scores(pos, candidates[i], options_.teacher);
    } else {
      // Until the teacher has answered once, a teacher that cannot be reached fails the move
      // within the labeler's probe (seconds); after that, faults get the full retries.
      LabelerParams params{.client = options_.client,
                           .connections = options_.connections,
                           .give_up_after = 0,
                           .probe_ms = reached_ ? 0 : LabelerParams{}.probe_ms};
      try {
        Labeler labeler(params, [&](const LabelJob& job, const ScoreOutcome& out) {
          scores[job.tag] = out.scores;
          if (!out.scores) failure = out.error;
        });
        for (std::size_t i = 0; i < candidates.size(); ++i) labeler.submit({pos, candidates[i], i});
        labeler.finish();
      } catch (const TeacherError& e) {
        failure = e.what();
      }
    }
    for (const auto& s : scores) reached_ = reached_ || s.has_value();
    // The best sum; ties broken uniformly at random.
    double best = -std::numeric_limits<double>::infinity();
    std::size_t choice = candidates.size(), ties = 0, scored = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!scores[i]) continue;
      ++scored;
      const double v = scores[i]->move + scores[i]->place;
      if (v > best) {
        best = v, choice = i, ties = 1;
      } else if (v == best && rng.below(++ties) == 0) {
        choice = i;
      }
    }
    if (choice == candidates.size())
      throw std::runtime_error("teacher agent: no candidate move was scored (" + failure + ")");
    info_ = SearchInfo{};
    info_.pv = {candidates[choice]};
    info_.value = best - 1.0;
    info_.iterations = scored;
    info_.seconds = watch.seconds();
    char line[96];
    std::snprintf(line, sizeof line, "  %s  move %.2f  place %.2f  (%zu of %zu scored)\n",
                  pos.move_to_string(candidates[choice]).c_str(), scores[choice]->move,
                  scores[choice]->place, scored, candidates.size());
    info_.details = line;
    return candidates[choice];
  }

 private:
  TeacherAgentOptions options_;
  std::uint64_t seed_ = 0;  // reset()'s seed: the candidates and the ties
  bool reached_ = false;    // with a URL: the teacher has scored a move
};

}  // namespace

std::vector<Move> teacher_candidates(const Position& pos, std::size_t k, std::uint64_t seed) {
  if (k == 0) return all_candidates(pos);
  return random_candidates(pos, k, detail::mix(seed, pos.hash()));
}

std::unique_ptr<Agent> make_teacher_agent(const TeacherAgentOptions& options) {
  return std::make_unique<TeacherAgent>(options);
}

}  // namespace amazons
