// Fuzz target: agent specs (examples/amazons/players/agents.hpp), read and checked only
// (canonical_spec): no agent is built, so no search runs, no file is read, no memory is
// reserved. A spec that reads has a canonical form that reads as itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "amazons/players/agents.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::string canonical = amazons::canonical_spec(text);
    FUZZ_CHECK(amazons::canonical_spec(canonical) == canonical);
  } catch (const amazons::SpecError&) {}
  return 0;
}
