#include "dmo/pipeline/reordered_plan.h"

#include <fmt/format.h>

#include <chrono>

#include "dmo/error.h"
#include "dmo/model/op_order.h"

namespace dmo {

bool ReorderedPlan::reordered() const { return order != file_order(graph); }

namespace {

// The bytes an op may overlap with its input when that input dies there:
// the planner's value where it dies in file order, else the methods' value
// floored to the alignment (it may die there in another order).
int64_t overlap_for_search(const OpOverlap& o, int64_t alignment) {
  auto floored = [&](const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
    const int64_t v = a.value_or(b.value_or(0));
    return v > 0 ? v / alignment * alignment : 0;
  };
  const int64_t ascending = o.used_bytes > 0 ? o.used_bytes : floored(o.algorithmic, o.analytic);
  const int64_t descending =
      o.used_descending_bytes > 0 ? o.used_descending_bytes : floored(o.algorithmic_descending, o.analytic_descending);
  return std::max(ascending, descending);
}

}  // namespace

OrderSearch search_order_for(const Graph& graph, const std::vector<OpOverlap>& overlaps, const PlanOptions& options,
                             const ReorderLimits& limits) {
  const size_t ops = graph.main().ops.size();
  std::vector<int64_t> bytes(ops, 0);
  std::vector<int32_t> tensors(ops, kNoTensor);
  for (size_t i = 0; i < ops && i < overlaps.size(); ++i) {
    if (options.method == OverlapMethod::kNone) break;
    bytes[i] = overlap_for_search(overlaps[i], std::max<int64_t>(options.alignment, 1));
    tensors[i] = overlaps[i].pair.input;
  }
  return search_op_order(order_problem(graph, bytes, tensors, options.preserve_graph_inputs), limits);
}

ReorderedPlan plan_with_reorder(const Graph& graph, const PlanOptions& options, ReorderRequest request,
                                const ReorderLimits& limits) {
  if (request == ReorderRequest::kAuto && !options.split.empty()) {
    throw Error(fmt::format("{}: --reorder auto cannot be combined with --split (split stages are op ranges of "
                            "file order)", graph.source));
  }
  ReorderedPlan result;
  result.graph = graph;
  result.order = file_order(graph);
  if (request == ReorderRequest::kNone) {
    result.plan = plan_model(graph, options);
    result.plain_bytes = result.reorder_bytes = result.plan.dmo.arena_size;
    result.concat_in_place_bytes = result.both_bytes = result.plan.dmo.arena_size;
    return result;
  }
  PlanOptions plain_options = options;
  plain_options.concat_in_place = false;
  plain_options.concat_in_place_ops = {};
  PlanOptions concat_options = plain_options;
  concat_options.concat_in_place = true;
  const std::vector<OpOverlap> overlaps = unsplit_safe_overlaps(graph, plain_options);
  PlanResult plain = plan_model(graph, plain_options, overlaps);
  PlanResult concat = plan_model(graph, concat_options, overlaps);

  const auto start = std::chrono::steady_clock::now();
  result.search = search_order_for(graph, plain.overlaps, plain_options, limits);
  result.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.method = result.search.method;

  result.plain_bytes = result.reorder_bytes = plain.dmo.arena_size;
  result.concat_in_place_bytes = result.both_bytes = concat.dmo.arena_size;
  const bool concat_asked = options.concat_in_place;
  PlanResult chosen = concat_asked ? std::move(concat) : std::move(plain);
  if (result.search.order != result.order) {
    Graph reordered = reordered_graph(graph, result.search.order);
    PlanOptions reordered_options = plain_options;
    reordered_options.progress = nullptr;
    const std::vector<OpOverlap> reordered_overlaps = unsplit_safe_overlaps(reordered, reordered_options);
    PlanResult reordered_plain = plan_model(reordered, reordered_options, reordered_overlaps);
    reordered_options.concat_in_place = true;
    PlanResult reordered_concat = plan_model(reordered, reordered_options, reordered_overlaps);
    // Each technique's figure never above the plan without it.
    result.reorder_bytes = std::min(result.plain_bytes, reordered_plain.dmo.arena_size);
    result.both_bytes = std::min(result.concat_in_place_bytes, reordered_concat.dmo.arena_size);
    PlanResult& candidate = concat_asked ? reordered_concat : reordered_plain;
    if (candidate.dmo.arena_size < chosen.dmo.arena_size) {
      chosen = std::move(candidate);
      result.graph = std::move(reordered);
      result.order = result.search.order;
    }
  }
  result.plan = std::move(chosen);
  return result;
}

}  // namespace dmo
