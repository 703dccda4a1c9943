#include "dmo/pipeline/verified_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/model/op_order.h"
#include "dmo/overlap/consumed_prefix_overlaps.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/overlap/self_copy_aliases.h"
#include "dmo/overlap/stage_overlaps.h"
#include "dmo/overlap/view_overlaps.h"
#include "dmo/transform/concat_in_place.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/scheduled_problem.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/unwritten_reads.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/split_schedule.h"

namespace dmo {

Schedule placement_schedule(const Graph& graph, const TensorPlacement& placement, const std::vector<SplitStage>& split,
                            const std::vector<int32_t>& concat_in_place) {
  if (split.empty()) return with_concat_in_place(graph, default_schedule(graph, placement.descending_ops), concat_in_place);
  if (!concat_in_place.empty()) {
    throw Error(fmt::format("{}: in-place concatenation cannot be combined with split stages", graph.source));
  }
  return split_schedule(graph, split, placement.descending_ops);
}

const char* plan_source_name(PlanSource source) {
  switch (source) {
    case PlanSource::kOfflinePlan: return "offline_plan";
    case PlanSource::kDmo: return "dmo";
    case PlanSource::kFile: return "file";
  }
  return "?";
}

PlanToVerify offline_placement(const Graph& graph) {
  if (!graph.offline_plan) throw Error(fmt::format("{}: the model carries no OfflineMemoryAllocation", graph.source));
  const std::vector<int32_t>& offsets = graph.offline_plan->offsets;  // subgraph 0's tensors first
  PlanToVerify plan{PlanSource::kOfflinePlan, {}, 0};
  TensorPlacement& p = plan.placement;
  // Subgraph 0's tensors, or every subgraph's where the model is planned whole.
  const size_t count = plans_whole_model(graph) ? graph.total_tensor_count() : graph.main().tensors.size();
  p.offsets.assign(count, -1);
  std::vector<size_t> unplanned;
  for (size_t t = 0; t < count; ++t) {
    const Tensor& tensor = flat_tensor(graph, static_cast<int32_t>(t));
    if (!tflm_plans_tensor(tensor)) continue;
    if (t < offsets.size() && offsets[t] >= 0) {
      p.offsets[t] = offsets[t];
      p.arena_size = std::max(p.arena_size, p.offsets[t] + tensor.byte_size);
    } else {
      unplanned.push_back(t);
    }
  }
  for (size_t t : unplanned) {
    p.offsets[t] = align_up(p.arena_size, kTflmBufferAlignment);
    p.arena_size = p.offsets[t] + flat_tensor(graph, static_cast<int32_t>(t)).byte_size;
  }
  plan.unplanned_tensors = static_cast<int32_t>(unplanned.size());
  return plan;
}

PlanToVerify choose_plan_to_verify(const Graph& graph, const std::string& plan, const VerifyProgress& progress,
                                   const std::vector<KernelFamily>& families, const SplitRequest& split,
                                   bool concat_in_place, ReorderRequest reorder) {
  // An op dmo cannot run makes the proof impossible: say so before planning,
  // which takes seconds on large models.
  for (KernelFamily family : families) require_kernels(graph, family);
  if (split.method == SplitMethod::kManual) split_schedule(graph, split.stages);  // a bad stage is named before planning
  const bool dmo_plan = plan == "dmo" || (plan.empty() && (!graph.offline_plan || split.method != SplitMethod::kNone));
  if (reorder == ReorderRequest::kAuto && split.method != SplitMethod::kNone) {
    throw Error("--reorder auto cannot be combined with --split (split stages are op ranges of file order)");
  }
  if (reorder == ReorderRequest::kAuto && !plan.empty() && plan != "dmo") {
    throw Error(fmt::format("{}: --reorder auto plans with dmo; a plan file names its own \"order\"", plan));
  }
  const bool dmo_reordered = reorder == ReorderRequest::kAuto;
  if (plan.empty() && !dmo_plan && !dmo_reordered) return offline_placement(graph);
  PlanOptions options;
  options.progress = progress;
  options.families = families;
  options.concat_in_place = concat_in_place;
  if (dmo_plan && split.method == SplitMethod::kAuto) {
    SplitSearchResult found = search_split_stages(graph, options, split.max_recompute_percent);
    return {PlanSource::kDmo, dmo_placement(graph, found.plan), 0, found.stages};
  }
  if (dmo_reordered) {
    const ReorderedPlan planned = plan_with_reorder(graph, options, reorder);
    PlanToVerify chosen{PlanSource::kDmo, dmo_placement(planned.graph, planned.plan), 0, {}, planned.plan.concat_in_place};
    if (planned.reordered()) chosen.order = planned.order;
    return chosen;
  }
  if (dmo_plan) {
    options.split = split.stages;
    const PlanResult planned = plan_model(graph, options);
    return {PlanSource::kDmo, dmo_placement(graph, planned), 0, split.stages, planned.concat_in_place};
  }
  if (concat_in_place) {
    throw Error(fmt::format("{}: --concat-in-place plans with dmo; a plan file names its own \"concat_in_place\" ops",
                            plan));
  }
  if (split.method == SplitMethod::kAuto) {
    throw Error(fmt::format("{}: --split auto plans with dmo; a plan file is planned already", plan));
  }
  PlacementFile file = read_placement_file(plan, graph, split);
  return {PlanSource::kFile, std::move(file.placement), 0, std::move(file.split), std::move(file.concat_in_place),
          std::move(file.order)};
}

Graph graph_of_plan(const Graph& graph, const PlanToVerify& plan) {
  return plan.order.empty() ? graph : reordered_graph(graph, plan.order);
}

std::vector<std::string> validate_placement(const Graph& graph, const TensorPlacement& placement,
                                            const VerifyProgress& progress, KernelFamily family,
                                            const std::vector<SplitStage>& split,
                                            const std::vector<int32_t>& concat_in_place) {
  const Schedule schedule = placement_schedule(graph, placement, split, concat_in_place);
  MemoryProblem problem = build_scheduled_problem(graph, schedule);
  SafeOverlapOptions options;
  options.method = OverlapMethod::kAlgorithmic;
  options.alignment = 1;  // the exact O_s: a placement may overlap by all of it
  options.allow_descending = !placement.descending_ops.empty();
  options.families = {family};
  options.progress = progress;
  std::vector<OpOverlap> overlaps = compute_safe_overlaps(graph, schedule, options);
  unuse_split_op_overlaps(schedule, overlaps);
  unuse_view_overlaps(schedule, overlaps);
  add_scheduled_overlap_pairs(graph, schedule, problem, overlaps);
  add_stage_overlap_pairs(problem, compute_stage_overlaps(graph, schedule, options, StageOverlapDepth::kLoopNests));
  Plan plan;
  plan.planner = "placement";
  plan.arena_size = placement.arena_size;
  plan.descending_ops = placement.descending_ops;
  for (const BufferRequest& buffer : problem.buffers) {
    // A placement of subgraph 0 alone leaves a whole model's other tensors unplaced.
    const auto t = static_cast<size_t>(buffer.tensor);
    plan.offsets.push_back(t < placement.offsets.size() ? placement.offsets[t] : -1);
  }
  // Safe whatever the kernels' order: blocks a concatenation copies onto
  // themselves, and bytes slices have consumed.
  add_self_copy_aliases(graph, schedule, problem, plan.offsets);
  add_consumed_prefix_pairs(graph, schedule, problem, false, 1);
  return validate_plan(problem, plan, 1);
}

VerifyResult verify_plan(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input,
                         const VerifyProgress& progress, KernelFamily family, const std::vector<SplitStage>& split,
                         const std::vector<int32_t>& concat_in_place) {
  Schedule schedule = placement_schedule(graph, placement, split, concat_in_place);
  schedule.kernels = family;
  VerifyResult result = verify_placement(graph, placement, std::move(schedule), input);
  result.validator_errors = validate_placement(graph, placement, progress, family, split, concat_in_place);
  result.unwritten_reads = unwritten_read_tensors(graph.main());
  return result;
}

}  // namespace dmo
