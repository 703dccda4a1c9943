#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dmo/error.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/model/op_order.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/report/split_report.h"
#include "dmo/transform/split_schedule.h"
#include "dmo/runtime/fnv1a64.h"
#include "dmo/runtime/interpreter.h"
#include "inference_timing.h"
#include "io_files.h"
#include "planned_schedule.h"
#include "progress.h"
#include "reorder_option.h"
#include "split_option.h"

namespace dmo::cli {

Command add_run_command(CLI::App& app) {
  struct Options {
    std::string model, input, output, dump_dir, plan;
    uint32_t seed = 1;
    bool unshared = false;
    SplitArguments split;
    bool concat_in_place = false;
    std::string reorder = "none";
    int32_t repeat = 1;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("run", "Run a model inside one planned arena");
  cmd->add_option("model", o->model, "a .tflite file or a zoo model name")->required();
  CLI::Option* input =
      cmd->add_option("--input", o->input, "raw bytes of all inputs concatenated (default: the seed's pattern)");
  cmd->add_option("--seed", o->seed, "pattern seed when no --input is given")->excludes(input);
  cmd->add_option("--output", o->output, "write the raw bytes of all outputs concatenated");
  cmd->add_option("--dump-tensors", o->dump_dir,
                  "write every non-constant tensor as DIR/<index>.bin: inputs, each op's outputs right after it, "
                  "and after the inference variable state and zero-size tensors");
  CLI::Option* plan = cmd->add_option(
      "--plan", o->plan, "placement JSON {\"arena_bytes\", \"offsets\", optional \"descending_ops\"} (default: dmo's plan)");
  cmd->add_flag("--unshared", o->unshared, "give every tensor its own memory")->excludes(plan);
  add_split_options(cmd, o->split);
  cmd->add_flag("--concat-in-place", o->concat_in_place,
                "the producers of CONCATENATION and PACK inputs write straight into their slice of the output, "
                "where that does not raise dmo's arena; those ops then copy nothing (not with --split)");
  add_reorder_option(cmd, o->reorder);
  CLI::Option* repeat = cmd->add_option(
      "--repeat", o->repeat,
      "run N inferences and print the median time of one, load, planning and preparation excluded "
      "(outputs and dumps are the first's, whose time includes the dumps)");
  cmd->add_flag("--json", o->json, "print the result as JSON, with inference_ms and repeat");
  return [o, repeat] {
    if (o->repeat < 1) throw Error(fmt::format("--repeat must be at least 1, is {}", o->repeat));
    const ReorderRequest reorder = reorder_request(o->reorder);
    const std::string excluded_by = o->unshared          ? "--unshared"
                                    : !o->plan.empty()     ? "--plan"
                                    : !o->dump_dir.empty() ? "--dump-tensors"
                                                           : split_excluded_by(reorder == ReorderRequest::kAuto,
                                                                               o->concat_in_place, "tflm-reference");
    const SplitRequest split = split_request(o->split, excluded_by);
    if (reorder == ReorderRequest::kAuto && (o->unshared || !o->plan.empty() || split.method != SplitMethod::kNone)) {
      throw Error(fmt::format("--reorder auto runs dmo's plan of the order it finds; {} excludes it",
                              o->unshared ? "--unshared" : !o->plan.empty() ? "--plan" : "--split"));
    }
    if (split.method == SplitMethod::kAuto && (o->unshared || !o->plan.empty())) {
      throw Error(fmt::format("--split auto runs dmo's plan of the stages it finds; {} excludes it",
                              o->unshared ? "--unshared" : "--plan"));
    }
    if (!o->dump_dir.empty()) prepare_output_directory(o->dump_dir, "--dump-tensors");
    Graph graph = load_model(o->model);
    std::vector<uint8_t> input = load_input(graph, o->input, o->seed);
    require_kernels(graph);  // refuse an op dmo cannot run before planning
    PlanOptions plan_options;
    plan_options.progress = progress_reporter("run", "planning: safe overlaps", "op walks");
    plan_options.split = split.stages;
    plan_options.concat_in_place = o->concat_in_place;
    if (o->concat_in_place && (o->unshared || !o->plan.empty())) {
      throw Error(fmt::format("--concat-in-place runs dmo's plan; {} excludes it (a plan file names its own "
                              "\"concat_in_place\" ops)", o->unshared ? "--unshared" : "--plan"));
    }
    TensorPlacement placement;
    std::vector<SplitStage> stages = split.stages;
    std::vector<int32_t> concat_in_place;
    Schedule schedule;  // with split stages: the schedule the placement is for
    if (o->unshared) {
      placement = unshared_placement(graph.main());
    } else if (reorder == ReorderRequest::kAuto) {
      ReorderedPlan planned = plan_with_reorder(graph, plan_options, reorder);
      graph = std::move(planned.graph);
      placement = dmo_placement(graph, planned.plan);
      concat_in_place = planned.plan.concat_in_place;
      schedule = std::move(planned.plan.schedule);
    } else {
      PlannedSchedule planned = planned_schedule(graph, o->plan, split, plan_options);
      placement = std::move(planned.placement);
      stages = std::move(planned.stages);
      concat_in_place = std::move(planned.concat_in_place);
      schedule = std::move(planned.schedule);
    }
    if ((!stages.empty() || !concat_in_place.empty()) && schedule.steps.empty()) {
      schedule = placement_schedule(graph, placement, stages, concat_in_place);
    }
    if (!concat_in_place.empty() && !o->dump_dir.empty()) {
      throw Error("--dump-tensors: the inputs of in-place concatenations have no bytes of their own");
    }
    if (!stages.empty() && !o->dump_dir.empty()) {
      throw Error("--dump-tensors: the intermediates of split stages are never whole in memory; run without --split");
    }
    const Subgraph& sg = graph.main();
    const bool plain = stages.empty() && concat_in_place.empty();
    Interpreter interpreter = plain ? Interpreter(graph, placement) : Interpreter(graph, placement, std::move(schedule));
    interpreter.set_inputs(input);
    auto dump = [&](int32_t t) {
      if (sg.tensors[static_cast<size_t>(t)].is_constant) return;
      auto bytes = interpreter.tensor_bytes(t);
      write_file(fmt::format("{}/{}.bin", o->dump_dir, t), {bytes.begin(), bytes.end()});
    };
    if (!o->dump_dir.empty()) {
      for (int32_t t : sg.inputs) dump(t);
    }
    // In a shared arena a tensor is only intact right after its op: dump then.
    auto progress = progress_reporter("run", "running op", "");
    Interpreter::OpObserver observer;
    // What TFLM keeps besides, after the first inference: variable tensors
    // hold their state, and zero-size tensors no op writes are empty files.
    auto dump_kept = [&] {
      for (size_t t = 0; t < sg.tensors.size(); ++t) {
        const Tensor& tensor = sg.tensors[t];
        if (tensor.is_variable || tensor.byte_size == 0) dump(static_cast<int32_t>(t));
      }
    };
    if (progress || !o->dump_dir.empty()) {
      observer = [&](int32_t op) {
        if (progress) progress(static_cast<size_t>(op) + 1, sg.ops.size());
        if (o->dump_dir.empty()) return;
        for (int32_t t : sg.ops[static_cast<size_t>(op)].outputs) dump(t);
        if (static_cast<size_t>(op) + 1 == sg.ops.size()) dump_kept();
      };
    }
    const InferenceTiming timing = time_inferences(interpreter, input, o->repeat, observer);
    if (!o->dump_dir.empty() && sg.ops.empty()) dump_kept();
    const std::vector<uint8_t>& outputs = timing.first_outputs;
    if (!o->output.empty()) write_file(o->output, outputs);
    char outputs_hash[17];
    fnv1a64_hex(fnv1a64_update(kFnv1a64Offset, outputs.data(), outputs.size()), outputs_hash);
    if (o->json) {
      nlohmann::json j = {{"model", graph.source},
                          {"ops", sg.ops.size()},
                          {"arena_bytes", placement.arena_size},
                          {"output_bytes", outputs.size()},
                          {"outputs_fnv1a64", outputs_hash},
                          {"repeat", timing.repeat},
                          {"inference_ms", timing.median_ms}};
      j["split"] = split_stages_json(stages);
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::cout << fmt::format("{}: {} ops in a {}-byte arena{}, {} output bytes\n", graph.source, sg.ops.size(),
                             placement.arena_size,
                             stages.empty() ? "" : fmt::format(", ops split --split {}", split_stages_text(stages)),
                             outputs.size());
    std::cout << fmt::format("outputs_fnv1a64={}\n", outputs_hash);
    if (repeat->count() > 0) {
      std::cout << fmt::format("inference: {:.3f} ms (median of {})\n", timing.median_ms, timing.repeat);
    }
    return 0;
  };
}

}  // namespace dmo::cli
