// `dmo overlap`: per op (of every subgraph, by flat op index), the (input, output) pair and its safe overlap by
// the analytic and the algorithmic method, for the kernel walking ascending
// and, where dmo's kernel can, descending.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/overlap/safe_overlaps.h"

namespace dmo {

// `families`: what the rows were computed for (a column per cmsis family).
nlohmann::json overlap_report_json(const Graph& graph, const std::vector<OpOverlap>& rows,
                                   const std::vector<KernelFamily>& families = {KernelFamily::kTflmReference});
std::string overlap_report_text(const Graph& graph, const std::vector<OpOverlap>& rows,
                                const std::vector<KernelFamily>& families = {KernelFamily::kTflmReference});

}  // namespace dmo
