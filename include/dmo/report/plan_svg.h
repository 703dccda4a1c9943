// The arena over time as an SVG picture: one rectangle per tensor, op index
// across, address up; TFLM's greedy plan beside dmo's, on the same scale.
#pragma once

#include <string>

#include "dmo/model/graph.h"
#include "dmo/report/plan_report.h"

namespace dmo {

std::string plan_svg(const Graph& graph, const PlanResult& report);

}  // namespace dmo
