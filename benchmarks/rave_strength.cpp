// RAVE against plain UCT at equal iterations on m,n,k games (docs/strength.md, "RAVE").
//
//   rave_strength [--board 6x6k4|8x8k5] [--games 200] [--iters 1000] [--opponent uct|rave]
//                 [--opponent-iters N] [--seed 1] [--threads 2]
//
// RAVE searches a fresh tree of exactly --iters iterations a move with random playouts, its
// opponent (UCT by default) --opponent-iters (default: the same; more, to compare at equal
// time; RAVE against RAVE with more iterations checks that more search plays better);
// games come in pairs from the same random two-ply opening, colours swapped. Prints RAVE's
// score with its Wilson 95 % interval, and each side's time per move.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

#include "gsearch/arena/match.hpp"
#include "gsearch/mcts/mcts.hpp"
#include "gsearch/mcts/rave.hpp"
#include "support/mnk.hpp"

namespace {
namespace mcts = gsearch::mcts;

template <class Search>
class SearchAgent {
 public:
  SearchAgent(std::string name, std::uint64_t iters, Search search)
      : name_(std::move(name)), iters_(iters), search_(std::move(search)) {}
  [[nodiscard]] std::string name() const { return name_; }
  void reset(std::uint64_t seed) { search_.reseed(seed); }
  template <class G>
  typename G::Move choose(const G& state) {
    search_.set_root(state);
    search_.run(gsearch::Budget::iters(iters_));
    return search_.best_move();
  }

 private:
  std::string name_;
  std::uint64_t iters_;
  Search search_;
};

template <class G>
using RaveSearch =
    mcts::Search<G, mcts::RaveSelect, mcts::ExpandAll, mcts::RandomPlayout, mcts::RaveBackup>;

template <class G>
int run(const gsearch::arena::MatchParams& params, std::uint64_t iters, const std::string& opponent,
        std::uint64_t opponent_iters) {
  const auto make_rave = [&] {
    return SearchAgent<RaveSearch<G>>("rave", iters, RaveSearch<G>(mcts::Params{}));
  };
  const auto play = [&](auto make_b) {
    return gsearch::arena::summarize(gsearch::arena::play_match(G{}, make_rave, make_b, params));
  };
  const auto s = opponent == "rave" ? play([&] {
    return SearchAgent<RaveSearch<G>>("rave", opponent_iters, RaveSearch<G>(mcts::Params{}));
  })
                                    : play([&] {
                                        return SearchAgent<mcts::Search<G>>(
                                            "uct", opponent_iters, mcts::Search<G>(mcts::Params{}));
                                      });
  std::printf(
      "rave vs %s, %zu games, %llu vs %llu iterations a move: %.1f/%zu (%zu wins, %zu draws, "
      "%zu losses), score %.3f [%.3f, %.3f], %.2f ms vs %.2f ms a move\n",
      opponent.c_str(), s.games, static_cast<unsigned long long>(iters),
      static_cast<unsigned long long>(opponent_iters), s.score, s.games, s.wins, s.draws, s.losses,
      s.score / static_cast<double>(s.games), s.score_ci.low, s.score_ci.high,
      1e3 * s.seconds_per_move[0], 1e3 * s.seconds_per_move[1]);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app("RAVE against UCT at equal iterations on m,n,k games");
  std::string board = "8x8k5";
  gsearch::arena::MatchParams params;
  params.games = 200;
  params.threads = 2;
  std::string opponent = "uct";
  std::uint64_t iters = 1000, opponent_iters = 0;
  app.add_option("--board", board, "6x6k4 or 8x8k5")->check(CLI::IsMember({"6x6k4", "8x8k5"}));
  app.add_option("--games", params.games, "games (pairs of colours)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--iters", iters, "iterations per move")->check(CLI::Range(1, 100000000));
  app.add_option("--opponent", opponent, "uct or rave")->check(CLI::IsMember({"uct", "rave"}));
  app.add_option("--opponent-iters", opponent_iters,
                 "the opponent's iterations per move (default: --iters)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--seed", params.seed, "match seed");
  app.add_option("--threads", params.threads, "games played at once")->check(CLI::Range(1, 64));
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "rave_strength: %s\n", e.what());  // one line
    return 2;
  }
  if (!opponent_iters) opponent_iters = iters;
  if (board == "6x6k4")
    return run<test_games::Mnk<6, 6, 4>>(params, iters, opponent, opponent_iters);
  return run<test_games::Mnk<8, 8, 5>>(params, iters, opponent, opponent_iters);
}
