#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "commands.h"
#include "dmo/error.h"
#include "dmo/model/op_order.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/plan/problem_file.h"
#include "dmo/pipeline/tflm_deployment.h"
#include "dmo/report/plan_report.h"
#include "dmo/report/tflm_arena_report.h"
#include "dmo/report/plan_svg.h"
#include "dmo/report/reorder_report.h"
#include "dmo/report/split_report.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/zoo/zoo.h"
#include "io_files.h"
#include "kernels_option.h"
#include "progress.h"
#include "reorder_option.h"
#include "split_option.h"

namespace dmo::cli {

Command add_plan_command(CLI::App& app) {
  struct Options {
    std::string model = kDefaultZooModel;
    bool json = false;
    std::string overlap = "algorithmic";
    bool preserve_inputs = false;
    std::string svg;
    int64_t alignment = 16;
    std::string walks = "any";
    std::string dump_problem;
    std::string kernels = "tflm-reference";
    SplitArguments split;
    bool split_report = false;
    bool concat_in_place = false;
    std::string reorder = "none";
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("plan", "Arena figures of a model: naive, TFLM's greedy planner, lower bound");
  cmd->add_option("model", options->model,
                  fmt::format("a .tflite file or a zoo model name (default {})", kDefaultZooModel));
  cmd->add_flag("--json", options->json, "print one JSON object");
  cmd->add_option("--overlap", options->overlap,
                  "safe overlaps to plan with: none, analytic, or algorithmic (default: algorithmic, the exact "
                  "value of dmo's kernels, with the closed form where dmo has no kernel)")
      ->check(CLI::IsMember({"none", "analytic", "algorithmic"}));
  cmd->add_flag("--preserve-inputs", options->preserve_inputs, "never let an op overwrite a graph input");
  cmd->add_option("--alignment", options->alignment,
                  "bytes every offset and safe overlap is a multiple of (default 16, TFLM's buffer alignment)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16, 32, 64}));
  cmd->add_option("--walks", options->walks,
                  "kernel walking orders to plan for: any (default; conv, depthwise conv and pooling may walk their "
                  "output descending, as dmo's runtime can) or ascending (TFLite's order only, what TFLM runs)")
      ->check(CLI::IsMember({"any", "ascending"}));
  add_kernels_option(cmd, options->kernels, "default tflm-reference; a cmsis family walks ascending only");
  add_split_options(cmd, options->split);
  cmd->add_flag("--concat-in-place", options->concat_in_place,
                "the producers of CONCATENATION and PACK inputs write straight into their slice of the output, "
                "where that does not raise dmo's arena; those ops then copy nothing (not with --split)");
  add_reorder_option(cmd, options->reorder);
  cmd->add_flag("--split-report", options->split_report,
                "with --split auto: work out and print the trade-off curve, arena bytes against extra MACs, of the "
                "stage sets the search planned (with --json: split_search.pareto is the whole curve)");
  cmd->add_option("--dump-problem", options->dump_problem,
                  "write the problem dmo's planner solved (buffers, lifetimes, overlap pairs) to this JSON file, "
                  "for `dmo solve`");
  cmd->add_option("--svg", options->svg, "draw the arena over time, TFLM's plan beside dmo's, into this SVG file");
  return [options] {
    const ReorderRequest reorder = reorder_request(options->reorder);
    const SplitRequest split =
        split_request(options->split, split_excluded_by(reorder == ReorderRequest::kAuto, options->concat_in_place,
                                                        options->kernels));
    if (options->split_report && split.method != SplitMethod::kAuto) {
      throw Error("--split-report prints the trade-off curve of --split auto");
    }
    Graph graph = load_model(options->model);
    PlanOptions report_options;
    report_options.method = options->overlap == "none"       ? OverlapMethod::kNone
                            : options->overlap == "analytic" ? OverlapMethod::kAnalytic
                                                             : OverlapMethod::kAlgorithmic;
    report_options.preserve_graph_inputs = options->preserve_inputs;
    report_options.alignment = options->alignment;
    report_options.allow_descending = options->walks == "any";
    report_options.families = kernel_families(options->kernels);
    report_options.split = split.stages;
    report_options.concat_in_place = options->concat_in_place;
    report_options.progress = progress_reporter("plan", "safe overlaps", "op walks");
    if (reorder == ReorderRequest::kAuto && split.method != SplitMethod::kNone) {
      throw Error("--reorder auto cannot be combined with --split (split stages are op ranges of file order)");
    }
    std::optional<SplitSearchResult> search;
    std::optional<ReorderedPlan> reordered;
    PlanResult planned;
    if (split.method == SplitMethod::kAuto) {
      // The trade-off curve only when asked for: it plans a set per point,
      // and the plan chosen is the same without it.
      search = search_split_stages(graph, report_options, split.max_recompute_percent, options->split_report);
    } else if (reorder == ReorderRequest::kAuto) {
      reordered = plan_with_reorder(graph, report_options, reorder);
    } else {
      planned = plan_model(graph, report_options);
    }
    // Warned once the model planned: a model refused gets its one error line only.
    for (const UnwrittenRead& read : unwritten_read_tensors(graph.main())) {
      std::cerr << "warning: " << describe_unwritten_read(graph.main(), read) << '\n';
    }
    const PlanResult& report = search ? search->plan : reordered ? reordered->plan : planned;
    // The plan's graph: subgraph 0's ops in the order the plan runs them.
    const Graph& planned_graph = reordered ? reordered->graph : graph;
    const SplitSearchResult* found = search ? &*search : nullptr;
    if (!options->dump_problem.empty()) write_text_file(options->dump_problem, problem_json(report.problem));
    if (!options->svg.empty()) write_text_file(options->svg, plan_svg(planned_graph, report));
    const std::vector<TflmArena> arenas = tflm_arenas(planned_graph, report);
    if (options->json) {
      nlohmann::json j = plan_report_json(planned_graph, report, found);
      j["tflm_arena"] = tflm_arena_json(arenas);
      if (reordered) {
        j = reorder_report_json(*reordered, std::move(j));
      } else {
        j["order"] = file_order(graph);
        j["reorder_method"] = reorder_method_name(ReorderMethod::kNone);
      }
      std::cout << j.dump(2) << '\n';
      return 0;
    }
    if (reordered) std::cout << reorder_report_text(*reordered);
    std::cout << plan_report_text(planned_graph, report);
    std::cout << tflm_arena_text("TFLM's whole arena as the model is (its own plan; head + persistent tail, 32-bit target):",
                                 arenas);
    if (found) std::cout << split_search_summary_text(*found);
    if (found && split_by_default(options->split)) std::cout << kSplitDefaultNote << '\n';
    if (found && options->split_report) std::cout << split_tradeoff_text(*found);
    return 0;
  };
}

}  // namespace dmo::cli
