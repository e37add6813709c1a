// amazons/paper/teacher_protocol.hpp — what the labeler and its teacher say to each other.
//
// The teacher is a chat model behind an OpenAI-compatible chat-completions endpoint. The
// labeler sends the paper's prompt (Appendix Table 1) for one move in one position:
//   - the rules text, verbatim;
//   - the board as a grid of digits, one line per row, top row (row 10) first, squares
//     separated by single spaces: 0 empty, 1 white queen, 2 black queen, 3 arrow;
//   - the player ("white" / "black") and its ID (1 / 2);
//   - the queen moved, its destination and the arrow, as square names (d1, d6, g9).
// The reply's content must be exactly two numbers in [0, 1] separated by whitespace,
// "move_score place_score"; anything else is rejected, by kind (Rejection).
//
// Readings of the paper (docs/labeler.md has the reasons): the board shows the position
// after the move ("the move just played" on "the current position"; PromptParams can show
// the position before it instead), squares are named as in the rest of gsearch, the prompt
// is one user message, and the format line reads "move_score place_score" without the
// paper's placeholder brackets.
//
// The teacher server reads the same prompt back (parse_prompt), so both sides live here.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "amazons/rules/position.hpp"

namespace amazons {

// A request or prompt the teacher cannot read: one line naming what is missing or wrong.
class PromptError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PromptParams {
  // The grid shows the position after the move (true, the default reading of "the move
  // just played") or before it (false).
  bool board_after_move = true;
};

// The version of make_prompt's text: part of what a label is keyed by (label_store.hpp), so
// labels asked with another prompt are asked again. Change it whenever the text changes.
inline constexpr std::string_view kPromptVersion = "table1";

// The prompt version of labels asked with `params`: kPromptVersion and the board shown,
// "table1-after" or "table1-before".
inline std::string prompt_version(const PromptParams& params = {}) {
  return std::string(kPromptVersion) + (params.board_after_move ? "-after" : "-before");
}

// The board of `pos` as the prompt's grid: one line per row, top row first, squares
// separated by single spaces, 0 empty, 1 white queen, 2 black queen, 3 arrow. No final
// line break.
inline std::string board_grid(const Position& pos) {
  std::string out;
  for (int r = pos.rows() - 1; r >= 0; --r) {
    for (int c = 0; c < pos.cols(); ++c) {
      const Bitboard b = bit(make_square(c, r));
      out += (pos.queens(kWhite) & b)   ? '1'
             : (pos.queens(kBlack) & b) ? '2'
             : (pos.arrows() & b)       ? '3'
                                        : '0';
      out += c + 1 < pos.cols() ? " " : "";
    }
    if (r) out += '\n';
  }
  return out;
}

namespace detail {

// Appendix Table 1, verbatim, around the three places where the position and the move go.
inline constexpr std::string_view kPromptRules =
    "Amazon is a two-player abstract strategy game that combines elements of strategy and "
    "board games. Below are the basic rules of Amazon:\n\n"
    "1.Board and Pieces Board: Amazon is played on a 10\u00d710 grid. Pieces: Each player has "
    "four \u201cAmazons\u201d, typically distinguished by color (e.g., White vs. Black).\n\n"
    "2.Objective Players aim to occupy as much space as possible by moving their Amazons and "
    "firing arrows, while simultaneously blocking the opponent\u2019s mobility.\n\n"
    "3.Rules of Play Initial Setup: Each player\u2019s four Amazons are placed on "
    "predetermined squares of the first and last ranks. Turn Sequence: Players alternate "
    "turns. On your turn, you perform two actions in order: Move: Choose one of your Amazons "
    "and move it along any straight line\u2014horizontal, vertical, or diagonal\u2014for any "
    "number of empty squares, without jumping over other pieces. Shoot: After moving, choose "
    "a target square along another straight line from that Amazon\u2019s new location; that "
    "square becomes permanently blocked and cannot be occupied or traversed. Restrictions: "
    "You may not move into or shoot at squares that are already occupied or already "
    "blocked.\n\n"
    "4.Additional Rule Players must ensure they follow the movement and shooting rules at "
    "every step.\n\n"
    "Please review the above rules. Now you are a professional Amazon player, and the current "
    "position is:\n\n";
inline constexpr std::string_view kPromptLegend =
    "\n\nHere, 1 represents White Amazons, 2 represents Black Amazons, and 3 represents blocked "
    "squares. You are to evaluate the move just played by player ";
inline constexpr std::string_view kPromptQueen = "they moved the Amazon with index ";
inline constexpr std::string_view kPromptTo = " to square ";
inline constexpr std::string_view kPromptArrow = ", then place an obstacle at ";
inline constexpr std::string_view kPromptEnd =
    ". Based on both the current and potential future positions, score this turn using two "
    "values (each between 0 and 1):\n\n"
    "move_score place_score\n\n"
    "A score closer to 1 favors the player; closer to 0 favors the opponent.\n\n"
    "Please output exactly the above format and no other text.";

// Reads a square name at text[pos...] ("a1".."j10"); advances pos. False when there is none.
inline bool read_prompt_square(std::string_view text, std::size_t& pos, Square& out) {
  int col = 0, row = 0;
  if (!read_square(text, pos, col, row) || col >= kMaxSize || row >= kMaxSize) return false;
  out = make_square(col, row);
  return true;
}

}  // namespace detail

// The paper's prompt for `m` played by the side to move in `before` (m must be legal).
inline std::string make_prompt(const Position& before, const Move& m,
                               const PromptParams& params = {}) {
  Position shown = before;
  if (params.board_after_move) shown.apply(m);
  const bool white = before.to_move() == kWhite;
  std::string p(detail::kPromptRules);
  p += board_grid(shown);
  p += detail::kPromptLegend;
  p += white ? "white (ID 1): " : "black (ID 2): ";
  p += detail::kPromptQueen;
  p += square_name(m.from);
  p += detail::kPromptTo;
  p += square_name(m.to);
  p += detail::kPromptArrow;
  p += square_name(m.arrow);
  p += detail::kPromptEnd;
  return p;
}

// What a prompt says: the position before the move, the move, and which board it showed.
struct PromptContents {
  Position before;
  Move move;
  bool board_after_move = true;
};

// Reads a prompt written by make_prompt (either board reading; the rules text around the
// fields is not checked). The grid may be any rectangle up to 10×10, its rows separated by
// line breaks and its squares by optional spaces. Whether the grid shows the position
// before or after the move follows from it: before, the mover's queen stands on the from
// square; after, it stands on the destination and the arrow is in place. Throws
// PromptError naming what is missing, or why the move does not fit the board.
inline PromptContents parse_prompt(std::string_view prompt) {
  const auto fail = [](const std::string& why) { return PromptError("bad prompt: " + why); };
  const auto find = [&](std::string_view what, std::size_t from) {
    const auto at = prompt.find(what, from);
    if (at == std::string_view::npos) throw fail("no \"" + std::string(what) + "\"");
    return at + what.size();
  };
  // The grid: the lines of digits 0-3 after "position is:".
  std::size_t pos = find("position is:", 0);
  std::string grid;  // row-major, top row first
  int rows = 0, cols = 0;
  while (pos < prompt.size()) {
    auto eol = prompt.find('\n', pos);
    if (eol == std::string_view::npos) eol = prompt.size();
    const std::string_view line = prompt.substr(pos, eol - pos);
    std::string row;
    bool is_row = true;
    for (const char c : line) {
      if (c >= '0' && c <= '3')
        row += c;
      else if (c != ' ' && c != '\t' && c != '\r')
        is_row = false;
    }
    if (!is_row) {
      if (rows > 0) break;
      if (!row.empty() || line.find_first_not_of(" \t\r") != std::string_view::npos)
        throw fail("expected the board's rows of digits 0-3 after \"position is:\"");
    } else if (!row.empty()) {
      if (rows == 0) cols = static_cast<int>(row.size());
      if (static_cast<int>(row.size()) != cols)
        throw fail("board row " + std::to_string(rows + 1) + " has " + std::to_string(row.size()) +
                   " squares but row 1 has " + std::to_string(cols));
      if (++rows > kMaxSize || cols > kMaxSize) throw fail("the board is larger than 10x10");
      grid += row;
    } else if (rows > 0) {
      break;  // a blank line ends the grid
    }
    pos = eol + 1;
  }
  if (rows == 0) throw fail("no board after \"position is:\"");

  pos = find("by player ", pos);
  bool white;
  if (prompt.substr(pos, 5) == "white")
    white = true;
  else if (prompt.substr(pos, 5) == "black")
    white = false;
  else
    throw fail("the player is neither white nor black");
  pos = find("(ID ", pos);
  if (pos >= prompt.size() || prompt[pos] != (white ? '1' : '2'))
    throw fail(std::string("the ID of ") + (white ? "white must be 1" : "black must be 2"));
  Move m;
  pos = find(detail::kPromptQueen, pos);
  if (!detail::read_prompt_square(prompt, pos, m.from)) throw fail("no square for the queen moved");
  pos = find(detail::kPromptTo, pos);
  if (!detail::read_prompt_square(prompt, pos, m.to)) throw fail("no square for its destination");
  pos = find(detail::kPromptArrow, pos);
  if (!detail::read_prompt_square(prompt, pos, m.arrow)) throw fail("no square for the arrow");

  for (const Square s : {m.from, m.to, m.arrow})
    if (col_of(s) >= cols || row_of(s) >= rows)
      throw fail("square " + square_name(s) + " is off the board");
  const auto at = [&](Square s) -> char& {
    return grid[static_cast<std::size_t>((rows - 1 - row_of(s)) * cols + col_of(s))];
  };
  const char mine = white ? '1' : '2';
  PromptContents out;
  if (at(m.from) == mine) {
    out.board_after_move = false;
  } else if (at(m.to) == mine && at(m.arrow) == '3') {
    out.board_after_move = true;
    at(m.arrow) = '0';
    at(m.to) = '0';
    at(m.from) = mine;
  } else {
    throw fail(std::string("the ") + (white ? "white" : "black") + " queen is neither on " +
               square_name(m.from) + " (before the move) nor on " + square_name(m.to) +
               " with an arrow on " + square_name(m.arrow) + " (after it)");
  }
  std::string fen;
  for (int r = 0; r < rows; ++r) {
    int run = 0;
    for (int c = 0; c < cols; ++c) {
      const char ch = grid[static_cast<std::size_t>(r * cols + c)];
      if (ch == '0') {
        ++run;
        continue;
      }
      if (run) fen += std::to_string(run), run = 0;
      fen += ch == '1' ? 'Q' : ch == '2' ? 'q' : '*';
    }
    if (run) fen += std::to_string(run);
    fen += r + 1 < rows ? "/" : "";
  }
  fen += white ? " w" : " b";
  try {
    out.before = Position::from_fen(fen);
  } catch (const NotationError& e) {
    throw fail(std::string("the board is not a position: ") + e.what());
  }
  if (const std::string why = out.before.why_illegal(m); !why.empty())
    throw fail("the move " + out.before.move_to_string(m) + " is illegal: " + why);
  out.move = m;
  return out;
}

// ---------------------------------------------------------------------------------------
// Requests

struct RequestParams {
  std::string model = "gpt-4o-mini";  // the "model" field
  double temperature = -1;            // the "temperature" field; negative: not sent
  int max_tokens = 16;                // the "max_tokens" field; 0: not sent
  // The "max_completion_tokens" field, sent instead of max_tokens when above 0 (models such
  // as OpenAI's o-series refuse max_tokens); 0: not sent.
  int max_completion_tokens = 0;
};

// A chat-completions request body: the prompt as the one user message.
inline std::string make_request_body(const std::string& prompt, const RequestParams& params) {
  nlohmann::json j = {
      {"model", params.model},
      {"messages", nlohmann::json::array({{{"role", "user"}, {"content", prompt}}})}};
  if (params.temperature >= 0) j["temperature"] = params.temperature;
  if (params.max_completion_tokens > 0)
    j["max_completion_tokens"] = params.max_completion_tokens;
  else if (params.max_tokens > 0)
    j["max_tokens"] = params.max_tokens;
  return j.dump();
}

// What a server reads from a request body: the model and the text of the last user
// message (a string, or the concatenated "text" parts of a content array). Throws
// PromptError when the body is not such a request.
struct ChatRequest {
  std::string model;
  std::string prompt;
};

inline ChatRequest parse_request_body(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw PromptError("the request body is not JSON");
  if (!j.is_object() || !j.contains("messages") || !j["messages"].is_array())
    throw PromptError("the request has no \"messages\" array");
  ChatRequest r;
  if (j.contains("model") && j["model"].is_string()) r.model = j["model"].get<std::string>();
  const auto& messages = j["messages"];
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (!it->is_object() || !it->contains("role") || (*it)["role"] != "user" ||
        !it->contains("content"))
      continue;
    const auto& content = (*it)["content"];
    if (content.is_string()) {
      r.prompt = content.get<std::string>();
      return r;
    }
    if (content.is_array()) {
      for (const auto& part : content)
        if (part.is_object() && part.contains("text") && part["text"].is_string())
          r.prompt += part["text"].get<std::string>();
      return r;
    }
  }
  throw PromptError("the request has no user message with text content");
}

// ---------------------------------------------------------------------------------------
// Replies

// Why a reply was not accepted.
enum class Rejection : std::uint8_t {
  kNotJson,         // the reply body is not JSON
  kNoContent,       // JSON without choices[0].message.content as a string
  kEmpty,           // the content is empty or only whitespace
  kProse,           // the content holds something other than numbers and whitespace
  kOneNumber,       // a single number
  kTooManyNumbers,  // three or more numbers
  kNotFinite,       // two numbers, one of them NaN or infinite
  kOutOfRange,      // two numbers, one of them outside [0, 1]
};
inline constexpr std::size_t kRejectionKinds = 8;

inline const char* rejection_name(Rejection r) noexcept {
  static constexpr const char* kNames[kRejectionKinds] = {
      "not_json",   "no_content",       "empty",      "prose",
      "one_number", "too_many_numbers", "not_finite", "out_of_range"};
  return kNames[static_cast<std::size_t>(r)];
}

struct Scores {
  double move = 0;   // move_score: the queen move, in [0, 1]
  double place = 0;  // place_score: the arrow, in [0, 1]
  friend bool operator==(const Scores&, const Scores&) = default;
};

// A reply read: the scores, or why there are none, and the content as received.
struct Reply {
  std::optional<Scores> scores;
  Rejection rejection = Rejection::kNotJson;  // when !scores
  std::string content;
};

// Reads a reply's content: exactly two numbers in [0, 1] separated by whitespace (leading
// and trailing whitespace allowed; numbers as std::from_chars reads them, e.g. 0.7, 1, .5,
// 7e-1). Anything else is rejected, by the first kind that applies in the order prose,
// empty, one_number, too_many_numbers, not_finite, out_of_range.
inline Reply parse_scores(std::string_view content) {
  Reply r;
  r.content = std::string(content);
  double values[2] = {0, 0};
  int numbers = 0;
  bool range_error = false;
  for (std::size_t i = 0; i < content.size();) {
    const auto is_space = [](char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    };
    if (is_space(content[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < content.size() && !is_space(content[j])) ++j;
    double v = 0;
    const auto [end, ec] = std::from_chars(content.data() + i, content.data() + j, v);
    if (end != content.data() + j || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      r.rejection = Rejection::kProse;
      return r;
    }
    if (ec == std::errc::result_out_of_range) range_error = true;
    if (numbers < 2) values[numbers] = v;
    ++numbers;
    i = j;
  }
  if (numbers == 0) {
    r.rejection = Rejection::kEmpty;
  } else if (numbers == 1) {
    r.rejection = Rejection::kOneNumber;
  } else if (numbers > 2) {
    r.rejection = Rejection::kTooManyNumbers;
  } else if (!std::isfinite(values[0]) || !std::isfinite(values[1])) {
    r.rejection = Rejection::kNotFinite;
  } else if (range_error || values[0] < 0 || values[0] > 1 || values[1] < 0 || values[1] > 1) {
    r.rejection = Rejection::kOutOfRange;
  } else {
    r.scores = Scores{values[0] + 0.0, values[1] + 0.0};  // + 0.0: -0 becomes 0
  }
  return r;
}

// Reads a chat-completions reply body: choices[0].message.content, then parse_scores.
inline Reply parse_reply(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  Reply r;
  if (j.is_discarded()) {
    r.rejection = Rejection::kNotJson;
    r.content = std::string(body.substr(0, 200));
    return r;
  }
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() ||
      j["choices"].empty() || !j["choices"][0].is_object() ||
      !j["choices"][0].contains("message") || !j["choices"][0]["message"].is_object() ||
      !j["choices"][0]["message"].contains("content") ||
      !j["choices"][0]["message"]["content"].is_string()) {
    r.rejection = Rejection::kNoContent;
    r.content = std::string(body.substr(0, 200));
    return r;
  }
  return parse_scores(j["choices"][0]["message"]["content"].get<std::string>());
}

// Scores as a teacher writes them: "0.62 0.41" (two decimals).
inline std::string format_scores(const Scores& s) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %.2f", s.move, s.place);
  return text;
}

// A chat-completions reply body whose one choice has `content`.
inline std::string make_reply_body(std::string_view content, std::string_view model,
                                   std::uint64_t id) {
  return nlohmann::json{
      {"id", "chatcmpl-" + std::to_string(id)},
      {"object", "chat.completion"},
      {"created", 0},
      {"model", model},
      {"choices",
       nlohmann::json::array({{{"index", 0},
                               {"message", {{"role", "assistant"}, {"content", content}}},
                               {"finish_reason", "stop"}}})}}
      .dump();
}

}  // namespace amazons
