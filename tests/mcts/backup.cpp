// Backing up values, and the depth-normalising pass against numbers worked out by hand.
#include "gsearch/mcts/backup.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "gsearch/core/rng.hpp"

using gsearch::NodeId;
using Tree = gsearch::mcts::Tree<int>;

namespace {
// root(0) -> A(1), B(2); A -> A1(3), A2(4), and a slot (5) that stays unvisited; q (mover's
// view): root 0, A 0.2, B -0.4, A1 0.6, A2 -0.2.
Tree hand_tree() {
  Tree t;
  t.add_children(0, 2, 0);
  t.add_children(1, 3, 1);
  const float q[] = {0.0f, 0.2f, -0.4f, 0.6f, -0.2f};
  for (NodeId n = 0; n < 5; ++n) {
    t[n].visits = 1;
    t[n].q = q[n];
  }
  return t;
}
}  // namespace

TEST_CASE("the driver's bookkeeping records the value for each node's mover") {
  // Players: root (player 0 to move) -> child 1 (mover 0) -> child 2 (mover 0, same player
  // again, as in the decision model) -> child 3 (mover 1).
  Tree t;
  t[0].mover = 1;
  t.add_children(0, 1, 0);
  t.add_children(1, 1, 0);
  t.add_children(2, 1, 1);
  gsearch::mcts::record_visit(t, 3, 1.0, 0);  // a win for player 0
  CHECK(t[3].q == -1.0f);
  CHECK(t[2].q == 1.0f);
  CHECK(t[1].q == 1.0f);
  CHECK(t[0].q == -1.0f);
  gsearch::mcts::record_visit(t, 3, 0.0, 0);
  CHECK(t[3].visits == 2);
  CHECK(t[1].q == 0.5f);
  CHECK(t[0].visits == 2);
}

TEST_CASE("depth normalisation (eq. 10-12) matches a hand computation") {
  // root(0) -> A(1), B(2); A -> A1(3), A2(4), and a slot (5) that stays unvisited.
  // q (mover's view) and obj0 = (q + 1) / 2:
  //   root q 0 -> 0.5; A 0.2 -> 0.6; B -0.4 -> 0.3; A1 0.6 -> 0.8; A2 -0.2 -> 0.4.
  // Pass I (bottom-up): A1, A2, B are leaves and keep 0.8, 0.4, 0.3.
  //   A (depth 1, odd): mean(0.8, 0.4) = 0.6 -> 0.6 + 2^-0.6 = 1.2597540
  //   root (depth 0, even): mean(1.2597540, 0.3) = 0.7798770 -> 0.5 + 0.7798770 = 1.2798770
  // Pass II, H_max = 2: root / 3 = 0.4266257; A / 2 = 0.6298770; B / 2 = 0.15;
  //   A1 / 1 = 0.8; A2 / 1 = 0.4.
  Tree t = hand_tree();
  gsearch::mcts::depth_normalize(t);
  const auto& obj = t.objective();
  REQUIRE(obj.size() == t.size());
  CHECK(obj[0] == doctest::Approx(0.4266257));
  CHECK(obj[1] == doctest::Approx(0.6298770));
  CHECK(obj[2] == doctest::Approx(0.15));
  CHECK(obj[3] == doctest::Approx(0.8));
  CHECK(obj[4] == doctest::Approx(0.4));
  CHECK(obj[5] == 0.0f);  // unvisited
  // TreeViewOf now reports the objectives.
  const gsearch::mcts::TreeViewOf<int> view(t);
  CHECK(view.objective(0) == doctest::Approx(0.4266257));
}

TEST_CASE("depth-normalised objectives lie in [0, 1] on random trees") {
  gsearch::Rng rng(4);
  for (int trial = 0; trial < 50; ++trial) {
    Tree t;
    t[0].visits = 1;
    for (int i = 0; i < 60; ++i) {
      // Expand a random visited leaf with 1..3 visited children.
      NodeId n = static_cast<NodeId>(rng.below(t.size()));
      if (!t[n].visited() || t[n].expanded) continue;
      const auto k = 1 + rng.below(3);
      const NodeId first = t.add_children(n, k, 0);
      for (NodeId c = first; c < first + k; ++c) {
        t[c].visits = 1;
        t[c].q = static_cast<float>(rng.uniform() * 2 - 1);
      }
    }
    gsearch::mcts::depth_normalize(t);
    for (float v : t.objective()) {
      CHECK(v >= 0.0f);
      CHECK(v <= 1.0f + 1e-6f);
    }
  }
}

TEST_CASE("size-neutral accumulation (kMean) matches a hand computation") {
  // The tree of the test above. kMean: obj(n) = (obj(n) + t) / 2, t = v̄ or, where the
  // player changes (odd depth with Parity::kDepth), 1 - v̄; no Pass II.
  //   A (odd): mean(0.8, 0.4) = 0.6 -> (0.6 + 0.4) / 2 = 0.5
  //   root (even): mean(0.5, 0.3) = 0.4 -> (0.5 + 0.4) / 2 = 0.45
  //   leaves keep 0.3, 0.8, 0.4.
  Tree t = hand_tree();
  gsearch::mcts::depth_normalize(t, gsearch::mcts::Parity::kDepth,
                                 gsearch::mcts::Accumulation::kMean);
  const auto& obj = t.objective();
  CHECK(obj[0] == doctest::Approx(0.45));
  CHECK(obj[1] == doctest::Approx(0.5));
  CHECK(obj[2] == doctest::Approx(0.3));
  CHECK(obj[3] == doctest::Approx(0.8));
  CHECK(obj[4] == doctest::Approx(0.4));
  CHECK(obj[5] == 0.0f);
}

TEST_CASE("the paper's sums reward a deep subtree; kMean does not") {
  // Two siblings of the same value 0.5 for the same player: X has a chain of three visited
  // descendants of value 0.5 each, Y none. One player throughout (no flips).
  const auto build = [](Tree& t) {
    t.add_children(0, 2, 0);  // X = 1, Y = 2
    NodeId n = 1;
    for (int d = 0; d < 3; ++d) n = t.add_children(n, 1, 0);
    for (NodeId i = 0; i < t.size(); ++i) {
      t[i].visits = 1;
      t[i].q = 0.0f;  // value 0.5 for every mover
    }
  };
  const auto same_player = [](NodeId) { return false; };
  std::vector<NodeId> parent;
  for (const auto acc : {gsearch::mcts::Accumulation::kSum, gsearch::mcts::Accumulation::kMean}) {
    Tree t;
    build(t);
    parent.clear();
    std::vector<float> obj;
    for (NodeId i = 0; i < t.size(); ++i) {
      parent.push_back(t[i].parent);
      obj.push_back((t[i].q + 1.0f) / 2.0f);
    }
    gsearch::mcts::DepthNormalizer().run(
        parent, obj, [](NodeId) { return true; }, same_player, acc);
    if (acc == gsearch::mcts::Accumulation::kSum) {
      // X: 0.5 + 0.5 + 0.5 + 0.5 over H_max + 1 - 1 = 4 -> 0.5; Y: 0.5 / 4 = 0.125.
      CHECK(obj[1] == doctest::Approx(0.5));
      CHECK(obj[2] == doctest::Approx(0.125));
    } else {
      CHECK(obj[1] == doctest::Approx(0.5));
      CHECK(obj[2] == doctest::Approx(0.5));
    }
  }
}
