// REVERSE_V2 along a run of contiguous axes, mirroring TFLM's reverse kernel
// (ReverseV2Prepare, ReverseV2Eval) and reference_ops::Reverse: the axes
// (INT32, negative counting from the end) are sorted and must be
// contiguous. Reversing every axis is one std::reverse_copy: the output
// walked ascending, the input descending, element by element. Otherwise,
// with the axes after the reversed ones holding more than one element, each
// such run is moved with one memcpy (a block copy, ops/block_copy.h: each
// run's destination must lie wholly below its source); with none after
// them, each reversed block is a
// reverse_copy of its own.
// TFLM runs INT32, FLOAT32, UINT8, INT8, INT16, INT64 and BOOL, up to 6-D
// (RuntimeShape's small size). It reads the axes at eval; dmo needs them
// constant, and at least one (TFLM reads before its array without one).
#include <fmt/format.h>

#include <algorithm>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr int kMaxReverseRank = 6;

struct ReverseKernel {
  bool whole = false;     // every axis reversed
  int64_t upper = 1;      // elements before the reversed axes
  int64_t middle = 1;     // the reversed axes
  int64_t lower = 1;      // after them
  int64_t elements = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    with_element_width(width, [&]<typename U>() {
      if (whole) {
        reverse_copy<U>(mem, input, output, 0, elements);
        return;
      }
      if (lower > 1) {
        for (int64_t i = 0; i < upper; ++i) {
          for (int64_t j = 0; j < middle; ++j) {
            mem.template copy<U>(output, (i * middle + (middle - j - 1)) * lower, input, (i * middle + j) * lower,
                                 lower);
          }
        }
        return;
      }
      for (int64_t i = 0; i < upper; ++i) reverse_copy<U>(mem, input, output, i * middle, middle);
    });
  }

  // std::reverse_copy of [first, first + count): the output ascending, the
  // input from its last element down.
  template <typename U, class Memory>
  static void reverse_copy(Memory& mem, const TensorRef& input, const TensorRef& output, int64_t first,
                           int64_t count) {
    for (int64_t k = 0; k < count; ++k) {
      mem.template store<U>(output, first + k, mem.template load<U>(input, first + count - 1 - k));
    }
  }
};

}  // namespace

PreparedKernel prepare_reverse_v2(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  require_type_among(ctx, "input", input.type(),
                     {DataType::kInt32, DataType::kFloat32, DataType::kUInt8, DataType::kInt8, DataType::kInt16,
                      DataType::kInt64, DataType::kBool});
  require_output_type_matches_input(ctx);
  ctx.require(ctx.output(0).shape() == input.shape(),
              fmt::format("output shape {} differs from the input's {}", shape_to_string(ctx.output(0).shape()),
                          shape_to_string(input.shape())));
  const int64_t rank = static_cast<int64_t>(input.rank());
  ctx.require(rank <= kMaxReverseRank, fmt::format("input is {}-D; supported: up to {}-D", rank, kMaxReverseRank));
  ctx.require(ctx.input(1).rank() == 1,
              fmt::format("axis (input 1) must be 1-D, got shape {}", shape_to_string(ctx.input(1).shape())));
  std::vector<int64_t> axes = constant_ints(ctx, 1, "axis", /*allow_int64=*/false);
  ctx.require(!axes.empty(), "axis holds no values; at least one axis must be reversed");
  ctx.require(static_cast<int64_t>(axes.size()) <= rank,
              fmt::format("axis holds {} values for a {}-D input", axes.size(), rank));
  for (int64_t& a : axes) {
    const int64_t given = a;
    if (a < 0) a += rank;
    ctx.require(a >= 0 && a < rank, fmt::format("axis {} is outside the {}-D input", given, rank));
  }
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i) {
    ctx.require(axes[i - 1] + 1 == axes[i], "the axes are not contiguous (TFLM reverses contiguous axes only)");
  }
  ReverseKernel k;
  const int64_t low = axes.front(), high = axes.back();
  k.whole = low == 0 && high == rank - 1;
  for (int64_t d = 0; d < low; ++d) k.upper *= input.dim(static_cast<size_t>(d));
  for (int64_t d = low; d <= high; ++d) k.middle *= input.dim(static_cast<size_t>(d));
  for (int64_t d = high + 1; d < rank; ++d) k.lower *= input.dim(static_cast<size_t>(d));
  k.elements = input.elements();
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
