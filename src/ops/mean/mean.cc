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
//    buffer (TFLM's scratch_accumulator_idx scratch, `temp_sum` here) are
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
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <variant>
#include <vector>

#include "../constant_operand.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// Walks a row-major index over some dimensions of the input, giving the flat
// input offset of each position.
class DimensionWalk {
 public:
  DimensionWalk() = default;
  DimensionWalk(std::vector<int64_t> sizes, std::vector<int64_t> strides)
      : sizes_(std::move(sizes)), strides_(std::move(strides)), index_(sizes_.size(), 0) {
    for (int64_t s : sizes_) count_ *= s;
  }

  int64_t count() const { return count_; }
  int64_t offset() const { return offset_; }
  // Back to the first position, without allocating.
  void reset() {
    std::fill(index_.begin(), index_.end(), 0);
    offset_ = 0;
  }
  void next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      offset_ += strides_[d];
      if (++index_[d] < sizes_[d]) return;
      offset_ -= strides_[d] * sizes_[d];
      index_[d] = 0;
    }
  }

 private:
  std::vector<int64_t> sizes_, strides_, index_;
  int64_t count_ = 1;
  int64_t offset_ = 0;
};

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

// Which of TFLM's reference functions the op runs (see the file comment).
enum class MeanPath {
  kFloatPerOutput,   // reference_ops::Mean, 4-D over height and width
  kFloatInOutput,    // reference_ops::Mean<float, float>, summing in the output
  kRequantize,       // reference_ops::QuantizedMeanOrSum
  kFloatSum,         // reference_ops::ReduceGeneric<float>, SUM
};

// The prepared mean: the walks over the input and, for the integer types,
// the scratch sums and the requantization.
struct MeanKernel {
  DataType type = DataType::kFloat32;
  MeanPath path = MeanPath::kFloatInOutput;
  int64_t input_elements = 0, output_elements = 0;
  int64_t count = 0;  // input elements per output element
  // Positions walked while evaluating (TFLM keeps them in a temp_index
  // array): kept and reduced dimensions for the per-output path, and the
  // output element of each input element for the row-major input walk.
  mutable DimensionWalk kept, reduced, output_of_input;
  // TFLM's temp_buffer_idx scratch: one int32 sum per output element.
  mutable std::vector<int32_t> temp_sum;
  QuantizedMultiplier multiplier;  // kRequantize: input_scale / output_scale / count
  int32_t input_zero_point = 0, output_zero_point = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    switch (path) {
      case MeanPath::kFloatPerOutput: return float_per_output(io, mem);
      case MeanPath::kFloatInOutput: return float_in_output(io, mem);
      case MeanPath::kFloatSum: return float_sum(io, mem);
      case MeanPath::kRequantize:
        switch (type) {
          case DataType::kInt8: return integer_mean<int8_t>(io, mem);
          case DataType::kUInt8: return integer_mean<uint8_t>(io, mem);
          case DataType::kInt16: return integer_mean<int16_t>(io, mem);
          default: return;
        }
    }
  }

  template <class Memory>
  void float_per_output(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    kept.reset();
    for (int64_t o = 0; o < kept.count(); ++o, kept.next()) {
      reduced.reset();
      float sum = 0.0f;
      for (int64_t r = 0; r < count; ++r, reduced.next()) {
        sum += mem.template load<float>(input, kept.offset() + reduced.offset());
      }
      // TFLM divides by height * width even when that is 0.
      mem.template store<float>(output, o, sum / static_cast<float>(count));
    }
  }

  template <class Memory>
  void float_in_output(const KernelIO& io, Memory& mem) const {
    const TensorRef& output = io.output(0);
    for (int64_t o = 0; o < output_elements; ++o) {
      mem.template store<float>(output, o, 0.0f);  // the output
      mem.template store<float>(output, o, 0.0f);  // the same bytes as the sum buffer
    }
    add_input_onto_output(io, mem);
    if (count == 0) return;
    for (int64_t o = 0; o < output_elements; ++o) {
      mem.template store<float>(output, o, mem.template load<float>(output, o) / static_cast<float>(count));
    }
  }

  template <class Memory>
  void float_sum(const KernelIO& io, Memory& mem) const {
    const TensorRef& output = io.output(0);
    for (int64_t o = 0; o < output_elements; ++o) mem.template store<float>(output, o, 0.0f);
    add_input_onto_output(io, mem);
  }

  // The input in row-major order, each element added onto its output
  // element in place: the output element loaded, then the input element.
  template <class Memory>
  void add_input_onto_output(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    output_of_input.reset();
    for (int64_t i = 0; i < input_elements; ++i, output_of_input.next()) {
      const int64_t o = output_of_input.offset();
      const float current = mem.template load<float>(output, o);
      mem.template store<float>(output, o, current + mem.template load<float>(input, i));
    }
  }

  template <typename T, class Memory>
  void integer_mean(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    for (int64_t o = 0; o < output_elements; ++o) {
      mem.template store<T>(output, o, T{0});
      temp_sum[static_cast<size_t>(o)] = 0;
    }
    // An empty input leaves the zeroed output (TFLM returns here).
    if (input_elements == 0 || count == 0) return;
    output_of_input.reset();
    for (int64_t i = 0; i < input_elements; ++i, output_of_input.next()) {
      int32_t& sum = temp_sum[static_cast<size_t>(output_of_input.offset())];
      sum = fixed::wrapping_add(sum, mem.template load<T>(input, i));  // int32, wrapping as TFLM expects
    }
    const int32_t lo = std::numeric_limits<T>::min();
    const int32_t hi = std::numeric_limits<T>::max();
    for (int64_t o = 0; o < output_elements; ++o) {
      // The zero point times the count comes off in 64 bits, narrowed to int32.
      const auto shifted =
          static_cast<int32_t>(temp_sum[static_cast<size_t>(o)] - int64_t{input_zero_point} * count);
      int32_t value = multiply_by_quantized_multiplier(shifted, multiplier) + output_zero_point;
      value = std::min(std::max(value, lo), hi);
      mem.template store<T>(output, o, static_cast<T>(value));
    }
  }
};

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
  DimensionWalk kept(kept_sizes, kept_strides);
  DimensionWalk reduced(reduced_sizes, reduced_strides);
  ctx.require(kept.count() == output.elements(),
              fmt::format("output {} has {} elements, the kept dimensions of input {} give {}",
                          shape_to_string(output.shape()), output.elements(), shape_to_string(input.shape()),
                          kept.count()));

  const auto* params = std::get_if<ReducerParams>(&ctx.op->params);
  MeanKernel k;
  k.type = type;
  k.input_elements = input.elements();
  k.output_elements = output.elements();
  k.count = reduced.count();
  if (type == DataType::kFloat32 && sum) {
    k.path = MeanPath::kFloatSum;
  } else if (type == DataType::kFloat32) {
    const bool per_output = rank == 4 && params->keep_dims && axes_are_height_and_width(axes);
    k.path = per_output ? MeanPath::kFloatPerOutput : MeanPath::kFloatInOutput;
  } else {
    k.path = MeanPath::kRequantize;
    k.temp_sum.resize(static_cast<size_t>(output.elements()));
  }
  if (k.count != 0 && type != DataType::kFloat32) {
    const Quantization& qi = input.tensor->quantization;
    const Quantization& qo = output.tensor->quantization;
    ctx.require(qi.scale.size() == 1 && qo.scale.size() == 1,
                "input and output need per-tensor quantization (one scale each)");
    ctx.require(qi.scale[0] > 0 && qo.scale[0] > 0, "input and output scales must be positive");
    k.input_zero_point = qi.zero_point.empty() ? 0 : static_cast<int32_t>(qi.zero_point[0]);
    k.output_zero_point = qo.zero_point.empty() ? 0 : static_cast<int32_t>(qo.zero_point[0]);
    const QuantizedMultiplier rescale =
        quantize_multiplier(static_cast<double>(qi.scale[0]) / static_cast<double>(qo.scale[0]));
    k.multiplier = sum ? rescale : mean_multiplier(rescale, k.count);
  }
  k.kept = std::move(kept);
  k.reduced = std::move(reduced);
  k.output_of_input = DimensionWalk(std::move(input_sizes), std::move(output_strides));
  return PreparedKernel::of(std::move(k));
}

}  // namespace

PreparedKernel prepare_mean(const OpContext& ctx) { return prepare_reduction(ctx, false); }

PreparedKernel prepare_sum(const OpContext& ctx) { return prepare_reduction(ctx, true); }

}  // namespace dmo
