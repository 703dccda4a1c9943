#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dmo/model/model_timeline.h"
#include "dmo/model/op_order.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/report/split_report.h"
#include "io_files.h"
#include "kernels_option.h"
#include "progress.h"
#include "reorder_option.h"
#include "split_option.h"

namespace dmo::cli {

namespace {

std::string plan_description(const PlanToVerify& plan) {
  const TensorPlacement& p = plan.placement;
  std::string text = fmt::format("{}-byte arena, ", p.arena_size);
  switch (plan.source) {
    case PlanSource::kOfflinePlan:
      text += "the model's offline plan (OfflineMemoryAllocation), every op walking ascending";
      if (plan.unplanned_tensors > 0) {
        text += fmt::format(", {} tensor{} it leaves to TFLM placed after its tensors", plan.unplanned_tensors,
                            plan.unplanned_tensors == 1 ? "" : "s");
      }
      return text;
    case PlanSource::kDmo: text += "dmo's plan"; break;
    case PlanSource::kFile: text += "plan file"; break;
  }
  if (!plan.split.empty()) text += fmt::format(", ops split --split {}", split_stages_text(plan.split));
  if (!plan.concat_in_place.empty()) {
    text += fmt::format(", ops {} concatenated in place",
                        fmt::join(original_op_indices(plan.order, plan.concat_in_place), ", "));
  }
  if (!plan.order.empty()) text += fmt::format(", ops in the order {}", fmt::join(plan.order, " "));
  if (!p.descending_ops.empty()) {
    const size_t n = p.descending_ops.size();
    text += fmt::format(" ({} {} descending)", n, n == 1 ? "op walking" : "ops walking");
  }
  return text;
}

nlohmann::json verify_json(const Graph& graph, const PlanToVerify& plan, const VerifyResult& result) {
  const Subgraph& sg = graph.main();
  nlohmann::json clobbers = nlohmann::json::array();
  for (const Clobber& c : result.clobbers) {
    clobbers.push_back({{"op", c.op},
                        {"op_kind", flat_op(graph, c.op).name()},
                        {"access", c.access == Clobber::Access::kStore ? "store" : "load"},
                        {"writer_tensor", c.writer},
                        {"victim_tensor", c.tensor},
                        {"first_byte", c.byte_offset},
                        {"bytes", c.bytes}});
  }
  nlohmann::json unwritten = nlohmann::json::array();
  for (const UnwrittenRead& read : result.unwritten_reads) {
    unwritten.push_back({{"tensor", read.tensor},
                         {"name", sg.tensors[static_cast<size_t>(read.tensor)].name},
                         {"op", read.op},
                         {"op_kind", sg.ops[static_cast<size_t>(read.op)].name()}});
  }
  nlohmann::json j = {{"model", graph.source},
                      {"plan_source", plan_source_name(plan.source)},
                      {"arena_bytes", plan.placement.arena_size},
                      {"descending_ops", original_op_indices(plan.order, plan.placement.descending_ops)},
                      {"ok", result.ok()},
                      {"outputs_identical", result.outputs_identical()},
                      {"output_bytes_compared", result.output_bytes_compared},
                      {"clobbers", clobbers},
                      {"validator_errors", result.validator_errors},
                      {"unwritten_reads", unwritten}};
  j["split"] = split_stages_json(plan.split);
  j["concat_in_place"] = original_op_indices(plan.order, plan.concat_in_place);
  j["order"] = plan.order.empty() ? file_order(graph) : plan.order;
  if (plan.source == PlanSource::kOfflinePlan) j["offline_unplanned_tensors"] = plan.unplanned_tensors;
  return j;
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  struct Options {
    std::string model, input, plan;
    uint32_t seed = 1;
    bool json = false;
    std::string kernels = "tflm-reference";
    SplitArguments split;
    bool concat_in_place = false;
    std::string reorder = "none";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Validate a plan against the model's lifetimes and safe overlaps, run unshared and inside it, compare every "
      "output byte and check the whole arena for clobbers (exit 1 on any finding)");
  cmd->add_option("model", o->model, "a .tflite file or a zoo model name")->required();
  CLI::Option* input =
      cmd->add_option("--input", o->input, "raw bytes of all inputs concatenated (default: the seed's pattern)");
  cmd->add_option("--seed", o->seed, "pattern seed when no --input is given")->excludes(input);
  cmd->add_option("--plan", o->plan,
                  "'dmo' for dmo's plan, or a placement JSON {\"arena_bytes\", \"offsets\", optional "
                  "\"descending_ops\"} (default: the model's offline plan when it has one, else dmo's plan)");
  cmd->add_flag("--json", o->json, "print the result as JSON");
  add_kernels_option(cmd, o->kernels,
                     "default tflm-reference; dmo's plan is made for the families named, and the plan is run "
                     "and validated with each family's kernels in turn");
  add_split_options(cmd, o->split);
  cmd->add_flag("--concat-in-place", o->concat_in_place,
                "the producers of CONCATENATION and PACK inputs write straight into their slice of the output, "
                "where that does not raise dmo's arena; those ops then copy nothing (not with --split)");
  add_reorder_option(cmd, o->reorder);
  return [o] {
    Graph graph = load_model(o->model);
    // Without --split the search runs only where dmo's plan is the one verified.
    const bool dmo_plan = o->plan == "dmo" || (o->plan.empty() && !graph.offline_plan);
    const std::string excluded_by =
        !dmo_plan ? (o->plan.empty() ? "the model's offline plan" : "--plan")
                  : split_excluded_by(reorder_request(o->reorder) == ReorderRequest::kAuto, o->concat_in_place,
                                      o->kernels);
    const SplitRequest split = split_request(o->split, excluded_by);
    std::vector<uint8_t> input = load_input(graph, o->input, o->seed);
    const std::vector<KernelFamily> families = kernel_families(o->kernels);
    const PlanToVerify plan = choose_plan_to_verify(
        graph, o->plan, progress_reporter("verify", "planning: safe overlaps", "op walks"), families, split,
        o->concat_in_place, reorder_request(o->reorder));
    // The graph the plan runs: subgraph 0's ops in its order.
    const Graph planned_graph = graph_of_plan(graph, plan);
    bool all_ok = true;
    nlohmann::json by_kernels = nlohmann::json::array();
    for (KernelFamily family : families) {
      progress_note("verify", fmt::format("running unshared and inside the plan with {} kernels, checking every "
                                          "arena byte", kernel_family_name(family)));
      const VerifyResult result = verify_plan(planned_graph, plan.placement, input,
                                              progress_reporter("verify", "validating: safe overlaps", "op walks"),
                                              family, plan.split, plan.concat_in_place);
      all_ok = all_ok && result.ok();
      if (o->json) {
        nlohmann::json j = verify_json(planned_graph, plan, result);
        j["kernels"] = std::string(kernel_family_name(family));
        by_kernels.push_back(std::move(j));
        continue;
      }
      // A clean run on one line; findings one per line under the heading.
      std::string findings = result.describe(planned_graph);
      for (size_t at = findings.find('\n'); at != std::string::npos; at = findings.find('\n', at + 1)) {
        findings.insert(at + 1, "  ");
      }
      const std::string kernels = family == KernelFamily::kTflmReference && families.size() == 1
                                      ? std::string()
                                      : fmt::format(", {} kernels", kernel_family_name(family));
      std::cout << graph.source << ": " << plan_description(plan) << kernels << (result.ok() ? ": " : ":\n  ")
                << findings << '\n';
    }
    if (o->json) {
      // One family: its result as the object; several: each in turn.
      nlohmann::json j = by_kernels.size() == 1 ? by_kernels.front()
                                                 : nlohmann::json{{"model", graph.source},
                                                                  {"kernels", kernel_families_label(families)},
                                                                  {"ok", all_ok},
                                                                  {"by_kernels", by_kernels}};
      std::cout << j.dump(2) << '\n';
    }
    return all_ok ? 0 : 1;
  };
}

}  // namespace dmo::cli
