// `dmo codegen`: a self-contained project running one inference of a
// model's plan on a device (or the host), written whole or not at all.
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "dmo/codegen/write_project.h"
#include "dmo/error.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/report/split_report.h"
#include "planned_schedule.h"
#include "progress.h"
#include "split_option.h"

namespace dmo::cli {

Command add_codegen_command(CLI::App& app) {
  struct Options {
    std::string model, directory, target = "cortex-m4", plan;
    SplitArguments split;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "codegen", "Write a self-contained C++ project running the model's plan on a device (make -C DIR run)");
  cmd->add_option("model", o->model, "a .tflite file or a zoo model name")->required();
  cmd->add_option("-o,--output", o->directory, "the project directory to create (absent or empty)")->required();
  cmd->add_option("--target", o->target,
                  fmt::format("where the project runs: {} (default cortex-m4, under QEMU)", codegen_target_names()));
  cmd->add_option(
      "--plan", o->plan, "placement JSON {\"arena_bytes\", \"offsets\", optional \"descending_ops\"} (default: dmo's plan)");
  add_split_options(cmd, o->split);
  return [o] {
    const std::optional<CodegenTarget> target = parse_codegen_target(o->target);
    if (!target) throw Error(fmt::format("unknown target '{}'; targets: {}", o->target, codegen_target_names()));
    require_empty_directory(o->directory);
    const SplitRequest split = split_request(o->split, o->plan.empty() ? "" : "--plan");
    Graph graph = load_model(o->model);
    require_kernels(graph);
    PlanOptions plan_options;
    plan_options.progress = progress_reporter("codegen", "planning: safe overlaps", "op walks");
    plan_options.split = split.stages;
    // The plan uses the O_s of the order the project's kernels run in.
    plan_options.families = {KernelFamily::kDmoDevice};
    PlannedSchedule planned = planned_schedule(graph, o->plan, split, plan_options);
    if (!planned.concat_in_place.empty()) throw Error("dmo codegen does not run in-place concatenations");
    const std::unique_ptr<Interpreter> interpreter = planned.interpreter(graph);
    interpreter->prepare_all();
    CodegenOptions options;
    options.target = *target;
    write_codegen_project(graph, *interpreter, o->directory, options);
    std::cout << fmt::format("wrote {}: {} for {}, {} steps, {}-byte arena{}\n", o->directory, graph.source,
                             codegen_target_name(*target), interpreter->schedule().steps.size(),
                             planned.placement.arena_size,
                             planned.stages.empty() ? ""
                                                    : fmt::format(", ops split --split {}",
                                                                  split_stages_text(planned.stages)));
    return 0;
  };
}

}  // namespace dmo::cli
