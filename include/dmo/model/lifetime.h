// Tensor lifetimes with TFLite Micro's conventions.
//
// Time is an op index. TFLM counts "allocation scopes" where scope 0 is the
// start of the subgraph and op i runs in scope i + 1; dmo uses time = scope - 1:
//  - graph inputs and graph outputs are created at time -1 (before op 0);
//  - an op's outputs are created at its index (this overrides the -1 of a
//    graph output that the op writes), and its inputs and outputs are used at
//    its index, so an op's inputs and outputs are live together;
//  - graph outputs are used until the last op;
//  - a tensor no op and no graph input creates keeps first = -2 (TFLM's
//    "uninitialised", earlier than everything), and one nothing references
//    keeps [-2, -2]: TFLM still plans it, colliding only with its like.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

constexpr int32_t kBeforeFirstOp = -1;
constexpr int32_t kUninitialised = -2;

struct Lifetime {
  int32_t first = kUninitialised;
  int32_t last = kUninitialised;

  bool intersects(const Lifetime& other) const { return !(first > other.last || other.first > last); }
  bool covers(int32_t op) const { return first <= op && op <= last; }
};

// One lifetime per tensor of the subgraph (constants included; callers pick
// the tensors they plan).
std::vector<Lifetime> compute_lifetimes(const Subgraph& subgraph);
// The same when time i runs op op_at_time[i] (an execution order, an op
// possibly at several times: its outputs are created at its first).
std::vector<Lifetime> compute_lifetimes(const Subgraph& subgraph, std::span<const int32_t> op_at_time);

// TFLM plans a tensor when it holds no constant data, is not a variable
// (variables live in the persistent section) and has a non-zero size.
bool tflm_plans_tensor(const Tensor& tensor);

// Rejects graphs that cannot run in order: an op reading a tensor that a later
// op writes, or a non-variable tensor written twice. An op may write one of
// its own inputs (in place). Throws dmo::Error naming
// the subgraph, op and tensor.
void check_execution_order(const Subgraph& subgraph, int subgraph_index, const std::string& source);

}  // namespace dmo
