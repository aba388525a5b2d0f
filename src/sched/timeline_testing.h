// Test input for replays (taint_eviction_test, plan/autoscale_test): one YAML
// text whose pods are the workload and whose other objects, defaulted as the
// API server would at 2026-12-01T08:00:00Z, are the cluster.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/defaults.h"
#include "manifest/loader.h"
#include "sched/snapshot.h"

namespace dra::sched::testing {

struct Replayable {
  Snapshot cluster;
  std::vector<api::Pod> workload;
};

inline Replayable LoadReplayable(const std::string& text) {
  manifest::LoadResult loaded;
  manifest::Loader(manifest::LoadOptions{}).LoadText(text, "cluster.yaml", &loaded);
  EXPECT_EQ(loaded.error_count(), 0u) << (loaded.messages.empty() ? "" : loaded.messages[0].ToString());
  std::vector<const api::Object*> objects;
  Replayable out;
  for (manifest::LoadedObject& o : loaded.objects) {
    if (auto* p = std::get_if<api::Pod>(&o.object)) {
      out.workload.push_back(*p);
      continue;
    }
    api::SetDefaults(o.object, "2026-12-01T08:00:00Z");
    objects.push_back(&o.object);
  }
  out.cluster = NewSnapshot(objects, api::FeatureGates::Defaults());
  return out;
}

}  // namespace dra::sched::testing
