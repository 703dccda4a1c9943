#include "dmo/runtime/plan_verifier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "dmo/model/model_timeline.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input,
                              KernelFamily family) {
  Schedule schedule = default_schedule(graph, placement.descending_ops);
  schedule.kernels = family;
  return verify_placement(graph, placement, std::move(schedule), input);
}

VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, Schedule schedule,
                              std::span<const uint8_t> input) {
  const Subgraph& sg = graph.main();
  // The placement is checked (and the ops prepared) before the reference runs.
  Interpreter planned(graph, placement, std::move(schedule));
  Interpreter reference(graph, unshared_placement(sg));
  reference.set_inputs(input);
  reference.run();

  VerifyResult result;
  planned.set_inputs(input);
  result.clobbers = planned.run_checked_all();
  if (!result.clobbers.empty()) result.clobber = result.clobbers.front();
  for (size_t k = 0; k < sg.outputs.size(); ++k) {
    const int32_t t = sg.outputs[k];
    const std::vector<uint8_t> want = reference.tensor_contents(t), got = planned.tensor_contents(t);
    for (size_t b = 0; b < want.size(); ++b) {
      if (want[b] != got[b]) {
        result.difference = OutputDifference{static_cast<int32_t>(k), t, static_cast<int64_t>(b), want[b], got[b]};
        return result;
      }
    }
    result.output_bytes_compared += static_cast<int64_t>(want.size());
  }
  return result;
}

namespace {

std::string tensor_label(const Graph& graph, int32_t t) {
  if (t < 0) return "no tensor";
  const SubgraphIndex at = locate_flat_tensor(graph, t);
  if (at.subgraph == 0) return fmt::format("tensor {} '{}'", t, flat_tensor(graph, t).name);
  return fmt::format("subgraph {} tensor {} '{}'", at.subgraph, at.index, flat_tensor(graph, t).name);
}

}  // namespace

std::string describe_clobber(const Graph& graph, const Clobber& c) {
  const std::string bytes = fmt::format("{} byte{} [{}, {})", c.bytes, c.bytes == 1 ? "" : "s", c.byte_offset,
                                        c.byte_offset + c.bytes);
  if (c.access == Clobber::Access::kStore) {
    return fmt::format("clobber: {} wrote {} over {} of {}, still needed later", flat_op_label(graph, c.op),
                       tensor_label(graph, c.writer), bytes, tensor_label(graph, c.tensor));
  }
  return fmt::format("clobber: {} read {} of input {} after {} overwrote them", flat_op_label(graph, c.op), bytes,
                     tensor_label(graph, c.tensor), tensor_label(graph, c.writer));
}

std::string describe_unwritten_read(const Subgraph& sg, const UnwrittenRead& read) {
  return fmt::format("tensor {} '{}' is read by op {} ({}) but no op writes it; its value is whatever the arena held",
                     read.tensor, sg.tensors[static_cast<size_t>(read.tensor)].name, read.op,
                     sg.ops[static_cast<size_t>(read.op)].name());
}

std::string VerifyResult::describe(const Graph& graph) const {
  const Subgraph& sg = graph.main();
  std::vector<std::string> lines;
  for (const std::string& error : validator_errors) lines.push_back("invalid plan: " + error);
  for (const UnwrittenRead& read : unwritten_reads) lines.push_back("unwritten: " + describe_unwritten_read(sg, read));
  for (const Clobber& c : clobbers) lines.push_back(describe_clobber(graph, c));
  if (difference) {
    const Tensor& t = sg.tensors[static_cast<size_t>(difference->tensor)];
    lines.push_back(fmt::format("output {} (tensor {} '{}') differs at byte {}: {} unshared, {} planned",
                                difference->output, difference->tensor, t.name, difference->byte,
                                difference->expected, difference->actual));
  } else if (!lines.empty()) {
    lines.push_back(fmt::format("outputs: {} output bytes identical", output_bytes_compared));
  }
  if (lines.empty()) return fmt::format("ok: {} output bytes identical, no clobber", output_bytes_compared);
  return fmt::format("{}", fmt::join(lines, "\n"));
}

}  // namespace dmo
