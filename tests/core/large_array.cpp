// LargeArray: zero-filled on creation, reset and clear; moves; 2 MiB alignment.
#include "gsearch/core/large_array.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

namespace {

struct Slot {
  std::uint64_t key = 0;
  std::int32_t value = 0;
};

}  // namespace

TEST_CASE("LargeArray: zero-filled, aligned to 2 MiB, cleared, reset and moved") {
  gsearch::LargeArray<Slot> a(100000);
  REQUIRE(a.size() == 100000);
  CHECK(reinterpret_cast<std::uintptr_t>(a.begin()) % (std::uintptr_t{2} << 20) == 0);
  bool zero = true;
  for (const Slot& s : a) zero = zero && s.key == 0 && s.value == 0;
  CHECK(zero);
  a[12345] = {7, -3};
  CHECK(a[12345].key == 7);
  CHECK(a[12345].value == -3);
  a.clear();
  CHECK(a[12345].key == 0);
  a[5] = {1, 1};
  gsearch::LargeArray<Slot> b(std::move(a));
  CHECK(a.size() == 0);  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  CHECK(b.size() == 100000);
  CHECK(b[5].key == 1);
  b.reset(10);
  CHECK(b.size() == 10);
  CHECK(b[5].key == 0);
  gsearch::LargeArray<Slot> c;
  CHECK(c.size() == 0);
  CHECK(c.begin() == c.end());
  c = std::move(b);
  CHECK(c.size() == 10);
}
