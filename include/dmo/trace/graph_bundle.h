// Graphs handed to the op harness (tools/dmo_op_harness) in one file, so one
// valgrind run can trace many small layers that exist only in memory (test
// graphs built with GraphBuilder). A compact binary form of dmo's own Graph:
// cheap to read under valgrind, where every instruction is traced.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

struct TracedGraph {
  Graph graph;
  std::vector<int32_t> ops;  // ops of subgraph 0 to trace, in any order
};

std::vector<uint8_t> encode_graph_bundle(const std::vector<TracedGraph>& graphs);
// Throws dmo::Error naming `source` on anything malformed.
std::vector<TracedGraph> decode_graph_bundle(std::span<const uint8_t> bytes, const std::string& source);

void write_graph_bundle(const std::string& path, const std::vector<TracedGraph>& graphs);
std::vector<TracedGraph> read_graph_bundle(const std::string& path);

// The layer name the harness gives op `op` of graph `source`.
std::string traced_op_layer_name(const std::string& source, int32_t op, const std::string& kind);

}  // namespace dmo
