#include "gsearch/nn/io.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "gsearch/nn/autoencoder.hpp"
#include "gsearch/nn/gat.hpp"

namespace nn = gsearch::nn;
namespace fs = std::filesystem;

namespace {

// A fresh directory for this test program, removed at exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("gsearch-nn-io-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// The message load_weights throws for `text`, or "" when it loads.
template <class Model>
std::string load_error(const fs::path& p, const std::string& text, Model& model) {
  write(p, text);
  try {
    nn::load_weights(p, model);
  } catch (const nn::WeightFileError& e) {
    return e.what();
  }
  return "";
}

// Edits one part of a valid file's JSON.
template <class Edit>
std::string edited(const std::string& good, Edit edit) {
  auto j = nlohmann::json::parse(good);
  edit(j);
  return j.dump();
}

}  // namespace

TEST_CASE("weight files round-trip exactly, for each model kind") {
  TempDir dir;
  gsearch::Rng rng(1), other(2);
  const auto file = dir.path / "gat.json";
  nn::GatAe a({}, rng), b({}, other);
  nn::save_weights(file, a);
  nn::load_weights(file, b);
  const auto pa = a.parameters(), pb = b.parameters();
  REQUIRE(pa.size() == pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) CHECK(*pa[i].value == *pb[i].value);
  const auto j = nlohmann::json::parse(read(file));
  CHECK(j["format"] == "gsearch-nn-weights");
  CHECK(j["version"] == 1);
  CHECK(j["model"] == "gat_ae");
  CHECK(j["parameters"][8]["name"] == "gat.0.W");
  CHECK(j["parameters"][8]["shape"] == nlohmann::json::array({5, 32}));
  CHECK(!fs::exists(dir.path / "gat.json.tmp"));

  nn::UctAe u({}, rng), v({}, other);
  nn::save_weights(dir.path / "uct.json", u);
  nn::load_weights(dir.path / "uct.json", v);
  CHECK(*u.parameters()[0].value == *v.parameters()[0].value);

  // A Scorer on its own (e.g. a value network): AE + head, the head with its bias.
  nn::Scorer s({}, true, rng), t({}, true, other);
  nn::save_weights(dir.path / "scorer.json", s);
  nn::load_weights(dir.path / "scorer.json", t);
  const auto ps = s.parameters(), pt = t.parameters();
  REQUIRE(ps.size() == 6);
  CHECK(ps[5].name == "w.b");
  for (std::size_t i = 0; i < ps.size(); ++i) CHECK(*ps[i].value == *pt[i].value);
  CHECK(nlohmann::json::parse(read(dir.path / "scorer.json"))["model"] == "scorer");
  nn::Scorer no_bias({}, false, other);  // a head without bias does not read that file
  CHECK_THROWS_AS(nn::load_weights(dir.path / "scorer.json", no_bias), nn::WeightFileError);
}

TEST_CASE("damaged or mismatched weight files are refused with a message naming the problem") {
  TempDir dir;
  gsearch::Rng rng(1);
  nn::GatAe model({}, rng);
  const auto file = dir.path / "weights.json";
  nn::save_weights(file, model);
  const std::string good = read(file);
  const std::string name = file.string() + ": ";
  const nn::Matrix before = model.layers()[0].weight();

  CHECK(load_error(file, good, model).empty());
  CHECK(load_error(file, "", model) == name + "the file is empty");
  CHECK(load_error(file, "weights, version 1", model) ==
        name + "not valid JSON (truncated or damaged), at byte 1");
  CHECK(load_error(file, good.substr(0, good.size() / 2), model)
            .starts_with(name + "not valid JSON (truncated or damaged), at byte "));
  CHECK(load_error(file, R"({"hello": 1})", model) ==
        name + "not a gsearch weight file (no \"format\": \"gsearch-nn-weights\")");
  CHECK(load_error(file, "[1, 2, 3]", model) ==
        name + "not a gsearch weight file (no \"format\": \"gsearch-nn-weights\")");
  CHECK(load_error(file, edited(good, [](auto& j) { j["version"] = 2; }), model) ==
        name + "format version 2, this code reads version 1");
  CHECK(load_error(file, edited(good, [](auto& j) { j["version"] = "1"; }), model) ==
        name + "no integer \"version\"");
  CHECK(load_error(file, edited(good, [](auto& j) { j["model"] = "uct_ae"; }), model) ==
        name + "holds a \"uct_ae\" model, expected \"gat_ae\"");
  CHECK(load_error(file, edited(good, [](auto& j) { j["parameters"].erase(8); }), model) ==
        name + "parameter \"gat.0.W\" is missing");
  CHECK(load_error(file,
                   edited(good,
                          [](auto& j) {
                            auto extra = j["parameters"][0];
                            extra["name"] = "gat.9.W";
                            j["parameters"].push_back(extra);
                          }),
                   model) == name + "parameter \"gat.9.W\" is not in the model");
  CHECK(load_error(file,
                   edited(good, [](auto& j) { j["parameters"].push_back(j["parameters"][0]); }),
                   model) == name + "parameter \"ae1.enc.W\" appears twice");

  // A model of another shape: gat.0 with 4 heads of 4 channels (5x16) reads a 5x32 file.
  nn::GatAeConfig narrow;
  narrow.layers[0].out = 4;
  narrow.layers[1].in = 16;
  nn::GatAe small(narrow, rng);
  nn::save_weights(dir.path / "small.json", small);
  CHECK(load_error(file, good, small) ==
        name + "parameter \"gat.0.W\" has shape 5x32, expected 5x16");
  CHECK(load_error(file, read(dir.path / "small.json"), model) ==
        name + "parameter \"gat.0.W\" has shape 5x16, expected 5x32");

  CHECK(
      load_error(file, edited(good, [](auto& j) { j["parameters"][8]["data"].erase(0); }), model) ==
      name + "parameter \"gat.0.W\" has 159 values, expected 160 for shape 5x32");
  CHECK(load_error(file, edited(good, [](auto& j) { j["parameters"][8]["data"][3] = "x"; }),
                   model) == name + "parameter \"gat.0.W\" value 3 is not a number");
  CHECK(load_error(file, edited(good, [](auto& j) { j["parameters"][8].erase("shape"); }), model) ==
        name + "parameter \"gat.0.W\" has no [rows, cols] shape");
  CHECK(load_error(file, edited(good, [](auto& j) { j.erase("parameters"); }), model) ==
        name + "no \"parameters\" array");

  // Nothing was changed by any refused file.
  CHECK(model.layers()[0].weight() == before);

  const auto missing = dir.path / "absent.json";
  try {
    nn::load_weights(missing, model);
    FAIL("no exception");
  } catch (const nn::WeightFileError& e) {
    CHECK(std::string(e.what()) ==
          missing.string() + ": cannot read the file: No such file or directory");
  }
  // /dev/zero and a directory: one line each, no unbounded read.
  for (const auto& [path, why] :
       {std::pair<std::filesystem::path, std::string>{"/dev/zero", "longer than 67108864 bytes"},
        {dir.path, "it is a directory"}}) {
    try {
      nn::load_weights(path, model);
      FAIL("no exception");
    } catch (const nn::WeightFileError& e) {
      CHECK(std::string(e.what()) == path.string() + ": cannot read the file: " + why);
    }
  }
}

TEST_CASE("a failed save leaves an existing good file as it was") {
  TempDir dir;
  gsearch::Rng rng(3);
  nn::UctAe model({}, rng);
  const auto file = dir.path / "uct.json";
  nn::save_weights(file, model);
  const std::string good = read(file);
  model.movement().head().weight()(2, 0) = std::numeric_limits<float>::quiet_NaN();
  try {
    nn::save_weights(file, model);
    FAIL("no exception");
  } catch (const nn::WeightFileError& e) {
    CHECK(std::string(e.what()) == file.string() + ": parameter \"w1.W\" has a non-finite value");
  }
  CHECK(read(file) == good);
  model.movement().head().weight()(2, 0) = 0.5f;
  const auto nowhere = dir.path / "no-such-dir" / "uct.json";
  CHECK_THROWS_AS(nn::save_weights(nowhere, model), nn::WeightFileError);
  CHECK(!fs::exists(nowhere));
  nn::load_weights(file, model);  // the good file still loads
  CHECK(model.movement().head().weight()(2, 0) != 0.5f);
}

TEST_CASE("parse_weights reads a weight file's text, with the same checks") {
  gsearch::Rng rng(5), other(6);
  nn::UctAe a({}, rng), b({}, other);
  TempDir dir;
  nn::save_weights(dir.path / "u.json", a);
  const std::string text = read(dir.path / "u.json");
  nn::parse_weights(text, b, "shipped uct_ae");
  CHECK(*a.parameters()[3].value == *b.parameters()[3].value);
  try {
    nn::parse_weights(text.substr(0, 40), b, "shipped uct_ae");
    FAIL("no exception");
  } catch (const nn::WeightFileError& e) {
    CHECK(std::string(e.what()).starts_with("shipped uct_ae: not valid JSON"));
  }
  nn::GatAe g({}, rng);
  CHECK_THROWS_WITH_AS(nn::parse_weights(text, g, "x"),
                       "x: holds a \"uct_ae\" model, expected \"gat_ae\"", nn::WeightFileError);
}

// Found by fuzz/weights.cpp: a number too large for a double ("1e3080") made the second
// parse (for the byte offset) throw nlohmann's out_of_range, which is not a parse_error, so
// it escaped parse_weights instead of becoming a WeightFileError.
TEST_CASE("fuzz regression: a number out of a double's range is a damaged file, not a crash") {
  gsearch::Rng rng(7);
  nn::AutoEncoder model({}, rng);
  for (const char* text : {"[1e3080]", "{\"format\":\"gsearch-nn-weights\",\"version\":1e400}",
                           "{\"data\":[0.1,-1e3080]}"}) {
    CAPTURE(text);
    try {
      nn::parse_weights(text, model, "big.json");
      FAIL("no exception");
    } catch (const nn::WeightFileError& e) {
      CHECK(std::string(e.what()).starts_with("big.json: not valid JSON"));
      CHECK(std::string(e.what()).find("number overflow") != std::string::npos);
    }
  }
}

// Found by fuzz/weights.cpp: 1e300 is a finite double but overflows a float, and the float
// model was left holding infinity.
TEST_CASE("fuzz regression: a value too large for the model's scalar is refused") {
  gsearch::Rng rng(8);
  nn::AutoEncoder model({}, rng);
  TempDir dir;
  nn::save_weights(dir.path / "a.json", model);
  const auto good = nlohmann::json::parse(read(dir.path / "a.json"));
  const auto name = good["parameters"][0]["name"].get<std::string>();
  auto big = good;
  big["parameters"][0]["data"][1] = 1e300;
  const auto before = *model.parameters()[0].value;
  CHECK_THROWS_WITH_AS(nn::parse_weights(big.dump(), model, "big.json"),
                       ("big.json: parameter \"" + name + "\" value 1 is out of range").c_str(),
                       nn::WeightFileError);
  CHECK(*model.parameters()[0].value == before);
}
