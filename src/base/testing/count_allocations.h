// Counting heap allocations in tests and benchmarks: a replacement global
// operator new that counts while dra::testing::g_count_allocations is set.
//
// Include this header in exactly ONE translation unit of a test or benchmark
// binary (it defines the replacement operator new/delete). Under
// AddressSanitizer or ThreadSanitizer, which replace the allocation functions
// themselves (clang's runtimes define operator new), nothing is replaced and
// kCountsAllocations is false.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "base/testing/sanitizers.h"  // DRA_TESTING_SANITIZER_ALLOCATOR

namespace dra::testing {

inline std::atomic<bool> g_count_allocations{false};
inline std::atomic<size_t> g_allocations{0};

inline constexpr bool kCountsAllocations = !kSanitized;

}  // namespace dra::testing

#if !defined(DRA_TESTING_SANITIZER_ALLOCATOR)
// The replacement operator new pairs malloc with free on purpose.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t size) {
  if (dra::testing::g_count_allocations.load(std::memory_order_relaxed)) {
    dra::testing::g_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#endif
