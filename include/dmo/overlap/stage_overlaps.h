// Safe overlaps of whole split stages (schedule/split_stage.h). A stage
// reads its input top to bottom, tile after tile, and writes its output the
// same way, so, like one op, it may write its output over the start of an
// input that dies in it: the stage's O_s, taken from the order of the
// stage's own steps. Its intermediates live in band buffers of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

struct StageOverlap {
  SplitStage stage;
  int32_t input = kNoTensor;  // the first op's input 0
  int32_t output = kNoTensor;  // the last op's output 0
  int64_t input_bytes = 0;
  int64_t output_bytes = 0;
  // The input's last read is in the stage: the pair may be overlapped.
  bool input_dies = false;
  // Closed form from the tiling: each tile's first op reading from the top
  // of its input band, its last op having written to the end of its output
  // rows (a lower bound of the loop nests' value).
  std::optional<int64_t> analytic;
  // The address-only policy over every step of the stage, in order.
  std::optional<int64_t> algorithmic;
  int64_t used_bytes = 0;  // what the planner may overlap (ascending only: tiles run top to bottom)
};

// Whether stage overlaps run the stages' loop nests (exact) or take only
// their closed form (cheap: a split search tries hundreds of stages).
enum class StageOverlapDepth { kClosedForm, kLoopNests };

// One per stage of `schedule`, in its order. used_bytes follows
// options.method (algorithmic: the loop nests' value, when computed),
// floored to options.alignment; 0 when the input does not die in the stage
// or the method is none.
// `memo`: the stages' tilings already worked out (transform/stage_tiling.h);
// `lifetimes`: schedule_lifetimes(graph, schedule), when the caller has them.
std::vector<StageOverlap> compute_stage_overlaps(const Graph& graph, const Schedule& schedule,
                                                 const SafeOverlapOptions& options, StageOverlapDepth depth,
                                                 StageTilingMemo* memo = nullptr,
                                                 const std::vector<Lifetime>* lifetimes = nullptr);

// One ascending overlap pair per stage with used_bytes > 0, keyed to the
// stage's first op (its walk: its own pairs are unused, see below).
void add_stage_overlap_pairs(MemoryProblem& problem, const std::vector<StageOverlap>& stages);

// A split op runs band by band: its whole-op O_s does not hold, so its
// pair is not used.
void unuse_split_op_overlaps(const Schedule& schedule, std::vector<OpOverlap>& overlaps);

}  // namespace dmo
