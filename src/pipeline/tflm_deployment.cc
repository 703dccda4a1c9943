#include "dmo/pipeline/tflm_deployment.h"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "dmo/error.h"
#include "dmo/plan/tflm_layout.h"

namespace dmo {

namespace {

// Words giving subgraph 0's tensors the offsets of `plan` (-1 for
// scratch buffers' and unplanned tensors), -1 for every other subgraph.
OfflinePlan words_for(const Graph& graph, const MemoryProblem& problem, const std::vector<int64_t>& offsets,
                      int64_t& planned) {
  OfflinePlan words;
  words.version = 0;
  words.subgraph_count = static_cast<int32_t>(graph.subgraphs.size());
  words.offsets.assign(graph.total_tensor_count(), -1);
  planned = 0;
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const int32_t t = problem.buffers[b].tensor;
    if (t == kNoTensor || offsets[b] < 0) continue;
    if (offsets[b] > std::numeric_limits<int32_t>::max()) {
      throw Error(fmt::format("{}: tensor {} is planned at offset {}, beyond TFLM's int32 offsets", graph.source, t,
                              offsets[b]));
    }
    words.offsets[static_cast<size_t>(t)] = static_cast<int32_t>(offsets[b]);  // subgraph 0's tensors come first
    ++planned;
  }
  return words;
}

}  // namespace

const char* deployed_plan_name(DeployedPlan plan) {
  switch (plan) {
    case DeployedPlan::kDmo: return "dmo";
    case DeployedPlan::kModelOfflinePlan: return "model";
    case DeployedPlan::kTflmGreedy: return "tflm_greedy";
    case DeployedPlan::kTflmOnline: return "tflm_online";
  }
  return "?";
}

TflmDeployment choose_tflm_deployment(const Graph& graph, const PlanResult& result) {
  // TFLM's own problem (its lifetimes, the scratch buffers), laid out with
  // each candidate's tensor offsets.
  const MemoryProblem& tflm = result.tflm_problem;
  TflmDeployment d;
  d.without_export_bytes = result.tflm_greedy.arena_size;
  const std::vector<int64_t> dmo_offsets = tensor_offsets(tflm, result.dmo_ascending);
  d.dmo_bytes = plan_tflm_with_offsets(tflm, dmo_offsets).arena_size;

  if (graph.offline_plan) {
    if (d.dmo_bytes < d.without_export_bytes) {
      d.plan = DeployedPlan::kDmo;
      d.words = words_for(graph, tflm, dmo_offsets, d.tensors_planned);
      d.arena_bytes = d.dmo_bytes;
      d.reason = fmt::format("dmo's plan replaces the model's own offline plan: TFLM needs {} bytes with it, {} with "
                             "the model's plan",
                             d.dmo_bytes, d.without_export_bytes);
    } else {
      d.plan = DeployedPlan::kModelOfflinePlan;
      d.words = *graph.offline_plan;
      for (size_t t = 0; t < graph.main().tensors.size() && t < d.words.offsets.size(); ++t) {
        d.tensors_planned += d.words.offsets[t] >= 0;
      }
      d.arena_bytes = d.without_export_bytes;
      d.reason = fmt::format("kept the model's own offline plan: TFLM needs {} bytes with it, {} with dmo's plan",
                             d.without_export_bytes, d.dmo_bytes);
    }
    return d;
  }
  if (d.dmo_bytes <= d.without_export_bytes) {
    d.plan = DeployedPlan::kDmo;
    d.words = words_for(graph, tflm, dmo_offsets, d.tensors_planned);
    d.arena_bytes = d.dmo_bytes;
    d.reason = fmt::format("dmo's plan: TFLM needs {} bytes with it, {} with its own greedy plan", d.dmo_bytes,
                           d.without_export_bytes);
    return d;
  }
  // dmo's plan would cost TFLM more (its scratch buffers land higher):
  // deploy what TFLM does on its own.
  const std::vector<int64_t> greedy_offsets = tensor_offsets(tflm, result.tflm_greedy);
  const int64_t greedy_bytes = plan_tflm_with_offsets(tflm, greedy_offsets).arena_size;
  if (greedy_bytes <= d.without_export_bytes) {
    d.plan = DeployedPlan::kTflmGreedy;
    d.words = words_for(graph, tflm, greedy_offsets, d.tensors_planned);
    d.arena_bytes = greedy_bytes;
  } else {
    d.plan = DeployedPlan::kTflmOnline;
    d.words = words_for(graph, tflm, std::vector<int64_t>(tflm.buffers.size(), -1), d.tensors_planned);
    d.arena_bytes = d.without_export_bytes;
  }
  d.reason = fmt::format("TFLM's {} instead of dmo's plan: TFLM needs {} bytes with dmo's plan, {} with its own",
                         d.plan == DeployedPlan::kTflmGreedy ? "greedy offsets" : "own planning (every offset -1)",
                         d.dmo_bytes, d.arena_bytes);
  return d;
}

}  // namespace dmo
