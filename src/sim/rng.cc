// SplitMix64: the state advances by the golden-ratio increment and each
// output is the state put through a 64-bit finaliser (constants from the
// published algorithm).
#include "sim/rng.h"

namespace dra::sim {

uint64_t Rng::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::Below(uint64_t n) {
  // Values below 2^64 mod n would make the low residues more likely.
  uint64_t threshold = (0 - n) % n;
  while (true) {
    uint64_t r = Next();
    if (r >= threshold) return r % n;
  }
}

std::vector<uint32_t> Rng::Perm(uint32_t n) {
  std::vector<uint32_t> p(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t j = static_cast<uint32_t>(Below(uint64_t{i} + 1));
    p[i] = p[j];
    p[j] = i;
  }
  return p;
}

}  // namespace dra::sim
