// What `dmo export` deploys to TFLM: a pipeline result's dmo plan as TFLM's
// OfflineMemoryAllocation words, and the same words as a C header.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"

namespace dmo {

// dmo's offsets for the tensors TFLM plans in subgraph 0; -1 (TFLM plans
// it, or keeps it out of the arena) for constants, variables, zero-size
// tensors and every tensor of the other subgraphs. `planned` counts the
// tensors given an offset. Throws dmo::Error when an offset exceeds int32.
OfflinePlan offline_plan_from_result(const Graph& graph, const PlanResult& result, int64_t& planned);

// A C header holding the plan's words and the arena size, for firmware that
// keeps the model file untouched. `source` names the model, `stem` gives
// the identifiers.
std::string offline_plan_c_header(const std::string& source, const std::string& stem, const OfflinePlan& plan,
                                  const PlanResult& result);

}  // namespace dmo
