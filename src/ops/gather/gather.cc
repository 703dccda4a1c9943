// GATHER along one axis, mirroring TFLM's gather kernel (GatherPrepare,
// GatherEval, Gather<InputT, CoordsT>; the nest is ops/eval/gather_loops.h):
// for each batch, outer index and position, the position is loaded from
// the indices, checked, and the addressed run of the input (the axes after
// `axis`) is copied to the next run of the output with one memcpy, here a
// block copy (ops/block_copy.h): its order is unspecified, so an output
// over the input may overlap it only as far as every run's copy lands
// wholly below its source and no earlier copy lands on a run read later,
// while over the indices it may run ahead of the loads.
// The address-only policy loads 0 for every index, the lowest source, the
// worst any index can do, so that O_s holds whatever the indices hold.
// TFLM runs FLOAT32 and INT8 inputs with INT32 indices. The indices are
// data, so their range is checked where TFLM checks it, at eval: an index
// outside the axis stops the op with an error naming it (the reader checks
// constant indices once, when the model is read; see ops/loaded_index_check.h
// for a checked run).
#include <fmt/format.h>

#include <variant>

#include "../element_width.h"
#include "../elementwise.h"
#include "../instance_kernel.h"
#include "../loaded_index_check.h"
#include "../supported_types.h"
#include "dmo/error.h"
#include "dmo/ops/eval/gather_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// The host runs the nest with TFLM's error for an index outside the axis.
template <typename U>
struct GatherKernel {
  GatherLoops<U> loops;
  std::string op_label;  // "op 3 (GATHER)", for the eval-time range check

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    loops.eval(io, mem, [&](int32_t index, int64_t at) {
      if (clobber_recorded(mem)) return;  // read after a clobber (ops/loaded_index_check.h)
      throw Error(fmt::format("{}: index {} (element {} of input 1) is outside the gathered axis of size {}",
                              op_label, index, at, loops.shape.axis_size));
    });
  }
};

}  // namespace

PreparedKernel prepare_gather(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& indices = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "indices (input 1)", indices.type(), {DataType::kInt32});
  require_type_among(ctx, "input", input.type(), {DataType::kFloat32, DataType::kInt8});
  require_output_type_matches_input(ctx);
  const auto* params = std::get_if<GatherParams>(&ctx.op->params);
  const GatherParams p = params ? *params : GatherParams{};

  const int64_t rank = static_cast<int64_t>(input.rank());
  const int64_t indices_rank = static_cast<int64_t>(indices.rank());
  const int64_t axis = p.axis < 0 ? p.axis + rank : p.axis;
  ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside the {}-D input", p.axis, rank));
  const int64_t batch_dims = p.batch_dims < 0 ? p.batch_dims + indices_rank : p.batch_dims;
  ctx.require(batch_dims >= 0 && batch_dims < rank && batch_dims <= indices_rank,
              fmt::format("batch_dims {} is outside 0..{} for a {}-D input and {}-D indices", p.batch_dims,
                          std::min(rank - 1, indices_rank), rank, indices_rank));
  ctx.require(batch_dims <= axis, fmt::format("batch_dims {} is beyond axis {}", batch_dims, axis));
  for (int64_t i = 0; i < batch_dims; ++i) {
    const auto d = static_cast<size_t>(i);
    ctx.require(input.dim(d) == indices.dim(d),
                fmt::format("batch dimension {} is {} in the input but {} in the indices", i, input.dim(d),
                            indices.dim(d)));
  }

  GatherShape k;
  k.op = ctx.op_index;
  for (int64_t i = 0; i < batch_dims; ++i) k.batches *= input.dim(static_cast<size_t>(i));
  for (int64_t i = batch_dims; i < axis; ++i) k.outer *= input.dim(static_cast<size_t>(i));
  for (int64_t i = axis + 1; i < rank; ++i) k.inner *= input.dim(static_cast<size_t>(i));
  for (int64_t i = batch_dims; i < indices_rank; ++i) k.positions *= indices.dim(static_cast<size_t>(i));
  k.axis_size = input.dim(static_cast<size_t>(axis));

  Shape expected;
  for (int64_t i = 0; i < axis; ++i) expected.push_back(input.dim(static_cast<size_t>(i)));
  for (int64_t i = batch_dims; i < indices_rank; ++i) expected.push_back(indices.dim(static_cast<size_t>(i)));
  for (int64_t i = axis + 1; i < rank; ++i) expected.push_back(input.dim(static_cast<size_t>(i)));
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} differs from the gathered shape {}", shape_to_string(output.shape()),
                          shape_to_string(expected)));
  // With an empty axis every index is out of range: refuse it here, so eval
  // (and the address-only policy, whose loads read 0) never meets one.
  ctx.require(k.axis_size > 0 || k.batches * k.outer * k.positions == 0,
              fmt::format("axis {} of the input is empty, so no index addresses it", axis));
  const std::string op_label = fmt::format("op {} ({})", ctx.op_index, ctx.op->name());
  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    const GatherLoops<U> loops{k};
    prepared = instance_kernel_run_by(GatherKernel<U>{loops, op_label},
                                      device_instance(fmt::format("GatherLoops<{}>", device_type_name<U>()), loops),
                                      input.type());
  });
  return prepared;
}

}  // namespace dmo
