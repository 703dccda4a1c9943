#include <iostream>

#include "commands.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/runtime/plan_verifier.h"
#include "io_files.h"

namespace dmo::cli {

Command add_verify_command(CLI::App& app) {
  struct Options {
    std::string model, input, plan;
    uint32_t seed = 1;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "Run unshared and inside a plan; compare every output byte and check for clobbers (exit 1 on failure)");
  cmd->add_option("model", o->model, "a .tflite file or a zoo model name")->required();
  CLI::Option* input =
      cmd->add_option("--input", o->input, "raw bytes of all inputs concatenated (default: the seed's pattern)");
  cmd->add_option("--seed", o->seed, "pattern seed when no --input is given")->excludes(input);
  cmd->add_option("--plan", o->plan, "placement JSON {\"arena_bytes\", \"offsets\", optional \"descending_ops\"} (default: dmo's plan)");
  return [o] {
    Graph graph = load_model(o->model);
    std::vector<uint8_t> input = load_input(graph, o->input, o->seed);
    TensorPlacement placement = o->plan.empty() ? dmo_placement(graph, plan_model(graph)) : read_placement_file(o->plan, graph.main());
    VerifyResult result = verify_placement(graph, placement, input);
    std::string walks;
    if (!placement.descending_ops.empty()) {
      const size_t n = placement.descending_ops.size();
      walks = " (" + std::to_string(n) + (n == 1 ? " op walking" : " ops walking") + " descending)";
    }
    std::cout << graph.source << ": " << placement.arena_size << "-byte arena" << walks << ": " << result.describe(graph)
              << '\n';
    return result.ok() ? 0 : 1;
  };
}

}  // namespace dmo::cli
