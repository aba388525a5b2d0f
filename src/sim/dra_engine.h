// `dractl simulate openb --engine dra`: the FGD paper's protocol with every
// pod scheduled by the DRA scheduler of `dractl schedule` (sched/scheduler.h)
// instead of the native model, on the objects `dractl import openb` writes.
//
// The same run as the native engine's (OpenbExperiment::Plan: the same pods
// in the same order, tuned copies included, the same node ranks), then one
// sched::Schedule over all of them with an explicit queue:
//   Filter   NodeResourcesFit (cpu, memory, pod slots), then the DRA
//            allocator on the pod's claim (made from its template);
//   Score    fgd or dra-pack on sched's DeviceModel (sched/fragmentation.h)
//            against the native typical pods (OpenbProfile), or the paper's
//            BestFit (docs/fgd.md §4.5: C from NodeResourcesFit's figures, G and g from
//            the DeviceModel, min-max normalised);
//   choice   the node with the highest score, ties to the lowest rank; inside
//            it the devices the policy prefers (FGD's GPU for shared GPUs,
//            the tightest GPU for BestFit), which the allocator takes.
// A pod that fits nowhere is dropped (it is never tried again). After every
// attempt a row: arrived and allocated milli-GPU from the pods' own requests,
// and the cluster's fragmentation and idle capacity from a DeviceModel that
// follows the placements (sched/fragmentation.h, equal to the native F).
//
// Policies: bestfit, fgd and dra-pack (kInvalidArgument for the others).
#pragma once

#include <string>

#include "base/status.h"
#include "sched/profile.h"
#include "sim/frag.h"
#include "sim/openb_sim.h"

namespace dra::sim {

StatusOr<RunLog> RunOnDraScheduler(const OpenbExperiment& experiment, const RunOptions& options);

// The typical pods of a trace as a workload profile of the claims `dractl
// import openb` writes (one request of class openb-gpu; `milli` capacity for
// shared GPUs; the model selector of gpu_spec), in the same order and with
// the same weights.
sched::WorkloadProfile OpenbProfile(const TypicalPods& typical, std::string source);

}  // namespace dra::sim
