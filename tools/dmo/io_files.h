// Files the command line reads and writes: raw input/output bytes, plans.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/runtime/tensor_placement.h"

namespace dmo::cli {

// The raw bytes of `path`, or the seed's pattern input when `path` is empty;
// either way checked against the model's input size.
std::vector<uint8_t> load_input(const Graph& graph, const std::string& path, uint32_t seed);

void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text_file(const std::string& path, const std::string& text);

// A placement from JSON: {"arena_bytes": N, "offsets": [one per tensor of
// subgraph 0, -1 = none], "descending_ops": [optional op indices]}.
TensorPlacement read_placement(const std::string& path, const Subgraph& subgraph);

// The placement a run uses by default: dmo's plan with algorithmic overlaps.
TensorPlacement default_placement(const Graph& graph);

}  // namespace dmo::cli
