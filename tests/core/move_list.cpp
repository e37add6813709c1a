#include "gsearch/core/move_list.hpp"

#include <doctest/doctest.h>

#include <numeric>

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
