// Claim constraints (allocator.md §7): matchAttribute (scalar mode, or the
// experimental list mode with DRAListTypeAttributes) and distinctAttribute,
// with upstream incubating's quirks:
//   1. distinctAttribute remembers one value per *request name* (the parent
//      name for subrequests); a later device of the same request overwrites
//      it and removing deletes it, so duplicates within one request can slip
//      through (§7.3).
//   2. list-mode matchAttribute does not restore the narrowed intersection on
//      removal until no device is left (§7.2).
// A constraint is stateful per Allocate call; Add and Remove are called LIFO.
#pragma once

#include <map>
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
const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver,
                                            std::string_view name);

class Constraint {
 public:
  virtual ~Constraint() = default;
  // `request` is the request name, `subrequest` the subrequest name or "".
  // Returns false if the device is refused (state unchanged then).
  virtual bool Add(std::string_view request, std::string_view subrequest, const api::Device& device,
                   std::string_view driver) = 0;
  virtual void Remove(std::string_view request, std::string_view subrequest, const api::Device& device,
                      std::string_view driver) = 0;
};

// Builds the constraint for `spec`; nullptr if it has neither field set.
std::unique_ptr<Constraint> NewConstraint(const api::DeviceConstraint& spec, bool list_mode);

}  // namespace dra::alloc
