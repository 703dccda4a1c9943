// Adds (or replaces) TFLM's OfflineMemoryAllocation metadata in an existing
// .tflite file without touching anything else in it.
//
// The result is a new front part followed by the original file, unchanged:
// the front holds a new root Model table, new `buffers` and `metadata`
// vectors and the plan's Buffer; every other field of the new root points
// forward into the original bytes at the original subtables. Fields dmo's
// schema does not name (custom options, newer fields inside subtables,
// signature defs) therefore survive byte for byte, and the front is padded to
// 16 bytes so every buffer keeps its alignment.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// `plan` must have version 0, the model's subgraph count and one offset
// (>= -1) per tensor over all subgraphs. An existing OfflineMemoryAllocation
// entry keeps its index and its buffer index; otherwise a new entry and a new
// last buffer are added. Throws dmo::Error (naming `source`) on a file that is
// not a valid model, a broken existing plan, a plan that does not fit the
// model, buffers stored outside the file, or root fields this writer cannot
// re-base; the result always passes the flatbuffers verifier.
//
// `main_op_order`, when given (every op of subgraph 0 once, original
// indices), writes subgraph 0's operators in that order: a new SubGraph
// table whose operators vector points at the original Operator tables,
// every other field at the original bytes (TFLM runs operators in file
// order). Validity of the order is the caller's (model/op_order.h).
std::vector<uint8_t> with_offline_plan(std::span<const uint8_t> original_file, const OfflinePlan& plan,
                                       const std::string& source, const std::vector<int32_t>& main_op_order = {});

}  // namespace dmo
