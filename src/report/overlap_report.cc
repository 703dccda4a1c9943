#include "dmo/report/overlap_report.h"

#include <fmt/format.h>

namespace dmo {

namespace {
nlohmann::json optional_json(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
std::string optional_text(const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : std::string("-"); }
}  // namespace

nlohmann::json overlap_report_json(const Graph& graph, const std::vector<OpOverlap>& rows) {
  const Subgraph& sg = graph.main();
  nlohmann::json ops = nlohmann::json::array();
  for (const OpOverlap& row : rows) {
    const OverlapCandidate& p = row.pair;
    nlohmann::json j = {{"index", p.op},
                        {"op", sg.ops[static_cast<size_t>(p.op)].name()},
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
    ops.push_back(std::move(j));
  }
  return {{"model", graph.source}, {"subgraph", 0}, {"ops", ops}};
}

std::string overlap_report_text(const Graph& graph, const std::vector<OpOverlap>& rows) {
  const Subgraph& sg = graph.main();
  std::string out = fmt::format("model: {}\n{:>5}  {:<20} {:>6} {:>6} {:>12} {:>12} {:>5} {:>14} {:>14} {:>14} {:>14}\n",
                                graph.source, "op", "kind", "input", "output", "input B", "output B", "dies",
                                "O_s analytic", "O_s algor.", "desc. analytic", "desc. algor.");
  for (const OpOverlap& row : rows) {
    const OverlapCandidate& p = row.pair;
    out += fmt::format("{:>5}  {:<20} {:>6} {:>6} {:>12} {:>12} {:>5} {:>14} {:>14} {:>14} {:>14}\n", p.op,
                       sg.ops[static_cast<size_t>(p.op)].name(), p.input, p.output, p.input_bytes, p.output_bytes,
                       p.input_dies ? "yes" : "no", optional_text(row.analytic), optional_text(row.algorithmic),
                       optional_text(row.analytic_descending), optional_text(row.algorithmic_descending));
  }
  out += "desc.: the op's kernel walking its output descending, output placed above its input\n";
  for (const OpOverlap& row : rows) {
    if (!row.algorithmic && row.pair.input != kNoTensor) out += row.algorithmic_unavailable + "\n";
  }
  return out;
}

}  // namespace dmo
