// The HTML report of `dractl simulate openb --report FILE`: one self-contained
// page (inline CSS and hand-written inline SVG; no script, font, image or
// network reference) with
//   1. GPU allocation (% of GPU capacity) vs arrived workload (% of GPU
//      capacity, columns 0..130 of docs/fgd.md §6.2), one line
//      per policy: the mean over seeds, a light ±1 sd band, the authors'
//      published mean dashed beside it; the x = 100 line marked;
//   2. the same, zoomed on arrived 75..130 (the range of the paper's Fig. 9a);
//   3. fragmentation amount (frag_amount, % of GPU capacity) vs arrived;
//   4. fragmentation ratio (frag_ratio, % of idle GPU) vs arrived;
// then a table of GPU allocation at 100% and 130% arrived, ours (mean ± sd)
// beside the published mean ± sd, the difference and whether it is within the
// policy's tolerance, and a table of both fragmentation metrics there.
//
// Means and sds are sim::Summarize over the runs that have a value in the
// column, as `dractl simulate` prints them. Every piece of text from the input
// is HTML-escaped. The output depends only on the input: the same input gives
// the same bytes (no clock, no locale).
//
// Markup the tests (report_test.cc) rely on: each plot is one
// `<svg data-plot="ID">` (IDs "allocation", "allocation-zoom", "frag-amount",
// "frag-ratio"); in it, per policy and in input order, a
// `<polyline class="ours" data-policy="NAME" points="x,y x,y ...">` with one
// point per column in the plot's x range that has a value in some run, and,
// when the policy has published runs, a `<polyline class="published" ...>`
// likewise. The allocation table is `<table id="allocation-table">` with one
// `<tr data-policy="NAME">` per policy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/expected.h"
#include "sim/openb_sim.h"

namespace dra::sim {

struct ReportPolicy {
  std::string name;                     // as dractl prints it: "fgd"
  std::vector<Columns> runs;            // one per seed (BinRows of each run)
  std::vector<PublishedRun> published;  // the authors' runs; empty when none
  // Allowed |ours - published| of allocation, pp; nullopt for a policy of
  // our own (dra-pack), which has no published runs.
  std::optional<double> tolerance = 0.3;
};

struct ReportInput {
  std::string trace;  // "default"
  std::vector<uint64_t> seeds;
  std::string command_line;  // shown verbatim (escaped)
  std::vector<ReportPolicy> policies;
  int64_t gpus = 0;       // GPUs of the cluster: the headline counts points as GPUs (0: no headline)
  std::string generated;  // "dractl 0.1.0, 2026-12-03" in the footer; empty: none (the page stays
                          // the same bytes for the same runs)
};

// The page, as UTF-8. Never fails: a column without values is left out of
// the lines and shown as "—" in the tables.
std::string RenderReport(const ReportInput& input);

// `text` with & < > " ' replaced by character references, for element text
// and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace dra::sim
