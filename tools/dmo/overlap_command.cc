#include <iostream>

#include "commands.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/report/overlap_report.h"
#include "kernels_option.h"
#include "progress.h"

namespace dmo::cli {

Command add_overlap_command(CLI::App& app) {
  struct Options {
    std::string model;
    bool json = false;
    bool preserve_inputs = false;
    std::string kernels = "tflm-reference";
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("overlap", "Safe overlap O_s of each op's (input, output) pair");
  cmd->add_option("model", options->model, "a .tflite file or a zoo model name")->required();
  cmd->add_flag("--json", options->json, "print one JSON object");
  cmd->add_flag("--preserve-inputs", options->preserve_inputs, "never let an op overwrite a graph input");
  add_kernels_option(cmd, options->kernels,
                     "default tflm-reference; a cmsis family adds a column of its kernels' O_s, ascending walks");
  return [options] {
    Graph graph = load_model(options->model);
    SafeOverlapOptions overlap_options;
    overlap_options.preserve_graph_inputs = options->preserve_inputs;
    overlap_options.families = kernel_families(options->kernels);
    overlap_options.progress = progress_reporter("overlap", "safe overlaps", "op walks");
    auto rows = compute_safe_overlaps(graph, overlap_options);
    if (options->json) std::cout << overlap_report_json(graph, rows, overlap_options.families).dump(2) << '\n';
    else std::cout << overlap_report_text(graph, rows, overlap_options.families);
    return 0;
  };
}

}  // namespace dmo::cli
