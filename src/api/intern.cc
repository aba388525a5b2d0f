#include "api/intern.h"

#include <mutex>
#include <unordered_set>

namespace dra::api {
namespace {

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

struct Pool {
  std::mutex mu;
  // Node-based: element addresses survive rehashing (invariant 2 of intern.h).
  std::unordered_set<std::string, Hash, std::equal_to<>> strings;
  const std::string* empty = nullptr;

  Pool() { empty = &*strings.emplace().first; }
};

Pool& GetPool() {
  // Leaked on purpose: InternedStrings may be read during static destruction.
  static Pool* pool = new Pool();
  return *pool;
}

const std::string* EmptyString() { return GetPool().empty; }

}  // namespace

InternedString::InternedString() : str_(EmptyString()) {}

InternedString::InternedString(std::string_view text) {
  if (text.empty()) {
    str_ = EmptyString();
    return;
  }
  Pool& pool = GetPool();
  std::lock_guard<std::mutex> lock(pool.mu);
  auto it = pool.strings.find(text);  // heterogeneous: no temporary string
  if (it == pool.strings.end()) it = pool.strings.emplace(text).first;
  str_ = &*it;
}

size_t InternedStringCount() {
  Pool& pool = GetPool();
  std::lock_guard<std::mutex> lock(pool.mu);
  return pool.strings.size();
}

}  // namespace dra::api
