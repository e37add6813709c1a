// Fuzz target: the Gomoku text parsers (examples/gomoku): Position::from_text, and on the
// position it gives, parse_move and parse_restriction of the same input's last line. A
// position that parses must write back (text()) to text that parses to the same position.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "fuzz_check.hpp"
#include "gomoku/players/candidates.hpp"
#include "gomoku/rules/position.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto nl = input.find('\n');
  const std::string_view text = input.substr(0, nl);
  const std::string_view rest =
      nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  try {
    (void)gomoku::parse_restriction(rest);
  } catch (const std::invalid_argument&) {}
  try {
    const gomoku::Position pos = gomoku::Position::from_text(text);
    const gomoku::Position again = gomoku::Position::from_text(pos.text());
    FUZZ_CHECK(again == pos);
    FUZZ_CHECK(again.hash() == pos.hash());
    FUZZ_CHECK(again.hash() == pos.compute_hash());
    FUZZ_CHECK(again.last_move() == pos.last_move());
    try {
      gomoku::Position next = pos;
      next.apply(pos.parse_move(rest));
      FUZZ_CHECK(!pos.is_terminal());
    } catch (const gomoku::NotationError&) {}
  } catch (const gomoku::NotationError&) {}
  return 0;
}
