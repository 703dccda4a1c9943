// Operation re-ordering: the topological order of subgraph 0's ops whose
// peak memory is least. Memory at an op is the bytes live while it runs
// (16-byte rounded sizes) less its safe overlap when the input it overlaps
// dies there; the peak is the largest over the ops. The search is dynamic
// programming over the set of executed ops (the live tensors follow from
// the set), as in memory-aware scheduling (Liberis & Lane, "Neural networks
// on microcontrollers: saving memory at inference via operator
// reordering"): exact while the sets visited stay within a limit, a beam of
// the best sets per step above it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// The search's view of a subgraph: the tensors it plans and the ops'
// dependencies, no shapes or kernels.
struct OrderProblem {
  struct Buffer {
    int64_t bytes = 0;
    int32_t producer = -1;          // -1: live from the start (a graph input)
    std::vector<int32_t> readers;   // ops reading it, ascending, once each
    bool live_to_end = false;       // a graph output, or an input kept intact
  };
  std::vector<Buffer> buffers;
  std::vector<std::vector<int32_t>> predecessors;  // per op: ops that must run before it
  std::vector<int64_t> overlap_bytes;              // per op: its safe overlap
  std::vector<int32_t> overlap_buffer;             // per op: the input buffer it overlaps, -1 none

  size_t op_count() const { return predecessors.size(); }
};

// Subgraph 0 of `graph` as an order problem: its planned tensors (sizes
// rounded up to 16), op_predecessors, and per op the safe overlap
// `overlap_bytes[op]` with the input tensor `overlap_tensor[op]` (-1 none).
OrderProblem order_problem(const Graph& graph, const std::vector<int64_t>& overlap_bytes,
                           const std::vector<int32_t>& overlap_tensor, bool keep_graph_inputs);

// The peak of `order` (every op once, a topological order).
int64_t order_peak_bytes(const OrderProblem& problem, const std::vector<int32_t>& order);

enum class ReorderMethod {
  kNone,       // file order, not searched
  kChain,      // each op depends on the one before: file order is the only order
  kExact,      // the dynamic programme over every reachable set of executed ops
  kHeuristic,  // the same keeping only the best sets per step (a beam)
};

const char* reorder_method_name(ReorderMethod method);

struct ReorderLimits {
  // Sets of executed ops the exact search may visit. Each costs a few
  // hundred bytes and about a microsecond per ready op, so the exact search
  // stays well under a second; graphs of parallel branches have
  // exponentially many sets and go to the beam.
  int64_t exact_states = 100'000;
  // Sets kept per step by the beam: the search then visits at most
  // ops x beam_width sets.
  int64_t beam_width = 256;
};

struct OrderSearch {
  std::vector<int32_t> order;  // original op indices in execution order
  ReorderMethod method = ReorderMethod::kNone;
  int64_t peak_bytes = 0;       // order_peak_bytes of `order`
  int64_t file_order_peak_bytes = 0;
  int64_t states_visited = 0;
};

// The order of least peak (ties: the one found first, file order when it is
// among them). Never returns an order whose peak is above file order's.
OrderSearch search_op_order(const OrderProblem& problem, const ReorderLimits& limits = {});

}  // namespace dmo
