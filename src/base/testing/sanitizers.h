// Whether this build runs under AddressSanitizer or ThreadSanitizer, for tests
// that bound their work there (the sanitizers slow code five to fifteen times;
// the full counts run in the release build).
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)  // g++
#define DRA_TESTING_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DRA_TESTING_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace dra::testing {

#if defined(DRA_TESTING_SANITIZER_ALLOCATOR)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace dra::testing
