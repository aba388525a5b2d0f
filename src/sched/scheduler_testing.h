// The fixture of the scheduler's tests: small clusters built in code, with
// the real CEL evaluator (class "gpu" selects driver gpu.example.com).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "api/defaults.h"
#include "sched/policy.h"
#include "sched/scheduler.h"

namespace dra::sched {

inline api::Quantity Q(std::string_view text) { return *api::Quantity::Parse(text); }

class SchedulerTest : public ::testing::Test {
 protected:
  SchedulerTest() {
    api::DeviceClass c;
    c.metadata.name = "gpu";
    c.spec.selectors.push_back({.cel = api::CelDeviceSelector{"device.driver == 'gpu.example.com'"}});
    snap_.classes.push_back(c);
  }

  api::Node& AddNode(std::string name, std::string cpu = "8", std::string memory = "32Gi") {
    api::Node n;
    n.metadata.name = std::move(name);
    n.metadata.labels.insert_or_assign("kubernetes.io/hostname", n.metadata.name);
    n.status.allocatable.insert_or_assign("cpu", Q(cpu));
    n.status.allocatable.insert_or_assign("memory", Q(memory));
    n.status.allocatable.insert_or_assign("pods", Q("110"));
    snap_.nodes.push_back(n);
    return snap_.nodes.back();
  }
  void AddGpus(const std::string& node, int count) {
    api::ResourceSlice s;
    s.metadata.name = node + "-gpus";
    s.spec.driver = "gpu.example.com";
    s.spec.pool = {.name = node, .generation = 1, .resource_slice_count = 1};
    s.spec.node_name = node;
    for (int i = 0; i < count; ++i) s.spec.devices.push_back({.name = "gpu-" + std::to_string(i)});
    api::SetDefaults(s, "1970-01-01T00:00:00Z");
    snap_.slices.push_back(s);
  }
  api::Pod& AddPod(std::string name, std::string cpu = "1") {
    api::Pod p;
    p.metadata.namespace_ = "default";
    p.metadata.name = std::move(name);
    p.metadata.uid = "uid-" + p.metadata.name;
    api::Container c;
    c.name = "main";
    if (!cpu.empty()) c.resources.requests.insert_or_assign("cpu", Q(cpu));
    p.spec.containers.push_back(c);
    snap_.pods.push_back(p);
    return snap_.pods.back();
  }
  void AddTemplate(std::string name, std::string cls = "gpu") {
    api::ResourceClaimTemplate t;
    t.metadata.namespace_ = "default";
    t.metadata.name = std::move(name);
    t.spec.spec.devices.requests.push_back(
        {.name = "gpu", .exactly = api::ExactDeviceRequest{.device_class_name = cls}});
    api::SetDefaults(t);
    snap_.templates.push_back(t);
  }
  api::ResourceClaim& AddClaim(std::string name) {
    api::ResourceClaim c;
    c.metadata.namespace_ = "default";
    c.metadata.name = std::move(name);
    c.spec.devices.requests.push_back({.name = "gpu", .exactly = api::ExactDeviceRequest{.device_class_name = "gpu"}});
    api::SetDefaults(c);
    snap_.claims.push_back(c);
    return snap_.claims.back();
  }
  ScheduleResult Run(std::string_view policy = "kube", uint64_t seed = 0, int32_t percentage_of_nodes_to_score = 0) {
    auto p = NewPolicy(policy);
    EXPECT_TRUE(p.ok());
    policy_ = std::move(*p);
    StatusOr<ScheduleResult> r = Schedule(&snap_, {.policy = policy_.get(),
                                                   .seed = seed,
                                                   .max_steps = 0,
                                                   .percentage_of_nodes_to_score = percentage_of_nodes_to_score});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(*r);
  }

  Snapshot snap_;
  std::unique_ptr<ScorePolicy> policy_;
};

}  // namespace dra::sched
