// SLICE with constant begin and size, mirroring TFLM's slice kernel
// (SlicePrepare, SliceEval, GetValidatedBeginAndSizeVectors) and
// reference_ops::Slice: the input is padded at the front to 5-D, each axis
// runs from begin to begin + size (size -1: to the end), and five nested
// loops write the output in order, each element loaded right before it is
// stored (SequentialTensorWriter::Write, no memcpy; the nest is
// ops/eval/strided_slice_loops.h without block runs).
// TFLM runs FLOAT32, INT32, INT8, INT16 and BOOL with INT32 or INT64 begin
// and size (of one type) and up to 5-D inputs, and checks at eval that the
// slice lies inside the input and has the output's element count; dmo
// needs begin and size constant and checks the same in prepare.
#include <fmt/format.h>

#include <algorithm>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../instance_kernel.h"
#include "../supported_types.h"
#include "dmo/ops/eval/strided_slice_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_slice(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(),
                     {DataType::kFloat32, DataType::kInt32, DataType::kInt8, DataType::kInt16, DataType::kBool});
  require_output_type_matches_input(ctx);
  ctx.require(ctx.input(1).type() == ctx.input(2).type(),
              fmt::format("begin is {} but size is {}; they must have one type", data_type_name(ctx.input(1).type()),
                          data_type_name(ctx.input(2).type())));
  const int rank = static_cast<int>(input.rank());
  ctx.require(rank <= kStridedSliceRank, fmt::format("input is {}-D; supported: up to {}-D", rank, kStridedSliceRank));
  ctx.require(ctx.input(1).rank() == 1 && ctx.input(2).rank() == 1,
              fmt::format("begin and size must be 1-D, got shapes {} and {}", shape_to_string(ctx.input(1).shape()),
                          shape_to_string(ctx.input(2).shape())));
  const std::vector<int64_t> begin = constant_ints(ctx, 1, "begin");
  const std::vector<int64_t> size = constant_ints(ctx, 2, "size");
  ctx.require(begin.size() == static_cast<size_t>(rank) && size.size() == begin.size(),
              fmt::format("begin and size have {} and {} values for a {}-D input", begin.size(), size.size(), rank));

  StridedSliceLoops<uint8_t> k;  // the walk; its element width is chosen below
  const int pad = kStridedSliceRank - rank;
  int64_t sliced = 1;
  for (int a = 0; a < kStridedSliceRank; ++a) {
    const auto i = static_cast<size_t>(a);
    if (a < pad) {
      k.dims[i] = 1;
      k.axes[i] = SliceAxis{0, 1, 1};
      continue;
    }
    const auto axis = static_cast<size_t>(a - pad);
    const int64_t extent = input.dim(axis);
    ctx.require(begin[axis] >= 0 && begin[axis] <= extent,
                fmt::format("begin {} of axis {} is outside 0..{}", begin[axis], axis, extent));
    const int64_t length = size[axis] == -1 ? extent - begin[axis] : size[axis];
    ctx.require(length >= 0 && length <= extent - begin[axis],
                fmt::format("size {} of axis {} does not fit from begin {} in {}", size[axis], axis, begin[axis],
                            extent));
    k.dims[i] = extent;
    k.axes[i] = SliceAxis{begin[axis], begin[axis] + length, 1};
    sliced *= length;
  }
  ctx.require(sliced == output.elements(), fmt::format("the slice has {} elements but output {} has {}", sliced,
                                                       shape_to_string(output.shape()), output.elements()));
  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    StridedSliceLoops<U> typed;
    std::copy(k.dims, k.dims + kStridedSliceRank, typed.dims);
    std::copy(k.axes, k.axes + kStridedSliceRank, typed.axes);
    prepared = instance_kernel(typed, fmt::format("StridedSliceLoops<{}>", device_type_name<U>()), input.type());
  });
  return prepared;
}

}  // namespace dmo
