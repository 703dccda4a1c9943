// Arena tensors an op reads that no op writes and that are not graph inputs:
// TFLM still plans them, so the op reads whatever the arena held there.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

struct UnwrittenRead {
  int32_t tensor = 0;
  int32_t op = 0;  // the first op reading it
};

// In tensor order.
std::vector<UnwrittenRead> unwritten_read_tensors(const Subgraph& subgraph);

}  // namespace dmo
