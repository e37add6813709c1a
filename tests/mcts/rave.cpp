// Node extension and RAVE: a backup policy's own node data, the playout's moves handed to it,
// AMAF statistics against hand-built trees, the β schedule, and RAVE searches on tic-tac-toe
// and 4x4 connect-3, whose answers are known.
#include "gsearch/mcts/rave.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "gsearch/mcts/mcts.hpp"
#include "support/mnk.hpp"
#include "support/proofs.hpp"

using gsearch::NodeId;
using test_games::TicTacToe;
namespace mcts = gsearch::mcts;

static_assert(sizeof(mcts::Node<int>) == sizeof(mcts::Node<int, mcts::NoData>));
static_assert(sizeof(mcts::Node<int, mcts::AmafStats>) == sizeof(mcts::Node<int>) + 8);
static_assert(mcts::BackupPolicy<mcts::RaveBackup, int>);
static_assert(mcts::SelectionPolicy<mcts::RaveSelect, mcts::Tree<int, mcts::AmafStats>>);

namespace rave_test {
TicTacToe ttt_after(std::initializer_list<int> cells) {
  TicTacToe g;
  for (int c : cells) g.apply({static_cast<std::uint8_t>(c)});
  return g;
}

// A move with padding between its members: its bytes do not identify it, so RaveBackup
// compares such moves with == (the other path of its lookup).
struct Padded {
  std::uint8_t tag = 0;
  std::uint16_t value = 0;
  friend bool operator==(const Padded&, const Padded&) = default;
};
static_assert(!std::has_unique_object_representations_v<Padded>);

template <class M>
M make(int v) {
  if constexpr (std::is_same_v<M, int>)
    return v;
  else
    return M{1, static_cast<std::uint16_t>(v)};
}

template <class M>
mcts::PlayoutStep<M> step(int v, gsearch::Player p) {
  return {make<M>(v), p};
}

using RaveSearch = mcts::Search<TicTacToe, mcts::RaveSelect, mcts::ExpandAll, mcts::RandomPlayout,
                                mcts::RaveBackup>;
}  // namespace rave_test
using namespace rave_test;

TEST_CASE_TEMPLATE("AMAF credits each child whose move its mover played later, once", M, int,
                   Padded) {
  // root (player 0 to move) -> 1 (10), 2 (11), 3 (12), movers 0;
  // 1 -> 4 (11), 5 (12), movers 1.
  mcts::Tree<M, mcts::AmafStats> t;
  t[0].mover = 1;
  const NodeId first = t.add_children(0, 3, 0);
  for (int i = 0; i < 3; ++i) t[first + i].move = make<M>(10 + i);
  const NodeId below = t.add_children(1, 2, 1);
  for (int i = 0; i < 2; ++i) t[below + i].move = make<M>(11 + i);
  const mcts::RaveBackup rave;

  // Path 0 -> 1 (10 by player 0) -> 5 (12 by player 1); the playout plays 11 by player 0
  // twice and 13 by player 1; a win for player 0.
  const std::vector<mcts::PlayoutStep<M>> playout{step<M>(11, 0), step<M>(13, 1), step<M>(11, 0)};
  rave.backup(t, mcts::Iteration<M>{5, 1.0, 0, playout});
  CHECK(t[1].data.amaf_visits == 1);  // 10: played by player 0 on the path
  CHECK(t[1].data.amaf_q == 1.0f);
  CHECK(t[2].data.amaf_visits == 1);  // 11: played by player 0 in the playout, counted once
  CHECK(t[2].data.amaf_q == 1.0f);
  CHECK(t[3].data.amaf_visits == 0);  // 12: played, but by player 1
  CHECK(t[4].data.amaf_visits == 0);  // 11 under node 1 is player 1's: player 0 played it
  CHECK(t[5].data.amaf_visits == 1);  // 12: the path's own move, by player 1, who lost
  CHECK(t[5].data.amaf_q == -1.0f);
  CHECK(t[0].data.amaf_visits == 0);  // the root is nobody's move
  CHECK(t[0].visits == 0);            // visits and means are the driver's, not the policy's

  // Path 0 -> 2 (11 by player 0); the playout plays 10 by player 1 and 12 by player 0; the
  // value -0.5 for player 1 is +0.5 for player 0.
  const std::vector<mcts::PlayoutStep<M>> second{step<M>(10, 1), step<M>(12, 0)};
  rave.backup(t, mcts::Iteration<M>{2, -0.5, 1, second});
  CHECK(t[1].data.amaf_visits == 1);  // 10 was player 1's this time
  CHECK(t[2].data.amaf_visits == 2);
  CHECK(t[2].data.amaf_q == doctest::Approx(0.75));
  CHECK(t[3].data.amaf_visits == 1);
  CHECK(t[3].data.amaf_q == doctest::Approx(0.5));
  CHECK(t[4].data.amaf_visits == 0);  // not on this iteration's path
}

TEST_CASE("AMAF statistics pool exactly") {
  mcts::AmafStats a{3, 0.5f}, b{1, -1.0f}, none{};
  a.merge(b);
  CHECK(a.amaf_visits == 4);
  CHECK(a.amaf_q == doctest::Approx(0.125));
  a.merge(none);
  CHECK(a.amaf_visits == 4);
  CHECK(a.amaf_q == doctest::Approx(0.125));
}

TEST_CASE("RaveSelect: untried first, AMAF values lead, then the child's own mean takes over") {
  mcts::Tree<int, mcts::AmafStats> t;
  t.add_children(0, 3, 0);
  t[0].visits = 100;
  const mcts::RaveSelect select{.c = 0.0, .bias = 0.1};
  // 1: never visited, AMAF 0.8 over 10; 2: visited 10 times at 0.2, AMAF 0.2.
  t[1].data = {10, 0.8f};
  t[2].visits = 10, t[2].q = 0.2f, t[2].data = {10, 0.2f};
  t[3].data = {};  // nothing known: tried first
  CHECK(select.select(t, 0, 1, 3) == 3);
  CHECK(select.select(t, 0, 1, 2) == 1);
  // Few visits, many AMAF samples: β ≈ 0.95, the AMAF values decide.
  t[1].visits = 1, t[1].q = 0.5f, t[1].data = {100, -0.5f};
  t[2].visits = 1, t[2].q = 0.4f, t[2].data = {100, 0.4f};
  CHECK(select.select(t, 0, 1, 2) == 2);
  // Many visits of both kinds: β ≈ 0.0025, the means decide.
  t[1].visits = 10000, t[1].data.amaf_visits = 10000;
  t[2].visits = 10000, t[2].data.amaf_visits = 10000;
  CHECK(select.select(t, 0, 1, 2) == 1);
  // The exploration term favours the less visited child when the values are equal.
  const mcts::RaveSelect explore{.c = 1.0, .bias = 0.1};
  t[1].q = t[2].q = 0.0f, t[1].data.amaf_q = t[2].data.amaf_q = 0.0f;
  t[2].visits = 100;
  CHECK(explore.select(t, 0, 1, 2) == 2);
}

namespace rave_test {
// A backup policy with node data of its own that checks what the driver hands it: its own
// count of iterations through each node, and the playout's moves, which replayed after the
// path from the root must reach a terminal state worth the value backed up.
struct Seen {
  std::uint32_t seen = 0;
  void merge(const Seen& other) noexcept { seen += other.seen; }
};
struct CheckingBackup {
  using NodeData = Seen;
  static constexpr bool kPlayoutMoves = true;
  const TicTacToe* root = nullptr;
  int* replays_ok = nullptr;
  int* iterations = nullptr;

  void backup(mcts::Tree<TicTacToe::Move, NodeData>& tree,
              const mcts::Iteration<TicTacToe::Move>& it) const {
    std::vector<TicTacToe::Move> path;
    for (NodeId n = it.leaf; n != 0; n = tree[n].parent) path.insert(path.begin(), tree[n].move);
    for (NodeId n = it.leaf; n != gsearch::kNoNode; n = tree[n].parent) ++tree[n].data.seen;
    TicTacToe g = *root;
    for (const auto& m : path) g.apply(m);
    for (const auto& s : it.playout) {
      if (g.to_move() != s.player) return;
      g.apply(s.move);
    }
    if (g.is_terminal() && g.result(it.perspective) == it.value) ++*replays_ok;
    ++*iterations;
  }
};
}  // namespace rave_test

TEST_CASE(
    "a backup policy's node data and the playout's moves reach it; visits stay the driver's") {
  const TicTacToe root;
  int replays_ok = 0, iterations = 0;
  mcts::Search<TicTacToe, mcts::Uct, mcts::ExpandAll, mcts::RandomPlayout, CheckingBackup> search(
      {.seed = 5}, {}, {}, {}, CheckingBackup{&root, &replays_ok, &iterations});
  search.set_root(root);
  const auto stats = search.run(gsearch::Budget::iters(3000));
  CHECK(iterations == static_cast<int>(stats.iterations));
  CHECK(replays_ok == iterations);  // every iteration replays to its value
  const auto& tree = search.tree();
  for (NodeId n = 0; n < tree.size(); ++n) REQUIRE(tree[n].data.seen == tree[n].visits);
}

TEST_CASE("RAVE finds the winning move and the necessary block in tic-tac-toe") {
  RaveSearch search({.seed = 1});
  search.set_root(ttt_after({0, 3, 1, 4}));  // X wins with 2
  search.run(gsearch::Budget::iters(2000));
  CHECK(search.best_move().cell == 2);
  search.set_root(ttt_after({0, 4, 8, 3}));  // O threatens 3-4-5: X must block 5
  search.run(gsearch::Budget::iters(4000));
  CHECK(search.best_move().cell == 5);
  // Unvisited children already carry AMAF values after a few iterations from the start.
  RaveSearch start({.seed = 2});
  start.set_root(TicTacToe{});
  start.run(gsearch::Budget::iters(3));
  int with_amaf = 0;
  for (NodeId c : start.tree().children(0))
    with_amaf += !start.tree()[c].visited() && start.tree()[c].data.amaf_visits > 0;
  CHECK(with_amaf > 0);
}

TEST_CASE("RAVE with the solver proves 4x4 connect-3 positions as negamax values them") {
  using Game = test_games::Mnk<4, 4, 3>;
  gsearch::Rng rng(11);
  test_support::Negamax<Game> negamax;
  int proven = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const auto g = test_support::random_position<Game>(rng, 5 + trial % 6);
    if (g.is_terminal()) continue;
    mcts::Search<Game, mcts::RaveSelect, mcts::ExpandAll, mcts::RandomPlayout, mcts::RaveBackup>
        search({.seed = static_cast<std::uint64_t>(trial), .solver = true});
    test_support::check_proof(search, g, negamax);
    ++proven;
  }
  CHECK(proven >= 8);
}

TEST_CASE("RAVE with threads: root-parallel trees pool their AMAF counts; a shared tree works") {
  const TicTacToe root;
  RaveSearch merged({.seed = 6, .threads = 2, .parallel = mcts::Parallel::kRoot});
  merged.set_root(root);
  merged.run(gsearch::Budget::iters(2000));
  // The two threads' searches, run apart: this thread's with the seed, the helper's with
  // derive_seed(seed, 1), 1000 iterations each.
  RaveSearch own({.seed = 6}), helper({.seed = gsearch::derive_seed(6, 1)});
  own.set_root(root);
  helper.set_root(root);
  own.run(gsearch::Budget::iters(1000));
  helper.run(gsearch::Budget::iters(1000));
  const auto& m = merged.tree();
  const auto& a = own.tree();
  const auto& b = helper.tree();
  REQUIRE(m.root().num_children == 9);
  for (int i = 0; i < 9; ++i) {
    const NodeId c = m.root().first_child + i;
    CHECK(m[c].visits == a[a.root().first_child + i].visits + b[b.root().first_child + i].visits);
    CHECK(m[c].data.amaf_visits == a[a.root().first_child + i].data.amaf_visits +
                                       b[b.root().first_child + i].data.amaf_visits);
  }
  // One shared tree, two threads: the budget met, the win found.
  RaveSearch shared({.seed = 7, .threads = 2, .parallel = mcts::Parallel::kTree});
  shared.set_root(ttt_after({0, 3, 1, 4}));
  CHECK(shared.run(gsearch::Budget::iters(3000)).iterations == 3000);
  CHECK(shared.best_move().cell == 2);
}
