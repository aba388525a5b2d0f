// Claim constraints (src/alloc/README.md §7): matchAttribute (scalar mode, or
// the experimental list mode with DRAListTypeAttributes) and distinctAttribute,
// as upstream v0.37.2 (Kubernetes 1.37) decides:
//   - distinctAttribute: every device added must differ from every device
//     added before it (list mode: pairwise disjoint sets);
//   - list-mode matchAttribute: the intersection narrows with each device and
//     is restored when the device is removed (a stack).
// Quirks Q7 and Q8 of src/alloc/README.md record the older behaviour (the
// value keyed by request name; the intersection kept on removal) that upstream
// fixed before 1.37 (tools/oracle shows it; quirk-07-* and quirk-08-* in
// tests/conformance/allocator).
// A constraint is stateful per Allocate call; Add and Remove are called LIFO.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"

namespace dra::alloc {

// The attribute `name` ("dom/id") of `device` from a slice of `driver`: the
// full key, else the bare id when dom == driver. nullptr if absent.
const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver, std::string_view name);

class Constraint {
 public:
  virtual ~Constraint() = default;
  // `request` is the request name, `subrequest` the subrequest name or "".
  // Returns false if the device is refused (state unchanged then).
  virtual bool Add(std::string_view request, std::string_view subrequest, const api::Device& device,
                   std::string_view driver) = 0;
  virtual void Remove(std::string_view request, std::string_view subrequest, const api::Device& device,
                      std::string_view driver) = 0;

  // Derived attributes (gate DRADerivedAttributes, src/alloc/README.md §7.4)
  // replace the device's own attribute of the same name for the requests
  // that define them. The caller checks Applies, looks the value up itself
  // and calls AddAttribute (Remove as usual). `attribute` must stay valid
  // until the device is removed.
  virtual const std::string& attribute_name() const = 0;
  virtual bool Applies(std::string_view request, std::string_view subrequest) const = 0;
  virtual bool AddAttribute(const api::DeviceAttribute& attribute) = 0;
};

// Builds the constraint for `spec`; nullptr if it has neither field set.
std::unique_ptr<Constraint> NewConstraint(const api::DeviceConstraint& spec, bool list_mode);

}  // namespace dra::alloc
