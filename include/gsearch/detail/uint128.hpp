// gsearch/detail/uint128.hpp — the compiler's 128-bit unsigned integer (GCC and Clang).
#pragma once

namespace gsearch::detail {

// __extension__ keeps -Wpedantic quiet: __int128 is a GNU extension that GCC and Clang
// provide on every 64-bit target.
__extension__ typedef unsigned __int128 uint128;

}  // namespace gsearch::detail
