// The request bodies `dractl serve` writes per pod (issue #31 item 4): the
// Binding and the pods/status patch recording the pod's claims, built as
// manifest::Node trees and emitted (kube/request_bodies.h), side by side with
// the fmt templates they replaced (kept here, and only here, as the
// reference; the Node versions check once that they write the same bytes).
// Each iteration builds one body; the request itself costs
// milliseconds (bench/RESULTS.md, "Live scheduling").
//
//   build/release/bench/request_bodies_bench
#include <benchmark/benchmark.h>

#include <string>

#include "base/json_escape.h"
#include "fmt/format.h"
#include "kube/request_bodies.h"

namespace {

dra::api::Pod MakePod() {
  dra::api::Pod pod;
  pod.metadata.name = "pod-00042";
  pod.metadata.namespace_ = "default";
  pod.metadata.uid = "6f1c9a52-7d0e-4c1b-9a8e-2f4b6c8d0e1a";
  pod.status.resource_claim_statuses.push_back({.name = "gpu", .resource_claim_name = "pod-00042-gpu-x7k2p"});
  return pod;
}

// The template serve.cc had before (9f00071).
std::string BindingFmt(const dra::api::Pod& pod, const std::string& node) {
  using dra::JsonString;
  return fmt::format(
      "{{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{{\"name\":{},\"namespace\":{},\"uid\":{}}},"
      "\"target\":{{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":{}}}}}",
      JsonString(pod.metadata.name), JsonString(pod.metadata.namespace_), JsonString(pod.metadata.uid),
      JsonString(node));
}

// The template serve.cc had before (9f00071), pods without extended resources.
std::string ClaimStatusFmt(const dra::api::Pod& pod) {
  using dra::JsonString;
  std::string entries;
  for (const dra::api::PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
    entries += fmt::format("{}{{\"name\":{}", entries.empty() ? "" : ",", JsonString(s.name));
    if (s.resource_claim_name) entries += fmt::format(",\"resourceClaimName\":{}", JsonString(*s.resource_claim_name));
    entries += "}";
  }
  std::string status;
  if (!entries.empty()) status = fmt::format("\"resourceClaimStatuses\":[{}]", entries);
  return fmt::format("{{\"metadata\":{{\"uid\":{}}},\"status\":{{{}}}}}", JsonString(pod.metadata.uid), status);
}

void BM_BindingFmt(benchmark::State& state) {
  const dra::api::Pod pod = MakePod();
  const std::string node = "node-0042";
  for (auto _ : state) benchmark::DoNotOptimize(BindingFmt(pod, node));
}
BENCHMARK(BM_BindingFmt);

void BM_BindingNode(benchmark::State& state) {
  const dra::api::Pod pod = MakePod();
  const std::string node = "node-0042";
  if (dra::kube::RequestJson(dra::kube::BindingBody(pod, node)) != BindingFmt(pod, node)) {
    state.SkipWithError("not the bytes the template wrote");
  }
  for (auto _ : state) benchmark::DoNotOptimize(dra::kube::RequestJson(dra::kube::BindingBody(pod, node)));
}
BENCHMARK(BM_BindingNode);

void BM_ClaimStatusFmt(benchmark::State& state) {
  const dra::api::Pod pod = MakePod();
  for (auto _ : state) benchmark::DoNotOptimize(ClaimStatusFmt(pod));
}
BENCHMARK(BM_ClaimStatusFmt);

void BM_ClaimStatusNode(benchmark::State& state) {
  const dra::api::Pod pod = MakePod();
  if (dra::kube::RequestJson(dra::kube::PodClaimStatusPatch(pod)) != ClaimStatusFmt(pod)) {
    state.SkipWithError("not the bytes the template wrote");
  }
  for (auto _ : state) benchmark::DoNotOptimize(dra::kube::RequestJson(dra::kube::PodClaimStatusPatch(pod)));
}
BENCHMARK(BM_ClaimStatusNode);

}  // namespace

BENCHMARK_MAIN();
