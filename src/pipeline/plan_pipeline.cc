#include "dmo/pipeline/plan_pipeline.h"

#include <fmt/format.h>

#include <stdexcept>

#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/pipeline/scheduled_problem.h"
#include "dmo/schedule/schedule_lifetimes.h"

namespace dmo {

namespace {

// Every plan dmo reports is checked independently of the planner that made it.
void require_valid(const MemoryProblem& problem, const Plan& plan, int64_t alignment, const Graph& graph) {
  std::vector<std::string> errors = validate_plan(problem, plan, alignment);
  if (!errors.empty()) {
    throw std::logic_error(fmt::format("{}: {} plan is invalid: {}", graph.source, plan.planner, errors.front()));
  }
}

}  // namespace

PlanResult plan_model(const Graph& graph, const PlanOptions& options) {
  const Subgraph& sg = graph.main();
  PlanResult r;
  r.schedule = default_schedule(graph);
  r.problem = build_scheduled_problem(graph, r.schedule);
  r.lifetimes = schedule_lifetimes(graph, r.schedule);
  r.tflm_problem = build_tflm_memory_problem(graph);
  for (const BufferRequest& b : r.tflm_problem.buffers) r.offline_planned_buffers += b.fixed_offset.has_value();
  r.tflm_greedy = plan_tflm_greedy(r.tflm_problem);
  r.naive_bytes = naive_bytes(r.problem);
  r.lower_bound_bytes = lower_bound_bytes(r.problem);
  r.live_bytes = live_bytes_per_op(r.problem);
  for (size_t i = 0; i < r.live_bytes.size(); ++i) {
    if (r.live_bytes[i] == r.lower_bound_bytes) {
      r.peak_op = static_cast<int32_t>(i);
      break;
    }
  }
  for (const Tensor& t : sg.tensors) {
    if (t.is_variable) r.variable_bytes += t.byte_size;
  }
  require_valid(r.tflm_problem, r.tflm_greedy, kTflmBufferAlignment, graph);

  DmoPlannerOptions no_overlap;
  no_overlap.use_overlaps = false;
  no_overlap.alignment = options.alignment;
  r.dmo_no_overlap = plan_dmo(r.problem, no_overlap);
  require_valid(r.problem, r.dmo_no_overlap, no_overlap.alignment, graph);

  r.method = options.method;
  r.alignment = options.alignment;
  SafeOverlapOptions overlap_options;
  overlap_options.method = options.method;
  overlap_options.preserve_graph_inputs = options.preserve_graph_inputs;
  overlap_options.alignment = options.alignment;
  overlap_options.compute_algorithmic = options.method != OverlapMethod::kNone;
  overlap_options.allow_descending = options.allow_descending;
  overlap_options.progress = options.progress;
  r.allow_descending = options.allow_descending;
  r.overlaps = compute_safe_overlaps(graph, r.schedule, overlap_options);
  add_overlap_pairs(r.problem, r.overlaps);
  r.lower_bound_overlap_per_op_bytes = lower_bound_with_overlap_bytes(r.problem);
  r.lower_bound_overlap_bytes = chain_lower_bound_with_overlap_bytes(r.problem);
  DmoPlanChoice choice = choose_dmo_plan(r.problem, options.alignment);
  r.dmo = std::move(choice.dmo);
  r.dmo_ascending = std::move(choice.dmo_ascending);
  // The schedule runs dmo's plan: its ops walk as the plan needs.
  r.schedule = default_schedule(graph, r.dmo.descending_ops);
  return r;
}

TensorPlacement dmo_placement(const Graph& graph, const PlanResult& result) {
  return placement_from_plan(graph.main(), result.problem, result.dmo);
}

}  // namespace dmo
