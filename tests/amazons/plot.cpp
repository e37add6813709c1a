#include "amazons/paper/plot.hpp"

#include <doctest/doctest.h>

using namespace amazons::plot;

TEST_CASE("moving average over a trailing window") {
  const auto m = moving_average({1, 2, 3, 4, 5, 6}, 3);
  REQUIRE(m.size() == 6);
  CHECK(m[0] == doctest::Approx(1.0));
  CHECK(m[1] == doctest::Approx(1.5));
  CHECK(m[2] == doctest::Approx(2.0));
  CHECK(m[5] == doctest::Approx(5.0));
}

TEST_CASE("charts are standalone SVG with their titles, legends and escaped text") {
  const std::string line = line_chart(
      "loss <raw>", "iteration", "MSE",
      {{"raw", {0.04, 0.02, 0.01}, "#1f77b4", 1.0}, {"avg", {0.04, 0.03, 0.02}, "red", 2}});
  CHECK(line.rfind("<svg", 0) == 0);
  CHECK(line.find("</svg>") != std::string::npos);
  CHECK(line.find("loss &lt;raw&gt;") != std::string::npos);
  CHECK(line.find("<polyline") != std::string::npos);
  const std::string bars = bar_chart(
      "win rates", "win rate",
      {{"vs uctae N=20", 0.7, 0.63, 0.76, 0.795}, {"vs sgga", 0.5, 0.43, 0.57, -1}}, "paper");
  CHECK(bars.find("vs uctae N=20") != std::string::npos);
  CHECK(bars.find("#e45756") != std::string::npos);  // the paper's mark
  // An empty or flat series still draws.
  CHECK(line_chart("t", "x", "y", {{"flat", {1, 1, 1}, "black", 1}}).find("<polyline") !=
        std::string::npos);
}
