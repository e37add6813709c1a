// Fuzz target: the labeler's HTTP reply reader (examples/amazons/paper/http_client.hpp,
// parse_response): status line, headers, Content-Length, chunked framing. Whatever the
// bytes, the reader returns a reply within its caps or throws HttpError with a one-line
// message; it never reads past the input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "amazons/paper/http_client.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  amazons::http::ClientParams params;
  params.max_body_bytes = 4096;  // small caps, so that the fuzzer reaches them
  params.max_header_bytes = 1024;
  try {
    const auto r = amazons::http::parse_response(bytes, params);
    FUZZ_CHECK(r.status >= 200 && r.status <= 999);
    FUZZ_CHECK(r.body.size() <= params.max_body_bytes);
  } catch (const amazons::http::HttpError& e) {
    const std::string_view what = e.what();
    FUZZ_CHECK(!what.empty());
    FUZZ_CHECK(what.find('\n') == std::string_view::npos);
  }
  return 0;
}
