// The placement and schedule `dmo run` and `dmo codegen` execute: a plan
// file's, or dmo's own plan (split stages searched with --split auto or
// given), with the schedule that plan was made for.
#pragma once

#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/schedule/schedule.h"

namespace dmo::cli {

struct PlannedSchedule {
  TensorPlacement placement;
  std::vector<SplitStage> stages;
  std::vector<int32_t> concat_in_place;
  Schedule schedule;  // empty: the placement's default schedule

  // An interpreter running exactly this plan.
  std::unique_ptr<Interpreter> interpreter(const Graph& graph) const;
};

// From `plan_file` when given (re-ordering `graph` as the file says),
// else dmo's plan under `split`.
PlannedSchedule planned_schedule(Graph& graph, const std::string& plan_file, const SplitRequest& split,
                                 const PlanOptions& options);

}  // namespace dmo::cli
