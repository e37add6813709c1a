#include "gsearch/core/move_list.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>

#include "gsearch/core/rng.hpp"

TEST_CASE("MoveList stores, iterates, truncates and clears without allocating") {
  gsearch::MoveList<int, 8> list;
  CHECK(list.empty());
  CHECK(list.capacity() == 8);
  for (int i = 0; i < 8; ++i) list.push_back(i * i);
  CHECK(list.size() == 8);
  CHECK(list[3] == 9);
  CHECK(std::accumulate(list.begin(), list.end(), 0) == 140);
  list.truncate(2);
  CHECK(list.size() == 2);
  CHECK(list[1] == 1);
  int sum = 0;
  for (int x : list) sum += x;
  CHECK(sum == 1);
  list.clear();
  CHECK(list.empty());
  CHECK(list.begin() == list.end());
}

TEST_CASE("sort_by_key_descending keeps the best moves as a whole sort and a cut would") {
  // Keys from a small range, so that many tie: ties keep their list order either way.
  gsearch::Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    CAPTURE(trial);
    gsearch::MoveList<int, 300> all;
    std::array<int, 300> all_keys{};
    const auto n = static_cast<int>(1 + rng.below(300));
    for (int i = 0; i < n; ++i) {
      all.push_back(i);
      all_keys[static_cast<std::size_t>(i)] = static_cast<int>(rng.below(20));
    }
    auto sorted = all;
    auto sorted_keys = all_keys;
    gsearch::sort_by_key_descending(sorted, sorted_keys.data());
    for (int i = 1; i < n; ++i) {
      const auto a = static_cast<std::size_t>(i - 1), b = static_cast<std::size_t>(i);
      CHECK((sorted_keys[a] > sorted_keys[b] ||
             (sorted_keys[a] == sorted_keys[b] && sorted[a] < sorted[b])));
    }
    for (const std::size_t keep :
         {std::size_t{1}, std::size_t{7}, std::size_t(n / 2), std::size_t(n), std::size_t(n + 5)}) {
      CAPTURE(keep);
      auto kept = all;
      auto kept_keys = all_keys;
      gsearch::sort_by_key_descending(kept, kept_keys.data(), 0, keep);
      REQUIRE(kept.size() == std::min<std::size_t>(keep, static_cast<std::size_t>(n)));
      for (std::size_t i = 0; i < kept.size(); ++i) {
        CHECK(kept[i] == sorted[i]);
        CHECK(kept_keys[i] == sorted_keys[i]);
      }
    }
  }
}
