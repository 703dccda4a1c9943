// What `dmo export` deploys, never worse than TFLM as deployed today: dmo's
// plan when TFLM needs no more bytes with it than without it; otherwise the
// model's own offline plan, TFLM's greedy offsets, or no offsets at all.
// Every figure is TFLM's head for the plan: offline offsets taken as
// given, every size rounded up to 16, scratch buffers placed by TFLM's
// first fit around the offline tensors. Each kernel family asks for
// scratch buffers of its own, so each has its own head; a plan for several
// is judged by the largest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/tflm_arena.h"

namespace dmo {

enum class DeployedPlan {
  kDmo,               // dmo's ascending plan
  kModelOfflinePlan,  // the model's own OfflineMemoryAllocation, unchanged
  kTflmGreedy,        // TFLM's greedy offsets, as its own planner would place the tensors
  kTflmOnline,        // every offset -1: TFLM plans everything itself
};

// "dmo", "model", "tflm_greedy", "tflm_online".
const char* deployed_plan_name(DeployedPlan plan);

// TFLM's head for one kernel family: without the export (its own planning,
// or the model's own offline plan) and with the words deployed.
struct FamilyHead {
  KernelFamily family = KernelFamily::kTflmReference;
  int64_t without = 0;
  int64_t with = 0;
  // TFLM's whole arena with the words deployed: `with` plus the tail.
  TflmArena arena;
};

struct TflmDeployment {
  DeployedPlan plan = DeployedPlan::kDmo;
  OfflinePlan words;            // the OfflineMemoryAllocation to write
  int64_t tensors_planned = 0;  // tensors of subgraph 0 given an offset
  // Per family the plan is for (PlanResult::families, in that order).
  std::vector<FamilyHead> heads;
  int64_t arena_bytes = 0;           // the largest head with `words`
  int64_t without_export_bytes = 0;  // the largest head without the export
  int64_t dmo_bytes = 0;             // the largest head with dmo's plan, deployed or not
  std::string reason;           // which plan was chosen and why, one sentence
  // Graph inputs of subgraph 0 whose bytes another buffer (tensor or TFLM
  // scratch buffer) takes over during Invoke, as TFLM lays out `words`.
  std::vector<int32_t> overwritten_inputs;
  // The kernel families dmo's plan was made for (PlanResult::families).
  std::vector<KernelFamily> families = {KernelFamily::kTflmReference};
};

// TFLM as the model is (its own planner, or the file's offline plan), for
// each family `result` was planned for: its head then, and its tail.
std::vector<TflmArena> tflm_arenas(const Graph& graph, const PlanResult& result);

// The arena to give TFLM with the deployed words: per family head + tail,
// the largest over the families; nothing when a tail is unknown.
std::optional<int64_t> largest_tflm_arena(const TflmDeployment& deployment);

// The heads of the families that need more with the export than without it.
std::vector<FamilyHead> heads_worse_with_export(const TflmDeployment& deployment);

// The kernels a deployed plan is safe for: dmo's overlaps are those of the
// plan's kernel families' loop orders, every op walking ascending.
std::string deployment_safe_for(const TflmDeployment& deployment);

// `result` must come from plan_model with ascending walks only (TFLM's
// kernels). With `preserve_inputs` (result planned with
// preserve_graph_inputs) a plan that overwrites a graph input is only
// deployed when no candidate keeps them all. Throws dmo::Error when an
// offset exceeds TFLM's int32.
TflmDeployment choose_tflm_deployment(const Graph& graph, const PlanResult& result, bool preserve_inputs = false);

// The graph inputs of subgraph 0 whose bytes another buffer of TFLM's
// problem uses when TFLM lays out `words` (graph inputs live from the
// first op, so any buffer sharing their bytes is written after them).
// One sentence for a user: whether the graph inputs survive Invoke.
std::string graph_inputs_statement(const Graph& graph, const TflmDeployment& deployment);

std::vector<int32_t> inputs_overwritten_by(const Graph& graph, const MemoryProblem& tflm_problem,
                                          const OfflinePlan& words);

}  // namespace dmo
