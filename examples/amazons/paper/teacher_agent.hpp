// amazons/paper/teacher_agent.hpp — the teacher as a player: it plays the move it scores highest
// among the few it thinks of.
//
// The paper measures its hybrid agent against its teacher, GPT-4o-mini. A chat model asked for
// a move does not weigh all ~2,000 legal moves: it "thinks of" a handful and picks the one it
// likes best. Our teacher agent does the same: it draws `candidates` distinct legal moves
// uniformly at random (seeded from reset()'s seed and the position, so a match replays
// exactly), asks its teacher (the local teacher in-process, or any OpenAI-compatible endpoint
// over HTTP) for move_score and place_score of each, and plays the candidate with the highest
// move_score + place_score (ties broken at random, from the same seed). candidates = 0 scores
// every legal move instead (a greedy player on the teacher's scores).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "amazons/paper/labeler.hpp"
#include "amazons/paper/teacher.hpp"
#include "amazons/players/agents.hpp"

namespace amazons {

struct TeacherAgentOptions {
  std::string name = "teacher";  // what Agent::name() returns (a registry passes its spec)
  // Empty: the scores come from teacher_scores() in-process (the numbers the local teacher
  // server would send). Otherwise the chat-completions endpoint to ask (labeler.hpp).
  std::string url{};
  TeacherParams teacher{};       // in-process: the local teacher's knobs (validated)
  TeacherClientParams client{};  // with a URL: model, key variable, attempts, timeouts (its
                                 // url field is replaced by `url`)
  std::size_t candidates = 8;    // moves the agent thinks of per turn: K distinct legal moves
                                 // drawn uniformly (teacher_candidates); 0: every legal move
  std::size_t connections = 4;   // with a URL: labels asked for at once
};

// The candidates a teacher agent reset with `seed` thinks of in `pos` (not terminal): `k`
// distinct legal moves drawn uniformly, from a generator seeded by (seed, pos.hash()) — all of
// them, shuffled, when there are at most k — or every legal move in generation order when k
// is 0. The same arguments give the same moves.
[[nodiscard]] std::vector<Move> teacher_candidates(const Position& pos, std::size_t k,
                                                   std::uint64_t seed);

// A teacher agent. With a URL, a candidate whose label fails is left out; when every
// candidate fails (or the endpoint refuses the requests), choose() throws
// std::runtime_error naming the reason. Until the endpoint has answered once, choose() fails
// within seconds when it cannot be reached (Labeler's probe); after that a fault gets the
// full retries. An https:// URL trusts the system's CA store, or $SSL_CERT_FILE, or
// client.http.ca_file. Throws http::UrlError for a bad URL and
// std::invalid_argument for knobs out of range (TeacherParams::validate).
[[nodiscard]] std::unique_ptr<Agent> make_teacher_agent(const TeacherAgentOptions& options);

}  // namespace amazons
