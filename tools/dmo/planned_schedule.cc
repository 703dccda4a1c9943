#include "planned_schedule.h"

#include "dmo/model/op_order.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/transform/split_schedule.h"

namespace dmo::cli {

std::unique_ptr<Interpreter> PlannedSchedule::interpreter(const Graph& graph) const {
  const bool plain = stages.empty() && concat_in_place.empty();
  if (plain) return std::make_unique<Interpreter>(graph, placement);
  Schedule s = schedule.steps.empty() ? placement_schedule(graph, placement, stages, concat_in_place) : schedule;
  return std::make_unique<Interpreter>(graph, placement, std::move(s));
}

PlannedSchedule planned_schedule(Graph& graph, const std::string& plan_file, const SplitRequest& split,
                                 const PlanOptions& options) {
  PlannedSchedule planned;
  if (!plan_file.empty()) {
    PlacementFile file = read_placement_file(plan_file, graph, split);
    planned.placement = std::move(file.placement);
    planned.stages = std::move(file.split);
    planned.concat_in_place = std::move(file.concat_in_place);
    // The plan's op indices are those of the graph in its order.
    if (!file.order.empty()) graph = reordered_graph(graph, file.order);
    return planned;
  }
  PlanResult result = split.method == SplitMethod::kAuto
                          ? search_split_stages(graph, options, split.max_recompute_percent).plan
                          : plan_model(graph, options);
  planned.placement = dmo_placement(graph, result);
  planned.stages = result.schedule.stages;
  planned.concat_in_place = result.concat_in_place;
  planned.schedule = std::move(result.schedule);
  return planned;
}

}  // namespace dmo::cli
