// What splitting costs in computation: multiply-accumulates of each op of a
// stage computed whole and tile by tile (the halo rows the tiles compute
// again are the extra). A MAC here is one window tap of one output element:
// conv: filter height x width x input depth per group; depthwise conv:
// filter height x width; pooling: the window's taps (an add or a compare);
// padding taps included, as models' MAC counts usually are.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

// MACs of one output row (all batches, columns and channels) of op `op`;
// 0 for ops other than conv, depthwise conv and pooling.
int64_t macs_per_output_row(const Subgraph& subgraph, int32_t op);

// MACs of the whole op.
int64_t op_macs(const Subgraph& subgraph, int32_t op);

// MACs of every op of subgraph 0, unsplit.
int64_t model_macs(const Graph& graph);

struct OpSplitMacs {
  int32_t op = 0;
  int64_t unsplit = 0;
  int64_t split = 0;  // summed over the tiles
};

struct StageMacs {
  SplitStage stage;
  std::vector<OpSplitMacs> ops;
  int64_t unsplit() const;
  int64_t split() const;
  int64_t extra() const { return split() - unsplit(); }
};

StageMacs stage_macs(const Graph& graph, const StageTiling& tiling);

}  // namespace dmo
