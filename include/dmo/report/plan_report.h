// `dmo plan`: the reference figures of a model's subgraph 0 (naive, TFLM's
// greedy planner, lower bound) with a per-op table, as text or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct PlanReportOptions {
  OverlapMethod method = OverlapMethod::kAlgorithmic;
  bool preserve_graph_inputs = false;
  // Offsets and safe overlaps are multiples of this. 16 is TFLM's own buffer
  // alignment, so a plan drops into TFLM as is; the element size (4 for
  // float) is the smallest the reference kernels accept.
  int64_t alignment = 16;
  // Let conv, depthwise conv and pooling walk descending where that packs
  // tighter (dmo's runtime and generated code); false plans for TFLite's
  // ascending kernels only, as TFLM needs.
  bool allow_descending = true;
};

struct PlanReport {
  MemoryProblem problem;           // subgraph 0, with the overlap pairs dmo uses
  std::vector<Lifetime> lifetimes; // per tensor of subgraph 0
  // What TFLM plans: `problem`'s buffers (no overlap pairs) with the model's
  // offline offsets fixed, as TFLM's allocator does.
  MemoryProblem tflm_problem;
  int32_t offline_planned_buffers = 0;  // buffers of tflm_problem with a fixed offset
  Plan tflm_greedy;
  int64_t naive_bytes = 0;
  int64_t lower_bound_bytes = 0;
  std::vector<int64_t> live_bytes;  // per op
  int32_t peak_op = -1;             // first op reaching the lower bound
  int64_t variable_bytes = 0;       // TFLM keeps these in its persistent section

  OverlapMethod method = OverlapMethod::kAlgorithmic;
  int64_t alignment = 16;
  std::vector<OpOverlap> overlaps;  // per op
  Plan dmo_no_overlap;
  bool allow_descending = true;
  Plan dmo;
  Plan dmo_ascending;  // ascending walks only (TFLM's kernels); == dmo when descending is not allowed
  int64_t lower_bound_overlap_per_op_bytes = 0;  // live bytes less the op's O_s, at the worst op
  int64_t lower_bound_overlap_bytes = 0;         // the same, tightened by chains of forced overlaps
};

PlanReport make_plan_report(const Graph& graph, const PlanReportOptions& options = {});

nlohmann::json plan_report_json(const Graph& graph, const PlanReport& report);
std::string plan_report_text(const Graph& graph, const PlanReport& report);

}  // namespace dmo
