// One op alone in a graph, and what its safe overlap means when it runs:
// the address-only policy's O_s, and whether the checking policy finds a
// clobber with the output's end laid over the input's start by a given
// number of bytes (outputs identical to the unshared run when it does not).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dmo/ops/kernels.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/runtime/interpreter.h"

namespace dmo::test {

struct OneOp {
  Graph graph;
  int32_t input = -1, output = -1;
};

inline int64_t bytes_of_tensor(const OneOp& m, int32_t t) { return m.graph.main().tensors[static_cast<size_t>(t)].byte_size; }

// The default schedule running `family`'s kernels.
inline Schedule schedule_for(const OneOp& m, KernelFamily family) {
  Schedule schedule = default_schedule(m.graph);
  schedule.kernels = family;
  return schedule;
}

// The op's accesses to (input, output) folded by the address-only policy.
inline AddressMemory addresses(const OneOp& m, KernelFamily family = KernelFamily::kTflmReference) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  const OpContext ctx = interpreter.context(0);
  AddressMemory memory(m.input, m.output, bytes_of_tensor(m, m.input), bytes_of_tensor(m, m.output));
  run_kernel(ctx, memory);
  return memory;
}

// The output at 0 and the input starting |O| - overlap bytes later, so the
// output's last `overlap` bytes cover the input's first; other tensors
// after both.
inline TensorPlacement overlapped_placement(const OneOp& m, int64_t overlap) {
  TensorPlacement p;
  const auto& tensors = m.graph.main().tensors;
  p.offsets.assign(tensors.size(), -1);
  p.offsets[static_cast<size_t>(m.output)] = 0;
  p.offsets[static_cast<size_t>(m.input)] = bytes_of_tensor(m, m.output) - overlap;
  int64_t end = std::max(bytes_of_tensor(m, m.output), p.offsets[static_cast<size_t>(m.input)] +
                                                           bytes_of_tensor(m, m.input));
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (p.offsets[t] >= 0 || tensors[t].is_constant) continue;
    p.offsets[t] = end;
    end += tensors[t].byte_size;
  }
  p.arena_size = end;
  return p;
}

// Runs the op checked with the input overlapped by `overlap` bytes; returns
// whether it clobbered. Without a clobber the output must equal the
// unshared run's.
// `family`'s kernels run both runs: families may compute differently where
// TFLM's glue does (an int16 conv without a bias accumulates in 64 bits in
// the reference kernel, in 32 in CMSIS-NN's).
inline bool clobbers_at_overlap(const OneOp& m, int64_t overlap, const std::vector<uint8_t>& input,
                                KernelFamily family = KernelFamily::kTflmReference) {
  Interpreter overlapped(m.graph, overlapped_placement(m, overlap), schedule_for(m, family));
  overlapped.set_inputs(input);
  const bool clobbered = overlapped.run_checked().has_value();
  if (!clobbered) {
    Interpreter reference(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
    reference.set_inputs(input);
    reference.run();
    EXPECT_EQ(overlapped.tensor_contents(m.output), reference.tensor_contents(m.output))
        << "the overlapped run computes differently";
  }
  return clobbered;
}

}  // namespace dmo::test
