// Fuzz target: Position::parse_move (examples/amazons/rules/position.hpp). The input is a
// move, read on three fixed positions; or "FEN\nmove", read on that FEN's position. A move
// that parses is legal and reads back from move_to_string() as the same move.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "amazons/rules/position.hpp"
#include "fuzz_check.hpp"

namespace {

void check_move(const amazons::Position& pos, std::string_view text) {
  try {
    const amazons::Move m = pos.parse_move(text);
    FUZZ_CHECK(gsearch::is_legal(pos, m));
    FUZZ_CHECK(pos.parse_move(pos.move_to_string(m)) == m);
  } catch (const amazons::NotationError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) {
    try {
      check_move(amazons::Position::from_fen(text.substr(0, nl)), text.substr(nl + 1));
    } catch (const amazons::NotationError&) {}
    return 0;
  }
  static const amazons::Position positions[] = {
      amazons::Position{},
      amazons::Position::from_fen("2*q/4/4/Q3 w"),
      amazons::Position::from_fen("3q2q3/10/3*6/q8q/3Q6/10/7*2/9Q/10/6Q3 b - - 0 2"),
  };
  for (const auto& pos : positions) check_move(pos, text);
  return 0;
}
