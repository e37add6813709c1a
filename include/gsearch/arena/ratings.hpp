// gsearch/arena/ratings.hpp — Elo ratings of several players from all their games at once.
//
// The model is Bradley–Terry with Elo's logistic scale: player i scores against player j
//     p_ij = 1 / (1 + 10^((r_j - r_i) / 400))
// in expectation, a draw counting as half a win. The ratings are the maximum of the
// likelihood of every game played (each pair's score s_ij out of n_ij games, binomially)
// times a prior of `prior_draws` virtual draws between every two players that met (as
// BayesElo's default of two): without it a player who won every game would have an
// infinite rating. Ratings are anchored: the anchor player is 0 and the others are relative
// to it. The 95 % intervals come from the curvature of the log-likelihood at the maximum
// (the inverse of the observed information, the anchor held fixed): each is r_i ± 1.96 se_i,
// the uncertainty of i's difference from the anchor. Newton's method, from all ratings 0;
// O(players³) a step, for tournaments of tens of players.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gsearch/core/stats.hpp"

namespace gsearch::arena {

// Results between `players` players: score[i][j] is what i scored against j (wins + draws
// / 2) in games[i][j] games; games is symmetric and score[i][j] + score[j][i] = games[i][j].
struct Results {
  explicit Results(std::size_t players)
      : score(players, std::vector<double>(players, 0.0)),
        games(players, std::vector<double>(players, 0.0)) {}
  // One game between i and j; `score_i` is i's result: 1, ½ or 0.
  void add(std::size_t i, std::size_t j, double score_i) {
    score[i][j] += score_i;
    score[j][i] += 1.0 - score_i;
    games[i][j] += 1.0;
    games[j][i] += 1.0;
  }
  [[nodiscard]] std::size_t players() const noexcept { return score.size(); }

  std::vector<std::vector<double>> score, games;
};

struct Rating {
  double elo = 0.0;  // relative to the anchor
  Interval ci;       // 95 %
};

// The maximum-likelihood ratings (see the top of this file). Throws std::invalid_argument for
// an anchor out of range, and when some player is not connected to the anchor by games.
[[nodiscard]] inline std::vector<Rating> elo_ratings(const Results& results, std::size_t anchor = 0,
                                                     double prior_draws = 2.0) {
  const std::size_t n = results.players();
  if (anchor >= n) throw std::invalid_argument("ratings: the anchor is not one of the players");
  // Work in natural units, θ = r · ln 10 / 400: p_ij = 1 / (1 + exp(θ_j - θ_i)).
  const double unit = 400.0 / std::log(10.0);
  std::vector<std::vector<double>> s = results.score, g = results.games;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && g[i][j] > 0) s[i][j] += prior_draws / 2, g[i][j] += prior_draws;
  // Every player must be reachable from the anchor through games, or its rating is free.
  std::vector<char> seen(n, 0);
  std::vector<std::size_t> stack{anchor};
  seen[anchor] = 1;
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    for (std::size_t j = 0; j < n; ++j)
      if (!seen[j] && g[i][j] > 0) seen[j] = 1, stack.push_back(j);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!seen[i])
      throw std::invalid_argument("ratings: player " + std::to_string(i) +
                                  " has no games linking it to the anchor");
  std::vector<double> theta(n, 0.0);
  // The free players (all but the anchor), indexed 0 .. m-1.
  std::vector<std::size_t> free;
  for (std::size_t i = 0; i < n; ++i)
    if (i != anchor) free.push_back(i);
  const std::size_t m = free.size();
  std::vector<std::vector<double>> info(m, std::vector<double>(m));  // -Hessian
  std::vector<double> grad(m);
  // The inverse of the information matrix (symmetric positive definite: every free player
  // is linked to the anchor), by Gauss–Jordan elimination with partial pivoting.
  const auto invert = [&](std::vector<std::vector<double>> a) {
    std::vector<std::vector<double>> inv(m, std::vector<double>(m, 0.0));
    for (std::size_t i = 0; i < m; ++i) inv[i][i] = 1.0;
    for (std::size_t c = 0; c < m; ++c) {
      std::size_t pivot = c;
      for (std::size_t r = c + 1; r < m; ++r)
        if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
      std::swap(a[c], a[pivot]);
      std::swap(inv[c], inv[pivot]);
      const double d = a[c][c];
      for (std::size_t k = 0; k < m; ++k) a[c][k] /= d, inv[c][k] /= d;
      for (std::size_t r = 0; r < m; ++r) {
        if (r == c || a[r][c] == 0) continue;
        const double f = a[r][c];
        for (std::size_t k = 0; k < m; ++k) a[r][k] -= f * a[c][k], inv[r][k] -= f * inv[c][k];
      }
    }
    return inv;
  };
  const auto derivatives = [&] {
    for (std::size_t a = 0; a < m; ++a) {
      grad[a] = 0;
      std::fill(info[a].begin(), info[a].end(), 0.0);
    }
    for (std::size_t a = 0; a < m; ++a) {
      const std::size_t i = free[a];
      for (std::size_t j = 0; j < n; ++j) {
        if (j == i || g[i][j] == 0) continue;
        const double p = 1.0 / (1.0 + std::exp(theta[j] - theta[i]));
        grad[a] += s[i][j] - g[i][j] * p;
        const double w = g[i][j] * p * (1 - p);
        info[a][a] += w;
        if (j != anchor) {
          const std::size_t b = j < anchor ? j : j - 1;  // j's index among the free
          info[a][b] -= w;
        }
      }
    }
  };
  for (int it = 0; it < 100 && m > 0; ++it) {
    derivatives();
    const auto inv = invert(info);
    double step = 0;
    for (std::size_t a = 0; a < m; ++a) {
      double d = 0;
      for (std::size_t b = 0; b < m; ++b) d += inv[a][b] * grad[b];
      theta[free[a]] += d;
      step = std::max(step, std::abs(d));
    }
    if (step < 1e-12) break;
  }
  std::vector<Rating> out(n);
  if (m > 0) {
    derivatives();
    const auto cov = invert(info);
    for (std::size_t a = 0; a < m; ++a) {
      const double r = unit * theta[free[a]], se = unit * std::sqrt(cov[a][a]);
      out[free[a]] = {r, {r - kZ95 * se, r + kZ95 * se}};
    }
  }
  return out;
}

}  // namespace gsearch::arena
