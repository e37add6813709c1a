// gsearch/core/assert.hpp — internal precondition checks.
//
// GSEARCH_ASSERT(cond) checks a precondition that only a programming error can break (a move
// applied to the wrong position, a full move list). It is compiled in when NDEBUG is not
// defined, or when GSEARCH_ENABLE_ASSERTS is defined, and aborts with the file, line and
// condition. Bad *input* (text from a user or a file) is never checked with it: parsers
// report that with exceptions carrying a message.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace gsearch::detail {

[[noreturn]] inline void assert_fail(const char* cond, const char* file, int line) noexcept {
  std::fprintf(stderr, "gsearch: assertion failed: %s (%s:%d)\n", cond, file, line);
  std::abort();
}

}  // namespace gsearch::detail

#if !defined(NDEBUG) || defined(GSEARCH_ENABLE_ASSERTS)
#define GSEARCH_ASSERT(cond) \
  ((cond) ? static_cast<void>(0) : ::gsearch::detail::assert_fail(#cond, __FILE__, __LINE__))
#else
#define GSEARCH_ASSERT(cond) static_cast<void>(0)
#endif
