// What an op's address-only run depends on, as a key: two ops with the same
// key run the same loop nest over tensors of the same sizes, so they have the
// same algorithmic O_s and the run is done once (an unrolled recurrent cell,
// or MobileNet's repeated blocks, repeat ops). The key holds the kind, the
// version, the parameters, the custom code and options, per operand its
// type, shape, quantization, constness and which operands are the same
// tensor, which operands are the analysed (input, output) pair, and the
// constant data an op's prepare may read (shapes, indices, paddings: all
// constants but the weights and biases of CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED, which only scale values). Ops that call subgraphs get a
// key of their own.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/model/graph.h"

namespace dmo {

// `op`, `input` and `output` are flat indices (model_timeline.h).
std::string op_signature(const Graph& graph, int32_t op, int32_t input, int32_t output);

}  // namespace dmo
