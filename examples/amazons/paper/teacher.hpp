// amazons/teacher.hpp — the local teacher: a deliberately weak, noisy scorer of moves, and
// the faults its server injects.
//
// The paper's teacher is GPT-4o-mini, asked for a move_score and a place_score per move.
// Without a network, gsearch stands in for it with a heuristic that is weak by design — it
// looks one ply deep and no further — and noisy:
//
//   territory(pos)  Σ over empty squares of +1 where the mover's queen distance D1 is smaller
//                   than the opponent's, -1 where it is larger (0 on ties and where neither
//                   reaches): the mover's net queen-distance territory;
//   move change     territory after the queen move (arrow not yet shot) − before;
//   place change    territory after the arrow − after the queen move;
//   score           1 / (1 + exp(−change / scale)) + N(0, noise²), clamped to [0, 1] and
//                   rounded to two decimals, as a chat model writes them.
//
// The noise is a function of (seed, position, move) — a hash, not a stream — so the same
// teacher gives the same scores whatever order or thread asks, in the server and in-process
// alike (teacher_scores is what both call). The faults are decided the same way, from the
// prompt and the number of times it was asked before, so a run under faults is repeatable.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "amazons/eval.hpp"
#include "amazons/teacher_protocol.hpp"
#include "gsearch/core/rng.hpp"

namespace amazons {

struct TeacherParams {
  std::uint64_t seed = 1;    // the noise: same seed, position and move give the same scores
  double noise = 0.1;        // standard deviation of the Gaussian noise on each score
  double move_scale = 4.0;   // a queen move that gains this many squares scores ~0.73
  double place_scale = 2.0;  // an arrow that gains this many squares scores ~0.73
};

// The mover's net queen-distance territory in `pos` (see the header comment).
inline int queen_territory(const Position& pos, Player me) {
  DistanceMaps maps;
  compute_distances(pos, maps);
  const Player opp = gsearch::opponent(me);
  int net = 0;
  for (Bitboard b = maps.empty; b;) {
    const Square s = pop_lsb(b);
    const int mine = maps.queen[me][s], theirs = maps.queen[opp][s];
    net += mine < theirs ? 1 : mine > theirs ? -1 : 0;
  }
  return net;
}

struct TerritoryChange {
  int move = 0;   // territory after the queen move − before
  int place = 0;  // territory after the arrow − after the queen move
};

// The one-ply territory changes of `m` (legal in `before`) for the side to move.
inline TerritoryChange territory_change(const Position& before, const Move& m) {
  const Player me = before.to_move();
  Position after = before;
  const int t0 = queen_territory(after, me);
  after.move_queen(m.from, m.to);
  const int t1 = queen_territory(after, me);
  after.shoot(m.arrow);
  const int t2 = queen_territory(after, me);
  return {t1 - t0, t2 - t1};
}

namespace detail {
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t s = a ^ (b * 0x9e3779b97f4a7c15ULL);
  return gsearch::splitmix64(s);
}
// FNV-1a: a hash of text that is the same on every platform.
inline std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}
inline double teacher_score(int change, double scale, double noise) {
  const double x = 1.0 / (1.0 + std::exp(-change / scale)) + noise;
  return std::round(std::clamp(x, 0.0, 1.0) * 100.0) / 100.0;
}
}  // namespace detail

// The local teacher's scores for `m` (legal in `before`): deterministic in (params.seed,
// the position's hash, the move); two decimals, in [0, 1].
inline Scores teacher_scores(const Position& before, const Move& m, const TeacherParams& params) {
  const TerritoryChange change = territory_change(before, m);
  const std::uint64_t move_key =
      m.from | (std::uint64_t{m.to} << 8) | (std::uint64_t{m.arrow} << 16);
  gsearch::Rng rng(detail::mix(detail::mix(params.seed, before.hash()), move_key));
  const double n_move = rng.normal() * params.noise;
  const double n_place = rng.normal() * params.noise;
  return {detail::teacher_score(change.move, params.move_scale, n_move),
          detail::teacher_score(change.place, params.place_scale, n_place)};
}

// ---------------------------------------------------------------------------------------
// Faults

// What the server does instead of (or before) a good reply.
enum class Fault : std::uint8_t {
  none,
  malformed,     // a reply the labeler must reject: prose, one number, extra text, three
                 // numbers, empty, NaN, a body that is not JSON, JSON without the content
  out_of_range,  // two numbers, not both in [0, 1]
  slow,          // the good reply, after TeacherFaults::slow_ms
  drop,          // the headers and half the body, then the connection is closed
  error_500,     // HTTP 500
  error_429,     // HTTP 429 (rate limited)
};
inline constexpr std::size_t kFaultKinds = 7;

inline const char* fault_name(Fault f) noexcept {
  static constexpr const char* kNames[kFaultKinds] = {"none", "malformed", "out_of_range", "slow",
                                                      "drop", "error_500", "error_429"};
  return kNames[static_cast<std::size_t>(f)];
}

// Probabilities of each fault per request (their sum at most 1), and how slow "slow" is.
struct TeacherFaults {
  double malformed = 0;     // P(a malformed reply)
  double out_of_range = 0;  // P(numbers outside [0, 1])
  double slow = 0;          // P(a reply delayed by slow_ms)
  double drop = 0;          // P(a connection dropped in the middle of the reply)
  double error_500 = 0;     // P(HTTP 500)
  double error_429 = 0;     // P(HTTP 429)
  int slow_ms = 2000;       // the delay of a slow reply
  double chunked = 0;       // P(a good reply sent with chunked transfer coding): not a fault

  // Throws std::invalid_argument unless every probability is in [0, 1], their sum is at
  // most 1 and slow_ms is not negative.
  void validate() const {
    const double ps[] = {malformed, out_of_range, slow, drop, error_500, error_429, chunked};
    double sum = 0;
    for (const double p : ps) {
      if (!(p >= 0 && p <= 1)) throw std::invalid_argument("fault probabilities must be in [0, 1]");
      sum += p;
    }
    if (sum - chunked > 1 + 1e-9)
      throw std::invalid_argument("the fault probabilities add up to more than 1");
    if (slow_ms < 0) throw std::invalid_argument("slow_ms must not be negative");
  }
};

// The fault for a request whose hash (prompt, attempt, seed) is `key`.
inline Fault choose_fault(const TeacherFaults& f, std::uint64_t key) {
  double u = static_cast<double>(detail::mix(key, 1) >> 11) * 0x1.0p-53;
  const double ps[] = {f.malformed, f.out_of_range, f.slow, f.drop, f.error_500, f.error_429};
  for (std::size_t i = 0; i < 6; ++i) {
    if (u < ps[i]) return static_cast<Fault>(i + 1);
    u -= ps[i];
  }
  return Fault::none;
}

// A malformed reply for `scores`, one of eight kinds chosen by `key`. `body` is true when
// `text` is a whole reply body rather than the content of a well-formed one.
struct MalformedReply {
  std::string text;
  bool body = false;
};

inline MalformedReply malformed_reply(const Scores& scores, std::uint64_t key) {
  const std::string good = format_scores(scores);
  switch (detail::mix(key, 2) % 8) {
    case 0:
      return {"The move looks promising for this player. Scores: " + good, false};
    case 1:
      return {good.substr(0, good.find(' ')), false};
    case 2:
      return {good + "\nThe queen now controls more of the centre.", false};
    case 3:
      return {good + " 0.50", false};
    case 4:
      return {"", false};
    case 5:
      return {"NaN " + good.substr(good.find(' ') + 1), false};
    case 6:
      return {"<html><body><h1>502 Bad Gateway</h1></body></html>", true};
    default:
      return {R"({"id":"chatcmpl-0","object":"chat.completion","choices":[]})", true};
  }
}

// Numbers outside [0, 1] for `scores`.
inline std::string out_of_range_reply(const Scores& scores) {
  return format_scores({scores.move + 1.5, scores.place - 1.5});
}

}  // namespace amazons
