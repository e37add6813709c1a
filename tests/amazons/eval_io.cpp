// Weight files of the Lieberum evaluation: written and read back, bad files refused.
#include "amazons/players/eval_io.hpp"

#include <doctest/doctest.h>

#include <string>

TEST_CASE("weight files: written and read back; bad files refused with the reason") {
  amazons::LieberumWeights w;
  w.kappa = -0.1;
  w.scale = 0.25;
  w.opening[2] = 0.875;
  w.ending[4] = -1.5;
  const auto back = amazons::parse_lieberum_weights(amazons::lieberum_weights_json(w, "cmd"), "x");
  CHECK(back.kappa == w.kappa);
  CHECK(back.scale == w.scale);
  CHECK(back.opening == w.opening);
  CHECK(back.ending == w.ending);
  const auto error = [](const std::string& text) -> std::string {
    try {
      (void)amazons::parse_lieberum_weights(text, "f.json");
    } catch (const amazons::EvalWeightsError& e) {
      return e.what();
    }
    return "";
  };
  const std::string head = R"({"format": "amazons-lieberum-weights", "version": 1, )";
  const std::string arrays = R"("opening": [1, 2, 3, 4, 5], "ending": [1, 2, 3, 4, 5])";
  CHECK(error("{") == "weights f.json: not JSON");
  CHECK(error("[]") ==
        "weights f.json: not a weight file (needs \"format\": \"amazons-lieberum-weights\")");
  CHECK(error(R"({"format": "amazons-lieberum-weights", "version": 2})") ==
        "weights f.json: unknown version (this reads 1)");
  CHECK(error(head + R"("kappa": "a"})") == "weights f.json: kappa is not a number");
  CHECK(error(head + R"("kappa": 0.2, "w_open": 40, "scale": 1, "opening": [1, 2]})") ==
        "weights f.json: opening is not an array of 5 numbers");
  CHECK(error(head + R"("kappa": 1, "w_open": 40, "scale": 1, )" + arrays + "}") ==
        "weights f.json: kappa is not in (-1, 1)");
  CHECK(error(head + R"("kappa": 0, "w_open": 0, "scale": 1, )" + arrays + "}") ==
        "weights f.json: w_open is not positive");
  CHECK(error(head + R"("kappa": 0, "w_open": 1, "scale": -1, )" + arrays + "}") ==
        "weights f.json: scale is not positive");
  CHECK(error(head + R"("kappa": 0, "w_open": 1, "scale": 1e999, )" + arrays + "}") != "");
  CHECK(error(head + R"("kappa": 0, "w_open": 1, "scale": 1, )" + arrays + "}") == "");
  CHECK_THROWS_WITH_AS((void)amazons::read_lieberum_weights("/no/such/weights.json"),
                       doctest::Contains("weights: cannot read /no/such/weights.json"),
                       amazons::EvalWeightsError);
  CHECK(amazons::lieberum_weights_named("lieberum").opening == amazons::LieberumWeights{}.opening);
}

TEST_CASE("named weights: tuned and spsa are the shipped sets") {
  CHECK(amazons::lieberum_weights_named("tuned").opening ==
        amazons::tuned_lieberum_weights().opening);
  CHECK(amazons::lieberum_weights_named("spsa").ending == amazons::spsa_lieberum_weights().ending);
  CHECK(amazons::spsa_lieberum_weights().opening != amazons::LieberumWeights{}.opening);
  CHECK_THROWS_AS((void)amazons::lieberum_weights_named("no-such-weights.json"),
                  amazons::EvalWeightsError);
}
