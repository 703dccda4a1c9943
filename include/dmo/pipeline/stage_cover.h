// The split stage sets with the lowest bound: which candidate stages to run
// so that no step needs more than a threshold, recomputing least.
//
// A set of stages needs at least its bound at every step: at an op outside
// its stages, that op's need in the unsplit schedule (the same tensors are
// live there, the same pairs save); inside a stage, the stage's own peak
// with that stage alone (its steps see the same tensors in any set). So
// the lowest threshold T that some set within the recompute budget keeps
// every step under is a lower bound of every such set's arena, and a set
// whose plan reaches T is the smallest there is. Covering the ops whose
// unsplit need exceeds T with stages whose peaks do not is a shortest
// path over the op order (stages are intervals, their extra MACs the
// costs): O(ops + stages) per threshold, and a binary search over the
// thresholds that occur. The peaks are the costly part, so a stage counts
// as its floor (a lower bound of its peak) until a path tried holds it;
// a path whose peaks are all known is the one the search knowing every
// peak finds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace dmo {

// One candidate stage as the cover sees it.
struct CoverStage {
  int32_t first_op = 0;
  int32_t last_op = 0;  // inclusive
  int64_t extra_macs = 0;
  // At most its peak: the search asks for the peaks only of stages in the
  // covers it tries, each taken to need its floor until its peak is known.
  int64_t peak_floor = 0;
};

// The peak of each stage asked for (its index into the candidates): the
// most its steps need with that stage alone. The costly part: a search
// asks only for the stages of the paths it tries whose peaks it does not
// know yet (and, for the curve, for every stage containing an op whose
// need is above a threshold it passes), each batch at once.
using StagePeaks = std::function<std::vector<int64_t>(const std::vector<size_t>& stages)>;

struct StageCover {
  int64_t threshold = 0;       // no step of the set needs more (rounded up)
  int64_t extra_macs = 0;      // of its stages together
  std::vector<size_t> stages;  // indices into the candidates, op order
};

// The lowest threshold (a rounded need or peak) whose cheapest cover
// recomputes at most `max_extra_macs` MACs, with that cover: every op
// whose `need_per_op` (rounded up to `granule`) exceeds the threshold
// inside a stage whose peak (rounded) does not, the stages not sharing
// ops; ties on extra MACs go to fewer stages. The empty set (threshold:
// the largest rounded need) when no stage lowers it. Also the trade-off
// between threshold and recompute when `curve`: for each extra-MAC figure
// a cheapest cover takes within the budget, the cover with the lowest
// threshold, extra MACs ascending (the cheapest first, the lowest last).
struct StageCoverSearch {
  StageCover lowest;
  std::vector<StageCover> curve;
};
StageCoverSearch search_stage_covers(const std::vector<int64_t>& need_per_op, const std::vector<CoverStage>& stages,
                                     const StagePeaks& peaks, int64_t max_extra_macs, int64_t granule, bool curve);

}  // namespace dmo
