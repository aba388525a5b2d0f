// libFuzzer target for the two small parsers every object goes through:
// resource.Quantity (capacities, counters, node allocatable) and semantic
// versions (version attributes, CEL semver()).
//
// The input is split at its first NUL byte into two texts A and B (B empty
// when there is none). Besides crashes and undefined behaviour, the target
// checks properties that must hold for every input:
//   Quantity   String() is canonical: it parses back to an equal value whose
//              String() is the same text; Compare is antisymmetric and agrees
//              with Sign() of the difference; A + B - B == A and
//              A - B == -(B - A) whenever the sums fit; Value(), MilliValue()
//              and AsInt64() agree where they are exact.
//   SemVer     both modes (strict, normalize): a version parses back from its
//              String() identical; a strict parse implies a normalized one of
//              the same value; Compare is antisymmetric.
// A violation aborts with the texts on stderr. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "cel/lib/semver.h"
#include "quantity/quantity.h"

namespace dra {
namespace {

using cel::lib::SemVer;
using quantity::Quantity;

[[noreturn]] void Fail(const char* what, std::string_view a, std::string_view b) {
  std::fprintf(stderr, "quantity_fuzz: %s\n  A = \"%.*s\"\n  B = \"%.*s\"\n", what, static_cast<int>(a.size()),
               a.data(), static_cast<int>(b.size()), b.data());
  std::abort();
}

void CheckQuantity(std::string_view text, std::string_view other) {
  StatusOr<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) return;
  const std::string canonical = q->String();
  StatusOr<Quantity> back = Quantity::Parse(canonical);
  if (!back.ok()) Fail("String() does not parse", canonical, std::string(back.status().message()));
  if (back->Compare(*q) != 0) Fail("String() parses to another value", text, canonical);
  if (back->String() != canonical) Fail("String() is not canonical", canonical, back->String());
  if (q->Compare(*q) != 0) Fail("Compare(q, q) != 0", text, text);
  if (q->Neg().Neg().Compare(*q) != 0) Fail("-(-q) != q", text, text);
  if (q->Sign() != -q->Neg().Sign()) Fail("Sign(-q) != -Sign(q)", text, text);

  // Integer views agree with each other where they are exact.
  if (std::optional<int64_t> i = q->AsInt64()) {
    if (q->Value() != *i) Fail("Value() differs from AsInt64()", text, std::to_string(*i));
    if (*i > -9'000'000'000'000'000 / 1000 && *i < 9'000'000'000'000'000 / 1000 && q->MilliValue() != *i * 1000) {
      Fail("MilliValue() differs from 1000 * AsInt64()", text, std::to_string(q->MilliValue()));
    }
  }
  (void)q->ScaledValue(3);
  (void)q->ScaledValue(-9);
  (void)q->AsApproximateFloat64();

  StatusOr<Quantity> b = Quantity::Parse(other);
  if (!b.ok()) return;
  const int c = q->Compare(*b);
  if (b->Compare(*q) != -c) Fail("Compare is not antisymmetric", text, other);
  StatusOr<Quantity> diff = q->Sub(*b);
  if (diff.ok()) {
    if (diff->Sign() != c) Fail("Sign(A - B) differs from Compare(A, B)", text, other);
    StatusOr<Quantity> back_again = diff->Add(*b);
    if (back_again.ok() && back_again->Compare(*q) != 0) Fail("A - B + B != A", text, other);
    StatusOr<Quantity> reverse = b->Sub(*q);
    if (reverse.ok() && reverse->Compare(diff->Neg()) != 0) Fail("A - B != -(B - A)", text, other);
  }
  StatusOr<Quantity> sum = q->Add(*b);
  if (sum.ok()) {
    StatusOr<Quantity> swapped = b->Add(*q);
    if (!swapped.ok() || swapped->Compare(*sum) != 0) Fail("A + B != B + A", text, other);
    (void)sum->String();
  }
}

void CheckSemVer(std::string_view text, std::string_view other) {
  for (bool normalize : {false, true}) {
    StatusOr<SemVer> v = SemVer::Parse(text, normalize);
    if (SemVer::IsValid(text, normalize) != v.ok()) Fail("IsValid disagrees with Parse", text, other);
    if (!v.ok()) continue;
    StatusOr<SemVer> back = SemVer::Parse(v->String(), /*normalize=*/false);
    if (!back.ok() || !back->IdenticalTo(*v)) Fail("String() does not parse back identical", text, v->String());
    if (!normalize) {
      StatusOr<SemVer> normalized = SemVer::Parse(text, /*normalize=*/true);
      if (!normalized.ok() || normalized->Compare(*v) != 0) Fail("strict parses but normalized differs", text, other);
    }
    StatusOr<SemVer> w = SemVer::Parse(other, normalize);
    if (w.ok() && w->Compare(*v) != -v->Compare(*w)) Fail("SemVer Compare is not antisymmetric", text, other);
  }
}

}  // namespace
}  // namespace dra

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nul = input.find('\0');
  std::string_view a = input.substr(0, nul);
  std::string_view b = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  dra::CheckQuantity(a, b);
  dra::CheckSemVer(a, b);
  return 0;
}
