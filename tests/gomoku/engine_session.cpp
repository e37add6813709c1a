// The Gomoku engine protocol (examples/gomoku/cli/engine_session.hpp): answers, and one-line
// errors for bad commands after which the session goes on.
#include "cli/engine_session.hpp"

#include <doctest/doctest.h>

#include <string>

using gomoku::Position;
using gomoku::cli::EngineSession;

namespace {

std::string answer(EngineSession& s, const char* line) { return s.handle(line).value_or("(none)"); }

}  // namespace

TEST_CASE("the engine plays a game through the protocol") {
  EngineSession s("mcts:playouts=200", Position::empty(8, 8, 4));
  CHECK(answer(s, "text") == "text 8/8/8/8/8/8/8/8 x 4");
  CHECK(answer(s, "position startpos moves a1 h8 b1 h7 c1") == "ok");
  CHECK(answer(s, "go iters 5000") == "bestmove d1");  // White must block
  CHECK(answer(s, "play d1") == "ok");
  CHECK(answer(s, "go").rfind("bestmove ", 0) == 0);
  CHECK(answer(s, "position 8/8/8/8/8/8/8/xxx1ooo1 x 4") == "ok");
  CHECK(answer(s, "go ms 50") == "bestmove d1");
  CHECK(answer(s, "play d1") == "ok");
  CHECK(answer(s, "go") == "bestmove none");
  CHECK(answer(s, "new") == "ok");
  CHECK(answer(s, "go btime 1000 wtime 1000").rfind("bestmove ", 0) == 0);
  CHECK(answer(s, "time").rfind("time allotted ", 0) == 0);
  CHECK(answer(s, "agent greedy") == "ok");
  const std::string centre = answer(s, "go");  // 8x8: greedy takes one of the four central cells
  CHECK((centre == "bestmove d4" || centre == "bestmove e4" || centre == "bestmove d5" ||
         centre == "bestmove e5"));
  CHECK(!s.handle("quit"));
}

TEST_CASE("bad commands get one error line and the session goes on") {
  EngineSession s("random", Position::empty(6, 6, 4));
  for (const auto& [line, error] : std::initializer_list<std::pair<const char*, const char*>>{
           {"", "error empty command"},
           {"fly", "error unknown command \"fly\""},
           {"play", "error usage: play MOVE"},
           {"play z9", "error cell \"z9\""},
           {"position", "error usage: position"},
           {"position 6/6 x 4", "error position \"6/6 x 4\""},
           {"position startpos moves a1 a1", "error move 2: move \"a1\": the cell is not empty"},
           {"go nodes 5", "error go: \"nodes\" is not iters, ms, btime or wtime"},
           {"go iters", "error go: iters needs one number"},
           {"go iters 0", "error go: \"0\" is not a whole number in [1, 1000000000]"},
           {"go ms -5", "error go: \"-5\""},
           {"go wtime 100", "error go: the mover's clock is missing (btime)"},
           {"go btime 100 binc", "error go: binc needs one number"},
           {"go btime 100 xinc 5", "error go: \"xinc\" is not btime"},
           {"agent", "error usage: agent SPEC"},
           {"agent mcts:c=-1", "error agent \"mcts:c=-1\": c=-1"},
           {"new now", "error usage: new"},
       }) {
    CAPTURE(line);
    const std::string a = answer(s, line);
    CHECK(a.rfind(error, 0) == 0);
    CHECK(a.find('\n') == std::string::npos);
  }
  CHECK(answer(s, "time") == "time none");
  CHECK(answer(s, "text") == "text 6/6/6/6/6/6 x 4");
}
