// The split stages an automatic search may try (pipeline/split_search.h):
// the maximal splittable chains of subgraph 0, every sub-chain of two or
// more of their ops, and for each the tile counts worth trying, along the
// height alone and with a few column tiles (patches), with the MACs each
// would compute again.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

// Ops first_op..last_op (inclusive) form a chain tile_stage accepts.
struct SplitChain {
  int32_t first_op = 0;
  int32_t last_op = 0;
};

// The maximal chains of two or more ops (a single op has no intermediate to
// hold as a band); none on a model of several subgraphs.
std::vector<SplitChain> splittable_chains(const Graph& graph);

// The tile counts worth trying on an output of `height` rows, ascending,
// each at least 2.
std::vector<int32_t> candidate_tile_counts(int32_t height);

struct SplitCandidate {
  SplitStage stage;
  int64_t extra_macs = 0;  // computed again by the tiles (transform/split_macs.h)
};

// The column tile counts tried with each tile count: patches narrow every
// band, and their halo columns cost more recompute with each cut.
inline constexpr int32_t kMaxColumnTiles = 4;

// Every sub-chain of every maximal chain with every candidate tile count of
// its last output, alone and with 2..kMaxColumnTiles column tiles, in op
// order.
std::vector<SplitCandidate> split_candidates(const Graph& graph);

}  // namespace dmo
