#include "dmo/runtime/plan_verifier.h"

#include <fmt/format.h>

#include "dmo/runtime/interpreter.h"

namespace dmo {

VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input) {
  const Subgraph& sg = graph.main();
  Interpreter reference(graph, unshared_placement(sg));
  reference.set_inputs(input);
  reference.run();

  VerifyResult result;
  Interpreter planned(graph, placement);
  planned.set_inputs(input);
  result.clobber = planned.run_checked();
  if (result.clobber) return result;
  for (size_t k = 0; k < sg.outputs.size(); ++k) {
    int32_t t = sg.outputs[k];
    auto want = reference.tensor_bytes(t);
    auto got = planned.tensor_bytes(t);
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

std::string VerifyResult::describe(const Graph& graph) const {
  const Subgraph& sg = graph.main();
  if (clobber) {
    const Op& op = sg.ops[static_cast<size_t>(clobber->op)];
    const Tensor& t = sg.tensors[static_cast<size_t>(clobber->tensor)];
    return fmt::format("clobber: op {} ({}) read byte {} of input tensor {} '{}' after its output overwrote it",
                       clobber->op, op.name(), clobber->byte_offset, clobber->tensor, t.name);
  }
  if (difference) {
    const Tensor& t = sg.tensors[static_cast<size_t>(difference->tensor)];
    return fmt::format("output {} (tensor {} '{}') differs at byte {}: {} unshared, {} planned", difference->output,
                       difference->tensor, t.name, difference->byte, difference->expected, difference->actual);
  }
  return fmt::format("ok: {} output bytes identical, no clobber", output_bytes_compared);
}

}  // namespace dmo
