#include "sched/faults.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "base/fnv.h"

namespace dra::sched {

std::optional<int64_t> ParseDurationSeconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  constexpr int64_t kMax = int64_t{1} << 40;  // about 35,000 years
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    int64_t n = 0;
    const size_t first = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      n = n * 10 + (text[i++] - '0');
      if (n > kMax) return std::nullopt;
    }
    if (i == first) return std::nullopt;
    int64_t unit = 1;
    if (i == text.size()) {
      if (first != 0) return std::nullopt;  // "90" alone is seconds; "1m30" is not
    } else if (text[i] == 'h') {
      unit = 3600;
    } else if (text[i] == 'm') {
      unit = 60;
    } else if (text[i] != 's') {
      return std::nullopt;
    }
    if (i < text.size()) ++i;
    total += n * unit;
    if (total > kMax) return std::nullopt;
  }
  return total;
}

std::optional<double> ParseFaultRate(std::string_view text) {
  double per = 1;  // hours the rate is given over
  if (text.ends_with("/day")) {
    per = 24;
    text.remove_suffix(4);
  } else if (text.ends_with("/h")) {
    text.remove_suffix(2);
  }
  double scale = 1;
  if (text.ends_with('%')) {
    scale = 0.01;
    text.remove_suffix(1);
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(v >= 0) || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v * scale / per;
}

namespace {

// Collects problems at their line and field path.
class Problems {
 public:
  Problems(const std::string& file, std::vector<manifest::LoadMessage>* out) : file_(file), out_(out) {}
  void Add(manifest::Mark mark, std::string field, std::string message) {
    out_->push_back(manifest::LoadMessage{
        .file = file_, .mark = mark, .object = "Faults", .field = std::move(field), .message = std::move(message)});
    ++errors_;
  }
  size_t errors() const { return errors_; }

 private:
  const std::string& file_;
  std::vector<manifest::LoadMessage>* out_;
  size_t errors_ = 0;
};

// A string field of `m`; absent: nullopt (an error if `required`).
std::optional<std::string> String(const manifest::Node& m, std::string_view key, const std::string& path, bool required,
                                  Problems* problems) {
  const manifest::Node* n = m.Find(key);
  if (n == nullptr || n->is_null()) {
    if (required) problems->Add(m.mark, path, "Required value");
    return std::nullopt;
  }
  if (!n->is_scalar()) {
    problems->Add(n->mark, path, "Invalid value: must be a string");
    return std::nullopt;
  }
  return n->text;
}

void CheckKeys(const manifest::Node& m, std::initializer_list<std::string_view> known, const std::string& path,
               Problems* problems) {
  for (size_t i = 0; i < m.keys.size(); ++i) {
    if (std::find(known.begin(), known.end(), m.keys[i].first) == known.end()) {
      problems->Add(m.keys[i].second, path.empty() ? m.keys[i].first : path + "." + m.keys[i].first,
                    "unknown field \"" + m.keys[i].first + "\"");
    }
  }
}

void ParseFault(const manifest::Node& item, const std::string& path, const std::string& file,
                std::vector<Fault>* faults, Problems* problems) {
  const size_t before = problems->errors();
  if (!item.is_mapping()) {
    problems->Add(item.mark, path, "Invalid value: must be a mapping (at, node or device, taint, for)");
    return;
  }
  CheckKeys(item, {"at", "node", "device", "taint", "for"}, path, problems);
  Fault f{.origin = fmt::format("{}:{}", file, item.mark.line)};
  if (std::optional<std::string> at = String(item, "at", path + ".at", true, problems)) {
    if (std::optional<int64_t> t = ParseUtcSeconds(*at)) {
      f.at = *t;
    } else {
      problems->Add(item.Find("at")->mark, path + ".at",
                    "Invalid value: \"" + *at + "\": must be an RFC 3339 time in UTC");
    }
  }
  const manifest::Node* device = item.Find("device");
  if (std::optional<std::string> node = String(item, "node", path + ".node", false, problems)) f.node = *node;
  if (device != nullptr && !f.node.empty()) {
    problems->Add(device->mark, path + ".device", "Forbidden: give node or device, not both");
  } else if (device == nullptr && f.node.empty()) {
    problems->Add(item.mark, path, "Required value: node or device");
  } else if (device != nullptr) {
    if (!device->is_mapping()) {
      problems->Add(device->mark, path + ".device", "Invalid value: must be a mapping (driver, pool, device)");
    } else {
      CheckKeys(*device, {"driver", "pool", "device"}, path + ".device", problems);
      f.devices.push_back({.driver = String(*device, "driver", path + ".device.driver", false, problems),
                           .pool = String(*device, "pool", path + ".device.pool", false, problems),
                           .device = String(*device, "device", path + ".device.device", false, problems)});
    }
  }
  const manifest::Node* taint = item.Find("taint");
  if (taint == nullptr || !taint->is_mapping()) {
    problems->Add(taint ? taint->mark : item.mark, path + ".taint",
                  taint ? "Invalid value: must be a mapping (key, value, effect)" : "Required value");
  } else {
    CheckKeys(*taint, {"key", "value", "effect"}, path + ".taint", problems);
    f.taint.key = String(*taint, "key", path + ".taint.key", true, problems).value_or("");
    f.taint.value = String(*taint, "value", path + ".taint.value", false, problems).value_or("");
    const std::string effect = String(*taint, "effect", path + ".taint.effect", true, problems).value_or("");
    if (!effect.empty() && !api::ParseEnum<api::DeviceTaintEffect>(effect)) {
      problems->Add(taint->Find("effect")->mark, path + ".taint.effect",
                    "Unsupported value: \"" + effect + "\": supported values: \"NoExecute\", \"NoSchedule\", \"None\"");
    }
    f.taint.effect = effect;
  }
  if (std::optional<std::string> d = String(item, "for", path + ".for", false, problems)) {
    std::optional<int64_t> seconds = ParseDurationSeconds(*d);
    if (!seconds || *seconds <= 0) {
      problems->Add(item.Find("for")->mark, path + ".for",
                    "Invalid value: \"" + *d + "\": must be a positive duration such as 90, 10s, 3m or 1h30m");
    } else {
      f.until = f.at + *seconds;
    }
  }
  f.taint.time_added = FormatUtcSeconds(f.at);
  if (problems->errors() == before) faults->push_back(std::move(f));
}

std::string TaintText(const api::DeviceTaint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + t.effect.text();
}

std::string Target(const Fault& f) {
  if (!f.node.empty()) return "node " + f.node;
  std::string out = f.devices.size() == 1 ? "device " : "devices ";
  for (size_t i = 0; i < f.devices.size(); ++i) {
    const api::DeviceTaintSelector& d = f.devices[i];
    out += (i ? ", " : "") + d.driver.value_or("*") + "/" + d.pool.value_or("*") + "/" + d.device.value_or("*");
  }
  return out;
}

// splitmix64: the random faults' generator.
uint64_t Mix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void ParseFaults(std::string_view text, const std::string& file, std::vector<Fault>* faults,
                 std::vector<manifest::LoadMessage>* messages) {
  Problems problems(file, messages);
  StatusOr<std::vector<manifest::Document>> docs = manifest::ParseManifestText(text, file);
  if (!docs.ok()) {
    messages->push_back(manifest::MessageFromParseError(docs.status(), file));
    return;
  }
  for (const manifest::Document& doc : *docs) {
    const manifest::Node& root = doc.root;
    if (root.is_null()) continue;
    if (!root.is_mapping()) {
      problems.Add(root.mark, "", "Invalid value: must be a mapping (apiVersion, kind, faults)");
      continue;
    }
    CheckKeys(root, {"apiVersion", "kind", "faults"}, "", &problems);
    const std::string api_version = String(root, "apiVersion", "apiVersion", true, &problems).value_or("");
    const std::string kind = String(root, "kind", "kind", true, &problems).value_or("");
    if (!api_version.empty() && api_version != kFaultsApiVersion) {
      problems.Add(
          root.Find("apiVersion")->mark, "apiVersion",
          "Unsupported value: \"" + api_version + "\": supported values: \"" + std::string(kFaultsApiVersion) + "\"");
    }
    if (!kind.empty() && kind != "Faults") {
      problems.Add(root.Find("kind")->mark, "kind",
                   "Unsupported value: \"" + kind + "\": supported values: \"Faults\"");
    }
    const manifest::Node* list = root.Find("faults");
    if (list == nullptr || !list->is_sequence()) {
      problems.Add(list ? list->mark : root.mark, "faults", list ? "Invalid value: must be a list" : "Required value");
      continue;
    }
    for (size_t i = 0; i < list->items.size(); ++i) {
      ParseFault(list->items[i], fmt::format("faults[{}]", i), file, faults, &problems);
    }
  }
}

namespace {

// The physical devices of `cluster`'s node-local slices: "driver/pool/device
// NAME" or "driver/pool/counters SET" -> (driver, pool, its devices).
struct Unit {
  std::string driver, pool;
  std::vector<std::string> devices;
};
std::map<std::string, Unit> Units(const Snapshot& cluster, const std::string& driver) {
  std::map<std::string, Unit> units;
  for (const api::ResourceSlice& sl : cluster.slices) {
    if (!sl.spec.node_name || (!driver.empty() && sl.spec.driver != driver)) continue;
    const std::string prefix = sl.spec.driver + "/" + sl.spec.pool.name + "/";
    const auto add = [&](const std::string& key, const std::string& device) {
      Unit& u = units[prefix + key];
      u.driver = sl.spec.driver;
      u.pool = sl.spec.pool.name;
      u.devices.push_back(device);
    };
    for (const api::Device& d : sl.spec.devices) {
      if (d.rare->consumes_counters.empty()) add("device " + d.name, d.name);
      for (const api::DeviceCounterConsumption& c : d.rare->consumes_counters) add("counters " + c.counter_set, d.name);
    }
  }
  return units;
}

// The failures of one physical device over [start, end).
void UnitFaults(const std::string& key, const Unit& unit, const FaultRate& rate, int64_t start, int64_t end,
                std::vector<Fault>* out) {
  if (!(rate.per_device_hour > 0) || end <= start) return;
  const double mean_gap = 3600.0 / rate.per_device_hour;  // seconds between failures
  uint64_t state = Fnv1a64(std::to_string(rate.seed) + "/" + key);
  double t = static_cast<double>(start);
  for (;;) {
    const double u = (static_cast<double>(Mix(&state) >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
    t += -std::log(u) * mean_gap;
    if (t >= static_cast<double>(end) || t > 9e15) return;
    const int64_t at = static_cast<int64_t>(t);
    int64_t repair = rate.repair_seconds;
    if (rate.exponential_repair) {
      const double v = (static_cast<double>(Mix(&state) >> 11) + 0.5) / 9007199254740992.0;
      repair = std::max<int64_t>(1, static_cast<int64_t>(std::min(-std::log(v) * static_cast<double>(repair), 9e15)));
    }
    Fault f{.at = at,
            .until = at + repair,
            .taint = {.key = "dractl.io/fault",
                      .effect = api::DeviceTaintEffect::kNoExecute,
                      .time_added = FormatUtcSeconds(at)},
            .origin = "random"};
    for (const std::string& device : unit.devices) {
      f.devices.push_back({.driver = unit.driver, .pool = unit.pool, .device = device});
    }
    out->push_back(std::move(f));
    t = static_cast<double>(at + repair);  // no failure while in repair
  }
}

}  // namespace

std::vector<Fault> RandomFaults(const Snapshot& cluster, const FaultRate& rate, int64_t start, int64_t end) {
  std::vector<Fault> out;
  for (const auto& [key, unit] : Units(cluster, rate.driver)) UnitFaults(key, unit, rate, start, end, &out);
  std::stable_sort(out.begin(), out.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return out;
}

Status FaultInjector::AfterRun(TimelineControl& control) {
  const int64_t now = control.now();
  const Snapshot& cluster = control.cluster();
  if (rate_) {  // the random failures of devices seen for the first time
    for (const auto& [key, unit] : Units(cluster, rate_->driver)) {
      if (units_seen_.insert(key).second) UnitFaults(key, unit, *rate_, now, end_, &faults_);
    }
  }
  while (state_.size() < faults_.size()) {  // new faults: wake up for them
    const Fault& f = faults_[state_.size()];
    state_.emplace_back();
    control.WakeAt(f.at);
    if (f.until) control.WakeAt(*f.until);
  }
  for (size_t i = 0; i < faults_.size(); ++i) {
    const Fault& f = faults_[i];
    State& st = state_[i];
    if (!st.set && f.at <= now) {
      st.set = true;
      std::vector<api::DeviceTaintSelector> selectors;
      std::set<std::pair<std::string, std::string>> pools;  // (driver, pool) present
      for (const api::ResourceSlice& sl : cluster.slices) {
        if (f.node.empty() || sl.spec.node_name == f.node) pools.emplace(sl.spec.driver, sl.spec.pool.name);
      }
      if (f.node.empty()) {
        for (const api::DeviceTaintSelector& d : f.devices) {
          if (!d.driver || !d.pool || pools.contains({*d.driver, *d.pool})) selectors.push_back(d);
        }
      } else {
        for (const auto& [driver, pool] : pools) selectors.push_back({.driver = driver, .pool = pool});
      }
      if (selectors.empty()) {  // its devices are gone
        st.cleared = true;
        continue;
      }
      for (size_t k = 0; k < selectors.size(); ++k) {
        api::DeviceTaintRule rule;
        rule.metadata.name = fmt::format("dractl-fault-{}-{}", i, k);
        rule.spec.device_selector = selectors[k];
        rule.spec.taint = f.taint;
        st.rules.push_back(rule.metadata.name);
        DRA_RETURN_IF_ERROR(control.AddTaintRule(std::move(rule)));
      }
      events_.push_back({now, true, Target(f), TaintText(f.taint), f.origin});
    }
    if (st.set && !st.cleared && f.until && *f.until <= now) {
      st.cleared = true;
      for (const std::string& name : st.rules) DRA_RETURN_IF_ERROR(control.RemoveTaintRule(name));
      events_.push_back({now, false, Target(f), TaintText(f.taint), f.origin});
    }
  }
  return OkStatus();
}

}  // namespace dra::sched
