// The paper's prompt, both ways; chat-completions requests and replies; every rejection kind.
#include "amazons/paper/teacher_protocol.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace amazons;

namespace {

// Positions and moves from a few random games (10x10 and 6x6), with every move of some.
template <class F>
void for_sample_moves(F&& f) {
  gsearch::Rng rng(7);
  for (const char* fen :
       {"3q2q3/10/10/q8q/10/10/Q8Q/10/10/3Q2Q3 w - - 0 1", "1q2q1/q4q/6/6/Q4Q/1Q2Q1 w"}) {
    Position pos = Position::from_fen(fen);
    for (int ply = 0; !pos.is_terminal(); ++ply) {
      gsearch::MoveListOf<Position> moves;
      pos.legal_moves(moves);
      for (std::size_t i = 0; i < moves.size(); i += 1 + moves.size() / 7) f(pos, moves[i]);
      pos.apply(pos.random_move(rng));
    }
  }
}

}  // namespace

TEST_CASE("the board grid: rows top first, digits 0-3 separated by spaces") {
  CHECK(board_grid(Position{}) ==
        "0 0 0 2 0 0 2 0 0 0\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "2 0 0 0 0 0 0 0 0 2\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "1 0 0 0 0 0 0 0 0 1\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "0 0 0 0 0 0 0 0 0 0\n"
        "0 0 0 1 0 0 1 0 0 0");
  CHECK(board_grid(Position::from_fen("2*q/4/4/Q3 w")) == "0 0 3 2\n0 0 0 0\n0 0 0 0\n1 0 0 0");
}

TEST_CASE("the prompt: the paper's text with the board, the player and the move filled in") {
  const Position start;
  const std::string p = make_prompt(start, start.parse_move("d1-d6/g9"));
  CHECK(p.rfind("Amazon is a two-player abstract strategy game", 0) == 0);
  CHECK(p.find("1.Board and Pieces Board: Amazon is played on a 10\u00d710 grid.") !=
        std::string::npos);
  CHECK(p.find("four \u201cAmazons\u201d") != std::string::npos);
  CHECK(p.find("the current position is:\n\n"
               "0 0 0 2 0 0 2 0 0 0\n"
               "0 0 0 0 0 0 3 0 0 0\n") != std::string::npos);
  CHECK(p.find("0 0 0 1 0 0 0 0 0 0\n"  // d6 (row 6)
               "0 0 0 0 0 0 0 0 0 0\n"
               "1 0 0 0 0 0 0 0 0 1\n") != std::string::npos);
  CHECK(p.find("evaluate the move just played by player white (ID 1): they moved the Amazon with "
               "index d1 to square d6, then place an obstacle at g9. Based on both") !=
        std::string::npos);
  CHECK(p.find("\n\nmove_score place_score\n\n") != std::string::npos);
  CHECK(p.size() > 1900);
  const std::string last = "\n\nPlease output exactly the above format and no other text.";
  CHECK(p.substr(p.size() - last.size()) == last);

  Position black = start;
  black.apply(start.parse_move("d1-d6/g9"));
  const std::string b =
      make_prompt(black, black.parse_move("j7-j5/h5"), {.board_after_move = false});
  CHECK(
      b.find("player black (ID 2): they moved the Amazon with index j7 to square j5, then place an "
             "obstacle at h5.") != std::string::npos);
  CHECK(b.find("2 0 0 0 0 0 0 0 0 2\n") != std::string::npos);  // j7 still there: before the move
}

TEST_CASE("parse_prompt reads back what make_prompt wrote, both board readings") {
  int n = 0;
  for_sample_moves([&](const Position& pos, const Move& m) {
    for (const bool after : {true, false}) {
      const PromptContents c = parse_prompt(make_prompt(pos, m, {.board_after_move = after}));
      CHECK(c.board_after_move == after);
      CHECK(c.move == m);
      CHECK(c.before.hash() == pos.hash());
      CHECK(c.before.rows() == pos.rows());
      CHECK(c.before.cols() == pos.cols());
      ++n;
    }
  });
  CHECK(n > 500);
  // The arrow shot back onto the square the queen left.
  const Position start;
  const Move back = start.parse_move("d1-d2/d1");
  CHECK(parse_prompt(make_prompt(start, back)).move == back);
}

TEST_CASE("parse_prompt: one line naming what is wrong") {
  const Position start;
  const std::string good = make_prompt(start, start.parse_move("d1-d6/g9"));
  const auto broken = [&](const std::string& from, const std::string& to) {
    std::string p = good;
    const auto at = p.find(from);
    REQUIRE(at != std::string::npos);
    return p.replace(at, from.size(), to);
  };
  const auto error = [](const std::string& prompt) {
    try {
      (void)parse_prompt(prompt);
    } catch (const PromptError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("hello") == "bad prompt: no \"position is:\"");
  CHECK(error(broken("0 0 0 2 0 0 2 0 0 0\n", "0 0 2 0 0 2 0 0 0\n"))
            .find("board row 2 has 10 squares but row 1 has 9") != std::string::npos);
  CHECK(error(broken("position is:\n\n", "position is:\n\nzzz\n"))
            .find("expected the board's rows") != std::string::npos);
  CHECK(error(broken("by player white", "by player green")).find("neither white nor black") !=
        std::string::npos);
  CHECK(error(broken("(ID 1)", "(ID 2)")).find("white must be 1") != std::string::npos);
  CHECK(error(broken("index d1", "index z1")).find("no square for the queen moved") !=
        std::string::npos);
  CHECK(error(broken("square d6", "square d7")).find("neither on d1") != std::string::npos);
  CHECK(error(broken("obstacle at g9", "obstacle at")).find("obstacle at") != std::string::npos);
  CHECK(error(broken("obstacle at g9", "obstacle at x")).find("no square for the arrow") !=
        std::string::npos);
  CHECK(error(broken("obstacle at g9", "obstacle at a1")).find("neither on d1") !=
        std::string::npos);
  std::string eleven = good;
  eleven.insert(good.find("position is:\n\n") + 14, "0 0 0 0 0 0 0 0 0 0\n");
  CHECK(error(eleven).find("larger than 10x10") != std::string::npos);
  std::string five_queens = broken("0 0 0 2 0 0 2 0 0 0\n", "2 2 2 2 2 0 2 0 0 0\n");
  CHECK(error(five_queens).find("the board is not a position") != std::string::npos);
  // A grid whose move is illegal: the queen on d1 cannot pass an arrow on d5.
  std::string blocked =
      make_prompt(start, start.parse_move("d1-d6/g9"), {.board_after_move = false});
  blocked.replace(blocked.find("0 0 0 0 0 0 0 0 0 0\n1 0 0 0 0 0 0 0 0 1"), 19,
                  "0 0 0 3 0 0 0 0 0 0");
  CHECK(error(blocked).find("is illegal: the queen on d1 cannot reach d6") != std::string::npos);
}

TEST_CASE("requests: the prompt as one user message; servers read text or content parts") {
  const std::string body =
      make_request_body("the prompt", {.model = "m", .temperature = 0.5, .max_tokens = 16});
  const auto j = nlohmann::json::parse(body);
  CHECK(j["model"] == "m");
  CHECK(j["messages"].size() == 1);
  CHECK(j["messages"][0]["role"] == "user");
  CHECK(j["temperature"] == 0.5);
  CHECK(j["max_tokens"] == 16);
  const auto plain = nlohmann::json::parse(
      make_request_body("p", {.model = "m", .temperature = -1, .max_tokens = 0}));
  CHECK(!plain.contains("temperature"));
  CHECK(!plain.contains("max_tokens"));

  const ChatRequest r = parse_request_body(body);
  CHECK(r.model == "m");
  CHECK(r.prompt == "the prompt");
  CHECK(
      parse_request_body(
          R"({"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})")
          .prompt == "ab");
  CHECK_THROWS_WITH_AS(parse_request_body("nope"), "the request body is not JSON", PromptError);
  CHECK_THROWS_WITH_AS(parse_request_body("{}"), doctest::Contains("no \"messages\""), PromptError);
  CHECK_THROWS_WITH_AS(parse_request_body(R"({"messages":[{"role":"system","content":"s"}]})"),
                       doctest::Contains("no user message"), PromptError);
}

TEST_CASE("reply content: exactly two numbers in [0, 1]; every other kind rejected") {
  for (const auto& [text, move, place] :
       std::vector<std::tuple<std::string, double, double>>{{"0.62 0.41", 0.62, 0.41},
                                                            {" 1 0\n", 1, 0},
                                                            {".5\t.25", 0.5, 0.25},
                                                            {"7e-1   0.0", 0.7, 0},
                                                            {"-0 0", 0, 0}}) {
    CAPTURE(text);
    const Reply r = parse_scores(text);
    REQUIRE(r.scores);
    CHECK(r.scores->move == move);
    CHECK(r.scores->place == place);
    CHECK(!std::signbit(r.scores->move));
  }
  const std::vector<std::pair<std::string, Rejection>> bad = {
      {"The move is good: 0.6 0.4", Rejection::kProse},
      {"0.6, 0.4", Rejection::kProse},
      {"[0.6 0.4]", Rejection::kProse},
      {"move_score place_score", Rejection::kProse},
      {"0.6 0.4\nBecause the queen is central.", Rejection::kProse},
      {"+0.6 0.4", Rejection::kProse},
      {"0x1 0", Rejection::kProse},
      {"", Rejection::kEmpty},
      {" \n\t", Rejection::kEmpty},
      {"0.6", Rejection::kOneNumber},
      {"0.1 0.2 0.3", Rejection::kTooManyNumbers},
      {"NaN 0.5", Rejection::kNotFinite},
      {"0.5 inf", Rejection::kNotFinite},
      {"-infinity 0.1", Rejection::kNotFinite},
      {"1.2 0.5", Rejection::kOutOfRange},
      {"0.5 -0.1", Rejection::kOutOfRange},
      {"1e400 0.5", Rejection::kOutOfRange},
      {"2 3", Rejection::kOutOfRange},
  };
  for (const auto& [text, why] : bad) {
    CAPTURE(text);
    const Reply r = parse_scores(text);
    CHECK(!r.scores);
    CHECK(r.rejection == why);
    CHECK(r.content == text);
  }
  CHECK(std::string(rejection_name(Rejection::kTooManyNumbers)) == "too_many_numbers");
}

TEST_CASE("reply bodies: choices[0].message.content, or not_json / no_content") {
  const Reply ok = parse_reply(make_reply_body("0.25 0.75", "m", 3));
  REQUIRE(ok.scores);
  CHECK(*ok.scores == Scores{0.25, 0.75});
  CHECK(nlohmann::json::parse(make_reply_body("x", "m", 3))["id"] == "chatcmpl-3");
  CHECK(parse_reply("<html>502</html>").rejection == Rejection::kNotJson);
  CHECK(parse_reply("").rejection == Rejection::kNotJson);
  for (const char* body : {"{}", "[]", R"({"choices":[]})", R"({"choices":[{"message":{}}]})",
                           R"({"choices":[{"message":{"content":null}}]})",
                           R"({"choices":[{"message":{"content":0.5}}]})", R"({"choices":[1]})",
                           R"({"choices":{"message":"x"}})"}) {
    CAPTURE(body);
    const Reply r = parse_reply(body);
    CHECK(!r.scores);
    CHECK(r.rejection == Rejection::kNoContent);
  }
  CHECK(parse_reply(make_reply_body("0.5", "m", 1)).rejection == Rejection::kOneNumber);
  CHECK(format_scores({0.5, 0.125}) == "0.50 0.12");
}
