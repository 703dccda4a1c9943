// `dmo plan`: the reference figures of a model's subgraph 0 (naive, TFLM's
// greedy planner, lower bound) with a per-op table, as text or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct PlanReport {
  MemoryProblem problem;           // subgraph 0
  std::vector<Lifetime> lifetimes; // per tensor of subgraph 0
  Plan tflm_greedy;
  int64_t naive_bytes = 0;
  int64_t lower_bound_bytes = 0;
  std::vector<int64_t> live_bytes;  // per op
  int32_t peak_op = -1;             // first op reaching the lower bound
  int64_t variable_bytes = 0;       // TFLM keeps these in its persistent section
};

PlanReport make_plan_report(const Graph& graph);

nlohmann::json plan_report_json(const Graph& graph, const PlanReport& report);
std::string plan_report_text(const Graph& graph, const PlanReport& report);

}  // namespace dmo
