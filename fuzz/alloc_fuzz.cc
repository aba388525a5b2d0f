// libFuzzer target for the allocator: the input drives a generator of small
// one-node scenarios (feature gates, one or two pools of devices with
// attributes, capacities, shared counters, multi-allocation and taints,
// devices already in use, one to three claims with exact, All and
// prioritized-list requests, CEL selectors, capacity requests, tolerations
// and matchAttribute constraints). The scenario is built as manifest trees, decoded
// by the same decoder as user manifests and allocated as `dractl allocate`
// does. When the claims fit, the results are checked against the generator's
// own model of the devices, never against the allocator's:
//   - every result names a device of the node, at most kMaxDevicesPerClaim
//     per claim;
//   - no device is allocated twice, nor one already in use, unless it allows
//     multiple allocations (and DRAConsumableCapacity is on), in which case
//     every result on it carries a distinct share ID and the consumed
//     capacity of its shares never exceeds the device's capacity;
//   - shared counters never go negative: what the devices in use and the new
//     devices consume from a counter set stays within the set;
//   - every device satisfies its class's and its request's selectors
//     (evaluated natively from the model), the requested capacity, and
//     tolerates the device's NoSchedule taint when DRADeviceTaints is on;
//   - a request gets exactly `count` devices (All: every matching device,
//     possibly none),
//     a prioritized-list request exactly one subrequest's worth;
//   - matchAttribute: all devices of the constrained requests have the
//     attribute, with one value.
// A violation aborts with the scenario on stderr. Errors (a selector that
// does not compile under the gates, the search-step limit) and "does not
// fit" are normal outcomes. See fuzz/README.md.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "alloc/allocated_state.h"
#include "alloc/allocator.h"
#include "alloc/cel_selector.h"
#include "alloc/features.h"
#include "alloc/pools.h"
#include "api/defaults.h"
#include "api/features.h"
#include "manifest/decode.h"
#include "manifest/emit.h"
#include "manifest/node.h"

namespace dra::alloc {
namespace {

constexpr const char* kDriver = "gpu.example.com";
constexpr const char* kModels[] = {"a", "b", "c"};
constexpr int kMems[] = {16, 24, 40, 80};

struct Dev {
  std::string pool;
  std::string name;
  std::string model;
  int mem = 0;              // attribute `mem` (int) and capacity `memory` (Gi)
  std::optional<int> numa;  // attribute `numa` (int), sometimes absent
  bool multi = false;       // allowMultipleAllocations
  int counter = 0;          // Gi consumed from counter set cs of its pool; 0 = none
  bool taint = false;       // NoSchedule taint key "k"
  bool in_use = false;      // already allocated (dedicated)
};

// A selector: its CEL text and the same predicate evaluated on the model.
struct Sel {
  const char* cel;
  std::function<bool(const Dev&)> matches;
};

const std::vector<Sel>& Selectors() {
  static const std::vector<Sel> selectors = {
      {R"(device.attributes["gpu.example.com"].model == "a")", [](const Dev& d) { return d.model == "a"; }},
      {R"(device.attributes["gpu.example.com"].mem >= 40)", [](const Dev& d) { return d.mem >= 40; }},
      {R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) > 0)",
       [](const Dev& d) { return d.mem > 24; }},
      {R"("numa" in device.attributes["gpu.example.com"])", [](const Dev& d) { return d.numa.has_value(); }},
      {R"(device.attributes["gpu.example.com"].model != "c")", [](const Dev& d) { return d.model != "c"; }},
      {R"(device.driver == "gpu.example.com")", [](const Dev&) { return true; }},
  };
  return selectors;
}

// Classes: "any" (driver), "big" (mem >= 40), "shared" (multi-allocatable).
struct Class {
  const char* name;
  const char* cel;
  std::function<bool(const Dev&)> matches;
};

const std::vector<Class>& Classes() {
  static const std::vector<Class> classes = {
      {"any", R"(device.driver == "gpu.example.com")", [](const Dev&) { return true; }},
      {"big", R"(device.attributes["gpu.example.com"].mem >= 40)", [](const Dev& d) { return d.mem >= 40; }},
      {"shared", R"(device.allowMultipleAllocations)", [](const Dev& d) { return d.multi; }},
  };
  return classes;
}

struct Sub {
  std::string name;
  size_t cls = 0;
  std::vector<size_t> selectors;
  bool all = false;
  int count = 1;
  int capacity = 0;  // Gi of `memory` requested; 0 = none
  bool tolerate = false;
};

struct Req {
  std::string name;
  std::vector<Sub> subs;  // one: `exactly`; more: `firstAvailable`
};

struct Constraint {
  std::vector<std::string> requests;  // empty = all
  std::string attribute;              // "numa" or "model"
};

struct Claim {
  std::string name;
  std::vector<Req> requests;
  std::vector<Constraint> constraints;
};

struct Model {
  std::vector<std::string> gates;
  std::vector<Dev> devices;
  std::map<std::string, int> counter_sets;  // pool -> Gi in set cs ("" = none)
  bool incomplete_pool = false;
  std::vector<Claim> claims;
};

Model Generate(FuzzedDataProvider& in) {
  Model m;
  const char* gates[] = {"DRAPrioritizedList", "DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceTaints"};
  const uint8_t gate_bits = in.ConsumeIntegral<uint8_t>();
  for (size_t i = 0; i < 4; ++i) {
    if (gate_bits & (1u << i)) m.gates.push_back(gates[i]);
  }
  const int pools = in.ConsumeIntegralInRange(1, 2);
  for (int p = 0; p < pools; ++p) {
    std::string pool = "p" + std::to_string(p);
    if (in.ConsumeBool()) m.counter_sets[pool] = 8 * in.ConsumeIntegralInRange(1, 20);
    const int devices = in.ConsumeIntegralInRange(0, 8);
    for (int i = 0; i < devices; ++i) {
      Dev d;
      d.pool = pool;
      d.name = "d" + std::to_string(m.devices.size());
      d.model = kModels[in.ConsumeIntegralInRange(0, 2)];
      d.mem = kMems[in.ConsumeIntegralInRange(0, 3)];
      if (in.ConsumeBool()) d.numa = in.ConsumeIntegralInRange(0, 1);
      const uint8_t bits = in.ConsumeIntegral<uint8_t>();
      d.multi = (bits & 3) == 3;
      if ((bits & 4) && m.counter_sets.count(pool)) d.counter = 8 * in.ConsumeIntegralInRange(1, 10);
      d.taint = (bits & 0x18) == 0x18;
      d.in_use = !d.multi && (bits & 0x60) == 0x60;
      m.devices.push_back(d);
    }
  }
  m.incomplete_pool = in.ConsumeIntegralInRange(0, 15) == 0;

  const int claims = in.ConsumeIntegralInRange(1, 3);
  for (int c = 0; c < claims; ++c) {
    Claim claim;
    claim.name = "c" + std::to_string(c);
    const int requests = in.ConsumeIntegralInRange(1, 3);
    for (int r = 0; r < requests; ++r) {
      Req req;
      req.name = "r" + std::to_string(r);
      const int subs = in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegralInRange(2, 3) : 1;
      for (int s = 0; s < subs; ++s) {
        Sub sub;
        sub.name = subs == 1 ? "" : "s" + std::to_string(s);
        sub.cls = in.ConsumeIntegralInRange<size_t>(0, Classes().size() - 1);
        const int selectors = in.ConsumeIntegralInRange(0, 2);
        for (int k = 0; k < selectors; ++k) {
          sub.selectors.push_back(in.ConsumeIntegralInRange<size_t>(0, Selectors().size() - 1));
        }
        sub.all = in.ConsumeIntegralInRange(0, 7) == 0;
        sub.count = in.ConsumeIntegralInRange(1, 4);
        if (in.ConsumeIntegralInRange(0, 3) == 0) sub.capacity = 8 * in.ConsumeIntegralInRange(1, 10);
        sub.tolerate = in.ConsumeBool();
        req.subs.push_back(sub);
      }
      claim.requests.push_back(req);
    }
    const int constraints = in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegralInRange(1, 2) : 0;
    for (int k = 0; k < constraints; ++k) {
      Constraint con;
      con.attribute = in.ConsumeBool() ? "numa" : "model";
      if (in.ConsumeBool()) {
        for (const Req& req : claim.requests) {
          if (in.ConsumeBool()) con.requests.push_back(req.name);
        }
        if (con.requests.empty()) con.requests.push_back(claim.requests[0].name);
      }
      claim.constraints.push_back(con);
    }
    m.claims.push_back(claim);
  }
  return m;
}

// Small builders for manifest trees that move, never copy, their parts:
// M()("key", value)("key2", value2) is a mapping.
class M {
 public:
  M() : node_(manifest::Node::Mapping()) {}
  M&& operator()(std::string key, manifest::Node value) && {
    node_.Add(std::move(key), std::move(value));
    return std::move(*this);
  }
  operator manifest::Node() && { return std::move(node_); }  // NOLINT: implicit on purpose

 private:
  manifest::Node node_;
};
manifest::Node One(manifest::Node item) {
  manifest::Node n = manifest::Node::Sequence();
  n.Push(std::move(item));
  return n;
}
manifest::Node Str(std::string s) { return manifest::Node::String(std::move(s)); }
manifest::Node Int(int64_t v) { return manifest::Node::Int(v); }
manifest::Node Gi(int v) { return Str(std::to_string(v) + "Gi"); }
manifest::Node Value(int gi) { return M()("value", Gi(gi)); }
M Header(const std::string& kind, manifest::Node metadata) {
  return M()("apiVersion", Str("resource.k8s.io/v1"))("kind", Str(kind))("metadata", std::move(metadata));
}

// The scenario's objects, as a user would write them.
std::vector<manifest::Node> ToObjects(const Model& m) {
  std::vector<manifest::Node> out;
  for (const Class& c : Classes()) {
    out.push_back(Header("DeviceClass", M()("name", Str(c.name)))(
        "spec", M()("selectors", One(M()("cel", M()("expression", Str(c.cel)))))));
  }
  std::set<std::string> pools;
  for (const Dev& d : m.devices) pools.insert(d.pool);
  for (const auto& [pool, gi] : m.counter_sets) pools.insert(pool);
  for (const std::string& pool : pools) {
    const bool counters = m.counter_sets.count(pool) > 0;
    const int slices = counters ? 2 : 1;
    const int declared = slices + (m.incomplete_pool && pool == "p0" ? 1 : 0);
    auto slice = [&](const std::string& name, manifest::Node body, const std::string& key) -> manifest::Node {
      return Header("ResourceSlice", M()("name", Str(name)))(
          "spec", M()("driver", Str(kDriver))("nodeName", Str("n1"))(
                      "pool", M()("name", Str(pool))("generation", Int(1))("resourceSliceCount", Int(declared)))(
                      key, std::move(body)));
    };
    if (counters) {
      out.push_back(slice(pool + "-counters",
                          One(M()("name", Str("cs"))("counters", M()("mem", Value(m.counter_sets.at(pool))))),
                          "sharedCounters"));
    }
    manifest::Node devices = manifest::Node::Sequence();
    for (const Dev& d : m.devices) {
      if (d.pool != pool) continue;
      manifest::Node attributes = M()("model", M()("string", Str(d.model)))("mem", M()("int", Int(d.mem)));
      if (d.numa) attributes.Add("numa", M()("int", Int(*d.numa)));
      manifest::Node dev =
          M()("name", Str(d.name))("attributes", std::move(attributes))("capacity", M()("memory", Value(d.mem)));
      if (d.multi) dev.Add("allowMultipleAllocations", manifest::Node::Bool(true));
      if (d.counter > 0) {
        dev.Add("consumesCounters", One(M()("counterSet", Str("cs"))("counters", M()("mem", Value(d.counter)))));
      }
      if (d.taint) {
        dev.Add("taints", One(M()("key", Str("k"))("value", Str("v"))("effect", Str("NoSchedule"))));
      }
      devices.Push(std::move(dev));
    }
    out.push_back(slice(pool + "-devices", std::move(devices), "devices"));
  }
  for (const Claim& c : m.claims) {
    manifest::Node requests = manifest::Node::Sequence();
    for (const Req& r : c.requests) {
      auto body = [&](const Sub& s) {
        manifest::Node b =
            M()("deviceClassName", Str(Classes()[s.cls].name))("allocationMode", Str(s.all ? "All" : "ExactCount"));
        if (!s.all) b.Add("count", Int(s.count));
        if (!s.selectors.empty()) {
          manifest::Node selectors = manifest::Node::Sequence();
          for (size_t k : s.selectors) selectors.Push(M()("cel", M()("expression", Str(Selectors()[k].cel))));
          b.Add("selectors", std::move(selectors));
        }
        if (s.capacity > 0) b.Add("capacity", M()("requests", M()("memory", Gi(s.capacity))));
        if (s.tolerate) {
          b.Add("tolerations", One(M()("key", Str("k"))("operator", Str("Exists"))("effect", Str("NoSchedule"))));
        }
        return b;
      };
      manifest::Node req = M()("name", Str(r.name));
      if (r.subs.size() == 1) {
        req.Add("exactly", body(r.subs[0]));
      } else {
        manifest::Node subs = manifest::Node::Sequence();
        for (const Sub& s : r.subs) {
          manifest::Node sub = body(s);
          sub.Add("name", Str(s.name));
          subs.Push(std::move(sub));
        }
        req.Add("firstAvailable", std::move(subs));
      }
      requests.Push(std::move(req));
    }
    manifest::Node devices = M()("requests", std::move(requests));
    if (!c.constraints.empty()) {
      manifest::Node constraints = manifest::Node::Sequence();
      for (const Constraint& con : c.constraints) {
        manifest::Node k = M()("matchAttribute", Str("gpu.example.com/" + con.attribute));
        if (!con.requests.empty()) {
          manifest::Node names = manifest::Node::Sequence();
          for (const std::string& n : con.requests) names.Push(Str(n));
          k.Add("requests", std::move(names));
        }
        constraints.Push(std::move(k));
      }
      devices.Add("constraints", std::move(constraints));
    }
    out.push_back(Header("ResourceClaim", M()("name", Str(c.name))("namespace", Str("default")))(
        "spec", M()("devices", std::move(devices))));
  }
  return out;
}

struct Checker {
  const Model& m;
  const std::vector<manifest::Node>& objects;
  bool gate(const std::string& name) const {
    for (const std::string& g : m.gates) {
      if (g == name) return true;
    }
    return false;
  }

  [[noreturn]] void Fail(const std::string& what) const {
    std::fprintf(stderr, "alloc_fuzz: %s\ngates:", what.c_str());
    for (const std::string& g : m.gates) std::fprintf(stderr, " %s", g.c_str());
    std::fprintf(stderr, "\n--- scenario ---\n%s\n", manifest::EmitYamlDocuments(objects).c_str());
    std::abort();
  }

  const Dev* Find(const api::DeviceRequestAllocationResult& r) const {
    if (r.driver != kDriver) return nullptr;
    for (const Dev& d : m.devices) {
      if (d.pool == r.pool && d.name == r.device) return &d;
    }
    return nullptr;
  }

  bool Matches(const Sub& s, const Dev& d) const {
    if (!Classes()[s.cls].matches(d)) return false;
    for (size_t k : s.selectors) {
      if (!Selectors()[k].matches(d)) return false;
    }
    return true;
  }

  // The devices an All (sub)request takes (src/alloc/README.md §4 step 3.6):
  // every device matching the selectors, in use or tainted or not (then it
  // does not fit at all), except, with DRAConsumableCapacity, those whose
  // capacity is below the request. An incomplete pool makes All an error, so it never
  // gets here.
  int MatchingForAll(const Sub& s) const {
    int matching = 0;
    for (const Dev& d : m.devices) {
      const bool capacity_ok = !gate("DRAConsumableCapacity") || s.capacity <= d.mem;
      if (Matches(s, d) && capacity_ok) ++matching;
    }
    return matching;
  }

  void Check(const std::vector<api::AllocationResult>& results) const {
    if (results.size() != m.claims.size()) Fail("one result per claim expected");
    std::map<const Dev*, int> uses;
    std::map<const Dev*, std::set<std::string>> shares;
    std::map<const Dev*, int64_t> consumed_bytes;  // consumed capacity of the shares per device
    for (size_t c = 0; c < results.size(); ++c) {
      const Claim& claim = m.claims[c];
      const auto& got = results[c].devices.results;
      if (static_cast<int64_t>(got.size()) > kMaxDevicesPerClaim) Fail(claim.name + ": more than 32 devices");
      // request name -> (subrequest chosen, devices)
      std::map<std::string, std::pair<std::string, std::vector<const Dev*>>> per_request;
      for (const auto& r : got) {
        const Dev* d = Find(r);
        if (d == nullptr) Fail(claim.name + ": result names an unknown device " + r.pool + "/" + r.device);
        const std::string req_name = r.request.substr(0, r.request.find('/'));
        const std::string sub_name =
            r.request.find('/') == std::string::npos ? "" : r.request.substr(r.request.find('/') + 1);
        const Req* req = nullptr;
        for (const Req& q : claim.requests) {
          if (q.name == req_name) req = &q;
        }
        if (req == nullptr) Fail(claim.name + ": result for unknown request " + r.request);
        const Sub* sub = nullptr;
        for (const Sub& s : req->subs) {
          if (s.name == sub_name) sub = &s;
        }
        if (sub == nullptr) Fail(claim.name + ": result names no subrequest of its request: " + r.request);
        auto& entry = per_request[req_name];
        if (!entry.second.empty() && entry.first != sub_name) Fail(claim.name + ": two subrequests of " + req_name);
        entry.first = sub_name;
        entry.second.push_back(d);

        if (!Matches(*sub, *d)) Fail(claim.name + "/" + r.request + ": " + d->name + " does not match its selectors");
        if (gate("DRAConsumableCapacity") && sub->capacity > d->mem)
          Fail(claim.name + "/" + r.request + ": " + d->name + " has less capacity than requested");
        if (d->taint && gate("DRADeviceTaints") && !sub->tolerate) {
          Fail(claim.name + "/" + r.request + ": tainted " + d->name + " without toleration");
        }
        const bool shared = d->multi && gate("DRAConsumableCapacity");
        if (d->in_use) Fail(claim.name + ": " + d->name + " is already in use");
        ++uses[d];
        if (shared) {
          if (!r.share_id || !shares[d].insert(*r.share_id).second)
            Fail(claim.name + ": missing or repeated share ID on " + d->name);
          if (const quantity::Quantity* q = r.consumed_capacity.find("memory")) {
            consumed_bytes[d] += q->Value();
            if (q->Compare(quantity::Quantity::FromInt(int64_t{sub->capacity} << 30)) < 0) {
              Fail(claim.name + ": consumed less capacity than requested on " + d->name);
            }
          }
        } else {
          if (uses[d] > 1) Fail(d->name + " allocated twice");
          if (r.share_id) Fail(claim.name + ": share ID on a device allocated whole: " + d->name);
        }
      }
      for (const Req& q : claim.requests) {
        auto it = per_request.find(q.name);
        if (it == per_request.end()) {
          // Only an All (sub)request that matches no device is satisfied by
          // none (src/alloc/README.md §4 step 3.6: an All set may be empty).
          bool empty_all = false;
          for (const Sub& s : q.subs) empty_all = empty_all || (s.all && MatchingForAll(s) == 0);
          if (!empty_all) Fail(claim.name + ": request " + q.name + " got no device");
          continue;
        }
        const Sub* sub = nullptr;
        for (const Sub& s : q.subs) {
          if (s.name == it->second.first) sub = &s;
        }
        const int n = static_cast<int>(it->second.second.size());
        if (!sub->all && n != sub->count) {
          Fail(claim.name + "/" + q.name + ": " + std::to_string(n) + " devices for count " +
               std::to_string(sub->count));
        }
        if (sub->all && n != MatchingForAll(*sub)) {
          Fail(claim.name + "/" + q.name + ": All got " + std::to_string(n) + " of " +
               std::to_string(MatchingForAll(*sub)) + " matching devices");
        }
      }
      for (const Constraint& con : claim.constraints) {
        std::set<std::string> values;
        for (const auto& [req_name, entry] : per_request) {
          bool listed = con.requests.empty();
          for (const std::string& n : con.requests) listed = listed || n == req_name;
          if (!listed) continue;
          for (const Dev* d : entry.second) {
            if (con.attribute == "numa") {
              if (!d->numa) Fail(claim.name + ": matchAttribute numa on " + d->name + ", which lacks it");
              values.insert(std::to_string(*d->numa));
            } else {
              values.insert(d->model);
            }
          }
        }
        if (values.size() > 1) Fail(claim.name + ": matchAttribute " + con.attribute + " with several values");
      }
    }
    for (const auto& [d, bytes] : consumed_bytes) {
      if (bytes > (int64_t{d->mem} << 30)) Fail(d->name + ": shares consume more than its capacity");
    }
    // Counters, per pool: devices in use plus the new distinct devices.
    if (!gate("DRAPartitionableDevices")) return;
    for (const auto& [pool, total] : m.counter_sets) {
      int used = 0, added = 0;
      for (const Dev& d : m.devices) {
        if (d.pool == pool && d.in_use) used += d.counter;
      }
      for (const auto& [d, n] : uses) {
        if (d->pool == pool) added += d->counter;
      }
      if (added > 0 && used + added > total) {
        Fail("counter set of " + pool + ": " + std::to_string(used) + " in use + " + std::to_string(added) + " new > " +
             std::to_string(total));
      }
    }
  }
};

void Run(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const Model model = Generate(in);
  const std::vector<manifest::Node> objects = ToObjects(model);
  const Checker checker{model, objects};

  // Decoded by the loader's decoder, as user manifests are.
  std::vector<api::Object> decoded;
  for (const manifest::Node& o : objects) {
    std::vector<manifest::Diagnostic> diagnostics;
    StatusOr<api::Object> object = manifest::DecodeObject(o, {}, &diagnostics);
    if (!object.ok()) checker.Fail("a generated object does not decode: " + std::string(object.status().message()));
    decoded.push_back(std::move(*object));
  }
  StatusOr<api::FeatureGates> gates = api::FeatureGates::FromList(std::span<const std::string>(model.gates));
  if (!gates.ok()) checker.Fail(std::string(gates.status().message()));
  Features features = Features::FromGates(*gates);
  // One evaluator per gate combination, kept: building the CEL environment
  // is the slow part, and an evaluator only remembers compiled expressions.
  static std::map<std::vector<std::string>, std::unique_ptr<SelectorEvaluator>> evaluators;
  std::unique_ptr<SelectorEvaluator>& evaluator = evaluators[model.gates];
  if (!evaluator) {
    StatusOr<std::unique_ptr<SelectorEvaluator>> cel = NewCelSelectorEvaluator(features);
    if (!cel.ok()) checker.Fail(std::string(cel.status().message()));
    evaluator = std::move(*cel);
  }

  std::vector<const api::DeviceClass*> classes;
  std::vector<const api::ResourceSlice*> slices;
  std::vector<api::ResourceClaim> claims;
  for (api::Object& o : decoded) {
    if (const auto* c = std::get_if<api::DeviceClass>(&o)) classes.push_back(c);
    if (const auto* s = std::get_if<api::ResourceSlice>(&o)) slices.push_back(s);
    if (auto* c = std::get_if<api::ResourceClaim>(&o)) {
      api::SetDefaults(*c);
      claims.push_back(*c);
    }
  }
  AllocatedState state;
  for (const Dev& d : model.devices) {
    if (d.in_use) state.devices.insert(DeviceIdString(kDriver, d.pool, d.name));
  }
  std::vector<const api::ResourceClaim*> to_allocate;
  for (const api::ResourceClaim& c : claims) to_allocate.push_back(&c);

  api::Node node;
  node.metadata.name = "n1";
  SliceIndex index(slices);
  int next_share = 0;
  AllocatorOptions options;
  // Searches that exhaust the limit are exponential ones: on the 783-input
  // merged corpus (2026-12-01) limits of 300, 1,000 and 5,000 steps gave the
  // same outcome for every input, and 300 runs the corpus 3.5 times faster.
  options.max_steps = 300;
  options.new_share_id = [&next_share] {
    char buf[40];
    std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012x", ++next_share);
    return std::string(buf);
  };
  AllocatorOptions best_fit_options = options;
  best_fit_options.device_choice = DeviceChoice::kBestFit;
  Allocator allocator(features, state, classes, &index, evaluator.get(), std::move(options));
  StatusOr<NodeFit> fit = allocator.Allocate(node, to_allocate);
  static const bool debug = std::getenv("ALLOC_FUZZ_DEBUG") != nullptr;
  if (debug) {
    std::fprintf(stderr, "alloc_fuzz: first fit: %s\n",
                 !fit.ok()   ? fit.status().ToString().c_str()
                 : fit->fits ? "fits"
                             : "does not fit");
  }

  // Best fit only reorders the search: where first fit finishes, best fit
  // reaches the same decision (allocator.h: a best-fit search that meets an
  // error searches again in the driver's order), and its results pass the
  // same checks.
  Allocator best_fit(features, std::move(state), classes, &index, evaluator.get(), std::move(best_fit_options));
  StatusOr<NodeFit> best = best_fit.Allocate(node, to_allocate);
  if (fit.ok() && !best.ok()) checker.Fail("DeviceChoice::kBestFit: " + best.status().ToString());
  if (fit.ok() && best.ok() && fit->fits != best->fits) checker.Fail("DeviceChoice::kBestFit decides differently");
  if (best.ok() && best->fits) checker.Check(best->results);

  if (!fit.ok() || !fit->fits) return;
  if (model.incomplete_pool) {
    // An incomplete pool is never used: what fits must come from p1.
    for (const api::AllocationResult& r : fit->results) {
      for (const auto& d : r.devices.results) {
        if (d.pool == "p0") checker.Fail("a device of the incomplete pool p0 was allocated");
      }
    }
  }
  checker.Check(fit->results);

  // The summary detail must reach the same decision.
  StatusOr<NodeFit> summary = allocator.Allocate(node, to_allocate, Allocator::ResultDetail::kSummary);
  if (!summary.ok() || !summary->fits) checker.Fail("ResultDetail::kSummary decides differently");
}

}  // namespace
}  // namespace dra::alloc

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dra::alloc::Run(data, size);
  return 0;
}
