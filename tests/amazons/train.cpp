// The training stage's measures (amazons/paper/train.hpp): rank agreement, and training end
// to end on a small label file in both readings.
#include "amazons/paper/train.hpp"

#include <doctest/doctest.h>

using namespace amazons;
using namespace amazons::paper;

TEST_CASE("spearman and concordance against values worked out by hand") {
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1.0));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1.0));
  // Ranks (1, 2, 3, 4) and (2, 1, 4, 3): d² = 1 + 1 + 1 + 1 = 4, rho = 1 - 6·4 / (4·15) = 0.6.
  CHECK(spearman({1, 2, 3, 4}, {2, 1, 4, 3}) == doctest::Approx(0.6));
  // Ties take their mean rank: (1, 2.5, 2.5, 4) against (1, 2, 3, 4).
  CHECK(spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(0.9486833));
  CHECK(spearman({1, 1, 1}, {1, 2, 3}) == 0.0);  // a constant sample
  // Pairs: (1,2) agree, (1,3) agree, (2,3) disagree -> 2 / 3.
  CHECK(concordance({1, 2, 3}, {1, 3, 2}) == doctest::Approx(2.0 / 3.0));
  CHECK(concordance({1, 1, 2}, {1, 2, 3}) == doctest::Approx(1.0));  // the tied pair left out
  CHECK(concordance({1, 1}, {1, 2}) == 0.5);                         // no pair left
}
