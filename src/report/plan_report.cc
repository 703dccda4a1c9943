#include "dmo/report/plan_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/plan/bounds.h"
#include "dmo/plan/tflm_greedy_planner.h"

namespace dmo {

PlanReport make_plan_report(const Graph& graph) {
  const Subgraph& sg = graph.main();
  PlanReport r;
  r.problem = build_memory_problem(sg);
  r.lifetimes = compute_lifetimes(sg);
  r.tflm_greedy = plan_tflm_greedy(r.problem);
  r.naive_bytes = naive_bytes(r.problem);
  r.lower_bound_bytes = lower_bound_bytes(r.problem);
  r.live_bytes = live_bytes_per_op(r.problem);
  for (size_t i = 0; i < r.live_bytes.size(); ++i) {
    if (r.live_bytes[i] == r.lower_bound_bytes) {
      r.peak_op = static_cast<int32_t>(i);
      break;
    }
  }
  for (const Tensor& t : sg.tensors) {
    if (t.is_variable) r.variable_bytes += t.byte_size;
  }
  return r;
}

namespace {

nlohmann::json other_subgraphs_json(const Graph& graph) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t s = 1; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    MemoryProblem problem = build_memory_problem(sg);
    nlohmann::json tensors = nlohmann::json::array();
    for (const BufferRequest& b : problem.buffers) {
      const Tensor& t = sg.tensors[static_cast<size_t>(b.tensor)];
      tensors.push_back({{"index", b.tensor}, {"name", t.name}, {"bytes", b.size},
                         {"first_op", b.lifetime.first}, {"last_op", b.lifetime.last}});
    }
    list.push_back({{"index", s}, {"name", sg.name}, {"ops", sg.ops.size()},
                    {"naive_bytes", naive_bytes(problem)}, {"lower_bound_bytes", lower_bound_bytes(problem)},
                    {"tensors", tensors}});
  }
  return list;
}

}  // namespace

nlohmann::json plan_report_json(const Graph& graph, const PlanReport& r) {
  const Subgraph& sg = graph.main();
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const Op& op = sg.ops[i];
    ops.push_back({{"index", i}, {"op", op.name()}, {"inputs", op.inputs}, {"outputs", op.outputs},
                   {"live_bytes", r.live_bytes[i]}, {"peak", static_cast<int32_t>(i) == r.peak_op}});
  }
  std::vector<int64_t> offset_of(sg.tensors.size(), -1);
  for (size_t b = 0; b < r.problem.buffers.size(); ++b) {
    offset_of[static_cast<size_t>(r.problem.buffers[b].tensor)] = r.tflm_greedy.offsets[b];
  }
  nlohmann::json tensors = nlohmann::json::array();
  for (size_t t = 0; t < sg.tensors.size(); ++t) {
    const Tensor& tensor = sg.tensors[t];
    nlohmann::json row = {{"index", t},
                          {"name", tensor.name},
                          {"type", data_type_name(tensor.type)},
                          {"shape", tensor.shape},
                          {"bytes", tensor.byte_size},
                          {"constant", tensor.is_constant},
                          {"variable", tensor.is_variable},
                          {"planned", offset_of[t] >= 0},
                          {"first_op", r.lifetimes[t].first},
                          {"last_op", r.lifetimes[t].last}};
    if (offset_of[t] >= 0) row["tflm_greedy_offset"] = offset_of[t];
    tensors.push_back(std::move(row));
  }
  return {{"model", graph.source},
          {"subgraph", 0},
          {"naive_bytes", r.naive_bytes},
          {"tflm_greedy_bytes", r.tflm_greedy.arena_size},
          {"lower_bound_bytes", r.lower_bound_bytes},
          {"peak_op", r.peak_op},
          {"variable_bytes", r.variable_bytes},
          {"has_offline_plan", graph.offline_plan.has_value()},
          {"ops", ops},
          {"tensors", tensors},
          {"other_subgraphs", other_subgraphs_json(graph)}};
}

std::string plan_report_text(const Graph& graph, const PlanReport& r) {
  const Subgraph& sg = graph.main();
  std::string out = fmt::format("model: {}\nsubgraph 0: {} ops, {} tensors, {} planned activation buffers\n\n",
                                graph.source, sg.ops.size(), sg.tensors.size(), r.problem.buffers.size());
  out += fmt::format("{:>5}  {:<22} {:>12}  {}\n", "op", "kind", "live bytes", "");
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    bool peak = static_cast<int32_t>(i) == r.peak_op;
    out += fmt::format("{:>5}  {:<22} {:>12}  {}\n", i, sg.ops[i].name(), r.live_bytes[i], peak ? "<- peak" : "");
  }
  auto pct = [&](int64_t v) { return r.naive_bytes ? 100.0 * static_cast<double>(v) / static_cast<double>(r.naive_bytes) : 0.0; };
  out += fmt::format("\n{:<34} {:>12} bytes ({:5.1f}% of naive)\n", "naive (every tensor its own memory)",
                     r.naive_bytes, 100.0);
  out += fmt::format("{:<34} {:>12} bytes ({:5.1f}% of naive)\n", "tflm_greedy (TFLM's planner)",
                     r.tflm_greedy.arena_size, pct(r.tflm_greedy.arena_size));
  out += fmt::format("{:<34} {:>12} bytes ({:5.1f}% of naive)\n", "lower_bound (peak live bytes)",
                     r.lower_bound_bytes, pct(r.lower_bound_bytes));
  if (r.variable_bytes) {
    out += fmt::format("{:<34} {:>12} bytes (persistent, outside the plan)\n", "variable tensors", r.variable_bytes);
  }
  for (size_t s = 1; s < graph.subgraphs.size(); ++s) {
    MemoryProblem problem = build_memory_problem(graph.subgraphs[s]);
    out += fmt::format("subgraph {} '{}': {} ops, {} activation buffers, {} bytes naive, {} bytes lower bound\n", s,
                       graph.subgraphs[s].name, graph.subgraphs[s].ops.size(), problem.buffers.size(),
                       naive_bytes(problem), lower_bound_bytes(problem));
  }
  if (graph.offline_plan) out += "the model carries an OfflineMemoryAllocation plan (not used for these figures)\n";
  return out;
}

}  // namespace dmo
