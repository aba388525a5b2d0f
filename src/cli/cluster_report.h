// The HTML page of `dractl simulate cluster --report FILE`: one self-contained
// page (inline CSS and SVG; no script, font, image or network reference) with
//   1. devices allocated and devices tainted (NoSchedule or NoExecute), % of
//      the devices, over time; each fault set (red) or cleared (green) a
//      vertical mark;
//   2. pods running and pending over time, and those pending only because of
//      tainted devices (they would start were no device tainted);
//   3. the pods evicted: evictions, seconds lost, first start, end, last node;
//   4. the faults as they happened.
// Each sample holds until the next, so lines are drawn as steps. The same
// input gives the same bytes; text from the input is HTML-escaped.
//
// Markup the tests rely on: `<svg data-plot="devices">` and
// `<svg data-plot="pods">`, each with one `<polyline data-series="NAME"
// points="x,y ...">` per series (allocated, tainted; running, pending, pending for taints), and
// one `<line class="fault-set">` or `<line class="fault-cleared">` per fault
// event; `<table id="evictions">` with one `<tr data-pod="ns/name">` per pod
// evicted, `<table id="faults">` with one row per event.
#pragma once

#include <string>
#include <vector>

#include "sched/faults.h"
#include "sched/timeline.h"

namespace dra::cli {

std::string RenderClusterReport(const sched::TimelineResult& result, const std::vector<sched::FaultEvent>& faults,
                                const std::string& command_line);

}  // namespace dra::cli
