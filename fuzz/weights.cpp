// Fuzz target: weight files (include/gsearch/nn/io.hpp, parse_weights), read into a small
// autoencoder (5 inputs, 3 latent: four parameters). A refused file leaves the model as it
// was; an accepted one holds only finite values.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "gsearch/core/rng.hpp"
#include "gsearch/nn/autoencoder.hpp"
#include "gsearch/nn/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gsearch::Rng rng(1);
  gsearch::nn::AutoEncoder model({}, rng);
  const auto before = model.parameters();
  std::vector<gsearch::nn::Matrix> saved;
  for (const auto& p : before) saved.push_back(*p.value);
  try {
    gsearch::nn::parse_weights(text, model, "fuzz.json");
    for (const auto& p : model.parameters()) FUZZ_CHECK(p.value->allFinite());
  } catch (const gsearch::nn::WeightFileError&) {
    const auto after = model.parameters();
    for (std::size_t i = 0; i < after.size(); ++i) FUZZ_CHECK(*after[i].value == saved[i]);
  }
  return 0;
}
