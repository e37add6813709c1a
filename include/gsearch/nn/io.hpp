// gsearch/nn/io.hpp — weight files: every parameter of a model, by name and shape, in JSON.
//
//   {
//     "format": "gsearch-nn-weights",      what the file is
//     "version": 1,                        the format version (this code reads exactly 1)
//     "model": "gat_ae",                   the model kind (Model::kind)
//     "parameters": [
//       {"name": "gat.0.W", "shape": [5, 32], "data": [r0c0, r0c1, ...]},   row-major
//       ...
//     ]
//   }
//
// load_weights() checks the whole file against the model before it changes anything: a file
// that is not JSON, is truncated, is not a gsearch weight file, has another version or model
// kind, lacks a parameter the model has, has one the model lacks, or has a shape or data
// length that does not match, is refused with a WeightFileError whose one-line message names
// the file and the problem:
//   weights.json: parameter "gat.0.W" has shape 5x32, expected 5x16
// parse_weights() does the same from text already in memory (weights compiled into a program).
// save_weights() writes through write_file_atomically() (gsearch/core/file.hpp), so an
// existing file is never left half-written, even after a crash; non-finite values are refused.
//
// A Model is anything with `static constexpr std::string_view kind` and a `parameters()`
// returning a ParamListT (UctAe, GatAe, AutoEncoder).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gsearch/core/file.hpp"

#include "gsearch/nn/tensor.hpp"

namespace gsearch::nn {

inline constexpr std::string_view kWeightFormat = "gsearch-nn-weights";
inline constexpr int kWeightVersion = 1;

// A weight file could not be read or written; what() is "<file>: <problem>".
class WeightFileError : public std::runtime_error {
 public:
  WeightFileError(const std::filesystem::path& file, const std::string& problem)
      : std::runtime_error(file.string() + ": " + problem) {}
};

// The largest weight file load_weights() reads (a file as large as /dev/zero is refused).
inline constexpr std::size_t kMaxWeightFileBytes = std::size_t{1} << 26;

template <class M>
concept WeightModel = requires(M& m) {
  { M::kind } -> std::convertible_to<std::string_view>;
  m.parameters();
};

namespace detail {

[[noreturn]] inline void weight_file_fail(const std::filesystem::path& file,
                                          const std::string& problem) {
  throw WeightFileError(file, problem);
}

template <class T>
nlohmann::json weights_to_json(std::string_view kind, const ParamListT<T>& params,
                               const std::filesystem::path& file) {
  nlohmann::json j;
  j["format"] = kWeightFormat;
  j["version"] = kWeightVersion;
  j["model"] = kind;
  auto& list = j["parameters"] = nlohmann::json::array();
  for (const auto& p : params) {
    if (!p.value->allFinite())
      throw WeightFileError(file, "parameter \"" + p.name + "\" has a non-finite value");
    std::vector<double> data(static_cast<std::size_t>(p.value->size()));
    for (Index k = 0; k < p.value->size(); ++k)
      data[static_cast<std::size_t>(k)] = static_cast<double>(p.value->data()[k]);
    list.push_back({{"name", p.name},
                    {"shape", {p.value->rows(), p.value->cols()}},
                    {"data", std::move(data)}});
  }
  return j;
}

// Reads and checks every parameter of `j` against `params` into `values`, without touching
// the model; throws WeightFileError naming the first problem.
template <class T>
std::vector<MatrixT<T>> weights_from_json(const nlohmann::json& j, std::string_view kind,
                                          const ParamListT<T>& params,
                                          const std::filesystem::path& file) {
  auto fail = [&](const std::string& what) { weight_file_fail(file, what); };
  if (!j.is_object() || !j.contains("format") || j["format"] != kWeightFormat)
    fail("not a gsearch weight file (no \"format\": \"" + std::string(kWeightFormat) + "\")");
  if (!j.contains("version") || !j["version"].is_number_integer()) fail("no integer \"version\"");
  if (j["version"].get<std::int64_t>() != kWeightVersion)
    fail("format version " + j["version"].dump() + ", this code reads version " +
         std::to_string(kWeightVersion));
  if (!j.contains("model") || !j["model"].is_string()) fail("no \"model\" kind");
  if (j["model"].get<std::string>() != kind)
    fail("holds a \"" + j["model"].get<std::string>() + "\" model, expected \"" +
         std::string(kind) + "\"");
  if (!j.contains("parameters") || !j["parameters"].is_array()) fail("no \"parameters\" array");
  const auto& list = j["parameters"];
  std::unordered_set<std::string> wanted;
  for (const auto& p : params) wanted.insert(p.name);
  std::unordered_set<std::string> seen;
  for (const auto& entry : list) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
      fail("a parameter entry has no \"name\"");
    const auto name = entry["name"].get<std::string>();
    if (!wanted.contains(name)) fail("parameter \"" + name + "\" is not in the model");
    if (!seen.insert(name).second) fail("parameter \"" + name + "\" appears twice");
  }
  std::vector<MatrixT<T>> values;
  values.reserve(params.size());
  for (const auto& p : params) {
    const nlohmann::json* entry = nullptr;
    for (const auto& e : list)
      if (e["name"] == p.name) entry = &e;
    if (entry == nullptr) fail("parameter \"" + p.name + "\" is missing");
    const auto& e = *entry;
    const std::string what = "parameter \"" + p.name + "\"";
    if (!e.contains("shape") || !e["shape"].is_array() || e["shape"].size() != 2 ||
        !e["shape"][0].is_number_integer() || !e["shape"][1].is_number_integer())
      fail(what + " has no [rows, cols] shape");
    const auto rows = e["shape"][0].get<std::int64_t>();
    const auto cols = e["shape"][1].get<std::int64_t>();
    const auto want = shape_string(p.value->rows(), p.value->cols());
    if (rows != p.value->rows() || cols != p.value->cols())
      fail(what + " has shape " + std::to_string(rows) + "x" + std::to_string(cols) +
           ", expected " + want);
    if (!e.contains("data") || !e["data"].is_array()) fail(what + " has no \"data\" array");
    const auto& data = e["data"];
    if (static_cast<std::int64_t>(data.size()) != rows * cols)
      fail(what + " has " + std::to_string(data.size()) + " values, expected " +
           std::to_string(rows * cols) + " for shape " + want);
    MatrixT<T> m(p.value->rows(), p.value->cols());
    for (std::size_t k = 0; k < data.size(); ++k) {
      if (!data[k].is_number()) fail(what + " value " + std::to_string(k) + " is not a number");
      const double v = data[k].get<double>();
      if (!std::isfinite(v)) fail(what + " value " + std::to_string(k) + " is not finite");
      // A finite double can still overflow the model's scalar (1e300 as a float).
      if (std::abs(v) > static_cast<double>(std::numeric_limits<T>::max()))
        fail(what + " value " + std::to_string(k) + " is out of range");
      m.data()[k] = static_cast<T>(v);
    }
    values.push_back(std::move(m));
  }
  return values;
}

}  // namespace detail

// Writes every parameter of `model` to `path` (durably and atomically: write_file_atomically).
// Throws WeightFileError when the file cannot be written or a value is not finite; an
// existing file at `path` is then left as it was.
template <WeightModel Model>
void save_weights(const std::filesystem::path& path, Model& model) {
  const auto text = detail::weights_to_json(Model::kind, model.parameters(), path).dump(1) + "\n";
  try {
    write_file_atomically(path, text);
  } catch (const FileError& e) {
    throw WeightFileError(path, "cannot write the file: " + e.reason());
  }
}

// Reads weights from `text` (the contents of a weight file, e.g. one compiled into a program)
// into `model`: all or nothing. `source` names the text in messages, as a file name would.
// Throws WeightFileError as load_weights() does.
template <WeightModel Model>
void parse_weights(std::string_view text, Model& model, const std::filesystem::path& source) {
  if (text.empty()) throw WeightFileError(source, "the file is empty");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    std::string why = "not valid JSON (truncated or damaged)";
    try {
      [[maybe_unused]] const auto reparsed = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      why += ", at byte " + std::to_string(e.byte);
    } catch (const nlohmann::json::exception& e) {
      // Not only parse_error: a number too large for a double ("1e3080") is out_of_range.
      why += std::string(": ") + e.what();
    }
    throw WeightFileError(source, why);
  }
  auto params = model.parameters();
  auto values = detail::weights_from_json(j, Model::kind, params, source);
  for (std::size_t i = 0; i < params.size(); ++i) *params[i].value = std::move(values[i]);
}

// Reads `path` into `model`: all or nothing. Throws WeightFileError, naming the file and the
// problem, for any file that does not match the model exactly (see the top of this header).
template <WeightModel Model>
void load_weights(const std::filesystem::path& path, Model& model) {
  std::string text;
  try {
    text = read_file(path, kMaxWeightFileBytes);
  } catch (const FileError& e) {
    throw WeightFileError(path, "cannot read the file: " + e.reason());
  }
  parse_weights(text, model, path);
}

}  // namespace gsearch::nn
