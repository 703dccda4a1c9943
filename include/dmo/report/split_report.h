// The outcome of `--split auto` (pipeline/split_search.h): the stages found
// against the unsplit plan, and the trade-off curve of the stage sets the
// search planned (arena bytes against extra MACs). Formatting only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dmo/pipeline/split_search.h"

namespace dmo {

// "FIRST-LAST:TILES[xCOLUMNS] ..." as --split takes them; "none" for no stages.
std::string split_stages_text(const std::vector<SplitStage>& stages);

// [{"ops": [FIRST, LAST], "axis": "height", "tiles": N}, ...] (patches:
// "axis": "height and width" and "column_tiles": C): the form a plan
// file's "split" takes (pipeline/placement_file.h).
nlohmann::json split_stages_json(const std::vector<SplitStage>& stages);

// One line: the budget, the stages found, the arena with and without them.
std::string split_search_summary_text(const SplitSearchResult& search);

// One row per set on the Pareto front, the chosen one marked.
std::string split_tradeoff_text(const SplitSearchResult& search);

// {"max_recompute_percent", "unsplit_bytes", "candidates",
// "candidates_planned", "pareto": [{"stages", "arena_bytes", "extra_macs",
// "extra_macs_percent", "chosen"}]}.
nlohmann::json split_search_json(const SplitSearchResult& search);

}  // namespace dmo
