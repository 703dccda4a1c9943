#include "dmo/report/plan_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/model/model_timeline.h"
#include "dmo/plan/bounds.h"
#include "dmo/report/kernel_family_columns.h"
#include "dmo/report/split_report.h"

namespace dmo {

namespace {

// A split stage writes its output over its dying input like one op.
nlohmann::json stage_overlap_json(const StageOverlap& s) {
  nlohmann::json j = {{"input", s.input},           {"output", s.output},
                      {"input_bytes", s.input_bytes}, {"output_bytes", s.output_bytes},
                      {"input_dies", s.input_dies},   {"used_bytes", s.used_bytes}};
  j["analytic"] = s.analytic ? nlohmann::json(*s.analytic) : nlohmann::json(nullptr);
  j["algorithmic"] = s.algorithmic ? nlohmann::json(*s.algorithmic) : nlohmann::json(nullptr);
  return j;
}

std::string describe_stage_overlap(const StageOverlap& s) {
  auto value = [](const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  return fmt::format("stage input tensor {} ({} B) -> output tensor {} ({} B): O_s analytic {}, algorithmic {}, "
                     "used {}{}",
                     s.input, s.input_bytes, s.output, s.output_bytes, value(s.analytic), value(s.algorithmic),
                     s.used_bytes, s.input_dies ? "" : " (the input does not die in the stage)");
}


// Subgraphs other than 0: each alone (naive and lower bound), and, where
// the plan covers the whole model, each tensor's flat index, lifetime in
// the model timeline and offsets, and each op's overlap pair.
nlohmann::json other_subgraphs_json(const Graph& graph, const PlanResult& r, const std::vector<int64_t>& greedy_offset,
                                    const std::vector<int64_t>& dmo_offset) {
  nlohmann::json list = nlohmann::json::array();
  int32_t first_flat = static_cast<int32_t>(graph.main().tensors.size());
  const ModelTimeline timeline = r.planned_subgraphs > 1 ? model_timeline(graph) : ModelTimeline{};
  for (size_t s = 1; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    MemoryProblem problem = build_memory_problem(sg);
    nlohmann::json tensors = nlohmann::json::array();
    for (const BufferRequest& b : problem.buffers) {
      const Tensor& t = sg.tensors[static_cast<size_t>(b.tensor)];
      nlohmann::json row = {{"index", b.tensor}, {"name", t.name}, {"bytes", b.size},
                            {"first_op", b.lifetime.first}, {"last_op", b.lifetime.last}};
      const auto flat = static_cast<size_t>(first_flat + b.tensor);
      if (r.planned_subgraphs > 1) {
        row["flat_index"] = flat;
        row["first_time"] = r.lifetimes[flat].first;
        row["last_time"] = r.lifetimes[flat].last;
        if (greedy_offset[flat] >= 0) row["tflm_greedy_offset"] = greedy_offset[flat];
        if (dmo_offset[flat] >= 0) row["dmo_offset"] = dmo_offset[flat];
      }
      tensors.push_back(std::move(row));
    }
    first_flat += static_cast<int32_t>(sg.tensors.size());
    nlohmann::json entry = {{"index", s}, {"name", sg.name}, {"ops", sg.ops.size()}, {"planned", r.planned_subgraphs > 1},
                            {"naive_bytes", naive_bytes(problem)}, {"lower_bound_bytes", lower_bound_bytes(problem)},
                            {"tensors", tensors}};
    // Where the plan covers the whole model, each op's overlap pair (flat tensor indices).
    if (r.planned_subgraphs > 1) {
      nlohmann::json overlaps = nlohmann::json::array();
      for (size_t i = 0; i < sg.ops.size(); ++i) {
        const auto flat = static_cast<size_t>(timeline.flat_op(static_cast<int32_t>(s), static_cast<int32_t>(i)));
        if (flat >= r.overlaps.size()) break;
        const OpOverlap& o = r.overlaps[flat];
        auto optional = [](const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
        overlaps.push_back({{"index", i}, {"flat_index", flat}, {"op", sg.ops[i].name()},
                            {"time", timeline.op_time[flat]},
                            {"overlap_input", o.pair.input}, {"overlap_output", o.pair.output},
                            {"input_dies", o.pair.input_dies}, {"analytic_bytes", optional(o.analytic)},
                            {"algorithmic_bytes", optional(o.algorithmic)}, {"overlap_used_bytes", o.used_bytes}});
      }
      entry["op_overlaps"] = overlaps;
    }
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

namespace {

// Which subgraphs the figures cover.
std::string coverage_line(const Graph& graph, const PlanResult& r) {
  if (r.planned_subgraphs == 1) {
    return graph.subgraphs.size() == 1 ? "figures cover subgraph 0 (the model's only subgraph)"
                                       : "figures cover subgraph 0 only";
  }
  return fmt::format(
      "figures cover subgraphs 0-{}, planned together as TFLM does: a called subgraph's tensors live within the op "
      "that calls it; {} times (ops and subgraph calls)",
      r.planned_subgraphs - 1, r.problem.op_count);
}

// What runs at a time of a whole model's timeline.
std::string time_label(const Graph& graph, const PlanResult& r, int32_t time) {
  const ModelTimeline timeline = model_timeline(graph);
  for (size_t op = 0; op < timeline.op_time.size(); ++op) {
    if (timeline.op_time[op] == time) {
      return fmt::format("time {}: {}, {} bytes live", time, flat_op_label(graph, static_cast<int32_t>(op)),
                         r.live_bytes[static_cast<size_t>(time)]);
    }
  }
  for (size_t s = 0; s < timeline.entry_time.size(); ++s) {
    if (timeline.visited[s] && timeline.entry_time[s] == time) {
      return fmt::format("time {}: the call of subgraph {}, {} bytes live", time, s,
                         r.live_bytes[static_cast<size_t>(time)]);
    }
  }
  return fmt::format("time {}", time);
}

std::vector<char> descending_flags(const Subgraph& sg, const Plan& plan) {
  std::vector<char> flags(sg.ops.size(), 0);
  for (int32_t op : plan.descending_ops) flags[static_cast<size_t>(op)] = 1;
  return flags;
}

double extra_macs_percent(const PlanResult& r) {
  return r.macs ? 100.0 * static_cast<double>(r.extra_macs()) / static_cast<double>(r.macs) : 0.0;
}

}  // namespace

namespace {

// What in-place concatenation did with op `op`: "in place", why it copies,
// or "" for an op it does not concern.
std::string concat_in_place_note(const PlanResult& r, int32_t op) {
  if (std::find(r.concat_in_place.begin(), r.concat_in_place.end(), op) != r.concat_in_place.end()) {
    return "in place (no copy)";
  }
  for (const ConcatInPlace& c : r.concatenations) {
    if (c.op == op) return "copies: " + c.reason;
  }
  return "";
}

}  // namespace

nlohmann::json plan_report_json(const Graph& graph, const PlanResult& r, const SplitSearchResult* search) {
  const Subgraph& sg = graph.main();
  const std::vector<char> descending = descending_flags(sg, r.dmo);
  nlohmann::json ops = nlohmann::json::array();
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const Op& op = sg.ops[i];
    const OpOverlap& o = r.overlaps[i];
    auto optional = [](const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    const int32_t time = r.op_times[i];
    ops.push_back({{"index", i}, {"op", op.name()}, {"inputs", op.inputs}, {"outputs", op.outputs},
                   {"live_bytes", r.live_bytes[static_cast<size_t>(time)]}, {"peak", time == r.peak_op},
                   {"overlap_input", o.pair.input}, {"overlap_output", o.pair.output},
                   {"input_dies", o.pair.input_dies}, {"analytic_bytes", optional(o.analytic)},
                   {"algorithmic_bytes", optional(o.algorithmic)}, {"overlap_used_bytes", o.used_bytes},
                   {"analytic_descending_bytes", optional(o.analytic_descending)},
                   {"algorithmic_descending_bytes", optional(o.algorithmic_descending)},
                   {"overlap_used_descending_bytes", o.used_descending_bytes},
                   {"walk", descending[i] ? "descending" : "ascending"},
                   {"by_kernels", family_overlaps_json(o)}});
    const std::string note = concat_in_place_note(r, static_cast<int32_t>(i));
    if (!note.empty()) ops.back()["concat_in_place"] = note;
  }
  // Offsets per tensor: of subgraph 0, or flat over every subgraph when planned whole.
  const size_t offset_count = r.lifetimes.size();
  std::vector<int64_t> offset_of(offset_count, -1), dmo_offset_of(offset_count, -1),
      ascending_offset_of(offset_count, -1);
  for (size_t b = 0; b < r.problem.buffers.size(); ++b) {
    const int32_t t = r.problem.buffers[b].tensor;
    if (t == kNoTensor) continue;
    offset_of[static_cast<size_t>(t)] = r.tflm_greedy.offsets[b];
    dmo_offset_of[static_cast<size_t>(t)] = r.dmo.offsets[b];
    ascending_offset_of[static_cast<size_t>(t)] = r.dmo_ascending.offsets[b];
  }
  nlohmann::json scratch = nlohmann::json::array();
  const size_t first_scratch = r.problem.buffers.size() - r.scratch_buffers.size();
  for (size_t s = 0; s < r.scratch_buffers.size(); ++s) {
    const ScratchBuffer& buffer = r.scratch_buffers[s];
    scratch.push_back({{"op", buffer.op}, {"kernel", buffer.kernel}, {"buffer", buffer.buffer},
                       {"bytes", buffer.bytes}, {"tflm_greedy_offset", r.tflm_greedy.offsets[first_scratch + s]},
                       {"dmo_offset", r.dmo.offsets[first_scratch + s]}});
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
    if (dmo_offset_of[t] >= 0) row["dmo_offset"] = dmo_offset_of[t];
    tensors.push_back(std::move(row));
  }
  int64_t saving = r.tflm_greedy.arena_size - r.dmo.arena_size;
  std::vector<int32_t> planned(static_cast<size_t>(r.planned_subgraphs));
  for (size_t s = 0; s < planned.size(); ++s) planned[s] = static_cast<int32_t>(s);
  nlohmann::json report = {{"model", graph.source},
          {"subgraph", 0},
          {"planned_subgraphs", planned},
          {"naive_bytes", r.naive_bytes},
          {"tflm_greedy_bytes", r.tflm_greedy.arena_size},
          {"lower_bound_bytes", r.lower_bound_bytes},
          {"dmo_no_overlap_bytes", r.dmo_no_overlap.arena_size},
          {"lower_bound_overlap_bytes", r.lower_bound_overlap_bytes},
          {"lower_bound_overlap_per_op_bytes", r.lower_bound_overlap_per_op_bytes},
          {"lower_bound_window_bytes", r.lower_bound_window_bytes},
          {"dmo_bytes", r.dmo.arena_size},
          {"dmo_ascending_bytes", r.dmo_ascending.arena_size},
          {"descending_ops", r.dmo.descending_ops},
          {"offsets", dmo_offset_of},
          {"ascending_offsets", ascending_offset_of},
          {"scratch_buffers", scratch},
          {"accelerator_fixed_tensors", r.accelerator_fixed_buffers},
          {"walks", r.allow_descending ? "ascending or descending" : "ascending"},
          {"kernels", family_names_json(r.families)},
          {"overlap_method", overlap_method_name(r.method)},
          {"alignment", r.alignment},
          {"saving_vs_tflm_bytes", saving},
          {"saving_vs_tflm_percent", r.tflm_greedy.arena_size ? 100.0 * static_cast<double>(saving) /
                                                                    static_cast<double>(r.tflm_greedy.arena_size)
                                                              : 0.0},
          {"peak_op", r.peak_op},
          {"variable_bytes", r.variable_bytes},
          {"has_offline_plan", graph.offline_plan.has_value()},
          {"offline_planned_tensors", r.offline_planned_buffers},
          {"ops", ops},
          {"tensors", tensors},
          {"other_subgraphs", other_subgraphs_json(graph, r, offset_of, dmo_offset_of)}};
  if (r.planned_subgraphs > 1 && r.peak_op >= 0) report["peak_runs"] = time_label(graph, r, r.peak_op);
  const SplitMethod method = search                  ? SplitMethod::kAuto
                            : r.split_macs.empty() ? SplitMethod::kNone
                                                   : SplitMethod::kManual;
  report["concat_in_place"] = r.concat_in_place;
  if (!r.concatenations.empty()) report["concat_in_place_bytes"] = r.dmo.arena_size;
  report["split_method"] = split_method_name(method);
  report["split_bytes"] = r.dmo.arena_size;
  if (search) report["split_search"] = split_search_json(*search);
  if (method != SplitMethod::kNone) {
    nlohmann::json stages = nlohmann::json::array();
    for (size_t i = 0; i < r.split_macs.size(); ++i) {
      const StageMacs& stage = r.split_macs[i];
      nlohmann::json j = split_stages_json({stage.stage})[0];
      j["extra_macs"] = stage.extra();
      if (i < r.stage_overlaps.size()) j["overlap"] = stage_overlap_json(r.stage_overlaps[i]);
      stages.push_back(std::move(j));
    }
    report["macs"] = r.macs;
    report["extra_macs"] = r.extra_macs();
    report["extra_macs_percent"] = extra_macs_percent(r);
    report["split"] = stages;
  }
  return report;
}

std::string plan_report_text(const Graph& graph, const PlanResult& r) {
  const Subgraph& sg = graph.main();
  std::string out = fmt::format("model: {}\nsubgraph 0: {} ops, {} tensors, {} planned activation buffers{}, {} TFLM scratch buffer(s)\n",
      graph.source, sg.ops.size(), sg.tensors.size(), r.problem.buffers.size() - r.scratch_buffers.size(),
      r.planned_subgraphs > 1 ? " (all subgraphs)" : "", r.scratch_buffers.size());
  out += coverage_line(graph, r) + "\n";
  out += fmt::format("kernels: {} (per op the least safe overlap over them; their scratch buffers)\n\n",
                     family_names_text(r.families));
  const std::vector<KernelFamily> cmsis = cmsis_families(r.families);
  auto bytes_or_dash = [](const std::optional<int64_t>& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
  const std::vector<char> descending = descending_flags(sg, r.dmo);
  std::string family_heads;
  for (KernelFamily f : cmsis) family_heads += fmt::format(" {:>14}", fmt::format("O_s {}", kernel_family_name(f)));
  out += fmt::format("{:>5}  {:<22} {:>12} {:>12} {:>12}{} {:>12} {:>12}  {:<4} {}\n", "op", "kind", "live bytes",
                     "O_s analytic", "O_s algor.", family_heads, "O_s used", "desc. used", "walk", "");
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const int32_t time = r.op_times[i];
    bool peak = time == r.peak_op;
    const OpOverlap& o = r.overlaps[i];
    auto used = [&](int64_t bytes) { return o.pair.input_dies ? fmt::format("{}", bytes) : std::string("-"); };
    std::string family_cells;
    for (KernelFamily f : cmsis) family_cells += fmt::format(" {:>14}", family_overlap_text(o, f));
    out += fmt::format("{:>5}  {:<22} {:>12} {:>12} {:>12}{} {:>12} {:>12}  {:<4} {}\n", i, sg.ops[i].name(),
                       r.live_bytes[static_cast<size_t>(time)], bytes_or_dash(o.analytic), bytes_or_dash(o.algorithmic),
                       family_cells, used(o.used_bytes),
                       o.algorithmic_descending || o.analytic_descending ? used(o.used_descending_bytes) : "-",
                       descending[i] ? "desc" : "asc", peak ? "<- peak" : "");
    const std::string note = concat_in_place_note(r, static_cast<int32_t>(i));
    if (!note.empty()) out.insert(out.size() - 1, fmt::format("{}{}", peak ? "; " : "", note));
  }
  // The called subgraphs' ops of a plan of the whole model, as "subgraph:op".
  if (r.planned_subgraphs > 1) {
    const ModelTimeline timeline = model_timeline(graph);
    for (size_t flat = sg.ops.size(); flat < r.overlaps.size(); ++flat) {
      const int32_t time = timeline.op_time[flat];
      if (time < 0) continue;  // never visited
      const OpOverlap& o = r.overlaps[flat];
      const SubgraphIndex at = locate_flat_op(graph, static_cast<int32_t>(flat));
      std::string family_cells;
      for (KernelFamily f : cmsis) family_cells += fmt::format(" {:>14}", family_overlap_text(o, f));
      out += fmt::format("{:>5}  {:<22} {:>12} {:>12} {:>12}{} {:>12} {:>12}  {:<4} {}\n",
                         fmt::format("{}:{}", at.subgraph, at.index), flat_op(graph, static_cast<int32_t>(flat)).name(),
                         r.live_bytes[static_cast<size_t>(time)], bytes_or_dash(o.analytic),
                         bytes_or_dash(o.algorithmic), family_cells,
                         o.pair.input_dies ? fmt::format("{}", o.used_bytes) : std::string("-"), "-", "asc",
                         time == r.peak_op ? "<- peak" : "");
    }
  }
  auto pct = [&](int64_t v) { return r.naive_bytes ? 100.0 * static_cast<double>(v) / static_cast<double>(r.naive_bytes) : 0.0; };
  out += fmt::format("\n{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "naive (every tensor its own memory)",
                     r.naive_bytes, 100.0);
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "tflm_greedy (TFLM's planner)",
                     r.tflm_greedy.arena_size, pct(r.tflm_greedy.arena_size));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "lower_bound (peak live bytes)",
                     r.lower_bound_bytes, pct(r.lower_bound_bytes));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "dmo, no overlap", r.dmo_no_overlap.arena_size,
                     pct(r.dmo_no_overlap.arena_size));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n",
                     fmt::format("lower_bound, {} overlap, per op", overlap_method_name(r.method)),
                     r.lower_bound_overlap_per_op_bytes, pct(r.lower_bound_overlap_per_op_bytes));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n",
                     fmt::format("lower_bound, {} overlap, chains", overlap_method_name(r.method)),
                     r.lower_bound_overlap_bytes, pct(r.lower_bound_overlap_bytes));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "lower_bound, exact on the peak window",
                     r.lower_bound_window_bytes, pct(r.lower_bound_window_bytes));
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive; {} op(s) walk descending)\n",
                     fmt::format("dmo, {} overlap", overlap_method_name(r.method)), r.dmo.arena_size,
                     pct(r.dmo.arena_size), r.dmo.descending_ops.size());
  if (r.allow_descending) {
    out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of naive)\n", "dmo, ascending walks only (TFLM)",
                       r.dmo_ascending.arena_size, pct(r.dmo_ascending.arena_size));
  }
  int64_t saving = r.tflm_greedy.arena_size - r.dmo.arena_size;
  out += fmt::format("{:<42} {:>12} bytes ({:5.1f}% of tflm_greedy)\n", "saving vs TFLM", saving,
                     r.tflm_greedy.arena_size ? 100.0 * static_cast<double>(saving) /
                                                    static_cast<double>(r.tflm_greedy.arena_size)
                                              : 0.0);
  if (r.variable_bytes) {
    out += fmt::format("{:<42} {:>12} bytes (persistent, outside the plan)\n", "variable tensors", r.variable_bytes);
  }
  if (r.planned_subgraphs > 1 && r.peak_op >= 0) out += fmt::format("peak: {}\n", time_label(graph, r, r.peak_op));
  for (size_t i = 0; i < r.split_macs.size(); ++i) {
    const StageMacs& stage = r.split_macs[i];
    const std::string tiles = stage.stage.column_tiles > 1
                                  ? fmt::format("{} x {} tiles", stage.stage.tiles, stage.stage.column_tiles)
                                  : fmt::format("{} tiles", stage.stage.tiles);
    out += fmt::format("split ops {}-{} along the {} into {}: {} MACs, {} of them computed again\n",
                       stage.stage.first_op, stage.stage.last_op, stage.stage.axes(), tiles, stage.split(),
                       stage.extra());
    if (i < r.stage_overlaps.size()) out += "  " + describe_stage_overlap(r.stage_overlaps[i]) + "\n";
  }
  if (!r.split_macs.empty()) {
    out += fmt::format("MACs: {} unsplit, {} extra ({:.2f}%); live bytes and times are per step of the split schedule\n",
                       r.macs, r.extra_macs(), extra_macs_percent(r));
  }
  for (size_t s = 1; s < graph.subgraphs.size(); ++s) {
    MemoryProblem problem = build_memory_problem(graph.subgraphs[s]);
    out += fmt::format("subgraph {} '{}': {} ops, {} activation buffers, {} bytes naive, {} bytes lower bound\n", s,
                       graph.subgraphs[s].name, graph.subgraphs[s].ops.size(), problem.buffers.size(),
                       naive_bytes(problem), lower_bound_bytes(problem));
  }
  for (const ScratchBuffer& buffer : r.scratch_buffers) {
    out += fmt::format("scratch buffer at op {}: {} bytes, {}: {}\n", buffer.op, buffer.bytes, buffer.kernel,
                       buffer.buffer);
  }
  out += "every plan's bytes are TFLM's head for it: sizes rounded up to 16, scratch buffers included\n";
  if (graph.offline_plan) {
    out += fmt::format(
        "the model carries an OfflineMemoryAllocation plan: tflm_greedy puts its {} planned buffer(s) at their offline "
        "offsets, as TFLM does; dmo's plans keep only the {} of accelerator ops there\n",
        r.offline_planned_buffers, r.accelerator_fixed_buffers);
  }
  return out;
}

}  // namespace dmo
