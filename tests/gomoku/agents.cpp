// Gomoku agents: specs, legality, tactics, restriction at the root, reproducibility, strength.
#include "gomoku/players/agents.hpp"

#include <doctest/doctest.h>

#include <string>

#include "gsearch/arena/match.hpp"

using gomoku::make_agent;
using gomoku::Position;
using gomoku::SpecError;

namespace {

std::string spec_error(const char* spec) {
  try {
    (void)make_agent(spec);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("specs give canonical names and refuse bad parameters") {
  CHECK(make_agent("random")->name() == "random");
  CHECK(make_agent("greedy")->name() == "greedy");
  CHECK(make_agent("mcts")->name() == "mcts:playouts=1000,ms=0,c=0.5,solver=0,window=0,threats=0");
  CHECK(make_agent("mcts:window=6,threats=1,playouts=50")->name() ==
        "mcts:playouts=50,ms=0,c=0.5,solver=0,window=6,threats=1");
  // A time given alone is the whole budget.
  CHECK(make_agent("mcts:ms=20")->name() ==
        "mcts:playouts=0,ms=20,c=0.5,solver=0,window=0,threats=0");
  CHECK(spec_error("").find("no agent name") != std::string::npos);
  CHECK(spec_error("alpha").find("unknown agent \"alpha\"") != std::string::npos);
  CHECK(spec_error("random:x=1").find("unknown parameter \"x\"") != std::string::npos);
  CHECK(spec_error("mcts:playouts=-1").find("playouts=-1 is not a whole number") !=
        std::string::npos);
  CHECK(spec_error("mcts:c=nan").find("c=nan") != std::string::npos);
  CHECK(spec_error("mcts:window=16").find("window=16") != std::string::npos);
  CHECK(spec_error("mcts:threats=4").find("threats=4") != std::string::npos);
  CHECK(spec_error("mcts:playouts").find("is not key=value") != std::string::npos);
  CHECK(spec_error("mcts:playouts=5,playouts=6").find("given twice") != std::string::npos);
  CHECK(spec_error("mcts:playouts=0").find("needs a time budget") != std::string::npos);
}

TEST_CASE("every agent plays legal moves to the end of a game") {
  for (const char* spec :
       {"random", "greedy", "mcts:playouts=50", "mcts:playouts=50,window=4,threats=3,solver=1"}) {
    CAPTURE(spec);
    auto agent = make_agent(spec);
    agent->reset(3);
    Position p = Position::empty(7, 7, 4);
    while (!p.is_terminal()) {
      const auto m = agent->choose(p);
      REQUIRE(gsearch::is_legal(p, m));
      p.apply(m);
    }
  }
}

TEST_CASE("greedy and mcts win at once and block an immediate loss") {
  // Black to move wins at d1, though White's h1-h3 also threatens h4.
  const Position win = Position::from_text("8/8/8/8/8/7o/7o/xxx4o x 4");
  // White to move, no win of its own: Black's a1-c1 must be blocked at d1.
  const Position block = Position::from_text("8/8/8/8/8/8/7o/xxx3o1 o 4");
  for (const char* spec :
       {"greedy", "mcts:playouts=3000", "mcts:playouts=3000,window=4,threats=1"}) {
    CAPTURE(spec);
    auto agent = make_agent(spec);
    agent->reset(1);
    CHECK(win.move_to_string(agent->choose(win)) == "d1");
    CHECK(block.move_to_string(agent->choose(block)) == "d1");
  }
}

TEST_CASE("mcts considers exactly the candidate set at the root") {
  const Position p = Position::from_text("8/8/8/3x4/4o3/8/8/8 x 5");
  auto agent = make_agent("mcts:playouts=200,window=4");
  agent->reset(1);
  (void)agent->choose(p);
  gsearch::MoveListOf<Position> moves;
  p.legal_moves(moves);
  gomoku::CandidateFilter{{.window = 4}}(p, moves);
  CHECK(agent->info().candidates == moves.size());
  CHECK(moves.size() == 14);
  CHECK(agent->info().iterations == 200);
}

TEST_CASE("the same seed gives the same moves") {
  const Position p = Position::from_text("8/8/8/3x4/4o3/8/8/8 x 5");
  for (const char* spec : {"random", "greedy", "mcts:playouts=300"}) {
    auto a = make_agent(spec), b = make_agent(spec);
    a->reset(9);
    b->reset(9);
    CHECK(a->choose(p) == b->choose(p));
  }
}

TEST_CASE("mcts beats random, and greedy beats random, on 6x6 connect-4") {
  const Position start = Position::empty(6, 6, 4);
  const auto make = [](const char* spec) {
    return [spec] { return gomoku::AgentHandle(make_agent(spec)); };
  };
  for (const char* spec : {"mcts:playouts=300", "greedy"}) {
    CAPTURE(spec);
    const auto records = gsearch::arena::play_match(start, make(spec), make("random"),
                                                    {.games = 10, .threads = 1, .seed = 2});
    const auto summary = gsearch::arena::summarize(records);
    CHECK(summary.wins >= 9);
  }
}
