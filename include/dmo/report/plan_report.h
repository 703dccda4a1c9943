// `dmo plan`'s report of a pipeline result (pipeline/plan_pipeline.h): the
// reference figures of a model's subgraph 0 with a per-op table, as text or
// JSON. Formatting only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/pipeline/split_search.h"

namespace dmo {

// With `search` (`--split auto`), `report` is its plan and the search's
// outcome is added as "split_search".
nlohmann::json plan_report_json(const Graph& graph, const PlanResult& report, const SplitSearchResult* search = nullptr);
std::string plan_report_text(const Graph& graph, const PlanResult& report);

}  // namespace dmo
