// EnumString<E>: an enum-typed API string.
//
// Kubernetes enums are strings (`type DeviceAllocationMode string`), and new
// values appear between releases. An EnumString keeps the text exactly as
// written, so an unknown value survives a decode/encode round trip and
// validation can quote it ("Unsupported value: \"Sometimes\""), and maps it to
// the C++ enum on demand:
//
//   if (request.allocation_mode == AllocationMode::kAll) ...
//   std::optional<AllocationMode> mode = request.allocation_mode.value();  // nullopt if unknown
//   request.allocation_mode.text()                                        // "All", "" or "Sometimes"
//
// The empty string means "unset" (Go's omitempty zero value); defaulting fills
// it in (api/defaults.h).
//
// Each enum E specialises EnumTraits<E> with `static constexpr std::array<std::string_view, N>
// kNames`, indexed by the enumerator's value (enumerators are 0..N-1).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dra::api {

template <typename E>
struct EnumTraits;

// The API spelling of `e`, e.g. "ExactCount".
template <typename E>
std::string_view EnumName(E e) {
  return EnumTraits<E>::kNames[static_cast<size_t>(e)];
}

// The enumerator spelled `text` (case-sensitive, as the API is), or nullopt.
template <typename E>
std::optional<E> ParseEnum(std::string_view text) {
  const auto& names = EnumTraits<E>::kNames;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return std::nullopt;
}

template <typename E>
class EnumString {
 public:
  EnumString() = default;
  EnumString(E e) : text_(EnumName(e)) {}                   // NOLINT(google-explicit-constructor)
  EnumString(std::string text) : text_(std::move(text)) {}  // NOLINT(google-explicit-constructor)
  EnumString(std::string_view text) : text_(text) {}        // NOLINT(google-explicit-constructor)
  EnumString(const char* text) : text_(text) {}             // NOLINT(google-explicit-constructor)

  // The text as written; empty when unset.
  const std::string& text() const { return text_; }
  bool empty() const { return text_.empty(); }
  // The enumerator, or nullopt when unset or unknown.
  std::optional<E> value() const { return ParseEnum<E>(text_); }
  // True when set to a value this build knows.
  bool known() const { return value().has_value(); }

  friend bool operator==(const EnumString&, const EnumString&) = default;
  friend bool operator==(const EnumString& a, E b) { return a.text_ == EnumName(b); }

 private:
  std::string text_;
};

}  // namespace dra::api
