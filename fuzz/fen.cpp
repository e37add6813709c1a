// Fuzz target: Position::from_fen (examples/amazons/rules/position.hpp). A FEN that parses
// must write back (fen()) to a FEN that parses to the same position.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "amazons/rules/position.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const amazons::Position pos = amazons::Position::from_fen(text);
    const amazons::Position again = amazons::Position::from_fen(pos.fen());
    FUZZ_CHECK(again.fen() == pos.fen());
    FUZZ_CHECK(again.hash() == pos.hash());
  } catch (const amazons::NotationError&) {}
  return 0;
}
