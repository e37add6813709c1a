// amazons/teacher_agent.hpp — the teacher as a player: it plays the move it scores highest.
//
// The paper measures its hybrid agent against its teacher, GPT-4o-mini. Our teacher agent
// asks its teacher (the local heuristic in-process, or any OpenAI-compatible endpoint over
// HTTP) for move_score and place_score of each candidate move, and plays the candidate with
// the highest move_score + place_score (ties broken at random, seeded by reset()).
// Candidates are every legal move, or the top K by the one-ply Lieberum prior.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "amazons/agents.hpp"
#include "amazons/labeler.hpp"
#include "amazons/teacher.hpp"

namespace amazons {

struct TeacherAgentOptions {
  std::string name = "teacher";  // what Agent::name() returns (a registry passes its spec)
  // Empty: the scores come from teacher_scores() in-process (the numbers the local teacher
  // server would send). Otherwise the chat-completions endpoint to ask (labeler.hpp).
  std::string url{};
  TeacherParams teacher{};       // in-process: the local teacher's seed, noise and scales
  TeacherClientParams client{};  // with a URL: model, key variable, attempts, timeouts (its
                                 // url field is replaced by `url`)
  std::size_t candidates = 0;    // moves scored per turn: 0 every legal move, K the top K
                                 // by the one-ply Lieberum prior
  std::size_t connections = 4;   // with a URL: labels asked for at once
};

// A teacher agent. With a URL, a candidate whose label fails is left out; when every
// candidate fails (or the endpoint refuses the requests), choose() throws
// std::runtime_error naming the reason. Throws http::UrlError for a bad URL.
[[nodiscard]] std::unique_ptr<Agent> make_teacher_agent(const TeacherAgentOptions& options);

}  // namespace amazons
