// dmo_op_harness: runs ops of dmo models as black boxes under
// `dmo trace`, marking each traced op with include/dmo_trace.h so the trace
// keeps only its loads of the op's overlap-candidate input and its stores
// into its output. Plans nothing: every tensor has memory of its own.
//
//   dmo_op_harness [--seed N] [--no-prefix] [--descending] GROUP...
//   GROUP: --model MODEL --op N [--op N ...]   a .tflite file or zoo name
//        | --bundle FILE                      graphs and ops from write_graph_bundle
//
// Ops run in order from op 0, each once; the traced ones between markers.
// --no-prefix runs only the traced ops, their activation inputs filled with
// the input pattern instead of the earlier ops' results (dmo's kernels take
// no address from a value, so O_s is the same; the trace is much shorter).
// --descending runs the traced ops whose kernels can walk their output
// descending (ops/walk_order.h) that way; the others walk ascending, each
// named once on stderr.
// Built twice: dmo_op_harness with dmo's normal (vectorised) kernels and
// dmo_op_harness_novec with kernels compiled without auto-vectorisation.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/ops/walk_order.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/trace/graph_bundle.h"
#include "dmo/zoo/zoo.h"
#include "dmo_trace.h"

namespace dmo {
namespace {

struct Options {
  uint32_t seed = 1;
  bool run_prefix = true;
  bool descending = false;
};

Graph load_graph(const std::string& model) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(model, ec)) return read_tflite_file(model);
  if (is_zoo_model_name(model)) return build_zoo_model(model);
  throw Error(fmt::format("{}: no such file, and not a zoo model name", model));
}

// The pattern bytes of one tensor, as if it were the only graph input.
std::vector<uint8_t> tensor_pattern(const Tensor& tensor, uint32_t seed) {
  Subgraph alone;
  alone.tensors = {tensor};
  alone.inputs = {0};
  return pattern_input(alone, seed);
}

void trace_op(Interpreter& interpreter, const Graph& graph, const OverlapCandidate& pair, int32_t op) {
  const Op& o = graph.main().ops[static_cast<size_t>(op)];
  if (pair.input == kNoTensor || pair.output == kNoTensor) {
    std::fprintf(stderr, "dmo_op_harness: %s op %d (%s) has no activation input and output to trace\n",
                 graph.source.c_str(), op, o.name().c_str());
    interpreter.run_op(op);
    return;
  }
  const std::string name = traced_op_layer_name(graph.source, op, o.name());
  auto input = interpreter.tensor_bytes(pair.input);
  auto output = interpreter.tensor_bytes(pair.output);
  DMO_TRACE_LAYER_BEGIN(name.c_str(), input.data(), input.size(), output.data(), output.size());
  interpreter.run_op(op);
  DMO_TRACE_LAYER_END(name.c_str());
}

void run_graph(const Graph& graph, std::vector<int32_t> ops, const Options& options) {
  const Subgraph& sg = graph.main();
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  for (int32_t op : ops) {
    if (op < 0 || static_cast<size_t>(op) >= sg.ops.size()) {
      throw Error(fmt::format("{}: has no op {} (it has {})", graph.source, op, sg.ops.size()));
    }
  }
  const std::vector<OverlapCandidate> pairs = overlap_candidates(sg, false);
  TensorPlacement placement = unshared_placement(sg);
  if (options.descending) {
    // Only the traced ops: the ones before them just compute their inputs.
    for (int32_t op : ops) {
      const Op& o = sg.ops[static_cast<size_t>(op)];
      if (kernel_walks_descending(static_cast<OpKind>(o.builtin_code)))
        placement.descending_ops.push_back(op);
      else
        std::fprintf(stderr, "dmo_op_harness: %s op %d (%s) cannot walk descending: traced ascending\n",
                     graph.source.c_str(), op, o.name().c_str());
    }
  }
  Interpreter interpreter(graph, std::move(placement));
  interpreter.set_inputs(pattern_input(sg, options.seed));
  int32_t next = 0;
  for (int32_t op : ops) {
    if (options.run_prefix) {
      for (; next < op; ++next) interpreter.run_op(next);
    } else {
      for (int32_t t : sg.ops[static_cast<size_t>(op)].inputs) {
        if (t == kNoTensor || !tflm_plans_tensor(sg.tensors[static_cast<size_t>(t)])) continue;
        interpreter.set_tensor(
            t, tensor_pattern(sg.tensors[static_cast<size_t>(t)], options.seed + static_cast<uint32_t>(t)));
      }
    }
    trace_op(interpreter, graph, pairs[static_cast<size_t>(op)], op);
    next = op + 1;
  }
}

int parse_int(const std::string& text, const char* what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw Error(fmt::format("{} '{}' is not a number", what, text));
  return value;
}

int run(int argc, char** argv) {
  Options options;
  struct Group {
    std::string model, bundle;
    std::vector<int32_t> ops;
  };
  std::vector<Group> groups;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--seed")
      options.seed = static_cast<uint32_t>(parse_int(value(), "--seed"));
    else if (arg == "--no-prefix")
      options.run_prefix = false;
    else if (arg == "--descending")
      options.descending = true;
    else if (arg == "--model")
      groups.push_back({value(), "", {}});
    else if (arg == "--bundle")
      groups.push_back({"", value(), {}});
    else if (arg == "--op") {
      if (groups.empty() || groups.back().model.empty()) throw Error("--op must follow a --model");
      groups.back().ops.push_back(parse_int(value(), "--op"));
    } else {
      throw Error(
          fmt::format("unknown argument '{}'; usage: dmo_op_harness [--seed N] [--no-prefix] [--descending] "
                      "(--model MODEL --op N [--op N ...] | --bundle FILE)...",
                      arg));
    }
  }
  if (groups.empty()) throw Error("nothing to run: give --model MODEL --op N or --bundle FILE");
  int traced = 0;
  std::vector<std::vector<TracedGraph>> bundles;  // never freed: see the end
  for (const Group& g : groups) {
    if (!g.bundle.empty()) {
      bundles.push_back(read_graph_bundle(g.bundle));
      for (const TracedGraph& t : bundles.back()) {
        run_graph(t.graph, t.ops, options);
        traced += static_cast<int>(t.ops.size());
      }
      continue;
    }
    if (g.ops.empty()) throw Error(fmt::format("{}: no --op given", g.model));
    run_graph(load_graph(g.model), g.ops, options);
    traced += static_cast<int>(g.ops.size());
  }
  if (traced == 0) throw Error("no op was traced");
  // Under valgrind every instruction is traced: skip freeing the graphs.
  std::fflush(stdout);
  std::_Exit(0);
}

}  // namespace
}  // namespace dmo

int main(int argc, char** argv) {
  try {
    return dmo::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dmo_op_harness: error: %s\n", e.what());
    return 2;
  }
}
