// amazons/paper/teacher.hpp — the local teacher: a noisy, weakly informed scorer of moves that
// stands in for the paper's LLM teacher, and the faults its server injects.
//
// The paper's teacher is GPT-4o-mini, asked for a move_score and a place_score per move. Without
// a network, gsearch stands in for it with a hidden evaluation the student never sees —
// Lieberum's evaluation (LieberumEvaluator, players/eval.hpp), none of the student's five
// features — looked at one ply deep, and then spoiled the ways a chat model spoils its answers.
// A chat model asked to score a move judges what the move does to the position, so the hidden
// evaluation is a gain: Lieberum's weighted sum of terms before squashing (about squares of
// territory; LieberumEvaluator::sum), for the mover, with the opponent to move, after the move
// less before it. For a whole move m = (from, to, arrow) in `before`, mover = before.to_move():
//
//   h_after(m)   that gain for the position after m (kWinGain when the opponent cannot move:
//                the mover has won);
//   h_move(m)    max over every arrow a the queen could shoot from `to` (having left `from`)
//                of h_after((from, to, a)): the gain of the queen move with its best arrow;
//   d(m)         the queen move's length (king steps along its line) / (max(cols, rows) − 1),
//                in [0, 1] (1: corner to corner on the long diagonal, or edge to edge);
//   move_score   = 0.5 + 0.5·tanh(h_move / scale)  + bias·(d − 0.5) + noise·N(0, 1)
//   place_score  = 0.5 + 0.5·tanh(h_after / scale) + bias·(d − 0.5) + noise·N(0, 1)
//                each clamped to [0, 1] and rounded to two decimals, as a chat model writes them;
//   hallucination: with probability `hallucination` both scores are replaced by numbers drawn
//                uniformly in [0, 1] (rounded likewise), unrelated to the move.
//
// The scores judge moves, not positions: inside one position they order the moves by what
// they gain; across positions they say nothing of who is winning. `bias` is a taste unrelated
// to quality, as a chat model has: bias > 0 favours long, showy queen moves, bias < 0 short ones.
//
// The noise and the hallucinations are a function of (seed, the position's hash, the move) — a
// hash, not a stream — so the same teacher gives the same scores whatever order or thread asks,
// in the server and in-process alike (teacher_scores is what both call). The faults are decided
// the same way, from the prompt and the number of times it was asked before, so a run under
// faults is repeatable. docs/labeler.md ("The local teacher") has the calibration of `scale`.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "amazons/paper/teacher_protocol.hpp"
#include "amazons/players/eval.hpp"
#include "gsearch/core/rng.hpp"

namespace amazons {

namespace detail {
// A knob's value in a message: "0.5", "nan", "-inf".
inline std::string format_knob(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string text = std::to_string(v);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}
}  // namespace detail

// The local teacher's knobs. The defaults are the stand-in for GPT-4o-mini (docs/labeler.md).
struct TeacherParams {
  // Seed of the noise and the hallucinations: the same seed, position and move give the same
  // scores.
  std::uint64_t seed = 1;
  // Standard deviation of the Gaussian noise added to each score, in [0, 10].
  double noise = 0.1;
  // Probability, in [0, 1], that a label's two scores are replaced by numbers drawn uniformly
  // in [0, 1], unrelated to the move.
  double hallucination = 0.05;
  // Taste unrelated to quality, in [-1, 1]: bias·(d − 0.5) is added to both scores, d the queen
  // move's length over the longest the board allows (bias > 0: long moves score higher).
  double bias = 0.1;
  // Slope of the squashing, in [0.001, 100]: a score is 0.5 + 0.5·tanh(h / scale) of the
  // hidden gain h (about squares of territory). Calibrated so that, noise-free, move_score
  // varies with a standard deviation of about 0.1 over the candidate moves of the positions the
  // labeller takes (docs/labeler.md): the noise's own size, a signal-to-noise ratio of 1.
  double scale = 8.0;

  // Throws std::invalid_argument naming the knob unless every knob is a finite number in its
  // range (NaN and infinities included).
  void validate() const {
    const auto check = [](double v, double lo, double hi, const char* name) {
      if (!(v >= lo && v <= hi))  // also false for NaN
        throw std::invalid_argument(std::string("teacher ") + name + " must be a number in [" +
                                    detail::format_knob(lo) + ", " + detail::format_knob(hi) +
                                    "], not " + detail::format_knob(v));
    };
    check(noise, 0, 10, "noise");
    check(hallucination, 0, 1, "hallucination");
    check(bias, -1, 1, "bias");
    check(scale, 0.001, 100, "scale");
  }
};

// What the teacher sees of a move before it spoils it: its hidden evaluation and its length.
struct TeacherView {
  double h_move = 0;   // the queen move's gain with its best arrow, for the mover
  double h_after = 0;  // the whole move's gain (its own arrow), for the mover
  double length = 0;   // d: the queen move's length over the longest possible, in [0, 1]
};

// One label as the teacher makes it: the scores it writes and whether they were hallucinated.
struct TeacherJudgement {
  Scores scores{};            // what teacher_scores returns
  bool hallucinated = false;  // true: `scores` are uniform random, unrelated to the move
  TeacherView view{};         // the evidence the scores are (or would have been) made from
};

// The gain of a move that wins at once (the opponent cannot move): far beyond any real gain,
// so its scores are 1 before the noise.
inline constexpr double kWinGain = 1000.0;

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
// A score as the teacher writes it: clamped to [0, 1], rounded to two decimals.
inline double written_score(double x) {
  return std::round(std::clamp(x, 0.0, 1.0) * 100.0) / 100.0;
}

// One LieberumEvaluator and distance maps per thread, the reference sum of the last position
// asked about, and a small cache of h_move per thread: a queen move's gain does not depend on
// the arrow of the move asked about, and a position's candidates share queen moves. The
// caches only ever return what was computed for the same position (and queen move), so they
// change no number, only the time.
struct TeacherScratch {
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t key = 0;  // from | to << 8 | cols << 16 | rows << 24; 0: empty
    double h_move = 0;
  };
  LieberumEvaluator eval;
  DistanceMaps maps;
  std::array<Entry, 256> cache{};
  Position reference_position{};
  double reference = 0;
  bool has_reference = false;
};
inline TeacherScratch& teacher_scratch() {
  thread_local TeacherScratch scratch;
  return scratch;
}
// Lieberum's sum for the player who just moved into `child` (the opponent is to move).
inline double mover_sum_after(const Position& child, TeacherScratch& s) {
  compute_distances(child, s.maps);
  return -s.eval.sum(lieberum_terms(child, s.maps, s.eval.weights().kappa));
}
// The same sum for the player to move in `before`, as if the opponent were to move (ties count
// −κ for the mover, as they do after the move): the reference the gains are taken from.
inline double mover_sum_before(const Position& before, TeacherScratch& s) {
  if (!s.has_reference || !(s.reference_position == before)) {
    compute_distances(before, s.maps);
    s.reference = s.eval.sum(lieberum_terms(before, s.maps, -s.eval.weights().kappa));
    s.reference_position = before;
    s.has_reference = true;
  }
  return s.reference;
}
// The gain of the whole move that led from `before` to `child`, for its mover.
inline double gain(const Position& before, const Position& child, TeacherScratch& s) {
  if (child.is_terminal()) return kWinGain;
  const double ref = mover_sum_before(before, s);
  return mover_sum_after(child, s) - ref;
}
}  // namespace detail

// h_after: the gain of `m` (legal in `before`) for the mover.
inline double teacher_h_after(const Position& before, const Move& m) {
  Position child = before;
  child.apply(m);
  return detail::gain(before, child, detail::teacher_scratch());
}

// h_move: the best h_after over every arrow the queen moved from `from` to `to` (a legal queen
// move of the side to move in `before`) could shoot.
inline double teacher_h_move(const Position& before, Square from, Square to) {
  detail::TeacherScratch& scratch = detail::teacher_scratch();
  const std::uint32_t key = from | (std::uint32_t{to} << 8) |
                            (static_cast<std::uint32_t>(before.cols()) << 16) |
                            (static_cast<std::uint32_t>(before.rows()) << 24);
  auto& entry = scratch.cache[detail::mix(before.hash(), key) % scratch.cache.size()];
  if (entry.key == key && entry.hash == before.hash()) return entry.h_move;
  Position p = before;
  p.move_queen(from, to);
  double best = -std::numeric_limits<double>::infinity();
  for (Bitboard arrows = queen_attacks(to, p.occupied()); arrows;) {
    const Square a = pop_lsb(arrows);
    p.shoot(a);
    best = std::max(best, detail::gain(before, p, scratch));
    p.unshoot(a);
  }
  entry = {before.hash(), key, best};
  return best;
}

// d: the length of the queen move of `m` in `before` (its king steps along the line) over the
// longest queen move the board allows, max(cols, rows) − 1; in [0, 1].
inline double teacher_move_length(const Position& before, const Move& m) {
  const int steps =
      std::max(std::abs(col_of(m.to) - col_of(m.from)), std::abs(row_of(m.to) - row_of(m.from)));
  const int longest = std::max(before.cols(), before.rows()) - 1;
  return longest > 0 ? static_cast<double>(steps) / longest : 0.0;
}

// The evidence for `m` (legal in `before`): h_move, h_after and d.
inline TeacherView teacher_view(const Position& before, const Move& m) {
  return {teacher_h_move(before, m.from, m.to), teacher_h_after(before, m),
          teacher_move_length(before, m)};
}

// The local teacher's label for `m` (legal in `before`) with `params` (valid, see validate()):
// deterministic in (params, the position's hash, the move); two decimals, in [0, 1]. The
// random draws are made in a fixed order whatever the knobs, so raising `hallucination` only
// adds hallucinated labels and changing `noise` moves no hallucination.
inline TeacherJudgement teacher_judgement(const Position& before, const Move& m,
                                          const TeacherParams& params) {
  TeacherJudgement j;
  j.view = teacher_view(before, m);
  const std::uint64_t move_key =
      m.from | (std::uint64_t{m.to} << 8) | (std::uint64_t{m.arrow} << 16);
  gsearch::Rng rng(detail::mix(detail::mix(params.seed, before.hash()), move_key));
  const double n_move = rng.normal() * params.noise;
  const double n_place = rng.normal() * params.noise;
  const double u = rng.uniform();
  const double r_move = rng.uniform(), r_place = rng.uniform();
  j.hallucinated = u < params.hallucination;
  if (j.hallucinated) {
    j.scores = {detail::written_score(r_move), detail::written_score(r_place)};
    return j;
  }
  const double taste = params.bias * (j.view.length - 0.5);
  j.scores = {
      detail::written_score(0.5 + 0.5 * std::tanh(j.view.h_move / params.scale) + taste + n_move),
      detail::written_score(0.5 + 0.5 * std::tanh(j.view.h_after / params.scale) + taste +
                            n_place)};
  return j;
}

// The local teacher's scores for `m` (legal in `before`): teacher_judgement(...).scores. This
// is what the server and the in-process teacher agent both call.
inline Scores teacher_scores(const Position& before, const Move& m, const TeacherParams& params) {
  return teacher_judgement(before, m, params).scores;
}

// ---------------------------------------------------------------------------------------
// Faults

// What the server does instead of (or before) a good reply.
enum class Fault : std::uint8_t {
  kNone,
  kMalformed,   // a reply the labeler must reject: prose, one number, extra text, three
                // numbers, empty, NaN, a body that is not JSON, JSON without the content
  kOutOfRange,  // two numbers, not both in [0, 1]
  kSlow,        // the good reply, after TeacherFaults::slow_ms
  kDrop,        // the headers and half the body, then the connection is closed
  kError500,    // HTTP 500
  kError429,    // HTTP 429 (rate limited)
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
  return Fault::kNone;
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
