// Selectors over columns (issue #29, part 3): a selector of one of the common
// shapes, evaluated over all devices of one ResourceSlice at once instead of
// one interpreter run per device.
//
// The shapes (a constant may stand on either side of == and !=):
//
//   device.driver == "s"                          also !=
//   <attr> == <const>                             also !=; const string, int or bool
//   <attr> in [<const>, ...]                      constants of one type as above
//   <cap>.compareTo(quantity("q")) <op> <int>     op: == != < <= > >=
//   <cap>.isGreaterThan(quantity("q"))            also isLessThan
//   <attr>.compareTo(semver("v")) <op> <int>      likewise for versions
//   <attr>.isGreaterThan(semver("v"))             also isLessThan
//   a && b && ...                                 conjunctions of the above
//
// where <attr> is device.attributes["domain"].id (or ["id"], or .domain) and
// <cap> the same under device.capacity.
//
// Exactness (the contract that lets a caller trust a verdict):
//   1. A verdict is kColumnTrue or kColumnFalse only where the interpreter
//      would return that bool without an error. Anything else (a missing
//      attribute, a value of another type than the constant, a version that
//      does not parse, a list value) is kColumnUnknown, and the caller
//      evaluates that device with the interpreter, which produces the
//      verdict or the error it always did.
//   2. A conjunction is false as soon as one part is definitely false (CEL's
//      `&&` absorbs errors: `error && false` is false), true when all parts
//      are true, else unknown.
//   3. Cost: every node of these shapes costs at most 1, except a string
//      equality (at most ceil(0.1 x the constant's length), cel/runtime/evaluator.cc
//      EqualityCost takes the smaller size) and `in` (one equality per
//      element); so the runtime cost of an evaluation is below 20 x the length
//      of the expression. New() declines an expression for which that bound
//      could reach the cost limit, so a columnar verdict never hides a
//      cost-exceeded outcome.
//   4. The attribute check upstream makes before every evaluation (an
//      attribute that does not convert fails every selector) is not made
//      here: DraEnvironment::MatchColumn makes it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "cel/parser/ast.h"

namespace dra::cel {

// Verdicts of a column. The allocator's VerdictTable uses the same numbers.
enum ColumnVerdict : uint8_t { kColumnUnknown = 0, kColumnFalse = 1, kColumnTrue = 2 };

// The attribute and capacity columns of one slice's devices: for each name a
// selector reads, one value (an int, a bool, an interned string's address, a
// version's index, a quantity in exact milli-units) and one type tag per
// device, copied out of the devices' maps into two dense arrays, so that a
// compare over the slice reads one cache line per 8 devices instead of one
// map entry per device. A column is built the first time a selector reads
// its name and then kept as long as this object (which its owner keeps as
// long as the slice is unchanged: per snapshot); so is the result of the
// per-device check DraEnvironment::MatchColumn makes.
//
// Thread-safe: columns are built under a lock and published through an
// atomic list; reading a built column takes no lock.
class SliceColumns {
 public:
  struct Column;

  // The devices of one ResourceSlice of `driver`; `devices` must outlive this
  // object, unchanged.
  SliceColumns(std::span<const api::Device> devices, std::string_view driver);
  ~SliceColumns();
  SliceColumns(const SliceColumns&) = delete;
  SliceColumns& operator=(const SliceColumns&) = delete;

  std::span<const api::Device> devices() const { return devices_; }
  std::string_view driver() const { return driver_; }

  // The column of `device.attributes[...]` (capacity false) or
  // `device.capacity[...]` under the interned names of FindDeviceEntry.
  const Column& Get(bool capacity, api::InternedString qualified, api::InternedString bare) const;

  // One byte per device, 1 where a check of the device held: nullptr until
  // BuildChecks made it for `variant` (0 or 1: the check depends on one option
  // of the environment, which names the variant), then kept.
  const std::vector<uint8_t>* Checks(int variant) const;
  const std::vector<uint8_t>& BuildChecks(int variant, const std::function<bool(const api::Device&)>& check) const;

  // The number of columns built so far (for tests).
  size_t column_count() const;

 private:
  std::span<const api::Device> devices_;
  std::string driver_;
  mutable std::mutex mu_;
  mutable std::atomic<const Column*> head_{nullptr};    // newest first; owned by owned_
  mutable std::vector<std::unique_ptr<Column>> owned_;  // guarded by mu_
  mutable std::atomic<const std::vector<uint8_t>*> checks_[2] = {nullptr, nullptr};
  mutable std::unique_ptr<std::vector<uint8_t>> owned_checks_[2];  // guarded by mu_
};

// A selector compiled for column evaluation. Immutable; thread-safe.
class ColumnarSelector {
 public:
  struct Leaf;

  // The columnar form of the parsed (and type-checked) selector `expr`, whose
  // source is `source_size` bytes long; nullptr when it is not one of the
  // shapes or when its cost could reach `cost_limit` (invariant 3).
  static std::unique_ptr<const ColumnarSelector> New(const Expr& expr, size_t source_size,
                                                     std::optional<uint64_t> cost_limit);
  ~ColumnarSelector();
  ColumnarSelector(const ColumnarSelector&) = delete;
  ColumnarSelector& operator=(const ColumnarSelector&) = delete;

  // out[i] = the verdict on devices[i], a device of a slice of `driver`
  // (REQUIRES out.size() == devices.size()). Does not allocate, except to
  // parse the version texts of a semver compare (once per distinct text per
  // call; the SliceColumns overload keeps them).
  void Evaluate(std::span<const api::Device> devices, std::string_view driver, std::span<uint8_t> out) const;

  // The same verdicts over the columns of one slice (built here on first use
  // of a name): out[i] is the verdict on columns.devices()[i] (REQUIRES
  // out.size() == columns.devices().size()). Does not allocate once the
  // columns are built.
  void Evaluate(const SliceColumns& columns, std::span<uint8_t> out) const;

  // The number of compares in the conjunction (for tests).
  size_t leaf_count() const;

 private:
  ColumnarSelector();
  std::vector<Leaf> leaves_;
};

// The entry `device.<map>[domain][id]` of `map` (an api::AttributeMap or
// api::CapacityMap) by its interned keys `qualified` ("<domain>/<id>") and
// `bare` ("<id>", used only when `own_domain`: the domain is the driver's);
// when a device lists both, the bare name wins. `hint` is the position found
// last time (devices of one driver publish the same names in the same order):
// usually one comparison instead of a scan. nullptr when absent.
template <typename Map>
const typename Map::mapped_type* FindDeviceEntry(const Map& map, api::InternedString qualified,
                                                 api::InternedString bare, bool own_domain, uint32_t& hint) {
  const auto begin = map.begin();
  const size_t n = map.size();
  if (hint < n) {
    const auto& [key, value] = *(begin + hint);
    if (own_domain ? key == bare : key == qualified) return &value;
  }
  size_t found = n;
  for (size_t i = 0; i < n; ++i) {
    const api::InternedString key = begin[static_cast<std::ptrdiff_t>(i)].first;
    if (own_domain && key == bare) {
      found = i;
      break;
    }
    if (key == qualified && found == n) {
      found = i;
      if (!own_domain) break;
    }
  }
  if (found == n) return nullptr;
  hint = static_cast<uint32_t>(found);
  return &begin[static_cast<std::ptrdiff_t>(found)].second;
}

}  // namespace dra::cel
