// The arithmetic of one output element of a conv-like op (CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED), separate from the loop nest so each
// kernel has one loop nest for all element types. Freestanding: the
// requantization is read from any struct with ConvRequantization's fields
// (the host's owns its multipliers, generated code points at a constant array). Both policies follow
// TFLite's reference kernels: accumulate input * filter products in the
// kernel's loop order, then add the bias, then scale and clamp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// float: total starts at 0.0f, bias (0.0f when absent) is added after the
// products, then min(max(x, lo), hi) as ActivationFunctionWithMinMax.
struct FloatConvArithmetic {
  using Input = float;
  using Filter = float;
  using Bias = float;
  using Output = float;
  using Accumulator = float;

  FloatRange range;

  Accumulator multiply_add(Accumulator total, Input input, Filter filter) const { return total + input * filter; }

  Output finish(Accumulator total, Bias bias, int32_t /*channel*/) const {
    return std::min(std::max(total + bias, range.min), range.max);
  }
};

// int8 / uint8: acc += (filter + filter_offset) * (input + input_offset) in
// 32 bits, + bias, MultiplyByQuantizedMultiplier, + output offset, clamp.
// Sums wrap as two's complement (TFLite's int32 arithmetic on its targets)
// instead of being undefined on overflow.
template <typename Quantized>
struct QuantizedConvArithmetic {
  using Input = Quantized;
  using Filter = Quantized;
  using Bias = int32_t;
  using Output = Quantized;
  using Accumulator = int32_t;

  int32_t input_offset;
  int32_t filter_offset;
  int32_t output_offset;
  const QuantizedMultiplier* multipliers;  // per output channel
  QuantizedRange range;

  template <class Requantization>
  explicit QuantizedConvArithmetic(const Requantization& q)
      : input_offset(q.input_offset),
        filter_offset(q.filter_offset),
        output_offset(q.output_offset),
        multipliers(q.multipliers.data()),
        range(q.range) {}

  static int32_t wrapping_add(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }

  Accumulator multiply_add(Accumulator acc, Input input, Filter filter) const {
    const int32_t product = (static_cast<int32_t>(filter) + filter_offset) * (static_cast<int32_t>(input) + input_offset);
    return wrapping_add(acc, product);
  }

  Output finish(Accumulator acc, Bias bias, int32_t channel) const {
    int32_t scaled = multiply_by_quantized_multiplier(wrapping_add(acc, bias), multipliers[channel]);
    scaled = wrapping_add(scaled, output_offset);
    scaled = std::max(scaled, range.min);
    scaled = std::min(scaled, range.max);
    return static_cast<Output>(scaled);
  }
};

// int16 activations with int8 filters ("16x8", TFLite's ConvPerChannel for
// int16): no zero points (TFLite quantizes int16 symmetrically, and the
// kernel ignores them); acc += filter * input in `Accumulate`, the bias's
// type (int64, or int32 for an int32 bias or none), + bias, then the
// MultiplyByQuantizedMultiplier overload of that type: the 64-bit one
// rounds the multiplier to 16 bits and shifts once, the 32-bit one is the
// int8 kernels'. Sums wrap as two's complement instead of being undefined.
template <typename Accumulate>
struct Conv16x8Arithmetic {
  static_assert(std::is_same_v<Accumulate, int32_t> || std::is_same_v<Accumulate, int64_t>);
  using Input = int16_t;
  using Filter = int8_t;
  using Bias = Accumulate;
  using Output = int16_t;
  using Accumulator = Accumulate;

  const QuantizedMultiplier* multipliers;  // per output channel
  QuantizedRange range;

  template <class Requantization>
  explicit Conv16x8Arithmetic(const Requantization& q) : multipliers(q.multipliers.data()), range(q.range) {}

  static Accumulator add(Accumulator a, Accumulator b) {
    if constexpr (std::is_same_v<Accumulate, int64_t>) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    } else {
      return QuantizedConvArithmetic<int8_t>::wrapping_add(a, b);
    }
  }

  Accumulator multiply_add(Accumulator acc, Input input, Filter filter) const {
    return add(acc, static_cast<int32_t>(filter) * static_cast<int32_t>(input));
  }

  Output finish(Accumulator acc, Bias bias, int32_t channel) const {
    int32_t scaled = 0;
    if constexpr (std::is_same_v<Accumulate, int64_t>) {
      scaled = multiply_by_quantized_multiplier_wide(acc + bias, multipliers[channel]);
    } else {
      scaled = multiply_by_quantized_multiplier(add(acc, bias), multipliers[channel]);
    }
    scaled = std::max(scaled, range.min);
    scaled = std::min(scaled, range.max);
    return static_cast<Output>(scaled);
  }
};

}  // namespace dmo
