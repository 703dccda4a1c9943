// The scratch buffers of the kernels a plan is made for. TFLM's reference
// kernels request plan/tflm_scratch_buffers.h's; a cmsis family's glue
// requests its own (im2col, kernel sums, ...) for the ops it runs on
// CMSIS-NN, and the reference ones for the ops it leaves to them.
#pragma once

#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/plan/tflm_scratch_buffers.h"

namespace dmo {

// Per op of subgraph 0, in op order, the buffers `family`'s kernel requests.
// An op dmo has no kernel for keeps the reference list.
std::vector<ScratchBuffer> kernel_scratch_buffers(const Graph& graph, KernelFamily family);

// A plan safe for several families must leave room for whichever one the
// firmware links: per op, the list of the family requesting the most bytes
// there (the first such family in `families` on a tie).
std::vector<ScratchBuffer> kernel_scratch_buffers(const Graph& graph, const std::vector<KernelFamily>& families);

}  // namespace dmo
