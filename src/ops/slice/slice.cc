// SLICE with constant begin and size, mirroring TFLM's slice kernel
// (SlicePrepare, SliceEval, GetValidatedBeginAndSizeVectors) and
// reference_ops::Slice: the input is padded at the front to 5-D, each axis
// runs from begin to begin + size (size -1: to the end), and five nested
// loops write the output in order, each element loaded right before it is
// stored (SequentialTensorWriter::Write, no memcpy).
// TFLM runs FLOAT32, INT32, INT8, INT16 and BOOL with INT32 or INT64 begin
// and size (of one type) and up to 5-D inputs, and checks at eval that the
// slice lies inside the input and has the output's element count; dmo
// needs begin and size constant and checks the same in prepare.
#include <fmt/format.h>

#include <array>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr int kSliceRank = 5;

struct SliceKernel {
  std::array<int64_t, kSliceRank> dims{};  // the padded input shape
  std::array<int64_t, kSliceRank> start{}, stop{};
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    with_element_width(width, [&]<typename U>() {
      int64_t out = 0;
      for (int64_t i0 = start[0]; i0 < stop[0]; ++i0) {
        for (int64_t i1 = start[1]; i1 < stop[1]; ++i1) {
          for (int64_t i2 = start[2]; i2 < stop[2]; ++i2) {
            for (int64_t i3 = start[3]; i3 < stop[3]; ++i3) {
              const int64_t row = (((i0 * dims[1] + i1) * dims[2] + i2) * dims[3] + i3) * dims[4];
              for (int64_t i4 = start[4]; i4 < stop[4]; ++i4) {
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
  ctx.require(rank <= kSliceRank, fmt::format("input is {}-D; supported: up to {}-D", rank, kSliceRank));
  ctx.require(ctx.input(1).rank() == 1 && ctx.input(2).rank() == 1,
              fmt::format("begin and size must be 1-D, got shapes {} and {}", shape_to_string(ctx.input(1).shape()),
                          shape_to_string(ctx.input(2).shape())));
  const std::vector<int64_t> begin = constant_ints(ctx, 1, "begin");
  const std::vector<int64_t> size = constant_ints(ctx, 2, "size");
  ctx.require(begin.size() == static_cast<size_t>(rank) && size.size() == begin.size(),
              fmt::format("begin and size have {} and {} values for a {}-D input", begin.size(), size.size(), rank));

  SliceKernel k;
  const int pad = kSliceRank - rank;
  int64_t sliced = 1;
  for (int a = 0; a < kSliceRank; ++a) {
    const auto i = static_cast<size_t>(a);
    if (a < pad) {
      k.dims[i] = 1;
      k.start[i] = 0;
      k.stop[i] = 1;
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
    k.start[i] = begin[axis];
    k.stop[i] = begin[axis] + length;
    sliced *= length;
  }
  ctx.require(sliced == output.elements(), fmt::format("the slice has {} elements but output {} has {}", sliced,
                                                       shape_to_string(output.shape()), output.elements()));
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
