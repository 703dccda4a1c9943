// dmo trace: the bottom-up safe overlap. Runs a program under valgrind's
// lackey, keeps the loads and stores of each layer marked with dmo_trace.h
// that fall in its input or output buffer, and derives O_s from their order.
// With --model it traces dmo's own ops through dmo_op_harness (next to this
// binary), beside the algorithmic O_s of the same (input, output) pair.
// Every layer gets both O_s: ascending (output below the input, overlapping
// its start) and descending (output above the input, overlapping its end);
// --descending makes the kernels that can walk descending do so, and the
// algorithmic value shown is the one of the walk that was traced.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.h"
#include "dmo/error.h"
#include "dmo/ops/walk_order.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/pipeline/model_source.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/trace/access_svg.h"
#include "dmo/trace/graph_bundle.h"
#include "dmo/trace/valgrind_runner.h"
#include "io_files.h"
#include "progress.h"

namespace dmo::cli {

namespace {

// What --model adds to a traced layer.
struct OpRow {
  int32_t op = 0;
  std::string kind;
  OverlapCandidate pair;
  bool descending = false;            // the walk the harness ran
  std::optional<int64_t> algorithmic;  // of that walk: compare with O_s or O_s desc.
  std::string layer;                   // the harness's layer name
};

const char* walk_name(bool descending) { return descending ? "descending" : "ascending"; }

std::filesystem::path harness_path(bool novec) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(fmt::format("trace: cannot locate the dmo binary through /proc/self/exe: {}", ec.message()));
  std::filesystem::path harness = self.parent_path() / (novec ? "dmo_op_harness_novec" : "dmo_op_harness");
  if (access(harness.c_str(), X_OK) != 0) {
    throw Error(fmt::format("trace: {} not found next to dmo (build the target {})", harness.string(),
                            harness.filename().string()));
  }
  return harness;
}

std::string text_table(const TraceRun& run, const std::vector<OpRow>& ops, bool novec) {
  std::map<std::string, const OpRow*> by_layer;
  for (const auto& r : ops) by_layer[r.layer] = &r;
  std::string out;
  size_t width = 5;
  for (const auto& l : run.layers) width = std::max(width, l.name.size());
  const bool with_ops = !ops.empty();
  out += fmt::format("{:<{}}  {:>10}  {:>13}  {:>11}  {:>12}  {:>9}  {:>9}{}\n", "layer", width, "events",
                     "instructions", "input bytes", "output bytes", "O_s bytes", "O_s desc.",
                     with_ops ? "  algorithmic  walk" : "");
  for (const auto& l : run.layers) {
    std::string algorithmic;
    if (with_ops) {
      auto it = by_layer.find(l.name);
      if (it == by_layer.end()) {
        algorithmic = fmt::format("  {:>11}  -", "-");
      } else {
        const OpRow& r = *it->second;
        algorithmic = r.algorithmic ? fmt::format("  {:>11}  {}", *r.algorithmic, walk_name(r.descending))
                                    : fmt::format("  {:>11}  {}", "-", walk_name(r.descending));
      }
    }
    out += fmt::format("{:<{}}  {:>10}  {:>13}  {:>11}  {:>12}  {:>9}  {:>9}{}\n", l.name, width, l.events(),
                       l.instructions, l.input.bytes, l.output.bytes, l.safe_overlap, l.safe_overlap_descending,
                       algorithmic);
  }
  for (const auto& r : ops) {
    if (r.pair.input == kNoTensor || r.pair.output == kNoTensor) {
      out += fmt::format("op {} ({}): no activation input and output to trace\n", r.op, r.kind);
    }
  }
  if (with_ops)
    out += fmt::format("kernels: {}\n", novec ? "compiled without auto-vectorisation" : "as built (vectorised)");
  out += fmt::format("{} layers; {} trace lines, {} memory events in {:.2f} s ({:.0f} events/s)\n", run.layers.size(),
                     run.lines, run.memory_events, run.seconds,
                     run.seconds > 0 ? static_cast<double>(run.memory_events) / run.seconds : 0.0);
  return out;
}

nlohmann::json json_report(const TraceRun& run, const std::vector<std::string>& command, const std::vector<OpRow>& ops,
                           bool novec) {
  std::map<std::string, const OpRow*> by_layer;
  for (const auto& r : ops) by_layer[r.layer] = &r;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : run.layers) {
    nlohmann::json j = {{"name", l.name},
                        {"events", l.events()},
                        {"loads", l.loads},
                        {"stores", l.stores},
                        {"instructions", l.instructions},
                        {"input_bytes", l.input.bytes},
                        {"output_bytes", l.output.bytes},
                        {"safe_overlap_bytes", l.safe_overlap},
                        {"safe_overlap_descending_bytes", l.safe_overlap_descending}};
    if (auto it = by_layer.find(l.name); it != by_layer.end()) {
      const OpRow& r = *it->second;
      j["op"] = r.op;
      j["kind"] = r.kind;
      j["input_tensor"] = r.pair.input;
      j["output_tensor"] = r.pair.output;
      j["algorithmic_bytes"] = r.algorithmic ? nlohmann::json(*r.algorithmic) : nlohmann::json(nullptr);
      j["vectorised"] = !novec;
      j["walk"] = walk_name(r.descending);
    }
    layers.push_back(std::move(j));
  }
  return {{"command", command},
          {"layers", layers},
          {"trace",
           {{"log_bytes", run.log_bytes},
            {"lines", run.lines},
            {"memory_events", run.memory_events},
            {"instructions", run.instructions},
            {"seconds", run.seconds},
            {"events_per_second", run.seconds > 0 ? static_cast<double>(run.memory_events) / run.seconds : 0.0}}}};
}

}  // namespace

Command add_trace_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> command;
    bool json = false;
    std::string svg, layer, model, log;
    std::vector<int32_t> ops;
    bool novec = false, no_prefix = false, descending = false;
    size_t max_points = 20000;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "trace", "Bottom-up O_s: trace the loads and stores of marked layers under valgrind (dmo trace -- PROGRAM ARGS)");
  cmd->add_option("command", o->command, "the program to run and its arguments, after --");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->add_option("--svg", o->svg, "draw a layer's accesses over time into this SVG file");
  cmd->add_option("--layer", o->layer, "the layer --svg draws (default: the first)");
  cmd->add_option("--max-points", o->max_points, "most read and write points the SVG keeps (default 20000)");
  cmd->add_option("--model", o->model, "trace ops of this model (.tflite or zoo name) with dmo_op_harness");
  cmd->add_option("--op", o->ops, "with --model: an op index to trace (repeatable)");
  cmd->add_flag("--novec", o->novec, "with --model: use the kernels compiled without auto-vectorisation");
  cmd->add_flag("--descending", o->descending,
                "with --model: ops whose kernels can walk descending do so (output above the input)");
  cmd->add_flag("--no-prefix", o->no_prefix,
                "with --model: fill the traced op's inputs with the pattern instead of running the ops before it");
  cmd->add_option("--log", o->log, "analyse a lackey log valgrind already wrote instead of running a program");
  return [o] {
    const int sources = !o->command.empty() + !o->model.empty() + !o->log.empty();
    if (sources != 1) throw Error("trace: give exactly one of: -- PROGRAM ARGS..., --model MODEL --op N, --log FILE");
    if (!o->model.empty() && o->ops.empty()) throw Error("trace: --model needs at least one --op N");
    if (o->model.empty() && (!o->ops.empty() || o->novec || o->no_prefix || o->descending)) {
      throw Error("trace: --op, --novec, --no-prefix and --descending go with --model");
    }
    if (!o->layer.empty() && o->svg.empty())
      throw Error("trace: --layer chooses the layer --svg draws; give --svg FILE");
    TraceRunOptions options;
    options.reader.picture = !o->svg.empty();
    options.reader.picture_layer = o->layer;
    options.reader.max_points = o->max_points;

    std::vector<OpRow> ops;
    std::vector<std::string> command = o->command;
    std::optional<Graph> graph;
    if (!o->model.empty()) {
      graph = load_model(o->model);
      const Subgraph& sg = graph->main();
      const auto pairs = overlap_candidates(sg, false);
      for (int32_t op : o->ops) {
        if (op < 0 || static_cast<size_t>(op) >= sg.ops.size()) {
          throw Error(fmt::format("{}: has no op {} (it has {})", o->model, op, sg.ops.size()));
        }
        OpRow r;
        r.op = op;
        r.kind = sg.ops[static_cast<size_t>(op)].name();
        r.pair = pairs[static_cast<size_t>(op)];
        r.layer = traced_op_layer_name(graph->source, op, r.kind);
        // The harness walks descending exactly these ops.
        r.descending =
            o->descending && kernel_walks_descending(static_cast<OpKind>(sg.ops[static_cast<size_t>(op)].builtin_code));
        ops.push_back(r);
      }
      // The harness names its layers up front: a wrong --layer fails before anything slow.
      if (!o->layer.empty()) {
        std::vector<std::string> names;
        for (const OpRow& r : ops) names.push_back(r.layer);
        if (std::find(names.begin(), names.end(), o->layer) == names.end()) {
          throw Error(fmt::format("trace: no layer named '{}' among the ops traced; their layers are '{}'", o->layer,
                                  fmt::join(names, "', '")));
        }
      }
      command = {harness_path(o->novec).string()};
      if (o->no_prefix) command.push_back("--no-prefix");
      if (o->descending) command.push_back("--descending");
      command.insert(command.end(), {"--model", o->model});
      for (OpRow& r : ops) {
        if (r.pair.input != kNoTensor && r.pair.output != kNoTensor) {
          try {
            r.algorithmic = algorithmic_safe_overlap(*graph, r.op, r.pair.input, r.pair.output, r.descending);
          } catch (const Error&) {
            // dmo has no kernel for it: the harness fails too, with the message.
          }
        }
        command.insert(command.end(), {"--op", std::to_string(r.op)});
      }
    }
    // Valgrind reports nothing until the program ends: say what is running.
    if (o->log.empty()) {
      progress_note("trace", fmt::format("running {} under valgrind (every instruction traced: slow)", command.front()));
    }
    TraceRun run = o->log.empty() ? trace_program(command, options) : trace_log_file(o->log, options.reader);
    if (o->log.empty()) progress_note("trace", fmt::format("traced {} layers in {:.1f} s", run.layers.size(), run.seconds));
    if (run.layers.empty()) {
      throw Error(o->log.empty() ? fmt::format("trace: {} marked no layer: nothing to report (mark one with "
                                               "DMO_TRACE_LAYER_BEGIN/END from dmo_trace.h)",
                                               command.front())
                                 : fmt::format("trace: {}: the log marks no layer: nothing to report", o->log));
    }
    if (!o->svg.empty()) {
      if (!run.picture) {
        std::vector<std::string> names;
        for (const auto& l : run.layers) names.push_back(l.name);
        throw Error(fmt::format("trace: no layer named '{}' was traced; the layers are '{}'", o->layer,
                                fmt::join(names, "', '")));
      }
      // A layer the harness walked descending is drawn for the descending O_s.
      AccessPictureOptions picture_options;
      for (const OpRow& r : ops) {
        if (r.layer != run.picture->name || !r.descending) continue;
        for (const auto& l : run.layers) {
          if (l.name == r.layer) picture_options.descending_safe_overlap = l.safe_overlap_descending;
        }
      }
      write_text_file(o->svg, access_picture_svg(*run.picture, picture_options));
    }
    if (o->json)
      std::cout << json_report(run, o->log.empty() ? command : std::vector<std::string>{o->log}, ops, o->novec).dump(2)
                << '\n';
    else
      std::cout << text_table(run, ops, o->novec);
    return 0;
  };
}

}  // namespace dmo::cli
