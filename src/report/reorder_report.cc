#include "dmo/report/reorder_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dmo/model/op_order.h"

namespace dmo {

namespace {

int32_t original_op(const std::vector<int32_t>& order, int32_t op) {
  return op >= 0 && static_cast<size_t>(op) < order.size() ? order[static_cast<size_t>(op)] : op;
}

nlohmann::json figures_json(const ReorderedPlan& r) {
  return {{"plain_bytes", r.plain_bytes},
          {"reorder_bytes", r.reorder_bytes},
          {"concat_in_place_bytes", r.concat_in_place_bytes},
          {"reorder_concat_in_place_bytes", r.both_bytes},
          {"searched_peak_bytes", r.search.peak_bytes},
          {"file_order_peak_bytes", r.search.file_order_peak_bytes},
          {"states_visited", r.search.states_visited},
          {"search_seconds", r.search_seconds},
          {"searched_order", r.search.order}};
}

}  // namespace

nlohmann::json reorder_report_json(const ReorderedPlan& r, nlohmann::json report) {
  const std::vector<int32_t>& order = r.order;
  report["order"] = order;
  report["reorder_method"] = reorder_method_name(r.method);
  report["reordered"] = r.reordered();
  report["reorder"] = figures_json(r);
  if (!r.reordered()) return report;
  report["descending_ops"] = original_op_indices(order, report["descending_ops"].get<std::vector<int32_t>>());
  report["concat_in_place"] = original_op_indices(order, report["concat_in_place"].get<std::vector<int32_t>>());
  const bool one_subgraph = report["planned_subgraphs"].size() == 1;
  // peak_op is a time; on one subgraph it is the step, so the op is order[step].
  if (one_subgraph) report["peak_op"] = original_op(order, report["peak_op"].get<int32_t>());
  for (auto& op : report["ops"]) {
    const auto step = op["index"].get<int32_t>();
    op["step"] = step;
    op["index"] = original_op(order, step);
  }
  for (auto& buffer : report["scratch_buffers"]) buffer["op"] = original_op(order, buffer["op"].get<int32_t>());
  return report;
}

std::string reorder_report_text(const ReorderedPlan& r) {
  std::string out = fmt::format("reorder: {} ({}), ", reorder_method_name(r.method),
                                r.reordered() ? "ops re-ordered" : "file order kept");
  out += fmt::format("dmo bytes: file order {}, reordered {}, concat in place {}, both {}\n", r.plain_bytes,
                     r.reorder_bytes, r.concat_in_place_bytes, r.both_bytes);
  if (r.reordered()) {
    out += fmt::format("order (the model file's op indices; the table's op column is the step): {}\n",
                       fmt::join(r.order, " "));
  }
  return out;
}

}  // namespace dmo
