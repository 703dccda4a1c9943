// A placement (arena offsets per tensor) as a JSON plan file, the form
// `dmo run/verify --plan FILE` read: {"arena_bytes": N, "offsets": [one per
// tensor of subgraph 0, -1 = none], "descending_ops": [optional op indices]}.
// For a model of several subgraphs "offsets" may also hold one per tensor of
// every subgraph in flat order (subgraph 0 first), as `dmo plan --json`
// writes them for a plan of the whole model. Every tensor TFLM plans needs
// an offset inside the arena.
#pragma once

#include <string>

#include "dmo/model/graph.h"
#include "dmo/runtime/tensor_placement.h"

namespace dmo {

// Throws dmo::Error naming the file and the problem.
TensorPlacement read_placement_file(const std::string& path, const Graph& graph);

}  // namespace dmo
