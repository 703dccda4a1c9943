// `dmo plan --reorder auto`'s report: the plan report of the reordered graph
// (report/plan_report.h) with its op indices given back as the model file's,
// the order, how it was found and dmo's bytes with each technique alone and
// combined. Formatting only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dmo/pipeline/reordered_plan.h"

namespace dmo {

// "order": original op indices in execution order; "reorder_method"; the
// figures under "reorder". Op indices ("ops"[].index, descending_ops,
// concat_in_place, peak_op, scratch_buffers[].op) are the model file's;
// "ops" is listed in execution order with its "step"; tensors' first_op
// and last_op are steps of that order.
nlohmann::json reorder_report_json(const ReorderedPlan& reordered, nlohmann::json plan_report);

// Lines for the text report: the order, the method and the figures.
std::string reorder_report_text(const ReorderedPlan& reordered);

}  // namespace dmo
