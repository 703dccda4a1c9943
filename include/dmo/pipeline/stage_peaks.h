// The most a split stage's steps need with that stage alone: the largest
// live bytes less the overlaps' saving over them, in the schedule that
// splits only that stage. In any set holding the stage its steps are the
// same, in the same order relative to every other op, so the same tensors
// (the other stages' bands live only in their own steps) and pairs (an
// op's pair lives at its op, a stage's over its steps) are live there: a
// lower bound of any such set's arena at those steps (stage_cover.h).
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/split_stage.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

// A lower bound of stage_alone_peak from the unsplit problem alone (its
// times the ops), without building the stage: at the stage's first step
// its input is read, at its last its output written, and the tensors born
// before the stage and read after it live at every step of it. No pair
// saves between those: a pair's input dies at its op, so a pair of an op
// before the stage has its input dead in the stage, and one of an op
// after it its output not yet born; the stage's own pair saves no more
// than the smaller of its input and output, and only where both live.
// The split search takes it for a peak it has not worked out.
int64_t stage_peak_floor(const Subgraph& subgraph, const MemoryProblem& unsplit_problem, const SplitStage& stage);

// 0 when the problem has fixed offsets (accelerator ops): no bound is known.
// `unsplit`: the plan options without stages; `overlaps` its
// unsplit_safe_overlaps.
int64_t stage_alone_peak(const Graph& graph, const PlanOptions& unsplit, const std::vector<OpOverlap>& overlaps,
                         const SplitStage& stage, StageTilingMemo& tilings);

// stage_alone_peak of each stage, on every core (one thread per 16 stages
// at most): each builds a schedule and problem of the whole model, and a
// search asks for hundreds, a curve for thousands.
std::vector<int64_t> stage_alone_peaks(const Graph& graph, const PlanOptions& unsplit,
                                       const std::vector<OpOverlap>& overlaps, const std::vector<SplitStage>& stages);

}  // namespace dmo
