// dmo's plan with subgraph 0's ops re-ordered (transform/reorder.h): the
// order of least peak found for the graph's safe overlaps, then dmo's real
// planner on the graph with its ops in that order (model/op_order.h), kept
// only when it needs fewer bytes than file order. The plan and every op
// index in it are the reordered graph's; `order` maps them back.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/transform/reorder.h"

namespace dmo {

enum class ReorderRequest { kNone, kAuto };

struct ReorderedPlan {
  // Original op indices in execution order: the plan's order (file order
  // when re-ordering does not pay).
  std::vector<int32_t> order;
  ReorderMethod method = ReorderMethod::kNone;  // how the searched order was found
  OrderSearch search;                           // the searched order, before the real planner judged it
  double search_seconds = 0;
  Graph graph;       // subgraph 0's ops in `order`
  PlanResult plan;   // of `graph`, as the options ask (concatenations in place or not)
  // dmo's bytes with each technique alone and combined: file order, the
  // searched order (kept only when smaller), in-place concatenation in file
  // order, and both.
  int64_t plain_bytes = 0;
  int64_t reorder_bytes = 0;
  int64_t concat_in_place_bytes = 0;
  int64_t both_bytes = 0;
  bool reordered() const;
};

// `options.split` must be empty (split stages are contiguous op ranges of
// file order); throws dmo::Error otherwise. With kNone: file order.
ReorderedPlan plan_with_reorder(const Graph& graph, const PlanOptions& options, ReorderRequest request,
                                const ReorderLimits& limits = {});

// The search alone, on the safe overlaps of `graph` in file order.
OrderSearch search_order_for(const Graph& graph, const std::vector<OpOverlap>& overlaps, const PlanOptions& options,
                             const ReorderLimits& limits = {});

}  // namespace dmo
