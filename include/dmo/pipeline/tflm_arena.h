// The arena a user gives TFLM's MicroInterpreter: per kernel family, the
// head TFLM plans (tensors and that family's scratch buffers) plus the
// tail its allocator and kernels keep (plan/tflm_tail.h), on a 32-bit
// target. MicroInterpreter::arena_used_bytes() reports the same sum.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/plan/tflm_tail.h"

namespace dmo {

struct TflmArena {
  KernelFamily family = KernelFamily::kTflmReference;
  int64_t head_bytes = 0;
  std::optional<TflmTail> tail;  // none when some op's allocations are unknown
  std::string unknown_op;        // then the first such op
  int64_t scratch_requests = 0;  // the family's scratch buffers (a handle each in the tail)

  std::optional<int64_t> total_bytes() const {
    if (!tail) return std::nullopt;
    return head_bytes + tail->bytes;
  }
};

// The tail of `graph` under `family` whose ops request `scratch_requests`
// scratch buffers, with `offline` as the file's offline plan (variable
// tensors it places live in the head, the others in the tail).
TflmArena tflm_arena(const Graph& graph, KernelFamily family, int64_t head_bytes, int64_t scratch_requests,
                     const std::optional<OfflinePlan>& offline);

}  // namespace dmo
