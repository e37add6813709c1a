// Fuzz target: label lines (examples/amazons/paper/label_store.hpp, parse_label_line). A
// line that reads has scores in [0, 1], a FEN and a legal move, and writes back (label_line)
// to a line that reads as the same label.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "amazons/paper/label_store.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const amazons::Label l = amazons::parse_label_line(text);
    FUZZ_CHECK(l.move_score >= 0 && l.move_score <= 1);
    FUZZ_CHECK(l.place_score >= 0 && l.place_score <= 1);
    std::string line = amazons::label_line(l);
    line.pop_back();  // '\n'
    const amazons::Label again = amazons::parse_label_line(line);
    FUZZ_CHECK(again.fen == l.fen && again.move == l.move);
    FUZZ_CHECK(again.move_score == l.move_score && again.place_score == l.place_score);
  } catch (const std::invalid_argument&) {  // documented: parse errors, NotationError
  }
  return 0;
}
