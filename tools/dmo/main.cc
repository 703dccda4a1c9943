// The dmo command line: parse arguments, call the library, print.
// Exit status: 0 success, 1 a check failed, 2 bad input or usage.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <new>

#include "dmo/error.h"
#include "dmo/report/model_info.h"
#include "dmo/report/plan_report.h"
#include "dmo/zoo/zoo.h"
#include "model_loader.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"dmo: smallest safe tensor arena for TFLite models on micro-controllers"};
  app.require_subcommand(1);

  std::string model = dmo::kDefaultZooModel;
  bool json = false;

  CLI::App* info = app.add_subcommand("info", "Subgraphs, ops and tensors of a model");
  info->add_option("model", model, "a .tflite file or a zoo model name")->required();
  info->add_flag("--json", json, "print one JSON object");

  CLI::App* plan = app.add_subcommand("plan", "Arena figures of a model: naive, TFLM's greedy planner, lower bound");
  plan->add_option("model", model, fmt::format("a .tflite file or a zoo model name (default {})", dmo::kDefaultZooModel));
  plan->add_flag("--json", json, "print one JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a "parse error" with exit code 0; real usage errors exit 2.
    return app.exit(e) == 0 ? 0 : 2;
  }

  dmo::Graph graph = dmo::load_model(model);
  if (info->parsed()) {
    if (json) std::cout << dmo::model_info_json(graph).dump(2) << '\n';
    else std::cout << dmo::model_info_text(graph);
  } else if (plan->parsed()) {
    dmo::PlanReport report = dmo::make_plan_report(graph);
    if (json) std::cout << dmo::plan_report_json(graph, report).dump(2) << '\n';
    else std::cout << dmo::plan_report_text(graph, report);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const dmo::Error& e) {
    std::fprintf(stderr, "dmo: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dmo: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dmo: internal error: %s\n", e.what());
    return 2;
  }
}
