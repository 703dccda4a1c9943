// Bytes at a tensor's start that slices have consumed. STRIDED_SLICE (with
// positive strides) and SLICE read only elements at or after their begin
// corner, which lie at or after the corner's byte in row-major order. So
// when every step still to run that reads a tensor is such a slice, the
// bytes below the least of their begins are dead though the tensor lives
// on: split stages exported as tiles (transform/tiled_stages.h) read their
// input one band of rows per tile this way.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

struct ConsumedPrefix {
  int32_t tensor = kNoTensor;
  int32_t first_slice_op = -1;  // the first op slicing it from past its start
  // Per step s of the schedule, and one past the last: the bytes at the
  // tensor's start that no step from s on reads.
  std::vector<int64_t> dead_bytes;
};

// Every tensor of subgraph 0 a slice reads from past its start, except the
// graph outputs (the caller reads them whole). Nothing for a schedule with
// split stages or a model of several subgraphs.
std::vector<ConsumedPrefix> consumed_prefixes(const Graph& graph, const Schedule& schedule);

}  // namespace dmo
