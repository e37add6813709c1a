// The paper's framework (amazons/paper/paper.hpp): the two readings' descriptions of a
// decision, the relative prior, the learned value, and the searches on small boards.
#include "amazons/paper/paper.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "amazons/paper/paper_agent.hpp"

using namespace amazons;
using namespace amazons::paper;

TEST_CASE("standardized_softmax: z-scores of the siblings, then a softmax") {
  float v[3] = {1.0f, 2.0f, 3.0f};  // mean 2, sd sqrt(2/3): z = -1.2247, 0, 1.2247
  standardized_softmax(v, 3, 1.0);
  const double e[3] = {std::exp(-1.2247449), 1.0, std::exp(1.2247449)};
  const double sum = e[0] + e[1] + e[2];
  for (int i = 0; i < 3; ++i) CHECK(v[i] == doctest::Approx(e[i] / sum).epsilon(1e-5));
  // The scale of the scores does not matter, only their spread among the siblings.
  float w[3] = {10.0f, 20.0f, 30.0f};
  standardized_softmax(w, 3, 1.0);
  for (int i = 0; i < 3; ++i) CHECK(w[i] == doctest::Approx(v[i]));
  // Equal scores: uniform. Sharpness 0: uniform.
  float u[4] = {0.3f, 0.3f, 0.3f, 0.3f};
  standardized_softmax(u, 4, 1.0);
  for (float p : u) CHECK(p == doctest::Approx(0.25));
  float s[3] = {1.0f, 5.0f, 2.0f};
  standardized_softmax(s, 3, 0.0);
  for (float p : s) CHECK(p == doctest::Approx(1.0 / 3));
}

TEST_CASE("the relative reading describes a decision by what it changes") {
  const Position start;
  DistanceMaps maps;
  DecisionPosition before{start};
  before.apply({Stage::kQueen, start.parse_square("d1"), start.parse_square("d1")});
  const Decision dest{Stage::kDestination, start.parse_square("d1"), start.parse_square("d7")};
  DecisionPosition after = before;
  after.apply(dest);
  const Features literal = describe_decision(Reading::kLiteral, before, after, dest, maps);
  const Features absolute = decision_features(after, dest, maps);
  CHECK(literal == absolute);
  const Features rel = describe_decision(Reading::kRelative, before, after, dest, maps);
  const Features base = state_features(before, dest, maps);
  for (std::size_t k = 0; k < 5; ++k)
    CHECK(rel[k] == doctest::Approx(kRelativeScale[k] * (absolute[k] - base[k])));
  // The queen leaves d1 (5 free neighbours: c1, e1, c2, d2, e2) for d7 (8 free neighbours):
  // the one-mobility change is 3 / 8.
  CHECK(rel[2] == doctest::Approx(kRelativeScale[2] * 3.0 / 8.0));
  // A decision compared with itself changes nothing.
  CHECK(relative_features(base, base) == Features{});
}

TEST_CASE("learned_value: in [-1, 1], for the player to move") {
  auto nets = std::make_shared<Networks>(Networks::initial(Reading::kRelative, 3));
  DecisionPosition s{Position{}};
  const double v = learned_value(*nets, s);
  CHECK(v >= -1.0);
  CHECK(v <= 1.0);
  // Between turns the value is the negation of the value of the player who just moved, as
  // the value scorer sees the position for that player.
  Position p;
  p.apply(p.parse_move("d1-d6/g9"));
  const DecisionPosition after{p};
  DistanceMaps maps;
  const Features f = position_features(p, kWhite, 0, maps);
  nn::Matrix x(1, 5);
  for (int k = 0; k < 5; ++k) x(0, k) = f[static_cast<std::size_t>(k)];
  const double white = std::clamp(2.0 * nets->value.forward(x)(0, 0) - 1.0, -1.0, 1.0);
  CHECK(learned_value(*nets, after) == doctest::Approx(-white));
}

TEST_CASE("the relative reading's agents find a move that wins at once, on a small board") {
  // 4x4: White's queen a1 can shoot Black's last free square; find every winning move and
  // check the agents pick one of them.
  const Position pos = Position::from_fen("2*q/4/4/Q3 w - - 0 1");
  gsearch::MoveListOf<Position> moves;
  pos.legal_moves(moves);
  std::vector<Move> winning;
  for (const Move& m : moves) {
    Position c = pos;
    c.apply(m);
    if (c.is_terminal()) winning.push_back(m);
  }
  REQUIRE(!winning.empty());
  REQUIRE(winning.size() < moves.size());
  for (const std::string spec : {"uctae:n=200", "sgga:n=200", "gatae:n=200", "hybrid:n=200"}) {
    CAPTURE(spec);
    auto agent = make_agent(spec);
    agent->reset(1);
    const Move m = agent->choose(pos);
    CHECK(std::find(winning.begin(), winning.end(), m) != winning.end());
  }
  // The literal reading selects by the learned score alone (no value term in eq. 13) and
  // decides by eq. 10-12's sums, which grow with the depth of a node's subtree: a win at once
  // is a node without children, and it loses to moves with deeper subtrees. It still plays a
  // legal move; docs/paper-mapping.md has the measurements.
  auto literal = make_agent("uctae:n=200,reading=literal");
  literal->reset(1);
  CHECK(gsearch::is_legal(pos, literal->choose(pos)));
}

TEST_CASE("paper agent specs: the reading and its networks") {
  // (Legal moves and exact replays in both readings: tests/amazons/agents.cpp.)
  CHECK_THROWS_WITH_AS((void)make_agent("hybrid:reading=literal,value=x.json"),
                       doctest::Contains("the literal reading has no value network"), SpecError);
  CHECK_THROWS_WITH_AS((void)make_agent("hybrid:reading=other"),
                       doctest::Contains("is not one of relative, literal"), SpecError);
}
