#include "dmo/pipeline/kernel_scratch_buffers.h"

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

namespace {

// Per op of subgraph 0: its buffers for `family`.
std::vector<std::vector<ScratchBuffer>> scratch_per_op(const Graph& graph, KernelFamily family) {
  const Subgraph& sg = graph.main();
  std::vector<std::vector<ScratchBuffer>> per_op(sg.ops.size());
  std::vector<ScratchBuffer> reference = tflm_scratch_buffers(sg, graph.source);
  for (ScratchBuffer& s : reference) per_op[static_cast<size_t>(s.op)].push_back(std::move(s));
  if (family == KernelFamily::kTflmReference) return per_op;
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter interpreter(graph, unshared_placement(sg), std::move(schedule));
  for (size_t op = 0; op < sg.ops.size(); ++op) {
    std::string implementation;
    std::vector<KernelScratch> requests;
    try {
      const PreparedKernel& kernel = interpreter.prepared(static_cast<int32_t>(op));
      implementation = kernel.implementation;
      requests = kernel.scratch;
    } catch (const Error&) {
      continue;  // no kernel here: planning goes on with the reference list
    }
    if (implementation.empty()) continue;  // the reference kernel runs
    per_op[op].clear();
    for (const KernelScratch& k : requests) {
      per_op[op].push_back({static_cast<int32_t>(op), k.bytes,
                            fmt::format("{} {} ({})", sg.ops[op].name(), implementation, kernel_family_name(family)),
                            k.buffer});
    }
  }
  return per_op;
}

int64_t total_bytes(const std::vector<ScratchBuffer>& buffers) {
  int64_t total = 0;
  for (const ScratchBuffer& b : buffers) total += b.bytes;
  return total;
}

}  // namespace

std::vector<ScratchBuffer> kernel_scratch_buffers(const Graph& graph, KernelFamily family) {
  return kernel_scratch_buffers(graph, std::vector<KernelFamily>{family});
}

std::vector<ScratchBuffer> kernel_scratch_buffers(const Graph& graph, const std::vector<KernelFamily>& families) {
  std::vector<std::vector<ScratchBuffer>> chosen;
  for (KernelFamily family : families) {
    std::vector<std::vector<ScratchBuffer>> per_op = scratch_per_op(graph, family);
    if (chosen.empty()) {
      chosen = std::move(per_op);
      continue;
    }
    for (size_t op = 0; op < per_op.size(); ++op) {
      if (total_bytes(per_op[op]) > total_bytes(chosen[op])) chosen[op] = std::move(per_op[op]);
    }
  }
  std::vector<ScratchBuffer> all;
  for (std::vector<ScratchBuffer>& some : chosen) all.insert(all.end(), some.begin(), some.end());
  return all;
}

}  // namespace dmo
