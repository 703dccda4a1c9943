// Split stages written as ops TFLM already has, for a runtime that runs
// every op whole: per tile (a band of the stage's last output rows), a
// STRIDED_SLICE of the stage input's rows the tile reads; then each op of
// the chain on its band, with VALID padding after a PAD (PADV2 for max
// pooling) holding the rows and columns the original op's padding adds at
// that band; and one CONCATENATION of the tiles' last outputs along the
// height into the stage's output tensor. Every tile op computes what the
// split schedule's band step computes (transform/stage_tiling.h), so the
// rewritten graph's outputs are the original's bit for bit. Weights are
// shared (each tile's op reads the original filter and bias tensors); the
// stage's original intermediates leave the tensor list (TFLM would give
// each a buffer), so tensor indices after them move and the model's own
// offline plan is dropped.
#pragma once

#include <vector>

#include "dmo/model/graph.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

// TFLM's CONCATENATION kernel takes at most this many inputs (its
// kMaxInputNum), so a stage is written as at most this many tiles.
inline constexpr int32_t kTflmMaxConcatenationInputs = 10;

// Subgraph 0 with `stages` tiled. Throws dmo::Error naming the stage and
// why when one cannot be written so: column tiles (their patches would be
// stitched by copies TFLM's dense tensors cannot avoid), average pooling
// whose window reaches padding (TFLM divides by the taps inside the input,
// which no padded input reproduces), more tiles than TFLM's concatenation
// takes, or a stage tile_stage refuses.
// `concatenations`, when given, gets the indices of the tiles'
// CONCATENATION ops in the result.
Graph tiled_stages(const Graph& graph, std::vector<SplitStage> stages,
                   std::vector<int32_t>* concatenations = nullptr);

}  // namespace dmo
