// The analytic method: closed-form lower bounds on O_s, from a line that
// bounds the kernel's read frontier, minR(i) >= max(0, a*i + b) in elements
// of output iteration i, against writes maxW(i) = i:
//   O_s = N + min(b / a, a*N + b - N), clamped to [0, N].
// Conv2D, DepthwiseConv2D and pooling have such lines (valid while
// s_h*W_i >= s_w*W_o, batch 1, NHWC); same-shape element-wise ops run in
// place; a memcpy may write its whole destination before reading its
// source, so RESHAPE and SQUEEZE (one copy) allow no overlap, CONCATENATION
// as far as every block's copy lands below its source, and STRIDED_SLICE
// is bounded by 0; FULLY_CONNECTED re-reads an input row for every unit,
// so only stores past the rows still to be read may overlap (exact). Other ops have no closed form here: callers fall back to
// the algorithmic value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dmo/model/graph.h"

namespace dmo {

struct AnalyticOverlap {
  std::optional<int64_t> bytes;  // absent: no closed form for this op or these shapes
  std::string rule;              // which closed form applied, or why none did
};

// `descending`: the bound for the kernel walking descending (how far the
// input's end may overlap the start of an output above it), from the same
// line on the mirrored tensors; only the windowed ops walk descending.
AnalyticOverlap analytic_safe_overlap(const Subgraph& subgraph, int32_t op, int32_t input, int32_t output,
                                      bool descending = false);

// The combined formula in elements, before clamping: exposed for tests.
double analytic_overlap_elements(double a, double b, double n);

}  // namespace dmo
