// A placement (arena offsets per tensor) as a JSON plan file, the form
// `dmo run/verify --plan FILE` read: {"arena_bytes": N, "offsets": [one per
// tensor of subgraph 0, -1 = none], "descending_ops": [optional op indices],
// "split": [optional stages], "concat_in_place": [optional op indices]}. For a model of several subgraphs "offsets" may
// also hold one per tensor of every subgraph in flat order (subgraph 0
// first), as `dmo plan --json` writes them for a plan of the whole model.
// Every tensor TFLM plans needs an offset inside the arena. A stage is
// written as `dmo plan --json` writes it: {"ops": [FIRST, LAST], "axis":
// "height", "tiles": N, "extra_macs": M} (axis and extra_macs optional;
// extra_macs is recomputed), or for patches {..., "axis": "height and
// width", "tiles": N, "column_tiles": C}. An optional "order": [op indices]
// runs subgraph 0's ops in that order (every op once, a topological order;
// model/op_order.h); the file's op indices are always the model file's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

struct PlacementFile {
  TensorPlacement placement;
  // The split stages the placement is for: their ops run tile by tile and
  // their intermediates take only their largest band.
  std::vector<SplitStage> split;
  // The CONCATENATION and PACK ops whose inputs the plan writes in place
  // (optional "concat_in_place": [op indices]; transform/concat_in_place.h).
  std::vector<int32_t> concat_in_place;
  // The execution order of subgraph 0's ops (original indices), empty for
  // file order. When set, the op indices above (placement.descending_ops,
  // concat_in_place) are already those of reordered_graph(graph, order).
  std::vector<int32_t> order;
};

// Throws dmo::Error naming the file and the problem (for a stage that is
// not a splittable chain, the stage, the op and why).
PlacementFile read_placement_file(const std::string& path, const Graph& graph);

// The same for a plan file's text; `path` names it in error messages.
PlacementFile parse_placement_file(std::string_view text, const std::string& path, const Graph& graph);

// The same for a run asked to split as `split` says: the file's own stages,
// else the stages `split` names. A file naming its own stages refuses
// `--split` stages (they would run others).
PlacementFile read_placement_file(const std::string& path, const Graph& graph, const SplitRequest& split);

}  // namespace dmo
