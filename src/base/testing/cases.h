// Test tables kept by topic, one function a topic (a table stays short enough
// to read), joined in order into the one table a parameterized test runs.
#pragma once

#include <initializer_list>
#include <iterator>
#include <vector>

// In namespace dra, not dra::testing: a dra::testing visible in a test's
// namespace would hide gtest's ::testing from its unqualified uses.
namespace dra {

template <typename Case>
std::vector<Case> JoinTestCases(std::initializer_list<std::vector<Case> (*)()> topics) {
  std::vector<Case> all;
  for (std::vector<Case> (*topic)() : topics) {
    std::vector<Case> part = topic();
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  return all;
}

}  // namespace dra
