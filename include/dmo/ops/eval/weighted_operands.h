// The operands of a weighted op (CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED) in TFLite's order: input 0, weights 1, an optional bias
// 2, output 0. One unpacking for the three loop nests, on host and device
// operands alike (`IO`: ops/kernel_io.h or DeviceKernelIO). Freestanding.
#pragma once

#include <type_traits>
#include <utility>

namespace dmo {

template <class IO>
struct WeightedOperands {
  using Ref = std::decay_t<decltype(std::declval<const IO&>().input(0))>;
  const Ref& input;
  const Ref& weights;
  const Ref& output;
  bool has_bias;
  Ref bias;  // empty when omitted

  explicit WeightedOperands(const IO& io)
      : input(io.input(0)),
        weights(io.input(1)),
        output(io.output(0)),
        has_bias(io.has_input(2)),
        bias(has_bias ? io.input(2) : Ref{}) {}
};

}  // namespace dmo
