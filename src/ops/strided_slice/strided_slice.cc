// STRIDED_SLICE with constant begin/end/strides, mirroring TFLM's
// reference_ops::StridedSlice (every type): the shape is padded at the front to 5-D (padded axes take
// everything), each axis gets a start and a stop from StridedSliceStartForAxis
// and StridedSliceEndForAxis (negative indices count from the end, the masks
// override, shrink_axis takes one element; `offset` is ignored, as TFLM's
// BuildStridedSliceParams never sets it), then five nested loops write the output in order. When the
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
#include "dmo/model/data_type.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr int kSliceRank = 5;

struct AxisRange {
  int64_t start = 0, stop = 0, stride = 1;

  // Elements the loop `for (i = start; stride > 0 ? i < stop : i > stop; i += stride)` visits.
  int64_t count() const {
    const int64_t span = stride > 0 ? stop - start : start - stop;
    const int64_t step = stride > 0 ? stride : -stride;
    return span <= 0 ? 0 : (span + step - 1) / step;
  }
};

int64_t clamp_index(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

// strided_slice::StridedSliceStartForAxis and StridedSliceEndForAxis.
AxisRange axis_range(int64_t size, int64_t begin, int64_t end, int64_t stride, bool begin_mask, bool end_mask,
                     bool shrink) {
  AxisRange r;
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

// The prepared slice: the 5-D input dimensions and each axis's range.
struct StridedSliceKernel {
  std::array<int64_t, kSliceRank> dims{};
  std::array<AxisRange, kSliceRank> ranges{};
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    auto in_range = [](int64_t i, const AxisRange& r) { return r.stride > 0 ? i < r.stop : i > r.stop; };
    with_element_width(width, [&]<typename U>() {
      int64_t out = 0;
      for (int64_t i0 = ranges[0].start; in_range(i0, ranges[0]); i0 += ranges[0].stride) {
        for (int64_t i1 = ranges[1].start; in_range(i1, ranges[1]); i1 += ranges[1].stride) {
          for (int64_t i2 = ranges[2].start; in_range(i2, ranges[2]); i2 += ranges[2].stride) {
            for (int64_t i3 = ranges[3].start; in_range(i3, ranges[3]); i3 += ranges[3].stride) {
              const int64_t row = (((i0 * dims[1] + i1) * dims[2] + i2) * dims[3] + i3) * dims[4];
              if (ranges[4].stride == 1) {
                const int64_t length = ranges[4].stop - ranges[4].start;
                if (length > 0) mem.template copy<U>(output, out, input, row + ranges[4].start, length);
                out += std::max<int64_t>(length, 0);
                continue;
              }
              for (int64_t i4 = ranges[4].start; in_range(i4, ranges[4]); i4 += ranges[4].stride) {
                mem.template store<U>(output, out++, mem.template load<U>(input, row + i4));
              }
            }
          }
        }
      }
    });
  }
};

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
  ctx.require(rank >= 1 && rank <= kSliceRank, fmt::format("input is {}-D; supported: 1-D to 5-D", rank));
  const std::vector<int64_t> begin = constant_ints(ctx, 1, "begin");
  const std::vector<int64_t> end = constant_ints(ctx, 2, "end");
  const std::vector<int64_t> strides = constant_ints(ctx, 3, "strides");
  ctx.require(begin.size() == static_cast<size_t>(rank) && end.size() == begin.size() &&
                  strides.size() == begin.size(),
              fmt::format("begin, end and strides have {}, {} and {} values for a {}-D input", begin.size(),
                          end.size(), strides.size(), rank));

  // Pad to 5-D at the front; padded axes have size 1 and take their element.
  const int pad = kSliceRank - rank;
  std::array<int64_t, kSliceRank> dims{};
  std::array<AxisRange, kSliceRank> ranges{};
  Shape expected_shape;
  for (int a = 0; a < kSliceRank; ++a) {
    if (a < pad) {
      dims[a] = 1;
      ranges[a] = AxisRange{0, 1, 1};
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

  StridedSliceKernel k;
  k.width = element_width(ctx, input.type());
  k.dims = dims;
  k.ranges = ranges;
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
