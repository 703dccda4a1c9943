// GATHER_ND, mirroring TFLM's gather_nd kernel (Prepare, EvalGatherNd,
// GatherNd<ParamsT, IndicesT>): the indices' last axis holds a coordinate
// into the leading axes of the params; for each coordinate in turn its
// values are loaded, the addressed slice (the params' remaining axes) is
// checked to lie inside the params and copied to the next slice of the
// output with one memcpy, here a block copy (ops/block_copy.h): an output
// over the params may overlap only as far as every slice's copy lands
// wholly below its source and no earlier copy lands on a slice read later;
// over the indices it may run ahead of the loads.
// The address-only policy loads 0 for every index, the lowest source, the
// worst any index can do, so that O_s holds whatever the indices hold.
// TFLM runs FLOAT32 and INT8 params with INT32 indices whose last axis is
// at most 5 and at most the params' rank. The indices are data, so the
// range is checked where TFLM checks it, at eval, and stops the op with an
// error naming the coordinate (see ops/loaded_index_check.h for a checked
// run).
#include <fmt/format.h>

#include <array>

#include "../element_width.h"
#include "../loaded_index_check.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/error.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr int kMaxIndexDepth = 5;

struct GatherNdKernel {
  int64_t slices = 1;      // coordinates
  int64_t depth = 0;       // values per coordinate
  int64_t slice_size = 1;  // elements per slice
  int64_t params_elements = 0;
  std::array<int64_t, kMaxIndexDepth> strides{};  // elements per step of each indexed axis
  ElementWidth width = ElementWidth::k1;
  std::string op_label;  // "op 3 (GATHER_ND)", for the eval-time range check

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& params = io.input(0);
    const TensorRef& indices = io.input(1);
    const TensorRef& output = io.output(0);
    with_element_width(width, [&]<typename U>() {
      for (int64_t i = 0; i < slices; ++i) {
        int64_t from = 0;
        for (int64_t j = 0; j < depth; ++j) {
          from += int64_t{mem.template load<int32_t>(indices, i * depth + j)} * strides[static_cast<size_t>(j)];
        }
        if (from < 0 || from + slice_size > params_elements) {
          if (clobber_recorded(mem)) continue;  // read after a clobber (ops/loaded_index_check.h)
          fail_coordinate(i, from);
        }
        mem.template copy<U>(output, i * slice_size, params, from, slice_size);
      }
    });
  }

  [[noreturn]] void fail_coordinate(int64_t slice, int64_t from) const {
    throw Error(fmt::format("{}: coordinate {} of input 1 addresses element {}, outside the {} elements of input 0",
                            op_label, slice, from, params_elements));
  }
};

}  // namespace

PreparedKernel prepare_gather_nd(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& params = ctx.input(0);
  const TensorRef& indices = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "params (input 0)", params.type(), {DataType::kFloat32, DataType::kInt8});
  require_type_among(ctx, "indices (input 1)", indices.type(), {DataType::kInt32});
  ctx.require(output.type() == params.type(), fmt::format("output type {} differs from the params' {}",
                                                          data_type_name(output.type()),
                                                          data_type_name(params.type())));
  const int64_t params_rank = static_cast<int64_t>(params.rank());
  const int64_t indices_rank = static_cast<int64_t>(indices.rank());
  ctx.require(params_rank >= 1, "params (input 0) must be at least 1-D");
  ctx.require(indices_rank >= 1, "indices (input 1) must be at least 1-D");
  const int64_t depth = indices.dim(static_cast<size_t>(indices_rank - 1));
  ctx.require(depth <= params_rank,
              fmt::format("the indices' last axis is {}, more than the params' rank {}", depth, params_rank));
  ctx.require(depth <= kMaxIndexDepth,
              fmt::format("the indices' last axis is {}; supported: up to {}", depth, kMaxIndexDepth));

  GatherNdKernel k;
  k.depth = depth;
  for (int64_t i = 0; i < indices_rank - 1; ++i) k.slices *= indices.dim(static_cast<size_t>(i));
  for (int64_t i = depth; i < params_rank; ++i) k.slice_size *= params.dim(static_cast<size_t>(i));
  k.params_elements = params.elements();
  int64_t remaining = k.params_elements;
  for (int64_t i = 0; i < depth; ++i) {
    const int64_t extent = params.dim(static_cast<size_t>(i));
    remaining = extent == 0 ? 0 : remaining / extent;
    k.strides[static_cast<size_t>(i)] = remaining;
  }
  Shape expected;
  for (int64_t i = 0; i < indices_rank - 1; ++i) expected.push_back(indices.dim(static_cast<size_t>(i)));
  for (int64_t i = depth; i < params_rank; ++i) expected.push_back(params.dim(static_cast<size_t>(i)));
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} differs from the gathered shape {}", shape_to_string(output.shape()),
                          shape_to_string(expected)));
  // Empty params leave no slice to address: refuse it here, so eval (and the
  // address-only policy, whose loads read 0) never meets a bad coordinate.
  ctx.require(k.slice_size <= k.params_elements || k.slices == 0,
              "input 0 is empty, so no coordinate addresses it");
  k.width = element_width(ctx, params.type());
  k.op_label = fmt::format("op {} ({})", ctx.op_index, ctx.op->name());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
