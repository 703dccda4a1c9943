// The planning pipeline: a model's subgraph 0 -> default schedule ->
// lifetimes -> memory problem -> safe overlaps -> TFLM's greedy plan, dmo's
// plans and the bounds -> validation, returned as plain data. The command
// line and the reports only call and format this.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/overlap/stage_overlaps.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/plan/tflm_scratch_buffers.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/concat_in_place.h"
#include "dmo/transform/split_macs.h"

namespace dmo {

struct PlanOptions {
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
  // The kernel families the plan must be safe for (ops/kernel_family.h):
  // per op the least O_s over them, and room for the largest scratch
  // buffers any of them requests. A cmsis family walks ascending only.
  std::vector<KernelFamily> families = {KernelFamily::kTflmReference};
  // Split stages (transform/split_schedule.h): their ops run tile by tile,
  // each intermediate held as its largest band and live only during its
  // stage. Their ops' overlap pairs are left out of the problem (a band
  // step's access order is not the whole op's). dmo's reference kernels only.
  std::vector<SplitStage> split = {};
  // In-place concatenation (transform/concat_in_place.h): the producers of
  // these CONCATENATION and PACK ops write into their output, and the ops
  // do not run. Their producers' overlap pairs go unused (overlap/view_overlaps.h).
  std::vector<int32_t> concat_in_place_ops = {};
  // Choose them: of the ops that can go in place, those that do not raise
  // dmo's arena (never above the plan with every copy). Not with `split`.
  bool concat_in_place = false;
  // Let buffers created while slices consume a tensor end in its consumed
  // prefix (overlap/consumed_prefix_overlaps.h): tiles exported for TFLM
  // write over the input rows earlier tiles' slices copied out.
  bool consumed_prefix_overlaps = false;
  // Progress of the slow step, finding each op's safe overlaps (see SafeOverlapOptions::progress).
  std::function<void(size_t done, size_t total)> progress = nullptr;
};

struct PlanResult {
  // The execution order the figures are for (the default: file order), with
  // the walks of `dmo`'s plan: what the interpreter runs and code follows.
  Schedule schedule;
  // The CONCATENATION and PACK ops the schedule leaves out, their inputs
  // written in place (ascending); with PlanOptions::concat_in_place, every
  // such op of the model and why it is or is not in place.
  std::vector<int32_t> concat_in_place;
  std::vector<ConcatInPlace> concatenations;
  // Subgraph 0: one buffer per planned tensor (tensor order), then one per
  // TFLM scratch buffer (no tensor, in `scratch_buffers` order), with the
  // overlap pairs dmo uses; the tensors of accelerator ops (ethos-u) fixed
  // at the model's offline offsets, which dmo does not move.
  // On a model of several subgraphs the problem covers them all, as TFLM
  // plans them (pipeline/scheduled_problem.h): buffers of every subgraph's
  // tensors (flat indices, subgraph 0 first), time the model timeline's.
  MemoryProblem problem;
  int32_t planned_subgraphs = 1;    // the figures cover subgraphs 0 .. planned_subgraphs - 1
  std::vector<int32_t> op_times;    // per op of subgraph 0: its time in `problem` (its index on one subgraph)
  std::vector<Lifetime> lifetimes;  // per tensor of the problem (flat), under `schedule`
  std::vector<ScratchBuffer> scratch_buffers;  // what the families' kernels request, op order
  std::vector<KernelFamily> families;          // the plan is safe for these kernels
  int32_t accelerator_fixed_buffers = 0;       // buffers of `problem` fixed for accelerator ops
  // What TFLM plans: `problem`'s buffers (no overlap pairs) with the model's
  // offline offsets fixed, as TFLM's allocator does.
  MemoryProblem tflm_problem;
  int32_t offline_planned_buffers = 0;  // buffers of tflm_problem with a fixed offset
  // TFLM's plan of tflm_problem; every plan's arena_size is the head TFLM
  // needs for it: sizes rounded up to 16, scratch buffers included.
  Plan tflm_greedy;
  int64_t naive_bytes = 0;
  int64_t lower_bound_bytes = 0;
  std::vector<int64_t> live_bytes;  // per time of `problem` (per op of subgraph 0 on one subgraph)
  int32_t peak_op = -1;             // first time reaching the lower bound
  int64_t variable_bytes = 0;       // TFLM keeps these in its persistent section

  OverlapMethod method = OverlapMethod::kAlgorithmic;
  int64_t alignment = 16;
  std::vector<OpOverlap> overlaps;  // per op
  std::vector<StageOverlap> stage_overlaps;  // per split stage (its loop nests run)
  Plan dmo_no_overlap;
  bool allow_descending = true;
  // dmo's plans as TFLM lays them out (tflm_layout.h): tensors at dmo's
  // offsets, scratch buffers where TFLM's first fit puts them.
  Plan dmo;
  Plan dmo_ascending;  // ascending walks only (TFLM's kernels); == dmo when descending is not allowed
  int64_t lower_bound_overlap_per_op_bytes = 0;  // live bytes less the op's O_s, at the worst op
  int64_t lower_bound_overlap_bytes = 0;         // the same, tightened by chains of forced overlaps
  // The chain bound, raised where an exact packing of the buffers around a
  // peak needs more (plan/window_bound.h): no plan at `alignment` measured
  // as TFLM measures it (sizes rounded up to 16) is smaller.
  int64_t lower_bound_window_bytes = 0;
  // Computation (transform/split_macs.h): the model's MACs unsplit, and per
  // split stage its MACs unsplit and tile by tile.
  int64_t macs = 0;
  std::vector<StageMacs> split_macs;
  int64_t extra_macs() const;
};

// Schedule, safe overlaps, TFLM's plan, dmo's plans and bounds, every plan
// checked by the validator (std::logic_error when one fails: a planner bug).
PlanResult plan_model(const Graph& graph, const PlanOptions& options = {});

// The same with each op's safe overlaps already computed by
// unsplit_safe_overlaps for the same options (the slow step, done once when
// many split stages are tried): split stages change no op's (output, dying
// input) pair, and the pairs of their own ops go unused.
PlanResult plan_model(const Graph& graph, const PlanOptions& options, std::vector<OpOverlap> overlaps);

// Each op's safe overlaps under the default schedule, as plan_model
// computes them for `options`.
std::vector<OpOverlap> unsplit_safe_overlaps(const Graph& graph, const PlanOptions& options);

// The problem plan_model gives dmo's planner for `options` under
// `schedule` (split_schedule of options.split), from unsplit_safe_overlaps:
// for bounds and plans of candidates. The stages' own O_s is their closed
// form here (a lower bound of the loop nests' value plan_model uses), so
// trying a stage runs no kernel. `memo`: the stages' tilings already worked out.
MemoryProblem planned_problem(const Graph& graph, const PlanOptions& options, const Schedule& schedule,
                              const std::vector<OpOverlap>& overlaps, StageTilingMemo* memo = nullptr);

// dmo's plans of a schedule's problem: with split stages, also planned
// with their bands live over the whole stage, and the smaller taken.
// `bound`: the problem's chain_lower_bound_with_overlap_bytes, when known.
DmoPlanChoice choose_scheduled_plan(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                                    int64_t alignment, std::optional<int64_t> bound = std::nullopt);

// The same without the ascending-only plans (choose_dmo_plan_only): dmo's
// plan for a search comparing arenas.
Plan scheduled_dmo_plan(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                        int64_t alignment, std::optional<int64_t> bound = std::nullopt);

// Both of the above for one problem, each plan made once (see
// DmoPlanChooser): keeps a reference to `problem`.
DmoPlanChooser scheduled_plan_chooser(const Graph& graph, const MemoryProblem& problem, const Schedule& schedule,
                                      int64_t alignment, std::optional<int64_t> bound = std::nullopt);

// The placement of dmo's plan (offsets per tensor, descending ops).
TensorPlacement dmo_placement(const Graph& graph, const PlanResult& result);

// What TFLM plans when its kernels request `scratch` (subgraph 0's ops, op
// order): build_tflm_memory_problem, then one buffer per scratch buffer,
// live while its op runs whole in file order.
MemoryProblem tflm_problem_with_scratch(const Graph& graph, const std::vector<ScratchBuffer>& scratch);

}  // namespace dmo
