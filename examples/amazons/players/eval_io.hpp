// amazons/players/eval_io.hpp — weight files of the Lieberum evaluation (amazons tune writes
// them; the agents' eval=FILE reads them).
//
// A JSON object:
//   {"format": "amazons-lieberum-weights", "version": 1,
//    "kappa": 0.2, "w_open": 40, "scale": 0.15,
//    "opening": [t1, t2, c1, c2, m], "ending": [t1, t2, c1, c2, m],
//    "command": "how the file was made" (optional)}
// Every number must be finite; kappa in (-1, 1), w_open and scale positive.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "amazons/players/eval.hpp"
#include "gsearch/core/file.hpp"

namespace amazons {

// A weight file that cannot be read or is not one: "weights FILE: REASON".
class EvalWeightsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kLieberumWeightsFormat = "amazons-lieberum-weights";

inline std::string lieberum_weights_json(const LieberumWeights& w, const std::string& command) {
  nlohmann::ordered_json j;
  j["format"] = kLieberumWeightsFormat;
  j["version"] = 1;
  j["kappa"] = w.kappa;
  j["w_open"] = w.w_open;
  j["scale"] = w.scale;
  j["opening"] = w.opening;
  j["ending"] = w.ending;
  if (!command.empty()) j["command"] = command;
  return j.dump(2) + "\n";
}

// Reads the weights from JSON text; `where` names the source in messages.
inline LieberumWeights parse_lieberum_weights(const std::string& text, const std::string& where) {
  const auto fail = [&](const std::string& why) -> EvalWeightsError {
    return EvalWeightsError("weights " + where + ": " + why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw fail("not JSON");
  }
  if (!j.is_object() || j.value("format", std::string()) != kLieberumWeightsFormat)
    throw fail(std::string("not a weight file (needs \"format\": \"") + kLieberumWeightsFormat +
               "\")");
  if (!j.contains("version") || j["version"] != 1) throw fail("unknown version (this reads 1)");
  const auto number = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number()) throw fail(std::string(key) + " is not a number");
    const double v = j[key].get<double>();
    if (!std::isfinite(v)) throw fail(std::string(key) + " is not finite");
    return v;
  };
  const auto five = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_array() || j[key].size() != 5)
      throw fail(std::string(key) + " is not an array of 5 numbers");
    std::array<double, 5> out{};
    for (std::size_t i = 0; i < 5; ++i) {
      if (!j[key][i].is_number()) throw fail(std::string(key) + " is not an array of 5 numbers");
      out[i] = j[key][i].get<double>();
      if (!std::isfinite(out[i]))
        throw fail(std::string(key) + " holds a number that is not finite");
    }
    return out;
  };
  LieberumWeights w;
  w.kappa = number("kappa");
  w.w_open = number("w_open");
  w.scale = number("scale");
  w.opening = five("opening");
  w.ending = five("ending");
  if (!(w.kappa > -1 && w.kappa < 1)) throw fail("kappa is not in (-1, 1)");
  if (!(w.w_open > 0)) throw fail("w_open is not positive");
  if (!(w.scale > 0)) throw fail("scale is not positive");
  return w;
}

inline LieberumWeights read_lieberum_weights(const std::string& path) {
  std::string text;
  try {
    text = gsearch::read_file(path, std::size_t{1} << 20);
  } catch (const gsearch::FileError& e) {
    throw EvalWeightsError(std::string("weights: ") + e.what());
  }
  return parse_lieberum_weights(text, path);
}

// The weights an agent spec's eval= (or amazons tune --from) names: lieberum (Lieberum's own),
// tuned (amazons tune's, shipped), spsa (amazons spsa's, shipped; eval.hpp) or a weight file.
inline LieberumWeights lieberum_weights_named(const std::string& name) {
  if (name == "lieberum") return LieberumWeights{};
  if (name == "tuned") return tuned_lieberum_weights();
  if (name == "spsa") return spsa_lieberum_weights();
  return read_lieberum_weights(name);
}

}  // namespace amazons
