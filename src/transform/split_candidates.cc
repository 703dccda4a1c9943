#include "dmo/transform/split_candidates.h"

#include <algorithm>

#include "dmo/error.h"
#include "dmo/transform/split_macs.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

std::vector<SplitChain> splittable_chains(const Graph& graph) {
  std::vector<SplitChain> chains;
  if (graph.subgraphs.size() != 1) return chains;
  const auto op_count = static_cast<int32_t>(graph.main().ops.size());
  int32_t op = 0;
  while (op < op_count) {
    if (!tiles_along_height(graph, op)) {
      ++op;
      continue;
    }
    int32_t last = op;
    while (links_chain(graph, last) && tiles_along_height(graph, last + 1)) ++last;
    if (last > op) chains.push_back({op, last});
    op = last + 1;
  }
  return chains;
}

// A stage's memory follows the height of its largest tile: each
// intermediate's band is the receptive field of that many output rows. Its
// recompute grows with the number of tiles: every border computes its halo
// again. For a largest tile of r rows the fewest tiles are ceil(H / r), and
// any other count with the same largest tile only adds recompute, so these
// are the counts worth trying: about 2 sqrt(H) of them (21 for 112 rows),
// the divisors of H among them. No fixed cap: the recompute budget rules
// out the many small tiles that cost too much.
std::vector<int32_t> candidate_tile_counts(int32_t height) {
  std::vector<int32_t> counts;
  for (int32_t rows = 1; rows <= height; ++rows) {
    const int32_t tiles = (height + rows - 1) / rows;
    if (tiles >= 2 && (counts.empty() || counts.back() != tiles)) counts.push_back(tiles);
  }
  std::reverse(counts.begin(), counts.end());
  return counts;
}

std::vector<SplitCandidate> split_candidates(const Graph& graph) {
  const Subgraph& sg = graph.main();
  std::vector<SplitCandidate> candidates;
  for (const SplitChain& chain : splittable_chains(graph)) {
    for (int32_t first = chain.first_op; first < chain.last_op; ++first) {
      for (int32_t last = first + 1; last <= chain.last_op; ++last) {
        const Tensor& output = sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(last)].outputs[0])];
        for (int32_t tiles : candidate_tile_counts(output.shape[1])) {
          for (int32_t column_tiles = 1; column_tiles <= std::min(kMaxColumnTiles, output.shape[2]); ++column_tiles) {
            const SplitStage stage{first, last, SplitAxis::kHeight, tiles, column_tiles};
            try {
              candidates.push_back({stage, stage_macs(graph, tile_stage(graph, stage)).extra()});
            } catch (const Error&) {
              // A tile whose rows read only padding (a window larger than its
              // stride with much padding): that count is no candidate.
            }
          }
        }
      }
    }
  }
  return candidates;
}

}  // namespace dmo
