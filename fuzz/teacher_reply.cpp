// Fuzz target: the chat-completions reply parser (examples/amazons/paper/teacher_protocol.hpp).
// parse_reply throws nothing: every body is scores or a rejection. Accepted scores are two
// finite numbers in [0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "amazons/paper/teacher_protocol.hpp"
#include "fuzz_check.hpp"

namespace {

void check(const amazons::Reply& r) {
  if (!r.scores) {
    FUZZ_CHECK(static_cast<std::size_t>(r.rejection) < amazons::kRejectionKinds);
    return;
  }
  for (const double v : {r.scores->move, r.scores->place})
    FUZZ_CHECK(std::isfinite(v) && v >= 0 && v <= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(amazons::parse_reply(text));   // the input as a whole reply body
  check(amazons::parse_scores(text));  // and as a reply's content
  return 0;
}
