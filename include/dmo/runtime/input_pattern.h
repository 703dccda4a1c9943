// Deterministic model inputs: the xorshift32 pattern the golden files use,
// so any run can be reproduced from a seed alone.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/runtime/pattern_values.h"

namespace dmo {

// All graph inputs of subgraph 0 concatenated, filled per element by type:
// float in [-1, 1), int8/uint8 from the top byte, int16 from the top half,
// int32/int64 in 0..15, bool from the top bit, other types byte by byte.
std::vector<uint8_t> pattern_input(const Subgraph& subgraph, uint32_t seed);

// How a tensor of `type` is drawn, and how many values its pattern has.
PatternKind pattern_kind(DataType type);
int64_t pattern_values(const Tensor& t);

}  // namespace dmo
