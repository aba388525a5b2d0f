#include "audit/audit.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "alloc/allocated_state.h"
#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "alloc/features.h"
#include "alloc/pools.h"
#include "alloc/taint_rules.h"
#include "api/features.h"
#include "api/validation.h"
#include "base/release.h"
#include "cel/dra/dra_env.h"
#include "sched/resources.h"

namespace dra::audit {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "";
}

namespace {

// One device of the cluster's slices, as the selectors see it.
struct DeviceRef {
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
};

std::string DeviceName(const DeviceRef& d) {
  return fmt::format("{}/{}/{}", d.slice->spec.driver, d.slice->spec.pool.name, d.device->name);
}

// "a, b, c and 4 more" of `names`, at most `examples` of them named.
std::string Examples(const std::vector<std::string>& names, size_t total, size_t examples) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < examples; ++i) out += (i == 0 ? "" : ", ") + names[i];
  const size_t shown = std::min(names.size(), examples);
  if (total > shown) out += fmt::format(" and {} more", total - shown);
  return out;
}

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// A selector's verdict on a device.
enum class Verdict : uint8_t { kUnknown, kFalse, kTrue, kError };

// Every distinct selector expression, evaluated at most once per device
// (memoized: a claim's selector and a template's with the same text give
// the same verdicts), with the largest runtime cost seen.
class Evaluations {
 public:
  Evaluations(const cel::DraEnvironment& env, std::span<const DeviceRef> devices) : env_(env), devices_(devices) {}

  size_t Id(const std::string& expression) {
    auto [it, inserted] = ids_.try_emplace(expression, exprs_.size());
    if (inserted) {
      Expr e;
      e.compiled = env_.Compile(expression);
      e.verdicts.assign(devices_.size(), Verdict::kUnknown);
      exprs_.push_back(std::move(e));
    }
    return it->second;
  }

  Verdict On(size_t id, size_t device) {
    Expr& e = exprs_[id];
    Verdict& v = e.verdicts[device];
    if (v != Verdict::kUnknown) return v;
    if (!e.compiled->ok()) {
      v = Verdict::kError;
      e.errors[device] = "does not compile: " + e.compiled->error();
      return v;
    }
    const DeviceRef& d = devices_[device];
    StatusOr<bool> r = env_.Matches(*e.compiled, *d.device, d.slice->spec.driver, scratch_);
    if (scratch_.cost() > e.max_cost) {
      e.max_cost = scratch_.cost();
      e.max_cost_device = device;
    }
    if (!r.ok()) {
      v = Verdict::kError;
      e.errors[device] = r.status().message();
    } else {
      v = *r ? Verdict::kTrue : Verdict::kFalse;
    }
    return v;
  }

  const std::string& Error(size_t id, size_t device) const { return exprs_[id].errors.at(device); }
  uint64_t MaxCost(size_t id) const { return exprs_[id].max_cost; }
  size_t MaxCostDevice(size_t id) const { return exprs_[id].max_cost_device; }

 private:
  struct Expr {
    std::shared_ptr<const cel::CompiledSelector> compiled;
    std::vector<Verdict> verdicts;
    std::unordered_map<size_t, std::string> errors;  // device -> message, for kError
    uint64_t max_cost = 0;
    size_t max_cost_device = 0;
  };
  const cel::DraEnvironment& env_;
  std::span<const DeviceRef> devices_;
  cel::EvalScratch scratch_;
  std::map<std::string, size_t, std::less<>> ids_;
  std::vector<Expr> exprs_;
};

// Where a list of selectors is written: the object and the path of its
// `selectors` field.
struct SelectorsAt {
  std::string kind;
  std::string object;
  std::string path;  // "spec.selectors", "spec.devices.requests[0].exactly.selectors", ...
};

// A request of a claim or a template, with what the allocator evaluates on
// each device: its class's selectors, then its own.
struct RequestEntry {
  SelectorsAt at;
  std::string device_class;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
};

class Auditor {
 public:
  Auditor(const sched::Snapshot& s, const AuditOptions& options, const cel::DraEnvironment& env)
      : s_(s), options_(options), env_(env) {
    for (const api::ResourceSlice& slice : s.slices) {
      for (const api::Device& d : slice.spec.devices) devices_.push_back({&slice, &d});
    }
    evals_ = std::make_unique<Evaluations>(env_, devices_);
    std::vector<const api::ResourceSlice*> slices;
    for (const api::ResourceSlice& sl : s.slices) slices.push_back(&sl);
    index_ = std::make_unique<alloc::SliceIndex>(slices);
    slices_ = std::move(slices);
  }

  Status Run() {
    DRA_ASSIGN_OR_RETURN(selectors_, alloc::NewCelSelectorEvaluator(features_));
    Classes();
    Requests();
    DRA_RETURN_IF_ERROR(ClaimsFitNoNode());
    AdminAccess();
    Pools();
    Taints();
    DRA_RETURN_IF_ERROR(Stranded());
    SliceLimits();
    NonstandardAttributes();
    SelectorFindings();
    return OkStatus();
  }

  std::vector<Finding> TakeFindings() { return std::move(findings_); }

 private:
  void Add(std::string id, Severity severity, std::string kind, std::string object, std::string field,
           std::string message, std::string fix) {
    findings_.push_back(Finding{.id = std::move(id),
                                .severity = severity,
                                .kind = std::move(kind),
                                .object = std::move(object),
                                .field = std::move(field),
                                .message = std::move(message),
                                .fix = std::move(fix)});
  }

  // The tallies (into tally_list_) of `selectors` written at `at`, one per
  // CEL selector, in order.
  std::vector<size_t> TalliesOf(const std::vector<api::DeviceSelector>& selectors, const SelectorsAt& at) {
    std::vector<size_t> out;
    for (size_t i = 0; i < selectors.size(); ++i) {
      if (selectors[i].cel) out.push_back(Tally(at, i, evals_->Id(selectors[i].cel->expression)));
    }
    return out;
  }

  // Evaluates the selectors of `tallies` on device d in order (the first
  // false or error decides), tallying errors. True if every one passes.
  bool Passes(std::span<const size_t> tallies, size_t d) {
    for (size_t index : tallies) {
      SelectorTally& t = tally_list_[index];
      ++t.evaluated;
      const Verdict v = evals_->On(t.expr, d);
      if (v == Verdict::kError) {
        if (t.errors++ < options_.examples) t.error_devices.push_back(DeviceName(devices_[d]));
        if (t.first_error.empty()) t.first_error = evals_->Error(t.expr, d);
        return false;
      }
      if (v == Verdict::kFalse) return false;
    }
    return true;
  }

  // DeviceClasses: which devices each passes; class-matches-nothing,
  // device-in-no-class, classes-overlap.
  void Classes() {
    const size_t n = devices_.size();
    std::vector<bool> in_some(n, false);
    for (const api::DeviceClass& c : s_.classes) {
      const SelectorsAt at{.kind = "DeviceClass", .object = c.metadata.name, .path = "spec.selectors"};
      std::vector<bool>& pass = class_pass_[c.metadata.name];
      pass.assign(n, false);
      size_t count = 0;
      const std::vector<size_t> tallies = TalliesOf(c.spec.selectors, at);
      for (size_t d = 0; d < n; ++d) {
        if (Passes(tallies, d)) {
          pass[d] = true;
          in_some[d] = true;
          ++count;
        }
      }
      class_count_[c.metadata.name] = count;
      if (count == 0) {
        Add("class-matches-nothing", Severity::kWarning, "DeviceClass", c.metadata.name, "spec.selectors",
            n == 0 ? "the cluster has no devices"
                   : fmt::format("no device passes its selectors ({} in the cluster)", Plural(n, "device", "devices")),
            fmt::format("compare the selectors with the devices (dractl eval --class {} -f CLUSTER); is the "
                        "driver they name installed?",
                        c.metadata.name));
      }
    }
    // Devices no class passes, per driver.
    struct NoClass {
      size_t devices = 0;
      std::set<std::string> nodes;
      std::vector<std::string> examples;
      std::string first_slice;
    };
    std::map<std::string, NoClass> no_class;
    for (size_t d = 0; d < n && !s_.classes.empty(); ++d) {
      if (in_some[d]) continue;
      NoClass& e = no_class[devices_[d].slice->spec.driver];
      if (e.devices++ < options_.examples) e.examples.push_back(DeviceName(devices_[d]));
      if (e.first_slice.empty()) e.first_slice = devices_[d].slice->metadata.name;
      e.nodes.insert(devices_[d].slice->spec.node_name.value_or("(no node name)"));
    }
    if (s_.classes.empty() && n > 0) {
      Add("device-in-no-class", Severity::kWarning, "", "(no DeviceClass)", "",
          fmt::format("the cluster has {} and no DeviceClass: no claim can ask for any of them",
                      Plural(n, "device", "devices")),
          "install the drivers' DeviceClasses (their Helm charts ship them)");
    }
    for (const auto& [driver, e] : no_class) {
      Add("device-in-no-class", Severity::kWarning, "ResourceSlice", e.first_slice, "spec.devices",
          fmt::format("{} of driver {} on {} {} no DeviceClass's selectors, so no claim can ask for {}: {}",
                      Plural(e.devices, "device", "devices"), driver, Plural(e.nodes.size(), "node", "nodes"),
                      e.devices == 1 ? "passes" : "pass", e.devices == 1 ? "it" : "them",
                      Examples(e.examples, e.devices, options_.examples)),
          fmt::format("add a DeviceClass that selects them (device.driver == '{}'), or stop the driver publishing "
                      "them",
                      driver));
    }
    // Overlapping classes.
    for (size_t a = 0; a < s_.classes.size(); ++a) {
      for (size_t b = a + 1; b < s_.classes.size(); ++b) {
        const std::string& an = s_.classes[a].metadata.name;
        const std::string& bn = s_.classes[b].metadata.name;
        const std::vector<bool>& pa = class_pass_[an];
        const std::vector<bool>& pb = class_pass_[bn];
        size_t both = 0;
        for (size_t d = 0; d < n; ++d) both += pa[d] && pb[d] ? 1 : 0;
        if (both == 0) continue;
        const size_t ca = class_count_[an], cb = class_count_[bn];
        if (ca == both && cb == both) {
          Add("classes-overlap", Severity::kWarning, "DeviceClass", bn, "spec.selectors",
              fmt::format("passes exactly the devices DeviceClass {} passes ({}): the two are the same class "
                          "under two names",
                          an, Plural(both, "device", "devices")),
              fmt::format("keep one of {} and {}, or make their selectors differ", an, bn));
        } else if (ca == both || cb == both) {
          const std::string& small = ca == both ? an : bn;
          const std::string& large = ca == both ? bn : an;
          Add("classes-overlap", Severity::kInfo, "DeviceClass", small, "spec.selectors",
              fmt::format("every device it passes ({}) DeviceClass {} passes too ({}): claims of either compete "
                          "for those devices",
                          Plural(both, "device", "devices"), large, std::max(ca, cb)),
              "nothing, if a narrower class on top of a broader one is meant");
        } else {
          Add("classes-overlap", Severity::kInfo, "DeviceClass", bn, "spec.selectors",
              fmt::format("shares {} with DeviceClass {} ({} passes {}, {} passes {})",
                          Plural(both, "device", "devices"), an, an, ca, bn, cb),
              fmt::format("if the classes are meant to split the devices, make the selectors of {} and {} exclusive",
                          an, bn));
        }
      }
    }
  }

  // The requests of unallocated claims and of templates: their selectors on
  // the devices their class passes. A claim equal to a template of its
  // namespace (one made from it) is the template's case, told once.
  void Requests() {
    std::map<std::string, std::vector<const api::ResourceClaimSpec*>, std::less<>> templates;  // by namespace
    for (const api::ResourceClaimTemplate& t : s_.templates) {
      templates[t.metadata.namespace_].push_back(&t.spec.spec);
      AddSpec("ResourceClaimTemplate", t.metadata.namespace_ + "/" + t.metadata.name, "spec.spec", t.spec.spec,
              t.metadata.namespace_);
    }
    for (const api::ResourceClaim& c : s_.claims) {
      if (c.status.allocation) continue;
      auto same_ns = templates.find(c.metadata.namespace_);
      if (same_ns != templates.end() && std::any_of(same_ns->second.begin(), same_ns->second.end(),
                                                    [&](const api::ResourceClaimSpec* t) { return *t == c.spec; })) {
        continue;
      }
      AddSpec("ResourceClaim", c.metadata.namespace_ + "/" + c.metadata.name, "spec", c.spec, c.metadata.namespace_);
    }
    for (const Spec& spec : specs_) {
      for (const RequestEntry& r : spec.requests) {
        auto pass = class_pass_.find(r.device_class);
        if (pass == class_pass_.end()) continue;  // validate names missing classes
        const std::vector<size_t> tallies = TalliesOf(*r.selectors, r.at);
        for (size_t d = 0; d < devices_.size(); ++d) {
          if (pass->second[d]) Passes(tallies, d);
        }
      }
    }
  }

  struct Spec {
    std::string kind;
    std::string object;
    std::string ns;
    std::string path;  // of the ResourceClaimSpec
    const api::ResourceClaimSpec* spec = nullptr;
    std::vector<RequestEntry> requests;
  };

  void AddSpec(std::string kind, std::string object, std::string path, const api::ResourceClaimSpec& spec,
               const std::string& ns) {
    Spec s{.kind = std::move(kind),
           .object = std::move(object),
           .ns = ns,
           .path = std::move(path),
           .spec = &spec,
           .requests = {}};
    for (size_t i = 0; i < spec.devices.requests.size(); ++i) {
      const api::DeviceRequest& r = spec.devices.requests[i];
      const std::string base = fmt::format("{}.devices.requests[{}]", s.path, i);
      if (r.exactly) {
        s.requests.push_back({.at = {.kind = s.kind, .object = s.object, .path = base + ".exactly.selectors"},
                              .device_class = r.exactly->device_class_name,
                              .selectors = &r.exactly->selectors});
      }
      for (size_t j = 0; j < r.first_available.size(); ++j) {
        s.requests.push_back({.at = {.kind = s.kind,
                                     .object = s.object,
                                     .path = fmt::format("{}.firstAvailable[{}].selectors", base, j)},
                              .device_class = r.first_available[j].device_class_name,
                              .selectors = &r.first_available[j].selectors});
      }
    }
    specs_.push_back(std::move(s));
  }

  // Per selector written somewhere: its evaluations there.
  struct SelectorTally {
    SelectorsAt at;
    size_t index = 0;  // into the selectors
    size_t expr = 0;   // Evaluations id
    size_t evaluated = 0;
    size_t errors = 0;
    std::vector<std::string> error_devices;
    std::string first_error;
  };
  size_t Tally(const SelectorsAt& at, size_t index, size_t expr) {
    const auto key = std::make_tuple(at.kind, at.object, at.path, index);
    auto it = tallies_.find(key);
    if (it == tallies_.end()) {
      it = tallies_.emplace(key, tally_list_.size()).first;
      tally_list_.push_back(SelectorTally{
          .at = at, .index = index, .expr = expr, .evaluated = 0, .errors = 0, .error_devices = {}, .first_error = {}});
    }
    return it->second;
  }

  // selector-runtime-error and selector-cost-high, once per selector text
  // and kind of failure (a hundred claims with one bad selector are one
  // finding naming the first).
  void SelectorFindings() {
    std::map<size_t, std::vector<const SelectorTally*>> failing, costly;  // by Evaluations id
    for (const SelectorTally& t : tally_list_) {
      if (t.errors > 0) failing[t.expr].push_back(&t);
      if (t.evaluated > 0 && evals_->MaxCost(t.expr) >= options_.cost_warning) costly[t.expr].push_back(&t);
    }
    for (const auto& [expr, list] : failing) {
      const SelectorTally& t = *list.front();
      size_t errors = 0;
      for (const SelectorTally* o : list) errors = std::max(errors, o->errors);
      std::string also;
      if (list.size() > 1)
        also = fmt::format(" (the same selector in {} more)", Plural(list.size() - 1, "object", "objects"));
      const bool no_such_key = t.first_error.find("no such key") != std::string::npos;
      Add("selector-runtime-error", Severity::kError, t.at.kind, t.at.object,
          fmt::format("{}[{}].cel.expression", t.at.path, t.index),
          fmt::format("fails on {}{} ({}): {}; the allocator then fails every claim that reaches such a device{}",
                      Plural(errors, "device", "devices"), t.at.kind == "DeviceClass" ? "" : " its class passes",
                      Examples(t.error_devices, errors, options_.examples), t.first_error, also),
          no_such_key ? "guard the read: has(device.attributes[...].x) && ..., or optional chaining "
                        "(device.attributes[...].?x.orValue(...))"
                      : "make the selector give true or false on every device it is evaluated on");
    }
    for (const auto& [expr, list] : costly) {
      const SelectorTally& t = *list.front();
      std::string also;
      if (list.size() > 1)
        also = fmt::format(" (the same selector in {} more)", Plural(list.size() - 1, "object", "objects"));
      Add("selector-cost-high", Severity::kWarning, t.at.kind, t.at.object,
          fmt::format("{}[{}].cel.expression", t.at.path, t.index),
          fmt::format(
              "costs {} on device {}, {:.0f}% of the limit of {} per evaluation: larger attribute values "
              "can push it over, and the claim then fails{}",
              evals_->MaxCost(expr), DeviceName(devices_[evals_->MaxCostDevice(expr)]),
              100.0 * static_cast<double>(evals_->MaxCost(expr)) / static_cast<double>(cel::kKubernetesCostLimit),
              cel::kKubernetesCostLimit, also),
          "read fewer or smaller values (avoid comprehensions over lists and string functions on long values)");
    }
  }

  // claim-fits-no-node: the allocator with nothing allocated, node by node
  // until one holds the claim.
  Status ClaimsFitNoNode() {
    if (specs_.empty()) return OkStatus();
    std::vector<const api::DeviceClass*> classes;
    for (const api::DeviceClass& c : s_.classes) classes.push_back(&c);
    const alloc::Allocator allocator(features_, alloc::AllocatedState{}, classes, index_.get(), selectors_.get());
    for (const Spec& spec : specs_) {
      if (spec.spec->devices.requests.empty()) continue;
      // Every class it names must exist (validate says which does not).
      bool classes_known = true;
      for (const RequestEntry& r : spec.requests) classes_known = classes_known && allocator.FindClass(r.device_class);
      if (!classes_known) continue;
      api::ResourceClaim claim;
      const size_t slash = spec.object.find('/');
      claim.metadata.namespace_ = spec.object.substr(0, slash);
      claim.metadata.name = spec.object.substr(slash + 1);
      claim.spec = *spec.spec;
      const api::ResourceClaim* claims[] = {&claim};
      bool fits = false, failed = false;
      std::optional<alloc::Reason> nearest;
      std::string nearest_node;
      for (const api::Node& node : s_.nodes) {
        StatusOr<alloc::NodeFit> fit = allocator.Allocate(node, claims, alloc::Allocator::ResultDetail::kSummary);
        if (!fit.ok()) {
          failed = true;  // a selector error (selector-runtime-error) or the step limit
          break;
        }
        if (fit->fits) {
          fits = true;
          break;
        }
        if (!nearest || Closer(*spec.spec, fit->reason, *nearest)) {
          nearest = fit->reason;
          nearest_node = node.metadata.name;
        }
      }
      if (fits || failed) continue;
      std::string message = s_.nodes.empty() ? "the cluster has no nodes"
                                             : fmt::format("no node can hold it, even with every device free ({})",
                                                           Plural(s_.nodes.size(), "node", "nodes"));
      if (nearest) message += fmt::format("; nearest: node {}: {}", nearest_node, nearest->ToString());
      Add("claim-fits-no-node", Severity::kError, spec.kind, spec.object, spec.path + ".devices.requests", message,
          "ask for fewer devices or loosen the selectors (dractl explain on a pod using it names each node's "
          "reason), or add nodes that have such devices");
    }
    return OkStatus();
  }

  // The nearer of two reasons a claim of `spec` failed for: a later request
  // failing (the ones before it were satisfied), then more usable devices of
  // those needed.
  static bool Closer(const api::ResourceClaimSpec& spec, const alloc::Reason& a, const alloc::Reason& b) {
    const auto depth = [&](const alloc::Reason& r) {
      const std::string_view name = std::string_view(r.request).substr(0, r.request.find('/'));
      for (size_t i = 0; i < spec.devices.requests.size(); ++i) {
        if (spec.devices.requests[i].name == name) return i;
      }
      return size_t{0};
    };
    const auto share = [](const alloc::Reason& r) {
      return r.needed > 0 ? static_cast<double>(r.usable) / static_cast<double>(r.needed) : 0.0;
    };
    if (depth(a) != depth(b)) return depth(a) > depth(b);
    return share(a) > share(b);
  }

  // admin-access-namespace.
  void AdminAccess() {
    if (!s_.gates.enabled(api::Gate::kDRAAdminAccess)) return;
    std::set<std::string> unknown_told;
    for (const Spec& spec : specs_) Admin(spec.kind, spec.object, spec.ns, spec.path, *spec.spec, &unknown_told);
    for (const api::ResourceClaim& c : s_.claims) {
      if (!c.status.allocation) continue;  // unallocated ones are among specs_ (or their template)
      Admin("ResourceClaim", c.metadata.namespace_ + "/" + c.metadata.name, c.metadata.namespace_, "spec", c.spec,
            &unknown_told);
    }
  }

  void Admin(const std::string& kind, const std::string& object, const std::string& ns, const std::string& path,
             const api::ResourceClaimSpec& spec, std::set<std::string>* unknown_told) {
    for (size_t i = 0; i < spec.devices.requests.size(); ++i) {
      const api::DeviceRequest& r = spec.devices.requests[i];
      if (!r.exactly || !r.exactly->admin_access.value_or(false)) continue;
      const std::string field = fmt::format("{}.devices.requests[{}].exactly.adminAccess", path, i);
      const Namespace* found = nullptr;
      for (const Namespace& n : options_.namespaces) {
        if (n.name == ns) found = &n;
      }
      constexpr std::string_view kLabel = "resource.kubernetes.io/admin-access";
      const std::string fix = fmt::format(
          "kubectl label namespace {} {}=true (only for namespaces of trusted "
          "cluster administrators)",
          ns, kLabel);
      if (found == nullptr) {
        if (!unknown_told->insert(ns).second) continue;
        Add("admin-access-namespace", Severity::kWarning, kind, object, field,
            options_.namespaces_known
                ? fmt::format("requests admin access, and namespace {} is not in the input: the API server refuses "
                              "the claim unless the namespace has the label {}: \"true\"",
                              ns, kLabel)
                : fmt::format("requests admin access; the input holds no Namespace objects, so whether namespace {} "
                              "has the label {}: \"true\" (without it the API server refuses the claim) is unknown",
                              ns, kLabel),
            fix);
        continue;
      }
      auto label = found->labels.find(kLabel);
      if (label != found->labels.end() && label->second == "true") continue;
      Add("admin-access-namespace", Severity::kError, kind, object, field,
          fmt::format("requests admin access in namespace {}, which lacks the label {}: \"true\": the API server "
                      "refuses such claims",
                      ns, kLabel),
          fix);
    }
  }

  // pool-incomplete.
  void Pools() {
    std::map<std::pair<std::string, std::string>, std::vector<const api::ResourceSlice*>> pools;
    for (const api::ResourceSlice& sl : s_.slices) pools[{sl.spec.driver, sl.spec.pool.name}].push_back(&sl);
    for (const auto& [key, slices] : pools) {
      int64_t newest = slices.front()->spec.pool.generation;
      for (const api::ResourceSlice* sl : slices) newest = std::max(newest, sl->spec.pool.generation);
      std::vector<const api::ResourceSlice*> current;
      std::set<int64_t> counts;
      for (const api::ResourceSlice* sl : slices) {
        if (sl->spec.pool.generation != newest) continue;
        current.push_back(sl);
        counts.insert(sl->spec.pool.resource_slice_count);
      }
      const std::string pool = key.first + "/" + key.second;
      const std::string fix = fmt::format(
          "check the driver {} on the pool's node (its logs): it publishes a pool "
          "all at once, with one resourceSliceCount",
          key.first);
      if (counts.size() > 1) {
        std::string values;
        for (int64_t c : counts) values += (values.empty() ? "" : ", ") + std::to_string(c);
        Add("pool-incomplete", Severity::kError, "ResourceSlice", current.front()->metadata.name,
            "spec.pool.resourceSliceCount",
            fmt::format("the slices of pool {} (generation {}) disagree on resourceSliceCount ({}): the allocator "
                        "treats the pool as invalid and uses none of its devices",
                        pool, newest, values),
            fix);
        continue;
      }
      const int64_t want = *counts.begin();
      const auto have = static_cast<int64_t>(current.size());
      if (have == want) continue;
      Add("pool-incomplete", Severity::kError, "ResourceSlice", current.front()->metadata.name,
          "spec.pool.resourceSliceCount",
          have < want ? fmt::format("pool {} (generation {}) has {} of the {} slices it announces: the allocator "
                                    "skips an incomplete pool, so none of its devices can be allocated",
                                    pool, newest, have, want)
                      : fmt::format("pool {} (generation {}) has {} slices and announces {}: the allocator treats "
                                    "the pool as invalid",
                                    pool, newest, have, want),
          fix);
    }
  }

  // device-tainted, per taint key and effect.
  void Taints() {
    std::vector<const api::DeviceTaintRule*> rules;
    for (const api::DeviceTaintRule& r : s_.rules) rules.push_back(&r);
    struct Group {
      size_t devices = 0;
      std::vector<std::string> where;
    };
    std::map<std::pair<std::string, std::string>, Group> groups;
    for (const alloc::TaintCount& t : alloc::CountTaints(slices_, rules, s_.gates)) {
      if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
      Group& g = groups[{t.key, t.effect}];
      g.devices += t.devices;
      g.where.push_back(t.where);
    }
    for (const auto& [key, g] : groups) {
      Add("device-tainted", Severity::kWarning, "", "taint " + key.first, "",
          fmt::format(
              "{} on {} {} the taint {} ({}): {}", Plural(g.devices, "device", "devices"),
              Plural(g.where.size(), "node", "nodes"), g.devices == 1 ? "carries" : "carry", key.first, key.second,
              Examples(g.where, g.where.size(), options_.examples) +
                  (key.second == "NoExecute" ? "; pods using them are evicted" : "; new claims cannot get them")),
          "repair or replace the devices, then remove the taint (the driver's, or the DeviceTaintRule); a claim "
          "that must use them tolerates the taint");
    }
  }

  // stranded-devices: free devices on a node with no room for pods.
  Status Stranded() {
    if (s_.nodes.empty() || devices_.empty()) return OkStatus();
    std::vector<const api::ResourceClaim*> allocated;
    for (const api::ResourceClaim& c : s_.claims) {
      if (c.status.allocation) allocated.push_back(&c);
    }
    alloc::AllocatedState state;
    if (!state.AddClaims(allocated, features_).ok()) return OkStatus();  // validate reports the claims
    const alloc::Allocator allocator(features_, std::move(state), {}, index_.get(), selectors_.get());
    const sched::NodeIndex nodes(s_.nodes);
    std::vector<sched::Resources> requested(s_.nodes.size());
    std::vector<int64_t> pods(s_.nodes.size(), 0);
    for (const api::Pod& p : s_.pods) {
      if (p.spec.node_name.empty() || p.status.phase == api::PodPhase::kSucceeded ||
          p.status.phase == api::PodPhase::kFailed) {
        continue;
      }
      std::optional<size_t> n = nodes.Find(p.spec.node_name);
      if (!n) continue;
      requested[*n].Add(sched::PodRequests(p));
      ++pods[*n];
    }
    for (size_t i = 0; i < s_.nodes.size(); ++i) {
      const api::Node& node = s_.nodes[i];
      const alloc::Allocator::DeviceCount count = allocator.CountDevices(node);
      const int64_t free = count.devices - count.in_use;
      if (free <= 0) continue;
      const sched::Resources alloc = sched::NodeAllocatable(node);
      std::vector<std::string> full;
      if (alloc.pods > 0 && pods[i] >= alloc.pods)
        full.push_back(fmt::format("no pod slot left ({} of {} pods)", pods[i], alloc.pods));
      if (alloc.milli_cpu > 0 && (alloc.milli_cpu - requested[i].milli_cpu) * 100 < alloc.milli_cpu) {
        full.push_back(fmt::format("{}m of {}m cpu requested", requested[i].milli_cpu, alloc.milli_cpu));
      }
      if (alloc.memory > 0 && (alloc.memory - requested[i].memory) < alloc.memory / 100) {
        full.push_back(fmt::format("{} of {} bytes of memory requested", requested[i].memory, alloc.memory));
      }
      if (full.empty()) continue;
      std::string why;
      for (const std::string& f : full) why += (why.empty() ? "" : ", ") + f;
      Add("stranded-devices", Severity::kWarning, "Node", node.metadata.name, "status.allocatable",
          fmt::format("{} of its {} devices {} free, but {}: no pod can use them", free, count.devices,
                      free == 1 ? "is" : "are", why),
          "keep pods that use no devices off device nodes (a taint on them), or give the node more cpu, memory "
          "or pods (kubelet --max-pods)");
    }
    return OkStatus();
  }

  // slice-near-limit.
  void SliceLimits() {
    const bool taints = s_.gates.enabled(api::Gate::kDRADeviceTaints);
    const bool counters = s_.gates.enabled(api::Gate::kDRAPartitionableDevices);
    const bool lists = s_.gates.enabled(api::Gate::kDRAListTypeAttributes);
    for (const api::ResourceSlice& sl : s_.slices) {
      bool advanced = false;
      size_t most = 0;
      std::string most_device;
      for (const api::Device& d : sl.spec.devices) {
        advanced = advanced || (taints && !d.rare->taints.empty()) || (counters && !d.rare->consumes_counters.empty());
        for (const auto& [name, attribute] : d.attributes) advanced = advanced || (lists && attribute.is_list());
        const size_t fields = d.attributes.size() + d.capacity.size();
        if (fields > most) {
          most = fields;
          most_device = d.name;
        }
      }
      const size_t max = advanced ? api::kResourceSliceMaxDevicesWithAdvancedFeatures : api::kResourceSliceMaxDevices;
      if (sl.spec.devices.size() * 10 >= max * 9) {
        Add("slice-near-limit", Severity::kInfo, "ResourceSlice", sl.metadata.name, "spec.devices",
            fmt::format("{} of the {} devices a slice may hold{}", sl.spec.devices.size(), max,
                        advanced ? " (taints, counters or list attributes lower the limit from 128)" : ""),
            "the driver should split the pool over more slices (resourceSliceCount) before it grows further");
      }
      const size_t per_device = api::kResourceSliceMaxAttributesAndCapacitiesPerDevice;
      if (most * 10 >= per_device * 9) {
        Add("slice-near-limit", Severity::kInfo, "ResourceSlice", sl.metadata.name, "spec.devices",
            fmt::format("device {} has {} attributes and capacities of the {} a device may have", most_device, most,
                        per_device),
            "the driver should publish fewer attributes per device");
      }
    }
  }

  // attribute-nonstandard.
  void NonstandardAttributes() {
    struct Standard {
      std::string_view name;
      std::vector<std::string_view> aliases;  // lower case, letters and digits only
    };
    static const Standard kStandard[] = {
        {"pcieRoot", {"pcieroot"}},
        {"pciBusID", {"pcibusid", "pciebusid", "pciaddress", "pciaddr"}},
        {"numaNode", {"numanode", "numanodeid", "numa"}},
    };
    struct Seen {
      size_t devices = 0;
      std::string first_slice;
      std::vector<std::string> examples;
    };
    std::map<std::tuple<std::string, std::string, std::string_view>, Seen> seen;  // driver, attribute, standard
    for (const DeviceRef& d : devices_) {
      for (const auto& [key, attribute] : d.device->attributes) {
        const std::string_view name = key;
        const size_t slash = name.rfind('/');
        const std::string_view domain = slash == std::string_view::npos ? "" : name.substr(0, slash);
        if (domain == "resource.kubernetes.io") continue;
        std::string folded;
        for (char ch : name.substr(slash == std::string_view::npos ? 0 : slash + 1)) {
          if (std::isalnum(static_cast<unsigned char>(ch)))
            folded += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        for (const Standard& st : kStandard) {
          if (std::find(st.aliases.begin(), st.aliases.end(), folded) == st.aliases.end()) continue;
          const std::string standard = fmt::format("resource.kubernetes.io/{}", st.name);
          if (d.device->attributes.contains(standard)) continue;
          Seen& s = seen[{d.slice->spec.driver, std::string(name), st.name}];
          if (s.devices++ < options_.examples) s.examples.push_back(DeviceName(d));
          if (s.first_slice.empty()) s.first_slice = d.slice->metadata.name;
        }
      }
    }
    for (const auto& [key, s] : seen) {
      const auto& [driver, attribute, standard] = key;
      Add("attribute-nonstandard", Severity::kInfo, "ResourceSlice", s.first_slice, "spec.devices",
          fmt::format("{} of driver {} {} {} but not resource.kubernetes.io/{}: a matchAttribute constraint "
                      "across drivers (a GPU and a NIC on one PCIe root) needs the standard name ({})",
                      Plural(s.devices, "device", "devices"), driver, s.devices == 1 ? "carries" : "carry", attribute,
                      standard, Examples(s.examples, s.devices, options_.examples)),
          fmt::format("publish resource.kubernetes.io/{} as well (k8s.io/dynamic-resource-allocation/deviceattribute "
                      "helps drivers)",
                      standard));
    }
  }

  const sched::Snapshot& s_;
  const AuditOptions& options_;
  const cel::DraEnvironment& env_;
  std::vector<DeviceRef> devices_;
  std::unique_ptr<Evaluations> evals_;
  // What the allocator needs, for claim-fits-no-node and stranded-devices.
  const alloc::Features features_ = alloc::Features::FromGates(s_.gates);
  std::vector<const api::ResourceSlice*> slices_;
  std::unique_ptr<alloc::SliceIndex> index_;             // over slices_
  std::unique_ptr<alloc::SelectorEvaluator> selectors_;  // set by Run
  std::map<std::string, std::vector<bool>, std::less<>> class_pass_;
  std::map<std::string, size_t, std::less<>> class_count_;
  std::vector<Spec> specs_;
  std::map<std::tuple<std::string, std::string, std::string, size_t>, size_t> tallies_;
  std::vector<SelectorTally> tally_list_;
  std::vector<Finding> findings_;
};

}  // namespace

StatusOr<std::vector<Finding>> Audit(const sched::Snapshot& cluster, const AuditOptions& options) {
  cel::DraEnvOptions env_options;
  env_options.minor = kDefaultMinor;
  env_options.consumable_capacity = cluster.gates.enabled(api::Gate::kDRAConsumableCapacity);
  env_options.list_type_attributes = cluster.gates.enabled(api::Gate::kDRAListTypeAttributes);
  DRA_ASSIGN_OR_RETURN(std::unique_ptr<cel::DraEnvironment> env, cel::DraEnvironment::New(env_options));
  Auditor auditor(cluster, options, *env);
  DRA_RETURN_IF_ERROR(auditor.Run());
  std::vector<Finding> findings = auditor.TakeFindings();
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return std::tie(a.id, a.object, a.field) < std::tie(b.id, b.object, b.field);
  });
  return findings;
}

}  // namespace dra::audit
