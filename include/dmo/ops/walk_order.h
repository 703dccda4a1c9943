// The order a kernel walks its output. TFLite's reference kernels walk
// ascending (first output element first), so an output may sit below a dying
// input and overlap its start. Walking descending (the outer loops run from
// their last index to their first; each element's own arithmetic is
// unchanged, so the results are bit-identical) mirrors that: the output may
// sit above the input and overlap its end. Choosing per op lets chains of
// overlapping ops zig-zag instead of drifting down the arena.
#pragma once

#include <cstdint>

#include "dmo/model/op_kind.h"
#include "dmo/ops/eval/walk_index.h"
#include "dmo/ops/output_region.h"

namespace dmo {

// Kernels that honour a descending walk and output regions (the windowed
// ops: conv, depthwise conv and pooling); every other kernel walks its whole
// output ascending only.
constexpr bool kernel_walks_descending(OpKind kind) {
  return kind == OpKind::kConv2D || kind == OpKind::kDepthwiseConv2D || kind == OpKind::kAveragePool2D ||
         kind == OpKind::kMaxPool2D;
}

}  // namespace dmo
