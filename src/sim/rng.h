// The simulator's random numbers: SplitMix64 (Steele, Lea and Flood 2014), a
// small, fast 64-bit generator with a fixed, documented output sequence, and
// the draws the FGD protocol makes with it (uniform index, Fisher-Yates
// shuffle, permutation).
//
// Why not Go's math/rand, which the authors' simulator uses: its per-seed
// stream cannot be replayed anyway (client-go informers draw from the same
// global source on other goroutines, racing with the node permutation;
// docs/fgd.md §7.1), so we reproduce the seed *distribution*, and the
// seeds are our own. The draw order still follows the authors' (§2.3).
//
// Not thread-safe; one Rng per run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dra::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // The next 64 random bits.
  uint64_t Next();
  // Uniform in [0, n). REQUIRES: n > 0. Unbiased (rejection of the low tail).
  uint64_t Below(uint64_t n);
  // Fisher-Yates from the last element down, as Go's rand.Shuffle walks.
  template <typename T>
  void Shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) {
      size_t j = static_cast<size_t>(Below(i));
      std::swap(v[i - 1], v[j]);
    }
  }
  // A uniformly random permutation of 0..n-1 (inside-out Fisher-Yates).
  std::vector<uint32_t> Perm(uint32_t n);

 private:
  uint64_t state_;
};

}  // namespace dra::sim
