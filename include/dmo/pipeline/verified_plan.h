// Which plan `dmo verify` proves, and the proof: the planner-independent
// validator on the placement's lifetimes and safe overlaps, then a checked
// run inside it (runtime/plan_verifier.h).
#pragma once

#include <functional>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/schedule/schedule.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

enum class PlanSource {
  kOfflinePlan,  // the model's OfflineMemoryAllocation: what TFLM will deploy
  kDmo,          // dmo's own plan (with its descending walks)
  kFile,         // a placement file
};

// The schedule a placement runs: file order with its descending walks, the
// split stages expanded, the in-place concatenations left out. Throws
// dmo::Error naming the op when one cannot go in place, or both are given.
Schedule placement_schedule(const Graph& graph, const TensorPlacement& placement, const std::vector<SplitStage>& split,
                            const std::vector<int32_t>& concat_in_place);

// "offline_plan", "dmo", "file".
const char* plan_source_name(PlanSource source);

struct PlanToVerify {
  PlanSource source = PlanSource::kDmo;
  TensorPlacement placement;
  // Offline plan only: planned tensors the plan leaves to TFLM (-1), each
  // given a place of its own after the offline-planned ones.
  int32_t unplanned_tensors = 0;
  // The split stages the plan's schedule runs (pipeline/plan_pipeline.h).
  std::vector<SplitStage> split = {};
  // The concatenations whose inputs are written in place (transform/concat_in_place.h).
  std::vector<int32_t> concat_in_place = {};
  // The execution order of subgraph 0's ops (original indices; empty: file
  // order). When set, the plan is for reordered_graph(graph, order), and the
  // op indices above are that graph's.
  std::vector<int32_t> order = {};
};

// The graph a plan runs: subgraph 0's ops in the plan's order.
Graph graph_of_plan(const Graph& graph, const PlanToVerify& plan);

// `plan` is "" (the model's offline plan when it carries one, else dmo's
// plan), "dmo" or the path of a placement file (pipeline/placement_file.h).
// `progress` is told of the safe-overlap analysis (SafeOverlapOptions::progress).
using VerifyProgress = std::function<void(size_t done, size_t total)>;
// `families`: the kernels the plan must be safe for (dmo's plan is made for
// them; each must have a kernel for every op). `split`: how the plan
// splits ops: with stages given or searched (pipeline/split_search.h), ""
// is dmo's plan of them. A plan file carries its own stages: a request for
// stages as well is refused, except stages given for a file naming none.
// `concat_in_place`: dmo's plan chooses in-place concatenations.
// `reorder`: dmo's plan searches the order of subgraph 0's ops (not with split).
PlanToVerify choose_plan_to_verify(const Graph& graph, const std::string& plan, const VerifyProgress& progress = nullptr,
                                   const std::vector<KernelFamily>& families = {KernelFamily::kTflmReference},
                                   const SplitRequest& split = {}, bool concat_in_place = false,
                                   ReorderRequest reorder = ReorderRequest::kNone);

// The offline plan's offsets for the tensors of subgraph 0, every op walking
// ascending as TFLM's kernels do; tensors it leaves to TFLM (-1) are put
// after the planned ones, 16-byte aligned. Throws dmo::Error when the model
// has no offline plan.
PlanToVerify offline_placement(const Graph& graph);

// The validator (plan/plan_validator.h) on a placement: lifetimes of the
// default schedule with the placement's descending walks; the allowed
// overlaps are each op's (output, dying input) pairs within the exact
// algorithmic O_s of the walk the placement declares, by `family`'s
// kernels (not floored to an alignment, and no alignment required). Empty
// when valid.
// With `split`, the schedule runs those stages: their intermediates are
// their bands, their ops may not overlap their inputs, and each stage may
// write its output over its dying input within the stage's own O_s.
std::vector<std::string> validate_placement(const Graph& graph, const TensorPlacement& placement,
                                            const VerifyProgress& progress = nullptr,
                                            KernelFamily family = KernelFamily::kTflmReference,
                                            const std::vector<SplitStage>& split = {},
                                            const std::vector<int32_t>& concat_in_place = {});

// The checked run (verify_placement), then the validator's findings and the
// tensors read but never written added.
// Throws dmo::Error when the placement does not fit the model or an op has
// no kernel.
VerifyResult verify_plan(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input,
                         const VerifyProgress& progress = nullptr,
                         KernelFamily family = KernelFamily::kTflmReference,
                         const std::vector<SplitStage>& split = {},
                         const std::vector<int32_t>& concat_in_place = {});

}  // namespace dmo
