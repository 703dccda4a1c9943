// SignalFftAutoScale (TFLM's signal/micro/kernels/fft_auto_scale_kernel.cc
// Eval, calling signal/src/fft_auto_scale.cc FftAutoScale and max_abs.cc
// MaxAbs16): one pass over the whole input for its largest magnitude, then
// a second pass storing each input shifted left by the bits that leave
// headroom, then the shift into output 1. The first pass reads every input
// element before the first store.
#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "signal_math.h"

namespace dmo {

namespace {

struct FftAutoScaleKernel {
  int64_t size = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    int16_t max = 0;
    for (int64_t i = 0; i < size; ++i) {
      const int16_t value = mem.template load<int16_t>(input, i);
      if (value > max) {
        max = value;
      } else if (-value > max) {
        max = static_cast<int16_t>(-value);  // -(-32768) wraps to -32768, as in TFLM
      }
    }
    // The int16 maximum is widened to uint32 as TFLM's call converts it.
    int scale_bits = 16 - static_cast<int>(signal::most_significant_bit32(static_cast<uint32_t>(max))) - 1;
    if (scale_bits <= 0) scale_bits = 0;
    for (int64_t i = 0; i < size; ++i) {
      const int32_t value = mem.template load<int16_t>(input, i);
      mem.template store<int16_t>(output, i, static_cast<int16_t>(value * (1 << scale_bits)));
    }
    mem.template store<int32_t>(io.output(1), 0, scale_bits);
  }
};

}  // namespace

PreparedKernel prepare_signal_fft_auto_scale(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 2);
  ctx.require(ctx.output(1).tensor != nullptr, "output 1 (the scale bits) is missing");
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  const TensorRef& scale_bits = ctx.output(1);
  if (input.type() != DataType::kInt16) fail_unsupported_type(ctx, "input", input.type(), "INT16");
  if (output.type() != DataType::kInt16) fail_unsupported_type(ctx, "output", output.type(), "INT16");
  if (scale_bits.type() != DataType::kInt32) fail_unsupported_type(ctx, "output 1 (scale bits)", scale_bits.type(), "INT32");
  ctx.require(input.rank() == 1 && output.rank() == 1,
              fmt::format("input has {} dimensions and output {}; both must have 1", input.rank(), output.rank()));
  ctx.require(scale_bits.rank() == 0, fmt::format("output 1 (scale bits) has {} dimensions; expected a scalar",
                                                  scale_bits.rank()));
  require_same_element_count(ctx);
  return PreparedKernel::of(FftAutoScaleKernel{output.elements()});
}

}  // namespace dmo
