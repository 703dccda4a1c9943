#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/report/microcontroller_fit.h"
#include "dmo/report/split_report.h"
#include "dmo/zoo/zoo.h"
#include "split_option.h"

namespace dmo::cli {

Command add_fit_command(CLI::App& app) {
  struct Options {
    std::string model = kDefaultZooModel;
    bool json = false;
    SplitArguments split;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "fit", "Which micro-controllers the model fits: TFLM's and dmo's arena against each part's SRAM, the model file "
             "against its flash");
  cmd->add_option("model", o->model,
                  fmt::format("a .tflite file or a zoo model name (default {})", kDefaultZooModel));
  cmd->add_flag("--json", o->json, "print one JSON object");
  add_split_options(cmd, o->split);
  return [o] {
    const SplitRequest split = split_request(o->split);
    const Graph graph = load_model(o->model);
    PlanOptions options;
    options.split = split.stages;
    const PlanResult plan = split.method == SplitMethod::kAuto
                                ? search_split_stages(graph, options, split.max_recompute_percent).plan
                                : plan_model(graph, options);
    ModelFootprint footprint;
    footprint.model = graph.source;
    footprint.model_bytes = static_cast<int64_t>(read_model_file(o->model).bytes.size());
    footprint.tflm_arena_bytes = plan.tflm_greedy.arena_size;
    footprint.dmo_arena_bytes = plan.dmo.arena_size;
    footprint.dmo_plan = plan.schedule.stages.empty()
                             ? "every op whole"
                             : fmt::format("--split {}", split_stages_text(plan.schedule.stages));
    const std::vector<PartFit> fits = fit_parts(footprint, microcontrollers());
    if (o->json) {
      std::cout << fit_json(footprint, fits).dump(2) << '\n';
    } else {
      std::cout << fit_text(footprint, fits);
    }
    return 0;
  };
}

}  // namespace dmo::cli
