// Fuzz target: the Gomoku engine protocol (examples/gomoku/cli/engine_session.hpp), one
// session per input on a 9x9 connect-5 board, one command per line. Every command but quit
// gets exactly one answer line. The agent is "random" throughout ("agent" lines are skipped,
// so "go" is cheap whatever its budget).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cli/engine_session.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gomoku::cli::EngineSession session("random", gomoku::Position::empty(9, 9, 5));
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const auto w = gomoku::cli::EngineSession::words(line);
    if (!w.empty() && w[0] == "agent") continue;
    const auto answer = session.handle(line);
    if (!answer) break;
    FUZZ_CHECK(!answer->empty());
    FUZZ_CHECK(answer->find('\n') == std::string::npos);
  }
  return 0;
}
