// Writes a Graph (a zoo model, or any graph built in code) as a standard
// .tflite file that read_tflite_bytes imports back to the same Graph.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// Every subgraph with its tensors (shape, type, quantization, variable flag,
// buffer index), constant data 16-byte aligned in its own buffer, operator
// codes (deprecated_builtin_code = min(code, 127) and builtin_code), each
// op's builtin options from its OpParams, inputs, outputs, the description
// and version, the metadata with their bytes; buffer 0 is the empty
// sentinel. graph.offline_plan, when set, becomes the
// OfflineMemoryAllocation metadata (and an entry of that name without it is
// dropped). Throws dmo::Error on what a file cannot say the same way: ops
// whose options dmo did not decode, params of the wrong kind for an op,
// constants whose data differ but share a buffer, constants in buffer 0.
std::vector<uint8_t> write_tflite(const Graph& graph);

}  // namespace dmo
