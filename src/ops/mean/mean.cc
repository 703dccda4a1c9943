// MEAN over constant axes, mirroring TFLM's reduce kernel: reference_ops::Mean
// (FLOAT32) and reference_ops::QuantizedMeanOrSum (INT8, INT16).
//  - FLOAT32: a float sum in the input's row-major order, divided by the
//    element count as a float (the 4-D keep_dims special case over height
//    and width sums in the same order and gives the same floats).
//  - INT8, INT16 (and UINT8, which TFLite Micro lacks, the same way): an
//    int32 sum, the input zero point times the count taken off, then one
//    requantization whose multiplier input_scale / output_scale has 1/count
//    folded in (reference_ops::QuantizedMeanOrSum), plus the output zero
//    point, saturated.
// Each output element (row-major over the kept dimensions) is stored once,
// after loading its inputs in row-major order of the reduced dimensions.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <variant>
#include <vector>

#include "../constant_operand.h"
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

// The prepared mean: the walks over kept and reduced dimensions and, for
// the integer types, the requantization.
struct MeanKernel {
  DataType type = DataType::kFloat32;
  int64_t output_elements = 0;
  // Positions walked while evaluating (TFLM keeps them in a temp_index array).
  mutable DimensionWalk kept, reduced;
  QuantizedMultiplier multiplier;  // integer types: input_scale / output_scale / count
  int32_t input_zero_point = 0, output_zero_point = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& output = io.output(0);
    if (reduced.count() == 0) {
      // Nothing to average: TFLite leaves the zero it initialised the output with.
      for (int64_t o = 0; o < output_elements; ++o) {
        switch (type) {
          case DataType::kFloat32: mem.template store<float>(output, o, 0.0f); break;
          case DataType::kInt16: mem.template store<int16_t>(output, o, 0); break;
          default: mem.template store<uint8_t>(output, o, 0); break;
        }
      }
      return;
    }
    switch (type) {
      case DataType::kFloat32: return float_mean(io, mem);
      case DataType::kInt8: return quantized_mean<int8_t>(io, mem);
      case DataType::kUInt8: return quantized_mean<uint8_t>(io, mem);
      case DataType::kInt16: return quantized_mean<int16_t>(io, mem);
      default: break;
    }
  }

  template <typename T, class Memory>
  void quantized_mean(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t count = reduced.count();
    const int32_t lo = std::numeric_limits<T>::min();
    const int32_t hi = std::numeric_limits<T>::max();

    kept.reset();
    for (int64_t o = 0; o < kept.count(); ++o, kept.next()) {
      reduced.reset();
      int64_t sum = 0;
      for (int64_t r = 0; r < count; ++r, reduced.next()) {
        sum += mem.template load<T>(input, kept.offset() + reduced.offset());
      }
      // TFLite sums in int32 (wrapping); the shifted sum is narrowed to int32 too.
      const auto shifted = static_cast<int32_t>(static_cast<int32_t>(sum) - int64_t{input_zero_point} * count);
      int32_t value = multiply_by_quantized_multiplier(shifted, multiplier) + output_zero_point;
      value = std::min(std::max(value, lo), hi);
      mem.template store<T>(output, o, static_cast<T>(value));
    }
  }

  template <class Memory>
  void float_mean(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t count = reduced.count();
    kept.reset();
    for (int64_t o = 0; o < kept.count(); ++o, kept.next()) {
      reduced.reset();
      float sum = 0.0f;
      for (int64_t r = 0; r < count; ++r, reduced.next()) {
        sum += mem.template load<float>(input, kept.offset() + reduced.offset());
      }
      mem.template store<float>(output, o, sum / static_cast<float>(count));
    }
  }
};

}  // namespace

PreparedKernel prepare_mean(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 2, fmt::format("expected 2 inputs (input, axis), got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  ctx.require(std::holds_alternative<ReducerParams>(ctx.op->params), "ReducerOptions are missing");
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  const DataType type = input.type();
  ctx.require(type == DataType::kFloat32 || type == DataType::kInt8 || type == DataType::kUInt8 ||
                  type == DataType::kInt16,
              fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8, INT16",
                          data_type_name(type)));
  ctx.require(output.type() == type, fmt::format("output type {} differs from input type {}",
                                                 data_type_name(output.type()), data_type_name(type)));

  // Axes: negative ones count from the end, repeats count once.
  const int64_t rank = static_cast<int64_t>(input.rank());
  std::vector<bool> is_reduced(static_cast<size_t>(rank), false);
  for (int64_t a : constant_ints(ctx, 1, "axis", /*allow_int64=*/false)) {
    const int64_t axis = a < 0 ? a + rank : a;
    ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside a {}-D input", a, rank));
    is_reduced[static_cast<size_t>(axis)] = true;
  }

  std::vector<int64_t> kept_sizes, kept_strides, reduced_sizes, reduced_strides;
  int64_t stride = 1;
  for (int64_t d = rank; d-- > 0;) {
    const int64_t size = input.dim(static_cast<size_t>(d));
    auto& sizes = is_reduced[static_cast<size_t>(d)] ? reduced_sizes : kept_sizes;
    auto& strides = is_reduced[static_cast<size_t>(d)] ? reduced_strides : kept_strides;
    sizes.insert(sizes.begin(), size);
    strides.insert(strides.begin(), stride);
    stride *= size;
  }
  DimensionWalk kept(kept_sizes, kept_strides);
  DimensionWalk reduced(reduced_sizes, reduced_strides);
  ctx.require(kept.count() == output.elements(),
              fmt::format("output {} has {} elements, the kept dimensions of input {} give {}",
                          shape_to_string(output.shape()), output.elements(), shape_to_string(input.shape()),
                          kept.count()));

  MeanKernel k;
  k.type = type;
  k.output_elements = output.elements();
  if (reduced.count() != 0 && type != DataType::kFloat32) {
    const Quantization& qi = input.tensor->quantization;
    const Quantization& qo = output.tensor->quantization;
    ctx.require(qi.scale.size() == 1 && qo.scale.size() == 1,
                "input and output need per-tensor quantization (one scale each)");
    ctx.require(qi.scale[0] > 0 && qo.scale[0] > 0, "input and output scales must be positive");
    k.input_zero_point = qi.zero_point.empty() ? 0 : static_cast<int32_t>(qi.zero_point[0]);
    k.output_zero_point = qo.zero_point.empty() ? 0 : static_cast<int32_t>(qo.zero_point[0]);
    k.multiplier = mean_multiplier(
        quantize_multiplier(static_cast<double>(qi.scale[0]) / static_cast<double>(qo.scale[0])), reduced.count());
  }
  k.kept = std::move(kept);
  k.reduced = std::move(reduced);
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
