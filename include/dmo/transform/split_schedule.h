// A schedule with split stages: every op of subgraph 0 in file order, the
// ops of each stage expanded into per-tile steps (tile 0's ops, then tile
// 1's, ...), each computing its band of output rows (a region) with the
// stage's intermediates in band buffers sized for their largest band.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

// Throws dmo::Error naming the op when a stage is not a splittable chain
// (stage_tiling.h) or two stages share an op. Ops in `descending` walk
// descending unless they run in a stage (whose steps walk ascending).
// `memo`: tilings already worked out (and kept for later calls).
Schedule split_schedule(const Graph& graph, const std::vector<SplitStage>& stages,
                        const std::vector<int32_t>& descending = {}, StageTilingMemo* memo = nullptr);

// The tiling of each of the schedule's stages, in its order.
std::vector<StageTiling> stage_tilings(const Graph& graph, const Schedule& schedule);

}  // namespace dmo
