// The MCTS driver: it finds wins, is reproducible, keeps its tree, respects its budgets.
#include "gsearch/mcts/mcts.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <concepts>
#include <map>
#include <span>
#include <stdexcept>

#include "amazons/rules/decision.hpp"
#include "support/mnk.hpp"
#include "support/proofs.hpp"

using test_games::TicTacToe;
namespace mcts = gsearch::mcts;

namespace {
TicTacToe play(std::initializer_list<int> cells) {
  TicTacToe g;
  for (int c : cells) g.apply({static_cast<std::uint8_t>(c)});
  return g;
}
}  // namespace

TEST_CASE("UCT finds the winning move and the necessary block in tic-tac-toe") {
  // X: 0, 1; O: 3, 4; X to move wins with 2.
  mcts::Search<TicTacToe> search({.seed = 1});
  search.set_root(play({0, 3, 1, 4}));
  search.run(gsearch::Budget::iters(2000));
  CHECK(search.best_move().cell == 2);
  // X: 0, 8; O: 4, 3 ... O threatens 3-4-5; X must block 5.
  search.set_root(play({0, 4, 8, 3}));
  search.run(gsearch::Budget::iters(4000));
  CHECK(search.best_move().cell == 5);
}

TEST_CASE("each iteration adds one node until the tree is exhausted; budgets in nodes") {
  // Far from the end of the game, every iteration adds exactly one node.
  mcts::Search<amazons::DecisionPosition> search({.seed = 2});
  search.set_root(amazons::DecisionPosition{amazons::Position{}});
  const auto stats = search.run(gsearch::Budget::iters(500));
  CHECK(stats.iterations == 500);
  CHECK(stats.nodes_added == 500);
  CHECK(search.tree().visited_count() == 501);  // + the root
  const auto more = search.run(gsearch::Budget::node_count(100));
  CHECK(more.nodes_added == 100);
  CHECK(more.iterations == 100);
  // Near the end: iterations that end on known terminal nodes add nothing, and a node
  // budget still stops once enough nodes were added.
  mcts::Search<TicTacToe> ttt({.seed = 2});
  ttt.set_root(play({0, 4, 8, 2, 6, 3}));  // X to move, three empty cells
  const auto small = ttt.run(gsearch::Budget::iters(50));
  CHECK(small.nodes_added < 50);
  CHECK(ttt.tree().visited_count() == small.nodes_added + 1);
}

TEST_CASE("same seed and budget give the same tree and move; another seed may differ") {
  const amazons::DecisionPosition start{
      amazons::Position::from_fen("1q1q1/q3q/5/Q3Q/1Q1Q1 w - - 0 1")};
  auto run = [&](std::uint64_t seed) {
    mcts::Search<amazons::DecisionPosition> s({.seed = seed});
    s.set_root(start);
    s.run(gsearch::Budget::iters(3000));
    std::vector<std::uint32_t> visits;
    for (const auto& c : s.root_children()) visits.push_back(c.visits);
    return std::pair{s.principal_variation(), visits};
  };
  CHECK(run(7) == run(7));
  CHECK(run(7).second != run(8).second);
}

TEST_CASE("the decision model needs nothing special: MCTS finds a winning turn") {
  //   4  .  .  x  B        Black's queen on d4 has two empty neighbours, c3 and d3.
  //   3  .  .  .  .        White's only winning turn is a1-c3/d3: the queen takes c3 and
  //   2  .  .  .  .        the arrow d3, and Black cannot move. Found through three plies
  //   1  W  .  .  .        of one player's decisions.
  const auto pos = amazons::Position::from_fen("2*q/4/4/Q3 w - - 0 1");
  mcts::Search<amazons::DecisionPosition> search({.seed = 3});
  search.set_root(amazons::DecisionPosition{pos});
  search.run(gsearch::Budget::iters(20000));
  amazons::DecisionPosition d{pos};
  for (const auto& m : search.principal_variation(3)) d.apply(m);
  REQUIRE(d.stage() == amazons::Stage::kQueen);
  CHECK(d.position().fen() == "2*q/2Q*/4/4 b - - 0 1");
  CHECK(d.is_terminal());  // Black, to move, cannot move: White has won
}

TEST_CASE("advance() keeps the subtree of a visited child, else starts afresh") {
  mcts::Search<TicTacToe> search({.seed = 4});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(1000));
  const auto best = search.best_move();
  std::uint32_t child_visits = 0;
  for (const auto& c : search.root_children())
    if (c.move == best) child_visits = c.visits;
  CHECK(search.advance(best));
  CHECK(search.tree().root().visits == child_visits);
  CHECK(search.root_state() == play({best.cell}));
  mcts::Search<TicTacToe> fresh({.seed = 4, .reuse_tree = false});
  fresh.set_root(TicTacToe{});
  fresh.run(gsearch::Budget::iters(100));
  CHECK_FALSE(fresh.advance(fresh.best_move()));
  CHECK(fresh.tree().size() == 1);
}

TEST_CASE("max_nodes caps the arena: leaves are then evaluated without expansion") {
  mcts::Search<amazons::Position> search({.seed = 5, .max_nodes = 5000});
  search.set_root(amazons::Position{});
  search.run(gsearch::Budget::iters(300));
  CHECK(search.tree().size() <= 5000);
  CHECK(search.tree().root().visits == 300);
}

TEST_CASE("a cap below the root's number of moves still gives a legal move") {
  // Regression: with max_nodes = 5 the root (2,176 moves) was never expanded, and best_move()
  // read the child slot at kNoNode.
  const amazons::Position start;
  mcts::Search<amazons::Position> search({.seed = 5, .max_nodes = 5});
  search.set_root(start);
  search.run(gsearch::Budget::iters(50));
  CHECK(search.tree().root().num_children == 2176);
  CHECK(search.tree().size() == 2177);  // no node below the root's children
  CHECK(gsearch::is_legal(start, search.best_move()));
}

TEST_CASE("best_move() before any iteration is legal; at a terminal root it throws") {
  mcts::Search<TicTacToe> search({.seed = 5});
  search.set_root(TicTacToe{});
  CHECK(search.best_move().cell < 9);      // the root not yet expanded: the first legal move
  search.set_root(play({0, 3, 1, 4, 2}));  // X has three in a row
  search.run(gsearch::Budget::iters(10));
  CHECK_THROWS_AS((void)search.best_move(), std::logic_error);
}

TEST_CASE("the solver proves a win in one, stops, and plays it") {
  // X: 0, 1; O: 3, 4; X to move wins with 2.
  mcts::Search<TicTacToe> search({.seed = 1, .solver = true});
  search.set_root(play({0, 3, 1, 4}));
  const auto stats = search.run(gsearch::Budget::iters(100000));
  CHECK(search.tree().root().exhausted);
  CHECK(search.tree().root().q == -1.0f);  // a loss for O, who moved into the root
  CHECK(stats.iterations < 100);
  CHECK(search.best_move().cell == 2);
}

TEST_CASE("the solver's proven values agree with negamax on tic-tac-toe and 4x4 connect-3") {
  // Positions from random play, from nearly full boards back to a few stones; each search
  // runs until its root is proven, and the proof must be the exact value.
  gsearch::Rng rng(7);
  test_support::Negamax<test_games::Mnk<4, 4, 3>> negamax;
  int proven = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const auto g = test_support::random_position<test_games::Mnk<4, 4, 3>>(rng, 4 + trial % 8);
    if (g.is_terminal()) continue;
    mcts::Search<test_games::Mnk<4, 4, 3>> search(
        {.seed = static_cast<std::uint64_t>(trial), .solver = true});
    test_support::check_proof(search, g, negamax);
    ++proven;
  }
  CHECK(proven >= 16);
  // Tic-tac-toe from the empty board is a draw.
  mcts::Search<TicTacToe> search({.seed = 3, .solver = true});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(2'000'000));
  REQUIRE(search.tree().root().exhausted);
  CHECK(search.tree().root().q == 0.0f);
}

namespace {
// Every node has at least as many visits as its children together, and a mean in [-1, 1].
template <class Tree>
void check_statistics(const Tree& tree) {
  for (gsearch::NodeId n = 0; n < tree.size(); ++n) {
    std::uint64_t below = 0;
    for (gsearch::NodeId c : tree.children(n)) below += tree[c].visits;
    REQUIRE(below <= tree[n].visits);
    REQUIRE(tree[n].q >= -1.0f);
    REQUIRE(tree[n].q <= 1.0f);
  }
}
}  // namespace

TEST_CASE("root parallelism: the budget shared out, the trees merged, reproducible") {
  const amazons::DecisionPosition start{amazons::Position{}};
  const mcts::Params params{.seed = 4, .threads = 3, .parallel = mcts::Parallel::kRoot};
  mcts::Search<amazons::DecisionPosition> a(params), b(params);
  a.set_root(start);
  b.set_root(start);
  const auto stats = a.run(gsearch::Budget::iters(3001));
  b.run(gsearch::Budget::iters(3001));
  CHECK(stats.iterations == 3001);
  CHECK(a.tree().root().visits == 3001);
  check_statistics(a.tree());
  // The same seed and iteration budget give the same merged tree.
  REQUIRE(a.tree().size() == b.tree().size());
  bool same = true;
  for (gsearch::NodeId n = 0; n < a.tree().size(); ++n)
    same = same && a.tree()[n].visits == b.tree()[n].visits && a.tree()[n].q == b.tree()[n].q &&
           a.tree()[n].move == b.tree()[n].move;
  CHECK(same);
  CHECK(a.best_move() == b.best_move());
  // The merged tree holds more than the search's own share: deep statistics are pooled too.
  mcts::Search<amazons::DecisionPosition> one({.seed = 4});
  one.set_root(start);
  one.run(gsearch::Budget::iters(1001));
  CHECK(a.tree().visited_count() > one.tree().visited_count() * 3 / 2);
  // A budget smaller than the thread count still runs every iteration once.
  mcts::Search<TicTacToe> few({.seed = 2, .threads = 4});
  few.set_root(TicTacToe{});
  CHECK(few.run(gsearch::Budget::iters(3)).iterations == 3);
  CHECK(few.tree().root().visits == 3);
}

TEST_CASE("merge_from pools trees breadth first; once time is up, below the root's children") {
  using S = mcts::Search<amazons::DecisionPosition>;
  const amazons::DecisionPosition start{amazons::Position{}};
  S a({.seed = 1}), b({.seed = 2}), c({.seed = 3}), full({.seed = 1}), cut({.seed = 1});
  for (S* s : {&a, &b, &c, &full, &cut}) {
    s->set_root(start);
    s->run(gsearch::Budget::iters(2000));
  }
  const std::array<const S::TreeType*, 2> others{&b.tree(), &c.tree()};
  full.merge_from(others);
  int asked = 0;
  cut.merge_from(others, [&] { return ++asked > 0; });
  CHECK(asked > 0);
  // The child of node n (of `tree`) reached by `move`, or kNoNode.
  const auto child = [](const S::TreeType& tree, gsearch::NodeId n, auto move) {
    for (gsearch::NodeId k : tree.children(n))
      if (tree[k].move == move) return k;
    return gsearch::kNoNode;
  };
  // The visits, in `tree`, of the node that the moves of `path` (nodes of tree a) lead to.
  const auto visits = [&](const S::TreeType& tree, std::initializer_list<gsearch::NodeId> path) {
    gsearch::NodeId here = 0;
    for (const gsearch::NodeId step : path)
      if ((here = child(tree, here, a.tree()[step].move)) == gsearch::kNoNode) return 0u;
    return tree[here].visits;
  };
  for (const S* s : {&full, &cut}) {
    CHECK(s->tree().root().visits == 6000);
    check_statistics(s->tree());
  }
  // Every root child pools the three trees' visits, in both merges.
  std::size_t compared = 0, differ = 0;  // grandchildren where the other trees add visits
  for (const gsearch::NodeId k : a.tree().children(0)) {
    const std::uint32_t want = a.tree()[k].visits + visits(b.tree(), {k}) + visits(c.tree(), {k});
    CHECK(visits(full.tree(), {k}) == want);
    CHECK(visits(cut.tree(), {k}) == want);
    // One level further down, only the full merge pooled them.
    for (const gsearch::NodeId g : a.tree().children(k)) {
      if (!a.tree()[g].visited()) continue;
      const std::uint32_t pooled =
          a.tree()[g].visits + visits(b.tree(), {k, g}) + visits(c.tree(), {k, g});
      CHECK(visits(full.tree(), {k, g}) == pooled);
      CHECK(visits(cut.tree(), {k, g}) == a.tree()[g].visits);
      ++compared;
      differ += pooled != a.tree()[g].visits;
    }
  }
  CHECK(compared > 10);
  CHECK(differ > 0);  // else the cut merge could not be told from the full one
  CHECK(full.tree().size() > cut.tree().size());
}

TEST_CASE("normalising passes during a search: every node of a view has an objective") {
  // Nodes are added after the last pass, and merged trees drop theirs: a view reads each
  // visited node's objective, or its q where it has none, and never past the pass's array.
  for (const unsigned threads : {1u, 2u}) {
    mcts::Search<TicTacToe> search({.seed = 9, .normalize_every = 64, .threads = threads});
    search.set_root(TicTacToe{});
    search.run(gsearch::Budget::iters(1000));
    const mcts::TreeViewOf<TicTacToe::Move> view(search.tree());
    for (gsearch::NodeId n = 0; n < view.size(); ++n) {
      REQUIRE(view.objective(n) >= 0.0);
      REQUIRE(view.objective(n) <= 1.0);
    }
  }
}

TEST_CASE("tree parallelism: one tree, consistent statistics, the budget met exactly") {
  mcts::Search<amazons::DecisionPosition> search(
      {.seed = 4, .threads = 2, .parallel = mcts::Parallel::kTree});
  search.set_root(amazons::DecisionPosition{amazons::Position{}});
  const auto stats = search.run(gsearch::Budget::iters(3000));
  CHECK(stats.iterations == 3000);
  const auto& tree = search.tree();
  CHECK(tree.root().visits == 3000);  // every virtual loss taken back
  CHECK(tree.visited_count() == stats.nodes_added + 1);
  check_statistics(tree);
  // A time budget ends too, and a winning move is still found, in both modes.
  for (const auto mode : {mcts::Parallel::kTree, mcts::Parallel::kRoot}) {
    mcts::Search<TicTacToe> ttt({.seed = 1, .threads = 2, .parallel = mode});
    ttt.set_root(play({0, 3, 1, 4}));
    CHECK(ttt.run(gsearch::Budget::millis(20)).iterations > 0);
    CHECK(ttt.best_move().cell == 2);
  }
}

namespace {
// A bulk prior that counts its calls, one per expansion (atomic: the threads' copies of the
// expansion policy count into the same place).
struct CountingPrior {
  std::atomic<int>* calls;
  void operator()(const amazons::Position&, const gsearch::MoveListOf<amazons::Position>& moves,
                  float* priors) const {
    ++*calls;
    for (std::size_t i = 0; i < moves.size(); ++i) priors[i] = static_cast<float>(i % 7);
  }
};
}  // namespace

TEST_CASE("tree parallelism: children listed outside the lock, each node expanded once") {
  std::atomic<int> calls = 0;
  using Search = mcts::Search<amazons::Position, mcts::Uct, mcts::Expansion<CountingPrior>,
                              mcts::RandomPlayout>;
  Search search({.seed = 3, .threads = 2, .parallel = mcts::Parallel::kTree}, {},
                {.prior = {&calls}, .top_k = 30, .threshold = 4}, {.max_plies = 4});
  search.set_root(amazons::Position{});
  const auto stats = search.run(gsearch::Budget::iters(4000));
  CHECK(stats.iterations == 4000);
  const auto& tree = search.tree();
  CHECK(tree.root().visits == 4000);
  check_statistics(tree);
  int expanded = 0;
  std::size_t slots = 1;
  for (gsearch::NodeId n = 0; n < tree.size(); ++n) {
    if (!tree[n].expanded) continue;
    ++expanded;
    slots += tree[n].num_children;
    for (gsearch::NodeId c : tree.children(n)) REQUIRE(tree[c].parent == n);
  }
  CHECK(expanded > 20);
  CHECK(calls.load() == expanded);  // no node's children were listed twice
  // The root is expanded before the threads start: every iteration went through a child.
  std::uint64_t through_children = 0;
  for (gsearch::NodeId c : tree.children(0)) through_children += tree[c].visits;
  CHECK(through_children == tree.root().visits);
  CHECK(tree.size() == slots);
}

TEST_CASE("threads with the solver: the same proofs as one thread") {
  gsearch::Rng rng(11);
  test_support::Negamax<test_games::Mnk<4, 4, 3>> negamax;
  for (int trial = 0; trial < 12; ++trial) {
    const auto g = test_support::random_position<test_games::Mnk<4, 4, 3>>(rng, 5);
    if (g.is_terminal()) continue;
    const auto mode = trial % 2 ? mcts::Parallel::kTree : mcts::Parallel::kRoot;
    mcts::Search<test_games::Mnk<4, 4, 3>> search({.seed = static_cast<std::uint64_t>(trial),
                                                   .solver = true,
                                                   .threads = 2,
                                                   .parallel = mode});
    test_support::check_proof(search, g, negamax);
  }
}

namespace {
// A prior-value evaluator for tic-tac-toe: uniform priors, value 0, and a count of its calls
// (atomic: with threads, the copies of one evaluator count into the same place).
struct UniformPriorValue {
  std::atomic<int>* calls;
  std::atomic<int>* states;
  void evaluate_batch(std::span<const TicTacToe> batch, std::span<float> values,
                      std::span<float> priors) const {
    REQUIRE(values.size() == batch.size());
    REQUIRE(priors.size() == batch.size() * TicTacToe::max_moves);
    ++*calls;
    *states += static_cast<int>(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      REQUIRE_FALSE(batch[i].is_terminal());
      gsearch::MoveListOf<TicTacToe> moves;
      batch[i].legal_moves(moves);
      values[i] = 0.0f;
      for (std::size_t k = 0; k < moves.size(); ++k)
        priors[i * TicTacToe::max_moves + k] = 1.0f / static_cast<float>(moves.size());
    }
  }
};
using PriorValueSearch = mcts::Search<TicTacToe, mcts::Puct, mcts::ExpandAll, UniformPriorValue>;
static_assert(mcts::PriorValueEvaluator<UniformPriorValue, TicTacToe>);

// An evaluator that must be given (like one holding a network): its search has no default
// constructor, and asking whether it has one (as std::optional does) is no compile error (clang
// reported one while the constructor took its policies as default arguments).
struct GivenPriorValue : UniformPriorValue {
  explicit GivenPriorValue(const UniformPriorValue& inner) : UniformPriorValue(inner) {}
};
static_assert(!std::default_initializable<
              mcts::Search<TicTacToe, mcts::Puct, mcts::ExpandAll, GivenPriorValue>>);
static_assert(std::default_initializable<PriorValueSearch>);
}  // namespace

TEST_CASE("a prior-value evaluator: batches of leaves, each valued once, wins found") {
  for (const std::uint32_t batch : {1u, 8u, 32u}) {
    CAPTURE(batch);
    std::atomic<int> calls = 0, states = 0;
    PriorValueSearch search({.seed = 1, .batch = batch}, {.c = 1.5}, {}, {&calls, &states});
    search.set_root(play({0, 3, 1, 4}));
    const auto stats = search.run(gsearch::Budget::iters(400));
    CHECK(stats.iterations == 400);
    CHECK(search.tree().root().visits == 400);
    CHECK(search.best_move().cell == 2);
    // Every state the evaluator saw is a node expanded with its priors: one call per leaf.
    int expanded = 0;
    for (gsearch::NodeId n = 0; n < search.tree().size(); ++n)
      expanded += search.tree()[n].expanded;
    CHECK(states.load() == expanded);
    if (batch > 1) CHECK(calls.load() * 2 < states.load());  // most calls carry several leaves
    // The same seed and budget give the same tree.
    std::atomic<int> calls2 = 0, states2 = 0;
    PriorValueSearch again({.seed = 1, .batch = batch}, {.c = 1.5}, {}, {&calls2, &states2});
    again.set_root(play({0, 3, 1, 4}));
    again.run(gsearch::Budget::iters(400));
    CHECK(again.tree().size() == search.tree().size());
    CHECK(states2.load() == states.load());
  }
  // The necessary block, with threads (root parallelism) too.
  std::atomic<int> calls = 0, states = 0;
  PriorValueSearch block({.seed = 2, .threads = 2, .batch = 8}, {.c = 1.5}, {}, {&calls, &states});
  block.set_root(play({0, 4, 8, 3}));
  block.run(gsearch::Budget::iters(3000));
  CHECK(block.best_move().cell == 5);
  PriorValueSearch shared({.seed = 2, .threads = 2, .parallel = mcts::Parallel::kTree}, {}, {},
                          {&calls, &states});
  shared.set_root(TicTacToe{});
  CHECK_THROWS_AS(shared.run(gsearch::Budget::iters(10)), std::invalid_argument);
}

namespace {
// Priors ∝ cell + 1 over the legal cells, value 0; and a filter keeping the even cells.
struct RisingPriorValue {
  void evaluate_batch(std::span<const TicTacToe> batch, std::span<float> values,
                      std::span<float> priors) const {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      gsearch::MoveListOf<TicTacToe> moves;
      batch[i].legal_moves(moves);
      values[i] = 0.0f;
      float total = 0;
      for (const auto& m : moves) total += static_cast<float>(m.cell + 1);
      for (std::size_t k = 0; k < moves.size(); ++k)
        priors[i * TicTacToe::max_moves + k] = static_cast<float>(moves[k].cell + 1) / total;
    }
  }
};
struct EvenCells {
  void operator()(const TicTacToe&, gsearch::MoveListOf<TicTacToe>& moves) const {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moves[i].cell % 2 == 0) moves[kept++] = moves[i];
    moves.truncate(kept);
  }
};
}  // namespace

TEST_CASE("a prior-value search keeps to the expansion's filter and top_k, priors rescaled") {
  using Restricted = mcts::Expansion<mcts::NoPrior, EvenCells>;
  for (const std::uint32_t top_k : {0u, 3u}) {
    CAPTURE(top_k);
    mcts::Search<TicTacToe, mcts::Puct, Restricted, RisingPriorValue> search(
        {.seed = 1, .batch = 4}, {}, Restricted{.top_k = top_k});
    search.set_root(TicTacToe{});
    search.run(gsearch::Budget::iters(200));
    std::map<int, float> priors;
    for (const auto c : search.tree().children(0))
      priors[search.tree()[c].move.cell] = search.tree()[c].prior;
    // Even cells 0, 2, 4, 6, 8 with priors ∝ 1, 3, 5, 7, 9; the top 3: 8, 6, 4.
    const std::map<int, float> want =
        top_k ? std::map<int, float>{{4, 5 / 21.f}, {6, 7 / 21.f}, {8, 9 / 21.f}}
              : std::map<int, float>{
                    {0, 1 / 25.f}, {2, 3 / 25.f}, {4, 5 / 25.f}, {6, 7 / 25.f}, {8, 9 / 25.f}};
    REQUIRE(priors.size() == want.size());
    for (const auto& [cell, p] : want) CHECK(priors[cell] == doctest::Approx(p));
    // The nodes below are restricted too (up to four stones the even cells never run out).
    for (const auto c : search.tree().children(0))
      for (const auto g : search.tree().children(c)) CHECK(search.tree()[g].move.cell % 2 == 0);
  }
}

TEST_CASE("Dirichlet noise at the root, the visit distribution, moves drawn by temperature") {
  std::atomic<int> calls = 0, states = 0;
  PriorValueSearch search({.seed = 3, .batch = 4, .dirichlet_alpha = 0.3}, {}, {},
                          {&calls, &states});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(500));
  double prior_sum = 0;
  bool uniform = true;
  for (gsearch::NodeId c : search.tree().children(0)) {
    prior_sum += search.tree()[c].prior;
    uniform = uniform && std::abs(search.tree()[c].prior - 1.0f / 9) < 1e-6f;
  }
  CHECK(prior_sum == doctest::Approx(1.0).epsilon(1e-5));
  CHECK_FALSE(uniform);
  const auto policy = search.root_policy();
  CHECK(policy.size() == 9);
  double share = 0;
  for (const auto& [move, p] : policy) share += p;
  CHECK(share == doctest::Approx(1.0).epsilon(1e-5));
  gsearch::Rng rng(4);
  CHECK(search.sample_move(0.0, rng) == search.best_move());
  std::array<int, 9> drawn{};
  for (int i = 0; i < 2000; ++i) ++drawn[search.sample_move(1.0, rng).cell];
  for (const auto& [move, p] : policy)  // temperature 1: in proportion to the visits
    CHECK(std::abs(drawn[move.cell] / 2000.0 - p) < 0.04);  // 3.6 binomial deviations
}

TEST_CASE("a normalising search writes objectives in [0, 1]") {
  mcts::Search<TicTacToe> search({.seed = 6, .normalize_every = 100, .normalize_at_end = true});
  search.set_root(TicTacToe{});
  search.run(gsearch::Budget::iters(1000));
  const auto& obj = search.tree().objective();
  REQUIRE(obj.size() == search.tree().size());
  for (float v : obj) {
    CHECK(v >= 0.0f);
    CHECK(v <= 1.0f);
  }
}

TEST_CASE("PUCT with priors, progressive widening and a cut-off evaluation compose") {
  // Prior: prefer the centre and corners; widening opens 2 children, +2 every 50 visits.
  struct Prior {
    void operator()(const TicTacToe&, const gsearch::MoveListOf<TicTacToe>& moves, float* p) const {
      for (std::size_t i = 0; i < moves.size(); ++i)
        p[i] = moves[i].cell == 4 ? 0.5f : moves[i].cell % 2 == 0 ? 0.1f : 0.025f;
    }
  };
  struct Zero {
    double operator()(const TicTacToe&) const { return 0.0; }
  };
  using S = mcts::Search<TicTacToe, mcts::Puct, mcts::Expansion<Prior>, mcts::CutoffPlayout<Zero>>;
  S search({.seed = 9}, {}, {.widen_initial = 2, .widen_step = 2, .widen_every = 50}, {.plies = 2});
  search.set_root(play({0, 3, 1, 4}));
  search.run(gsearch::Budget::iters(3000));
  CHECK(search.best_move().cell == 2);
}

TEST_CASE("a node budget ends even when the tree runs out of new nodes") {
  // X to move with three empty cells. Leaves are never expanded (threshold out of reach), so
  // after the three root children no iteration adds a node, and none is terminal: the tree
  // is never exhausted. A budget of 1000 nodes cannot be met; the search stops after exactly
  // iterations_per_node * 1000 iterations.
  mcts::Search<TicTacToe, mcts::Uct, mcts::Expansion<>> search(
      {.seed = 8, .iterations_per_node = 10}, {}, {.threshold = 1000000});
  search.set_root(play({0, 4, 8, 2, 6, 3}));
  const auto stats = search.run(gsearch::Budget::node_count(1000));
  CHECK(stats.iterations == 10000);
  CHECK(stats.nodes_added == 3);
  CHECK(!search.tree().root().exhausted);
  CHECK(search.best_move().cell == 7);  // X completes 6-7-8
}

TEST_CASE("a search stops once the whole game tree below its root is explored") {
  // X to move with two empty cells after O's mistake: every line ends within two plies.
  mcts::Search<TicTacToe, mcts::Uct> search({.seed = 8}, {.c = 10.0});
  search.set_root(play({0, 4, 8, 2, 6, 3, 5}));
  const auto stats = search.run(gsearch::Budget::iters(100000));
  CHECK(search.tree().root().exhausted);
  CHECK(stats.iterations < 100000);
}
