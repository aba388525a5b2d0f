// FNV-1a hashes (http://www.isthe.com/chongo/tech/comp/fnv/), for stable,
// platform-independent names and seeds; not for anything adversarial.
#ifndef DRA_BASE_FNV_H_
#define DRA_BASE_FNV_H_

#include <cstdint>
#include <string_view>

namespace dra {

inline constexpr uint64_t kFnv1a64Offset = 14695981039346656037ULL;
inline constexpr uint64_t kFnv1a64Prime = 1099511628211ULL;
inline constexpr uint32_t kFnv1a32Offset = 2166136261u;
inline constexpr uint32_t kFnv1a32Prime = 16777619u;

// FNV-1a 64 over `text`, continued from `h` (the standard offset basis by
// default; pass an earlier result to hash several strings in a row).
constexpr uint64_t Fnv1a64(std::string_view text, uint64_t h = kFnv1a64Offset) {
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= kFnv1a64Prime;
  }
  return h;
}

// FNV-1a 32 over `text`.
constexpr uint32_t Fnv1a32(std::string_view text, uint32_t h = kFnv1a32Offset) {
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= kFnv1a32Prime;
  }
  return h;
}

}  // namespace dra

#endif  // DRA_BASE_FNV_H_
