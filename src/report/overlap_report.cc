#include "dmo/report/overlap_report.h"

#include <fmt/format.h>

#include "dmo/model/model_timeline.h"
#include "dmo/report/kernel_family_columns.h"

namespace dmo {

namespace {
nlohmann::json optional_json(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
std::string optional_text(const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : std::string("-"); }
// An op by flat index: "7" in subgraph 0, "2:1" for op 1 of subgraph 2.
std::string op_column(const Graph& graph, int32_t flat) {
  const SubgraphIndex at = locate_flat_op(graph, flat);
  return at.subgraph == 0 ? fmt::format("{}", at.index) : fmt::format("{}:{}", at.subgraph, at.index);
}
}  // namespace

nlohmann::json overlap_report_json(const Graph& graph, const std::vector<OpOverlap>& rows,
                                   const std::vector<KernelFamily>& families) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpOverlap& row : rows) {
    const OverlapCandidate& p = row.pair;
    const SubgraphIndex at = locate_flat_op(graph, p.op);
    // Indices are flat (model/model_timeline.h): subgraph 0's are its own.
    nlohmann::json j = {{"index", p.op},
                        {"subgraph", at.subgraph},
                        {"subgraph_op", at.index},
                        {"op", flat_op(graph, p.op).name()},
                        {"input", p.input},
                        {"output", p.output},
                        {"input_bytes", p.input_bytes},
                        {"output_bytes", p.output_bytes},
                        {"input_dies", p.input_dies},
                        {"analytic_bytes", optional_json(row.analytic)},
                        {"analytic_rule", row.analytic_rule},
                        {"algorithmic_bytes", optional_json(row.algorithmic)},
                        {"analytic_descending_bytes", optional_json(row.analytic_descending)},
                        {"algorithmic_descending_bytes", optional_json(row.algorithmic_descending)}};
    if (!row.algorithmic && p.input != kNoTensor) j["algorithmic_unavailable"] = row.algorithmic_unavailable;
    j["by_kernels"] = family_overlaps_json(row);
    ops.push_back(std::move(j));
  }
  return {{"model", graph.source}, {"subgraph", 0}, {"kernels", family_names_json(families)}, {"ops", ops}};
}

std::string overlap_report_text(const Graph& graph, const std::vector<OpOverlap>& rows,
                                const std::vector<KernelFamily>& families) {
  const std::vector<KernelFamily> cmsis = cmsis_families(families);
  std::string family_heads;
  for (KernelFamily f : cmsis) family_heads += fmt::format(" {:>16}", fmt::format("O_s {}", kernel_family_name(f)));
  std::string out = fmt::format("model: {}\n{:>5}  {:<20} {:>6} {:>6} {:>12} {:>12} {:>5} {:>14} {:>14} {:>14} {:>14}{}\n",
                                graph.source, "op", "kind", "input", "output", "input B", "output B", "dies",
                                "O_s analytic", "O_s algor.", "desc. analytic", "desc. algor.", family_heads);
  for (const OpOverlap& row : rows) {
    const OverlapCandidate& p = row.pair;
    std::string family_cells;
    for (KernelFamily f : cmsis) family_cells += fmt::format(" {:>16}", family_overlap_text(row, f));
    out += fmt::format("{:>5}  {:<20} {:>6} {:>6} {:>12} {:>12} {:>5} {:>14} {:>14} {:>14} {:>14}{}\n",
                       op_column(graph, p.op), flat_op(graph, p.op).name(), p.input, p.output, p.input_bytes, p.output_bytes,
                       p.input_dies ? "yes" : "no", optional_text(row.analytic), optional_text(row.algorithmic),
                       optional_text(row.analytic_descending), optional_text(row.algorithmic_descending), family_cells);
  }
  out += "desc.: the op's kernel walking its output descending, output placed above its input\n";
  if (graph.subgraphs.size() > 1) {
    out += "S:N: op N of called subgraph S; tensor indices are flat over the subgraphs, subgraph 0 first\n";
  }
  if (!cmsis.empty()) {
    out += "O_s cmsis-nn...: that family's kernel (ascending; 'ref' where its glue runs TFLM's reference kernel)\n";
    for (const OpOverlap& row : rows) {
      for (const FamilyOverlap& f : row.by_family) {
        out += fmt::format("op {} {}: {}\n", op_column(graph, row.pair.op), kernel_family_name(f.family),
                           f.algorithmic ? f.implementation : f.implementation + " " + f.unavailable);
      }
    }
  }
  for (const OpOverlap& row : rows) {
    if (!row.algorithmic && row.pair.input != kNoTensor) out += row.algorithmic_unavailable + "\n";
  }
  return out;
}

}  // namespace dmo
