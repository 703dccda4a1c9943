// TILE with constant multipliers. TFLM has no TILE kernel, so this mirrors
// TFLite's reference kernel (tile.cc: Tile, TileOneDimension,
// CopyMultipleTimes): recursively from the outermost axis, each innermost
// row of the input is copied to the output and then repeated, and each
// outer block, once tiled below, is repeated by copying it from the output
// to the output right after it. Every copy is a std::copy of trivially
// copyable elements, a memmove, here a block copy (ops/block_copy.h): an
// output over the input may overlap it only as far as every copy from the
// input lands wholly below its source.
// TFLite runs FLOAT32, INT8, UINT8, INT32, INT64 and BOOL with INT32 or
// INT64 multipliers; a scalar input is copied once, an empty output is left
// untouched.
#include <fmt/format.h>

#include <utility>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct TileKernel {
  std::vector<int64_t> dims;         // the input's shape
  std::vector<int64_t> multipliers;  // per axis
  int64_t output_elements = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    if (output_elements == 0) return;
    with_element_width(width, [&]<typename U>() {
      if (dims.empty()) {
        mem.template store<U>(io.output(0), 0, mem.template load<U>(io.input(0), 0));
        return;
      }
      tile_axis<U>(io, mem, 0, 0, 0);
    });
  }

  // Tiles the block of axis `axis` that starts at input element `in` into
  // the output from element `out`; returns the elements read and written.
  template <typename U, class Memory>
  std::pair<int64_t, int64_t> tile_axis(const KernelIO& io, Memory& mem, size_t axis, int64_t in,
                                        int64_t out) const {
    const int64_t extent = dims[axis];
    if (axis + 1 == dims.size()) {
      repeat<U>(mem, io.input(0), in, io.output(0), out, extent, multipliers[axis]);
      return {extent, extent * multipliers[axis]};
    }
    int64_t read = 0, written = 0;
    for (int64_t i = 0; i < extent; ++i) {
      const auto [r, w] = tile_axis<U>(io, mem, axis + 1, in + read, out + written);
      read += r;
      written += w;
    }
    repeat<U>(mem, io.output(0), out, io.output(0), out + written, written, multipliers[axis] - 1);
    return {read, written * multipliers[axis]};
  }

  // CopyMultipleTimes: `count` elements copied `times` times, each copy
  // taken from the one before it.
  template <typename U, class Memory>
  static void repeat(Memory& mem, const TensorRef& from, int64_t from_index, const TensorRef& output,
                     int64_t to_index, int64_t count, int64_t times) {
    const TensorRef* source = &from;
    for (int64_t t = 0; t < times; ++t) {
      mem.template copy<U>(output, to_index, *source, from_index, count);
      source = &output;
      from_index = to_index;
      to_index += count;
    }
  }
};

}  // namespace

PreparedKernel prepare_tile(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(),
                     {DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64,
                      DataType::kBool});
  require_output_type_matches_input(ctx);
  const std::vector<int64_t> multipliers = constant_ints(ctx, 1, "multipliers");
  ctx.require(multipliers.size() == input.rank(),
              fmt::format("multipliers has {} values for a {}-D input", multipliers.size(), input.rank()));
  Shape expected;
  for (size_t d = 0; d < multipliers.size(); ++d) {
    ctx.require(multipliers[d] >= 0, fmt::format("multiplier {} of axis {} is negative", multipliers[d], d));
    expected.push_back(static_cast<int32_t>(input.dim(d) * multipliers[d]));
    ctx.require(expected.back() == input.dim(d) * multipliers[d],
                fmt::format("axis {} tiled {} times is too large", d, multipliers[d]));
  }
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} differs from the tiled shape {}", shape_to_string(output.shape()),
                          shape_to_string(expected)));
  TileKernel k;
  k.dims.assign(input.shape().begin(), input.shape().end());
  k.multipliers = multipliers;
  k.output_elements = output.elements();
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
