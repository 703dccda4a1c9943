// MEAN and SUM over constant axes, mirroring TFLM's reduce kernel
// (EvalMeanHelper and EvalSumHelper in reduce_common.cc) in the loads and
// stores of each path it selects. MEAN:
//  - FLOAT32, 4-D input, keep_dims, axis given exactly as {1, 2} or {2, 1}:
//    reference_ops::Mean for 4-D. Per (batch, channel) it sums height and
//    width in order and stores the one output element: the inputs of later
//    outputs lie beyond it, so the whole output may overlap the input.
//  - FLOAT32 otherwise: reference_ops::Mean<float, float> with the output as
//    its own sum buffer. It first zeroes every output element (twice: as
//    output and as sum), then walks the whole input in row-major order
//    adding each element onto its output element in place, then divides
//    each output element in place by the count. The reset comes before any
//    input read, so no byte of the output may overlap the input (O_s 0).
//  - INT8 and INT16 (and UINT8, which TFLite Micro lacks, the same way):
//    EvalIntegerMean -> reference_ops::QuantizedMeanOrSum, whatever the
//    quantization (also when input and output share scale and zero point;
//    older TFLM divided and truncated there). Output and an int32 sum
//    buffer (TFLM's scratch_accumulator_idx scratch, `sums` here) are
//    zeroed element by element, the input is summed into the scratch in
//    row-major order, then each output is one requantization whose
//    multiplier input_scale / output_scale has 1/count folded in, plus the
//    output zero point, saturated. The output is reset before any input
//    read: O_s 0.
// SUM:
//  - FLOAT32: reference_ops::ReduceGeneric<float>: every output element set
//    to 0 once, then the input walked in row-major order, each element
//    added onto its output element in place. O_s 0.
//  - INT8, INT16: QuantizedMeanOrSum with compute_sum: the MEAN path above
//    with the multiplier input_scale / output_scale left as it is.
// The nests are ops/eval/mean_loops.h's, up to 5-D as TFLM's.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

#include "../constant_operand.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/eval/mean_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// QuantizeMultiplier(input_scale / output_scale) with 1/count folded in, as
// QuantizedMeanOrSum does it (shift bounded so the multiplier stays exact).
QuantizedMultiplier mean_multiplier(QuantizedMultiplier m, int64_t count) {
  int shift = 63 - std::countl_zero(static_cast<uint64_t>(count));
  shift = std::min(shift, 32);
  shift = std::min(shift, 31 + m.shift);
  m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / count);
  m.shift -= shift;
  return m;
}

// MeanLoops with the sums it points to (TFLM's scratch buffer), shared by
// copies of the kernel as TFLM's one scratch buffer per op.
template <typename T>
struct MeanKernel {
  std::shared_ptr<int32_t[]> sums;
  MeanLoops<T> loops;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    loops.eval(io, mem);
  }
};

// A walk over `sizes` with `strides`, both given outermost first.
DimensionWalk dimension_walk(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  DimensionWalk walk;
  walk.rank = static_cast<int32_t>(sizes.size());
  std::copy(sizes.begin(), sizes.end(), walk.sizes);
  std::copy(strides.begin(), strides.end(), walk.strides);
  return walk;
}

// TFLM takes the 4-D path only for the axis values exactly as given.
bool axes_are_height_and_width(const std::vector<int64_t>& axes) {
  return axes.size() == 2 && ((axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1));
}

// MEAN, or SUM with `sum`.
PreparedKernel prepare_reduction(const OpContext& ctx, bool sum) {
  ctx.require(ctx.inputs.size() == 2, fmt::format("expected 2 inputs (input, axis), got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  ctx.require(std::holds_alternative<ReducerParams>(ctx.op->params), "ReducerOptions are missing");
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  const DataType type = input.type();
  // TFLM's SUM has no uint8 path; dmo's MEAN keeps one for uint8 models.
  ctx.require(type == DataType::kFloat32 || type == DataType::kInt8 || (!sum && type == DataType::kUInt8) ||
                  type == DataType::kInt16,
              fmt::format("input type {} is not supported; supported: FLOAT32, INT8, {}INT16", data_type_name(type),
                          sum ? "" : "UINT8, "));
  ctx.require(output.type() == type, fmt::format("output type {} differs from input type {}",
                                                 data_type_name(output.type()), data_type_name(type)));

  // Axes: negative ones count from the end, repeats count once.
  const int64_t rank = static_cast<int64_t>(input.rank());
  ctx.require(rank <= kMaxReduceRank,
              fmt::format("input is {}-D; supported: up to {}-D, as TFLM's reduce kernel", rank, kMaxReduceRank));
  const std::vector<int64_t> axes = constant_ints(ctx, 1, "axis", /*allow_int64=*/false);
  std::vector<bool> is_reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + rank : a;
    ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside a {}-D input", a, rank));
    is_reduced[static_cast<size_t>(axis)] = true;
  }

  // Input strides split by kept and reduced dimension, and each input
  // dimension's stride in the output (0 where it is reduced).
  std::vector<int64_t> kept_sizes, kept_strides, reduced_sizes, reduced_strides, input_sizes, output_strides;
  int64_t stride = 1, output_stride = 1;
  for (int64_t d = rank; d-- > 0;) {
    const int64_t size = input.dim(static_cast<size_t>(d));
    const bool reduces = is_reduced[static_cast<size_t>(d)];
    auto& sizes = reduces ? reduced_sizes : kept_sizes;
    auto& strides = reduces ? reduced_strides : kept_strides;
    sizes.insert(sizes.begin(), size);
    strides.insert(strides.begin(), stride);
    input_sizes.insert(input_sizes.begin(), size);
    output_strides.insert(output_strides.begin(), reduces ? 0 : output_stride);
    stride *= size;
    if (!reduces) output_stride *= size;
  }
  const DimensionWalk kept = dimension_walk(kept_sizes, kept_strides);
  const DimensionWalk reduced = dimension_walk(reduced_sizes, reduced_strides);
  ctx.require(kept.count() == output.elements(),
              fmt::format("output {} has {} elements, the kept dimensions of input {} give {}",
                          shape_to_string(output.shape()), output.elements(), shape_to_string(input.shape()),
                          kept.count()));

  const auto* params = std::get_if<ReducerParams>(&ctx.op->params);
  auto kernel = [&]<typename T>() {
    MeanKernel<T> k;
    MeanLoops<T>& m = k.loops;
    m.input_elements = input.elements();
    m.output_elements = output.elements();
    m.count = reduced.count();
    if (type == DataType::kFloat32 && sum) {
      m.path = kFloatSum;
    } else if (type == DataType::kFloat32) {
      const bool per_output = rank == 4 && params->keep_dims && axes_are_height_and_width(axes);
      m.path = per_output ? kFloatPerOutput : kFloatInOutput;
    } else {
      m.path = kRequantize;
      k.sums = std::make_shared<int32_t[]>(static_cast<size_t>(std::max<int64_t>(output.elements(), 1)));
      m.sums = ScratchWords{k.sums.get(), output.elements()};
    }
    if (m.count != 0 && type != DataType::kFloat32) {
      const Quantization& qi = input.tensor->quantization;
      const Quantization& qo = output.tensor->quantization;
      ctx.require(qi.scale.size() == 1 && qo.scale.size() == 1,
                  "input and output need per-tensor quantization (one scale each)");
      ctx.require(qi.scale[0] > 0 && qo.scale[0] > 0, "input and output scales must be positive");
      m.input_zero_point = qi.zero_point.empty() ? 0 : static_cast<int32_t>(qi.zero_point[0]);
      m.output_zero_point = qo.zero_point.empty() ? 0 : static_cast<int32_t>(qo.zero_point[0]);
      const QuantizedMultiplier rescale =
          quantize_multiplier(static_cast<double>(qi.scale[0]) / static_cast<double>(qo.scale[0]));
      m.multiplier = sum ? rescale : mean_multiplier(rescale, m.count);
    }
    m.kept = kept;
    m.reduced = reduced;
    m.output_of_input = dimension_walk(input_sizes, output_strides);
    const DeviceInstance instance = device_instance(fmt::format("MeanLoops<{}>", device_type_name<T>()), m);
    return instance_kernel_run_by(std::move(k), instance, type);
  };
  switch (type) {
    case DataType::kFloat32: return kernel.template operator()<float>();
    case DataType::kInt8: return kernel.template operator()<int8_t>();
    case DataType::kUInt8: return kernel.template operator()<uint8_t>();
    default: return kernel.template operator()<int16_t>();
  }
}

}  // namespace

PreparedKernel prepare_mean(const OpContext& ctx) { return prepare_reduction(ctx, false); }

PreparedKernel prepare_sum(const OpContext& ctx) { return prepare_reduction(ctx, true); }

}  // namespace dmo
