#include "dmo/pipeline/plan_pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "dmo/error.h"
#include "dmo/model/limits.h"
#include "dmo/overlap/consumed_prefix_overlaps.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/plan/tflm_layout.h"
#include "dmo/plan/window_bound.h"
#include "dmo/pipeline/accelerator_buffers.h"
#include "dmo/pipeline/kernel_scratch_buffers.h"
#include "dmo/pipeline/scheduled_problem.h"
#include "dmo/overlap/view_overlaps.h"
#include "dmo/transform/split_schedule.h"

namespace dmo {

namespace {

// Every plan dmo reports is checked independently of the planner that made it.
void require_valid(const MemoryProblem& problem, const Plan& plan, int64_t alignment, const Graph& graph) {
  std::vector<std::string> errors = validate_plan(problem, plan, alignment);
  if (!errors.empty()) {
    throw std::logic_error(fmt::format("{}: {} plan is invalid: {}", graph.source, plan.planner, errors.front()));
  }
}

// The problem's time each op of subgraph 0 first runs at: its scratch
// buffers live there.
std::vector<int32_t> first_time_of_ops(const Graph& graph, const Schedule& schedule) {
  const Subgraph& sg = graph.main();
  const std::vector<int32_t> step_times = scheduled_step_times(graph, schedule);
  std::vector<int32_t> time_of_op(sg.ops.size(), -1);
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    int32_t& time = time_of_op[static_cast<size_t>(schedule.steps[i].op)];
    if (time < 0) time = step_times[i];
  }
  if (schedule.steps.size() == sg.ops.size()) {
    for (size_t op = 0; op < time_of_op.size(); ++op) {
      if (time_of_op[op] < 0) time_of_op[op] = static_cast<int32_t>(op);
    }
    return time_of_op;
  }
  // An op no step runs (an in-place concatenation) is at the time of the
  // next op that runs, where its copy would have been.
  int32_t next = step_times.empty() ? 0 : step_times.back();
  for (size_t op = time_of_op.size(); op-- > 0;) {
    if (time_of_op[op] < 0) time_of_op[op] = next;
    else next = time_of_op[op];
  }
  return time_of_op;
}

// Graph inputs the caller still needs after Invoke: live to the last step,
// so no tensor of dmo's plan takes their bytes (their overlap pairs are
// already refused by the safe-overlap options).
void keep_graph_inputs_to_the_end(const Subgraph& sg, MemoryProblem& problem, std::vector<Lifetime>& lifetimes) {
  const int32_t last_step = problem.op_count - 1;
  if (last_step < 0) return;
  for (int32_t t : sg.inputs) {
    if (t == kNoTensor) continue;
    Lifetime& life = lifetimes[static_cast<size_t>(t)];
    if (life.last >= 0) life.last = std::max(life.last, last_step);
  }
  for (BufferRequest& b : problem.buffers) {
    if (b.tensor != kNoTensor && b.lifetime.last >= 0 &&
        std::find(sg.inputs.begin(), sg.inputs.end(), b.tensor) != sg.inputs.end()) {
      b.lifetime.last = std::max(b.lifetime.last, last_step);
    }
  }
}

// The execution order: file order, with the split stages expanded and the
// in-place concatenations left out.
Schedule planned_schedule(const Graph& graph, const PlanOptions& options, const std::vector<int32_t>& descending) {
  if (options.split.empty()) return with_concat_in_place(graph, default_schedule(graph, descending), options.concat_in_place_ops);
  if (!options.concat_in_place_ops.empty() || options.concat_in_place) {
    throw Error(fmt::format("{}: --concat-in-place cannot be combined with --split", graph.source));
  }
  return split_schedule(graph, options.split, descending);
}

}  // namespace

int64_t PlanResult::extra_macs() const {
  int64_t extra = 0;
  for (const StageMacs& stage : split_macs) extra += stage.extra();
  return extra;
}

namespace {

// Split stages run dmo's own kernels only (reference or device).
void require_reference_kernels_for_split(const Graph& graph, const PlanOptions& options) {
  if (options.split.empty()) return;
  for (KernelFamily family : options.families) {
    if (is_cmsis_nn(family)) {
      throw Error(fmt::format("{}: split stages run dmo's reference kernels; {} kernels compute whole outputs",
                              graph.source, kernel_family_name(family)));
    }
  }
}

SafeOverlapOptions safe_overlap_options(const PlanOptions& options) {
  SafeOverlapOptions overlap_options;
  overlap_options.method = options.method;
  overlap_options.preserve_graph_inputs = options.preserve_graph_inputs;
  overlap_options.alignment = options.alignment;
  overlap_options.compute_algorithmic = options.method != OverlapMethod::kNone;
  overlap_options.allow_descending = options.allow_descending && walks_descending_allowed(options.families);
  overlap_options.families = options.families;
  overlap_options.progress = options.progress;
  return overlap_options;
}

// The schedule's problem: buffers, lifetimes, the overlap pairs of the ops
// outside split stages and of the stages themselves, the kernels' scratch
// buffers and the accelerator ops' fixed buffers. `overlaps` is updated: a
// split op's pair is unused.
struct ScheduledPlanProblem {
  MemoryProblem problem;
  std::vector<Lifetime> lifetimes;
  std::vector<int32_t> op_times;
  std::vector<StageOverlap> stage_overlaps;
  std::vector<ScratchBuffer> scratch_buffers;
  int32_t accelerator_fixed_buffers = 0;
};

ScheduledPlanProblem scheduled_plan_problem(const Graph& graph, const PlanOptions& options, const Schedule& schedule,
                                            std::vector<OpOverlap>& overlaps, StageOverlapDepth depth,
                                            StageTilingMemo* memo = nullptr) {
  ScheduledPlanProblem p;
  p.lifetimes = scheduled_problem_lifetimes(graph, schedule);
  p.problem = build_scheduled_problem(graph, schedule, p.lifetimes);
  p.op_times = first_time_of_ops(graph, schedule);
  if (options.preserve_graph_inputs) keep_graph_inputs_to_the_end(graph.main(), p.problem, p.lifetimes);
  unuse_split_op_overlaps(schedule, overlaps);
  unuse_view_overlaps(schedule, overlaps);
  // Overlap pairs join tensors; the scratch buffers come after them.
  add_scheduled_overlap_pairs(graph, schedule, p.problem, overlaps);
  if (options.consumed_prefix_overlaps) {
    add_consumed_prefix_pairs(graph, schedule, p.problem, options.preserve_graph_inputs, options.alignment);
  }
  // The schedule's lifetimes, unless a whole model's (the model timeline's)
  // or the graph inputs' were kept to the end.
  const bool own_lifetimes = !plans_whole_model(graph) && !options.preserve_graph_inputs;
  p.stage_overlaps = compute_stage_overlaps(graph, schedule, safe_overlap_options(options), depth, memo,
                                            own_lifetimes ? &p.lifetimes : nullptr);
  add_stage_overlap_pairs(p.problem, p.stage_overlaps);
  p.scratch_buffers = kernel_scratch_buffers(graph, options.families);
  add_scratch_buffers(p.problem, p.scratch_buffers, p.op_times);
  p.accelerator_fixed_buffers = fix_accelerator_buffers(graph, p.problem);
  return p;
}

}  // namespace

std::vector<OpOverlap> unsplit_safe_overlaps(const Graph& graph, const PlanOptions& options) {
  return compute_safe_overlaps(graph, default_schedule(graph), safe_overlap_options(options));
}

MemoryProblem planned_problem(const Graph& graph, const PlanOptions& options, const Schedule& schedule,
                              const std::vector<OpOverlap>& overlaps, StageTilingMemo* memo) {
  require_reference_kernels_for_split(graph, options);
  // Only each pair and the bytes it may overlap reach the problem: a search
  // builds thousands, and the rules and per-family figures are not copied.
  std::vector<OpOverlap> used(overlaps.size());
  for (size_t i = 0; i < overlaps.size(); ++i) {
    used[i].pair = overlaps[i].pair;
    used[i].used_bytes = overlaps[i].used_bytes;
    used[i].used_descending_bytes = overlaps[i].used_descending_bytes;
  }
  return scheduled_plan_problem(graph, options, schedule, used, StageOverlapDepth::kClosedForm, memo).problem;
}

PlanResult plan_model(const Graph& graph, const PlanOptions& options) {
  require_reference_kernels_for_split(graph, options);
  // Views change no op's dense order: each op's O_s is the one of the
  // schedule without them (overlap/view_overlaps.h drops what they break).
  PlanOptions without_views = options;
  without_views.concat_in_place_ops = {};
  const Schedule schedule = planned_schedule(graph, without_views, {});
  return plan_model(graph, options, compute_safe_overlaps(graph, schedule, safe_overlap_options(options)));
}

namespace {

PlanResult plan_schedule(const Graph& graph, const PlanOptions& options, std::vector<OpOverlap> overlaps);

// Every copy first, then every concatenation that can go in place; when
// that raises the arena (an output living from its first producer on can
// cost more than the copy saves), one op at a time, each kept only when
// the arena does not grow.
PlanResult plan_concat_in_place(const Graph& graph, const PlanOptions& options, const std::vector<OpOverlap>& overlaps) {
  if (!options.split.empty()) {
    throw Error(fmt::format("{}: --concat-in-place cannot be combined with --split", graph.source));
  }
  std::vector<ConcatInPlace> candidates = concat_in_place_candidates(graph);
  std::vector<int32_t> possible;
  for (const ConcatInPlace& c : candidates) {
    if (c.possible) possible.push_back(c.op);
  }
  PlanOptions trial = options;
  trial.concat_in_place = false;
  trial.concat_in_place_ops = {};
  PlanResult best = plan_schedule(graph, trial, overlaps);
  // A trial whose problem's bound is above the best arena cannot be kept:
  // it is not planned (on a recurrent net every trial was a whole plan).
  auto may_keep = [&](const PlanOptions& o) {
    const MemoryProblem problem = planned_problem(graph, o, planned_schedule(graph, o, {}), overlaps);
    return chain_lower_bound_with_overlap_bytes(problem) <= best.dmo.arena_size;
  };
  if (!possible.empty()) {
    trial.concat_in_place_ops = possible;
    std::optional<PlanResult> all;
    if (may_keep(trial)) all = plan_schedule(graph, trial, overlaps);
    if (all && all->dmo.arena_size <= best.dmo.arena_size) {
      best = std::move(*all);
    } else {
      std::vector<int32_t> kept;
      for (int32_t op : possible) {
        trial.concat_in_place_ops = kept;
        trial.concat_in_place_ops.push_back(op);
        if (!may_keep(trial)) continue;
        PlanResult one_more = plan_schedule(graph, trial, overlaps);
        if (one_more.dmo.arena_size > best.dmo.arena_size) continue;
        kept.push_back(op);
        best = std::move(one_more);
      }
    }
  }
  for (ConcatInPlace& c : candidates) {
    if (c.possible && std::find(best.concat_in_place.begin(), best.concat_in_place.end(), c.op) == best.concat_in_place.end()) {
      c.possible = false;
      c.reason = "the copy is kept: in place, its output living from its first producer on raises the arena";
    }
  }
  best.concatenations = std::move(candidates);
  return best;
}

}  // namespace

PlanResult plan_model(const Graph& graph, const PlanOptions& options, std::vector<OpOverlap> overlaps) {
  if (options.concat_in_place) return plan_concat_in_place(graph, options, overlaps);
  return plan_schedule(graph, options, std::move(overlaps));
}

namespace {

PlanResult plan_schedule(const Graph& graph, const PlanOptions& options, std::vector<OpOverlap> overlaps) {
  const Subgraph& sg = graph.main();
  PlanResult r;
  r.concat_in_place = options.concat_in_place_ops;
  std::sort(r.concat_in_place.begin(), r.concat_in_place.end());
  require_reference_kernels_for_split(graph, options);
  r.schedule = planned_schedule(graph, options, {});
  r.macs = model_macs(graph);
  for (const StageTiling& tiling : stage_tilings(graph, r.schedule)) r.split_macs.push_back(stage_macs(graph, tiling));
  r.planned_subgraphs = plans_whole_model(graph) ? static_cast<int32_t>(graph.subgraphs.size()) : 1;
  r.method = options.method;
  r.alignment = options.alignment;
  r.allow_descending = safe_overlap_options(options).allow_descending;
  r.families = options.families;
  // Refused before the safe overlaps are analysed: no plan could be deployed.
  if (const int64_t least = lower_bound_bytes(build_tflm_memory_problem(graph)); least > kMaxArenaBytes) {
    throw Error(fmt::format("{}: {} bytes are live at one op, above the {}-byte arena limit", graph.source, least,
                            kMaxArenaBytes));
  }
  ScheduledPlanProblem planned =
      scheduled_plan_problem(graph, options, r.schedule, overlaps, StageOverlapDepth::kLoopNests);
  r.overlaps = std::move(overlaps);
  r.stage_overlaps = std::move(planned.stage_overlaps);
  r.problem = std::move(planned.problem);
  r.lifetimes = std::move(planned.lifetimes);
  r.op_times = std::move(planned.op_times);
  r.scratch_buffers = std::move(planned.scratch_buffers);
  r.accelerator_fixed_buffers = planned.accelerator_fixed_buffers;

  r.tflm_problem = tflm_problem_with_scratch(graph, r.scratch_buffers);
  for (const BufferRequest& b : r.tflm_problem.buffers) r.offline_planned_buffers += b.fixed_offset.has_value();
  r.tflm_greedy = plan_tflm_greedy(r.tflm_problem);
  require_valid(r.tflm_problem, r.tflm_greedy, kTflmBufferAlignment, graph);

  r.naive_bytes = naive_bytes(r.problem);
  // Every bound below starts from these per-op figures: worked out once.
  LiveProfile profile = live_profile(r.problem);
  r.lower_bound_bytes = lower_bound_bytes(r.problem, profile.live);
  r.live_bytes = profile.live;
  for (size_t i = 0; i < r.live_bytes.size(); ++i) {
    if (r.live_bytes[i] == r.lower_bound_bytes) {
      r.peak_op = static_cast<int32_t>(i);
      break;
    }
  }
  for (const Tensor& t : sg.tensors) {
    if (t.is_variable) r.variable_bytes += t.byte_size;
  }

  DmoPlannerOptions no_overlap;
  no_overlap.use_overlaps = false;
  no_overlap.alignment = options.alignment;
  // Without the pairs: they would steer the planner's start orders.
  MemoryProblem without_overlaps = r.problem;
  without_overlaps.overlaps.clear();
  r.dmo_no_overlap = plan_dmo(without_overlaps, no_overlap);
  require_valid(without_overlaps, r.dmo_no_overlap, no_overlap.alignment, graph);
  r.dmo_no_overlap = tflm_layout(r.problem, r.dmo_no_overlap, std::max(options.alignment, kTflmBufferAlignment));
  require_valid(r.problem, r.dmo_no_overlap, no_overlap.alignment, graph);

  r.lower_bound_overlap_per_op_bytes = lower_bound_with_overlap_bytes(r.problem, profile);
  r.lower_bound_overlap_bytes = chain_lower_bound_with_overlap_bytes(r.problem, profile);
  DmoPlanChoice choice =
      choose_scheduled_plan(graph, r.problem, r.schedule, options.alignment, r.lower_bound_overlap_bytes);
  r.dmo = std::move(choice.dmo);
  r.dmo_ascending = std::move(choice.dmo_ascending);
  // Packed up to dmo's arena at most: the search stops once it proves that.
  WindowBoundOptions window;
  window.packing.alignment = options.alignment;
  window.packing.end_rounding = std::max(options.alignment, kTflmBufferAlignment);
  window.packing.ceiling = r.dmo.arena_size;
  r.lower_bound_window_bytes = std::max(r.lower_bound_overlap_bytes, peak_window_lower_bound_bytes(r.problem, window));
  // The schedule runs dmo's plan: its ops walk as the plan needs.
  r.schedule = planned_schedule(graph, options, r.dmo.descending_ops);
  if (!options.families.empty()) r.schedule.kernels = options.families.front();
  return r;
}

}  // namespace

DmoPlanChooser scheduled_plan_chooser(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                                      int64_t alignment, std::optional<int64_t> bound) {
  if (schedule.band_buffers.empty()) return DmoPlanChooser(problem, alignment, bound);
  return DmoPlanChooser(problem, with_bands_over_whole_stages(graph, problem, schedule), alignment, bound);
}

DmoPlanChoice choose_scheduled_plan(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                                    int64_t alignment, std::optional<int64_t> bound) {
  return scheduled_plan_chooser(graph, problem, schedule, alignment, bound).choice();
}

Plan scheduled_dmo_plan(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                        int64_t alignment, std::optional<int64_t> bound) {
  return scheduled_plan_chooser(graph, problem, schedule, alignment, bound).dmo_only();
}

MemoryProblem tflm_problem_with_scratch(const Graph& graph, const std::vector<ScratchBuffer>& scratch) {
  MemoryProblem problem = build_tflm_memory_problem(graph);
  // TFLM runs every op whole, in file order: its own times.
  add_scratch_buffers(problem, scratch, first_time_of_ops(graph, default_schedule(graph)));
  return problem;
}

TensorPlacement dmo_placement(const Graph& graph, const PlanResult& result) {
  TensorPlacement placement = placement_from_plan(graph.main(), result.problem, result.dmo);
  // A plan of every subgraph: one offset per tensor of the model, also when
  // its last tensors (constants, say) are not planned.
  if (placement.offsets.size() > graph.main().tensors.size()) placement.offsets.resize(graph.total_tensor_count(), -1);
  // The problem's buffers without a tensor are the scratch buffers, in order.
  size_t next = 0;
  for (size_t b = 0; b < result.problem.buffers.size() && next < result.scratch_buffers.size(); ++b) {
    if (result.problem.buffers[b].tensor != kNoTensor) continue;
    const ScratchBuffer& s = result.scratch_buffers[next++];
    placement.scratch.push_back({s.op, result.dmo.offsets[b], s.bytes});
  }
  return placement;
}

}  // namespace dmo
