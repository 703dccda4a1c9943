// STRIDED_SLICE with constant begin/end/strides, mirroring TFLM's
// reference_ops::StridedSlice (every type): the shape is padded at the front to 5-D (padded axes take
// everything), each axis gets a start and a stop from StridedSliceStartForAxis
// and StridedSliceEndForAxis (negative indices count from the end, the masks
// override, shrink_axis takes one element; `offset` is ignored, as TFLM's
// BuildStridedSliceParams never sets it), then five nested loops write the
// output in order (ops/eval/strided_slice_loops.h). When the
// innermost stride is 1, TFLM copies each innermost run with one memcpy
// (SequentialTensorWriter::WriteN), here a block copy (ops/block_copy.h):
// its order is unspecified, so each run's destination must lie wholly below
// its source (ops/memory_policy.h folds a copy as all its stores before its
// loads); other strides copy element by element, each load right before
// its store.
// ellipsis_mask and new_axis_mask are refused: TFLite Micro ignores them.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <variant>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../instance_kernel.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/eval/strided_slice_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

int64_t clamp_index(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

// strided_slice::StridedSliceStartForAxis and StridedSliceEndForAxis.
SliceAxis axis_range(int64_t size, int64_t begin, int64_t end, int64_t stride, bool begin_mask, bool end_mask,
                     bool shrink) {
  SliceAxis r;
  r.stride = stride;
  int64_t start = begin < 0 ? begin + size : begin;
  start = stride > 0 ? clamp_index(start, 0, size) : clamp_index(start, -1, size - 1);
  if (begin_mask) start = stride > 0 ? 0 : size - 1;
  r.start = start;
  if (shrink) {
    r.stop = start >= size ? start : start + 1;
    return r;
  }
  int64_t stop = end;
  if (stop < 0) stop += size;
  stop = stride > 0 ? clamp_index(stop, 0, size) : clamp_index(stop, -1, size - 1);
  if (end_mask) stop = stride > 0 ? size : -1;
  r.stop = stop;
  return r;
}

}  // namespace

PreparedKernel prepare_strided_slice(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 4,
              fmt::format("expected 4 inputs (input, begin, end, strides), got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  const auto* params = std::get_if<StridedSliceParams>(&ctx.op->params);
  ctx.require(params != nullptr, "StridedSliceOptions are missing");
  ctx.require(params->ellipsis_mask == 0, fmt::format("ellipsis_mask {} is not supported", params->ellipsis_mask));
  ctx.require(params->new_axis_mask == 0, fmt::format("new_axis_mask {} is not supported", params->new_axis_mask));

  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  ctx.require(output.type() == input.type(), fmt::format("output type {} differs from input type {}",
                                                         data_type_name(output.type()),
                                                         data_type_name(input.type())));
  const int rank = static_cast<int>(input.rank());
  ctx.require(rank >= 1 && rank <= kStridedSliceRank, fmt::format("input is {}-D; supported: 1-D to 5-D", rank));
  const std::vector<int64_t> begin = constant_ints(ctx, 1, "begin");
  const std::vector<int64_t> end = constant_ints(ctx, 2, "end");
  const std::vector<int64_t> strides = constant_ints(ctx, 3, "strides");
  ctx.require(begin.size() == static_cast<size_t>(rank) && end.size() == begin.size() &&
                  strides.size() == begin.size(),
              fmt::format("begin, end and strides have {}, {} and {} values for a {}-D input", begin.size(),
                          end.size(), strides.size(), rank));

  // Pad to 5-D at the front; padded axes have size 1 and take their element.
  const int pad = kStridedSliceRank - rank;
  std::array<int64_t, kStridedSliceRank> dims{};
  std::array<SliceAxis, kStridedSliceRank> ranges{};
  Shape expected_shape;
  for (int a = 0; a < kStridedSliceRank; ++a) {
    if (a < pad) {
      dims[a] = 1;
      ranges[a] = SliceAxis{0, 1, 1};
      continue;
    }
    const int axis = a - pad;
    const auto i = static_cast<size_t>(axis);
    const bool shrink = (params->shrink_axis_mask >> axis) & 1;
    dims[a] = input.dim(i);
    ctx.require(strides[i] != 0, fmt::format("stride of axis {} is 0", axis));
    ranges[a] = axis_range(dims[a], begin[i], end[i], strides[i], (params->begin_mask >> axis) & 1,
                           (params->end_mask >> axis) & 1, shrink);
    if (shrink) {
      ctx.require(strides[i] > 0, fmt::format("shrink_axis on axis {} with negative stride {} is not supported",
                                              axis, strides[i]));
      ctx.require(ranges[a].start < dims[a],
                  fmt::format("shrink_axis index {} is outside axis {} of size {}", begin[i], axis, dims[a]));
    } else {
      expected_shape.push_back(static_cast<int32_t>(ranges[a].count()));
    }
  }
  ctx.require(output.shape() == expected_shape,
              fmt::format("output shape {} differs from the slice's shape {}", shape_to_string(output.shape()),
                          shape_to_string(expected_shape)));

  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    StridedSliceLoops<U> k;
    std::copy(dims.begin(), dims.end(), k.dims);
    std::copy(ranges.begin(), ranges.end(), k.axes);
    k.block_runs = true;
    prepared = instance_kernel(k, fmt::format("StridedSliceLoops<{}>", device_type_name<U>()), input.type());
  });
  return prepared;
}

}  // namespace dmo
