// Selection policies on hand-built trees.
#include "gsearch/mcts/select.hpp"

#include <doctest/doctest.h>

#include <cmath>

using gsearch::NodeId;
using Tree = gsearch::mcts::Tree<int>;

namespace {
// A root with three children with the given visits, q and priors; root visits = sum.
Tree three_children(std::array<std::uint32_t, 3> visits, std::array<float, 3> q,
                    std::array<float, 3> prior = {0, 0, 0}) {
  Tree t;
  t.add_children(0, 3, 0);
  t[0].mover = 1;
  for (int i = 0; i < 3; ++i) {
    t[1 + i].visits = visits[i];
    t[1 + i].q = q[i];
    t[1 + i].prior = prior[i];
    t[0].visits += visits[i];
  }
  return t;
}
}  // namespace

TEST_CASE("UCT tries unvisited children first, in order, then maximises q + c sqrt(ln N / n)") {
  const gsearch::mcts::Uct uct{.c = 1.0};
  CHECK(uct.select(three_children({1, 0, 0}, {0.9f, 0, 0}), 0, 1, 3) == 2);
  // N = 20: child 1: 0.5 + sqrt(ln 20 / 10) = 1.0473; child 2: 0.2 + sqrt(ln 20 / 2) = 1.4239;
  // child 3: 0.6 + sqrt(ln 20 / 8) = 1.2120.
  CHECK(uct.select(three_children({10, 2, 8}, {0.5f, 0.2f, 0.6f}), 0, 1, 3) == 2);
  // With a small c exploitation wins: child 3.
  CHECK(gsearch::mcts::Uct{.c = 0.1}.select(three_children({10, 2, 8}, {0.5f, 0.2f, 0.6f}), 0, 1,
                                            3) == 3);
  // Only the first `count` children are considered (progressive widening).
  CHECK(gsearch::mcts::Uct{.c = 0.1}.select(three_children({10, 2, 8}, {0.5f, 0.2f, 0.6f}), 0, 1,
                                            2) == 1);
  // Visit counts below and above the table of 1 / sqrt(n) (4096). N = 19000, ln N = 9.852:
  // q + sqrt(9.852 / n) is 0.5314, 0.4996, 0.5244 for n = 10000, 4000, 5000 and q = 0.5, 0.45,
  // 0.48; child 1 with them, child 3 once child 1's q is 0.49 (0.5214), child 2 once its q is
  // 0.48 as well (0.5296).
  CHECK(uct.select(three_children({10000, 4000, 5000}, {0.5f, 0.45f, 0.48f}), 0, 1, 3) == 1);
  CHECK(uct.select(three_children({10000, 4000, 5000}, {0.49f, 0.45f, 0.48f}), 0, 1, 3) == 3);
  CHECK(uct.select(three_children({10000, 4000, 5000}, {0.49f, 0.48f, 0.48f}), 0, 1, 3) == 2);
  for (std::uint32_t n : {1u, 2u, 4095u, 4096u, 1u << 20})
    CHECK(gsearch::mcts::detail::inverse_root(gsearch::mcts::detail::inverse_roots(), n) ==
          doctest::Approx(1.0 / std::sqrt(double(n))).epsilon(1e-15));
}

TEST_CASE(
    "PUCT weighs priors, and gives unvisited children the parent's value minus the FPU reduction") {
  const gsearch::mcts::Puct puct{.c = 1.0, .fpu_reduction = 0.2};
  // N = 4: child 1 (visited 4, q 0.1, P 0.1): 0.1 + 0.1*2/5 = 0.14;
  // child 2 (unvisited, P 0.8): fpu = -q_root(0) - 0.2 = -0.2, -0.2 + 0.8*2/1 = 1.4 -> chosen.
  Tree t = three_children({4, 0, 0}, {0.1f, 0, 0}, {0.1f, 0.8f, 0.1f});
  CHECK(puct.select(t, 0, 1, 3) == 2);
  // A strong parent value for the children's mover makes an unvisited child with a low
  // prior attractive: root q is for mover 1, the children's mover is 0, so FPU = -q - 0.2.
  t[0].q = -0.9f;  // good for player 0: fpu = 0.9 - 0.2 = 0.7
  t[2].prior = 0.0f;
  t[3].prior = 0.0f;
  CHECK(puct.select(t, 0, 1, 3) == 2);
}

TEST_CASE("PriorUcb is the paper's eq. 13: prior + sqrt(2 ln n / (n_j + 1))") {
  const gsearch::mcts::PriorUcb ucb;  // c = sqrt(2), w_q = 0
  // N = 10: child 1: 0.3 + sqrt(2 ln 10 / 10) = 0.9786; child 2 (unvisited): 0.1 + sqrt(2 ln 10 /
  // 1) = 2.2460; child 3 (one visit): 0.9 + sqrt(2 ln 10 / 2) = 2.4173 -> child 3.
  const Tree t = three_children({9, 0, 1}, {0, 0, 0}, {0.3f, 0.1f, 0.9f});
  CHECK(ucb.select(t, 0, 1, 3) == 3);
  // The exact values: give the unvisited child a prior just below, then just above, the one
  // that ties it with child 3 (0.9 + 1.5174 - 2.1460 = 0.2714).
  const double tie = 0.9 + std::sqrt(2 * std::log(10.0) / 2) - std::sqrt(2 * std::log(10.0) / 1);
  CHECK(tie == doctest::Approx(0.2714).epsilon(1e-3));
  const auto with_prior = [](double p2) {
    return three_children({9, 0, 1}, {0, 0, 0}, {0.3f, static_cast<float>(p2), 0.9f});
  };
  CHECK(ucb.select(with_prior(tie - 1e-4), 0, 1, 3) == 3);
  CHECK(ucb.select(with_prior(tie + 1e-4), 0, 1, 3) == 2);
}

TEST_CASE("ScoreSelect takes any scorer") {
  const Tree t = three_children({1, 1, 1}, {0, 0, 0});
  const gsearch::mcts::ScoreSelect pick_last{
      [](const Tree&, NodeId, NodeId c) { return double(c); }};
  CHECK(pick_last.select(t, 0, 1, 3) == 3);
}
