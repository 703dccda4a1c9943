// How a command splits ops (`--split`): not at all, the stages given
// (FIRST-LAST:TILES, transform/stage_tiling.h), or the stages the automatic
// search finds under a recompute budget (pipeline/split_search.h).
#pragma once

#include <string>
#include <vector>

#include "dmo/schedule/split_stage.h"

namespace dmo {

enum class SplitMethod { kNone, kManual, kAuto };

// "none", "manual", "auto".
const char* split_method_name(SplitMethod method);

struct SplitRequest {
  SplitMethod method = SplitMethod::kNone;
  std::vector<SplitStage> stages;  // kManual
  // kAuto: the extra MACs of all stages at most this percentage of the
  // model's MACs.
  double max_recompute_percent = 20;
};

// The request `--split` values give: "auto", "none", or stage specs.
// Throws dmo::Error naming the values when "auto" or "none" comes with
// anything else, or a spec is malformed.
SplitRequest parse_split_request(const std::vector<std::string>& values);

}  // namespace dmo
