// Positions the Amazons benchmarks share.
#pragma once

#include "amazons/rules/position.hpp"
#include "gsearch/core/rng.hpp"

namespace bench {

// The 10x10 start after `turns` uniformly random turns (a fixed seed: the same position in
// every benchmark and every run).
inline amazons::Position position_at(int turns) {
  amazons::Position pos;
  gsearch::Rng rng(20240611);
  for (int t = 0; t < turns && !pos.is_terminal(); ++t) pos.apply(pos.random_move(rng));
  return pos;
}

}  // namespace bench
