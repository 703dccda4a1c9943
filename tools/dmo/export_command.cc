// `dmo export`: the model with dmo's arena plan stored as TFLM's
// OfflineMemoryAllocation metadata, and/or the same plan as a C header.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dmo/pipeline/tiled_export.h"
#include "dmo/report/tflm_arena_report.h"
#include "dmo/report/tiled_export_report.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/error.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/model/op_order.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/pipeline/tflm_export.h"
#include "dmo/tflite/reader.h"
#include "dmo/tflite/writer.h"
#include "output_file.h"
#include "kernels_option.h"
#include "progress.h"
#include "reorder_option.h"

namespace dmo::cli {

namespace {



nlohmann::json heads_json(const std::vector<FamilyHead>& heads) {
  nlohmann::json out = nlohmann::json::array();
  for (const FamilyHead& h : heads) {
    out.push_back({{"kernels", kernel_family_name(h.family)}, {"without", h.without}, {"with", h.with}});
  }
  return out;
}

// One line per family when the plan is for several.
std::string heads_text(const std::vector<FamilyHead>& heads) {
  if (heads.size() < 2) return "";
  std::string out;
  for (const FamilyHead& h : heads) {
    out += fmt::format("  with {} kernels: {} bytes with this plan, {} without it\n", kernel_family_name(h.family),
                       h.with, h.without);
  }
  return out;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  struct Options {
    std::string model, output, c_header;
    bool json = false, preserve_inputs = false;
    std::string kernels = "all";
    std::vector<std::string> split;
    std::string reorder = "none";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Store dmo's arena plan in a .tflite file as TFLM's OfflineMemoryAllocation metadata (or a C header), unless "
      "TFLM needs fewer bytes without it");
  cmd->add_option("model", o->model, "a .tflite file, or a zoo model name (written as a .tflite file first)")
      ->required();
  cmd->add_option("-o,--output", o->output, "the .tflite file to write: the model unchanged plus the plan");
  cmd->add_option("--c-header", o->c_header, "also (or instead) write the plan's words and arena size as a C header");
  cmd->add_flag("--preserve-inputs", o->preserve_inputs,
                "keep the graph inputs intact during Invoke (no tensor takes their bytes)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  add_kernels_option(cmd, o->kernels,
                     "default all: firmware built with TFLM's reference kernels or with CMSIS-NN can use the file");
  cmd->add_option("--split", o->split,
                  "split stages written as ops TFLM has (per tile a slice of the rows it reads, pads, the ops with VALID "
                  "padding; one concatenation): 'auto' uses dmo's stages along the height when TFLM then needs fewer "
                  "bytes in all (head + tail); stages given write exactly those (FIRST-LAST:TILES; no column tiles)");
  add_reorder_option(cmd, o->reorder);
  return [o] {
    const SplitRequest split = parse_split_request(o->split);
    const bool split_asked = split.method != SplitMethod::kNone;
    if (split_asked && reorder_request(o->reorder) == ReorderRequest::kAuto) {
      throw Error("export: give --split or --reorder auto, not both");
    }
    if (o->output.empty() && o->c_header.empty()) {
      throw Error("export: give -o OUT.tflite, --c-header FILE.h, or both");
    }
    ModelFile model = read_model_file(o->model);
    Graph graph = read_tflite_bytes(model.bytes, model.source);
    // TFLM's kernels walk ascending: plan for that order only.
    PlanOptions ascending_only;
    ascending_only.allow_descending = false;
    ascending_only.families = kernel_families(o->kernels);
    ascending_only.preserve_graph_inputs = o->preserve_inputs;
    ascending_only.progress = progress_reporter("export", "planning: safe overlaps", "op walks");
    // With --reorder auto the file's subgraph 0 gets its operators in the
    // order found (TFLM runs operators in file order); the plan is for it.
    ReorderedPlan reordered = plan_with_reorder(graph, ascending_only, reorder_request(o->reorder));
    const std::vector<int32_t> order = reordered.reordered() ? reordered.order : std::vector<int32_t>{};
    graph = std::move(reordered.graph);
    const TflmDeployment whole_deployment = choose_tflm_deployment(graph, reordered.plan, o->preserve_inputs);
    const TiledChoice tiled = choose_tiled_export(graph, split, ascending_only, whole_deployment);
    const bool write_tiled = tiled.exported.has_value();
    const Graph& out_graph = write_tiled ? tiled.exported->graph : graph;
    const PlanResult& report = write_tiled ? tiled.exported->plan : reordered.plan;
    const TflmDeployment& deployment = write_tiled ? tiled.exported->deployment : whole_deployment;
    const OfflinePlan& plan = deployment.words;

    // Everything is computed and checked before the first file is moved into place.
    std::optional<OutputFile> tflite, header;
    if (!o->output.empty()) {
      std::vector<uint8_t> bytes;
      if (write_tiled) {
        Graph with_plan = out_graph;
        with_plan.offline_plan = plan;
        bytes = write_tflite(with_plan);
      } else {
        bytes = with_offline_plan(model.bytes, plan, model.source, order);
      }
      Graph back = read_tflite_bytes(bytes, o->output);
      if (!back.offline_plan || back.offline_plan->offsets != plan.offsets ||
          back.main().ops.size() != out_graph.main().ops.size()) {
        throw Error(fmt::format("{}: internal error: the written plan does not read back", o->output));
      }
      tflite.emplace(o->output);
      tflite->write(bytes);
    }
    if (!o->c_header.empty()) {
      header.emplace(o->c_header);
      header->write(offline_plan_c_header(out_graph, model.source, model.stem, deployment));
    }
    if (tflite) tflite->commit();
    if (header) header->commit();
    // A plan for several families may cost one of them more than TFLM alone.
    for (const FamilyHead& head : heads_worse_with_export(deployment)) {
      std::cerr << fmt::format(
          "export: warning: with {} kernels TFLM needs {} bytes with this plan, {} without it; export with --kernels "
          "{} for a plan made for those kernels alone\n",
          kernel_family_name(head.family), head.with, head.without, kernel_family_name(head.family));
    }

    if (o->json) {
      nlohmann::json j = {{"model", model.source},
                          {"output", o->output.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->output)},
                          {"c_header", o->c_header.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->c_header)},
                          {"plan", deployed_plan_name(deployment.plan)},
                          {"reason", deployment.reason},
                          {"arena_bytes", deployment.arena_bytes},
                          {"heads", heads_json(deployment.heads)},
                          {"without_export_bytes", deployment.without_export_bytes},
                          {"dmo_bytes", deployment.dmo_bytes},
                          {"tflm_greedy_bytes", report.tflm_greedy.arena_size},
                          {"tflm_arena", tflm_arena_json(deployment_arenas(deployment))},
                          {"tflm_arena_bytes", largest_tflm_arena(deployment) ? nlohmann::json(*largest_tflm_arena(deployment)) : nlohmann::json(nullptr)},
                          {"tensors_planned", deployment.tensors_planned},
                          {"kernels", kernel_families_label(report.families)},
                          {"safe_for", deployment_safe_for(deployment)},
                          {"preserve_inputs", o->preserve_inputs},
                          {"overwritten_inputs", deployment.overwritten_inputs},
                          {"subgraphs", graph.subgraphs.size()},
                          {"reorder_method", reorder_method_name(reordered.method)},
                          {"order", reordered.order}};
      if (split_asked) j["split"] = tiled_choice_json(tiled);
      std::cout << j.dump(2) << '\n';
      return 0;
    }
    if (tflite) std::cout << "wrote " << o->output << '\n';
    if (header) std::cout << "wrote " << o->c_header << '\n';
    std::cout << fmt::format(
        "{}: {}\n"
        "the plan places {} of {} tensors (arena tensors{}); the rest are -1, left to TFLM\n"
        "arena (non-persistent head, sizes rounded up to 16, TFLM's scratch buffers included) with this plan: {} "
        "bytes; without it: {} bytes\n"
        "{}"
        "{}",
        model.source, deployment.reason, deployment.tensors_planned, plan.offsets.size(),
        graph.subgraphs.size() > 1 ? " of every subgraph, planned together as TFLM plans them" : " of subgraph 0",
        deployment.arena_bytes, deployment.without_export_bytes, heads_text(deployment.heads),
        tflm_deployment_arena_text(deployment));
    if (split_asked) std::cout << tiled_choice_text(tiled);
    if (!order.empty()) {
      std::cout << fmt::format("subgraph 0's operators written in the order (original indices) {}\n",
                               fmt::join(order, " "));
    }
    std::cout << "safe for: " << deployment_safe_for(deployment) << '\n'
              << graph_inputs_statement(out_graph, deployment) << '\n';
    return 0;
  };
}

}  // namespace dmo::cli
