#include <iostream>

#include "commands.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/report/model_info.h"

namespace dmo::cli {

Command add_info_command(CLI::App& app) {
  struct Options {
    std::string model;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("info", "Subgraphs, ops and tensors of a model");
  cmd->add_option("model", options->model, "a .tflite file or a zoo model name")->required();
  cmd->add_flag("--json", options->json, "print one JSON object");
  return [options] {
    Graph graph = load_model(options->model);
    if (options->json) std::cout << model_info_json(graph).dump(2) << '\n';
    else std::cout << model_info_text(graph);
    return 0;
  };
}

}  // namespace dmo::cli
