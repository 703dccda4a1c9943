// FULLY_CONNECTED's loop nest, mirroring TFLM's reference_ops and
// reference_integer_ops FullyConnected: batch, unit, then depth; each output
// element stored once after its input row is read
// (src/ops/fully_connected/ prepares it). Freestanding: shared by the host
// kernel and generated device code.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/weighted_operands.h"

namespace dmo {

struct FullyConnectedGeometry {
  int64_t batches = 0;
  int32_t units = 0;
  int32_t accum_depth = 0;
};

template <class Arithmetic, class IO, class Memory>
void fully_connected_loops(const FullyConnectedGeometry& g, const Arithmetic& arithmetic, const IO& io,
                           Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const WeightedOperands operands(io);
  const auto& [input, weights, output, has_bias, bias] = operands;

  for (int64_t batch = 0; batch < g.batches; ++batch) {
    const int64_t input_row = batch * g.accum_depth;
    for (int32_t unit = 0; unit < g.units; ++unit) {
      const int64_t weights_row = int64_t{unit} * g.accum_depth;
      typename Arithmetic::Accumulator acc{};
      for (int32_t d = 0; d < g.accum_depth; ++d) {
        const Input in = mem.template load<Input>(input, input_row + d);
        const Filter weight = mem.template load<Filter>(weights, weights_row + d);
        acc = arithmetic.multiply_add(acc, in, weight);
      }
      const Bias bias_value = has_bias ? mem.template load<Bias>(bias, unit) : Bias{};
      mem.template store<Output>(output, batch * g.units + unit, arithmetic.finish(acc, bias_value, unit));
    }
  }
}

}  // namespace dmo
