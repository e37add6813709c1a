// DecisionNet: a batched prior-value evaluator whose batch gives what single calls give, whose
// priors are distributions over the legal decisions, and which MCTS searches with.
#include "amazons/players/policy_value.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "gsearch/mcts/mcts.hpp"

using amazons::DecisionNet;
using amazons::DecisionPosition;
using amazons::Position;

TEST_CASE("DecisionNet: values in [-1, 1], priors over the legal decisions, batch = singles") {
  std::vector<DecisionPosition> batch;
  gsearch::Rng rng(8);
  DecisionPosition d{Position{}};
  while (batch.size() < 12) {
    batch.push_back(d);
    d.apply(d.random_move(rng));
  }
  DecisionNet net(3, 32);
  constexpr std::size_t kRow = DecisionPosition::max_moves;
  std::vector<float> values(batch.size()), priors(batch.size() * kRow, -1.0f);
  net.evaluate_batch(batch, values, priors);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    CAPTURE(i);
    CHECK(values[i] >= -1.0f);
    CHECK(values[i] <= 1.0f);
    gsearch::MoveListOf<DecisionPosition> moves;
    batch[i].legal_moves(moves);
    double sum = 0;
    for (std::size_t k = 0; k < moves.size(); ++k) {
      CHECK(priors[i * kRow + k] > 0.0f);
      sum += priors[i * kRow + k];
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    std::vector<float> one_value(1), one_priors(kRow);
    net.evaluate_batch(std::span<const DecisionPosition>(&batch[i], 1), one_value, one_priors);
    CHECK(one_value[0] == doctest::Approx(values[i]).epsilon(1e-4));
    for (std::size_t k = 0; k < moves.size(); ++k)
      CHECK(one_priors[k] == doctest::Approx(priors[i * kRow + k]).epsilon(1e-4));
  }
}

TEST_CASE("DecisionNet drives a batched PUCT search to a legal decision") {
  using Search = gsearch::mcts::Search<DecisionPosition, gsearch::mcts::Puct,
                                       gsearch::mcts::ExpandAll, DecisionNet>;
  Search search({.seed = 2, .batch = 16, .dirichlet_alpha = 0.3}, {}, {}, DecisionNet(4, 32));
  const DecisionPosition start{Position::from_fen("1q2q1/q4q/6/6/Q4Q/1Q2Q1 w - - 0 1")};
  search.set_root(start);
  const auto stats = search.run(gsearch::Budget::iters(300));
  CHECK(stats.iterations == 300);
  CHECK(gsearch::is_legal(start, search.best_move()));
}
