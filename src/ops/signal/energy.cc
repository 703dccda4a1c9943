// SignalEnergy (TFLM's signal/micro/kernels/energy.cc EnergyEval, calling
// signal/src/energy.cc SpectrumToEnergy): for each bin in [start_index,
// end_index), real^2 + imag^2 of the complex int16 input stored as uint32.
// Bins outside that range are never stored: TFLM leaves whatever the arena
// held there, and so does dmo.
#include <fmt/format.h>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct EnergyKernel {
  int32_t start_index = 0;
  int32_t end_index = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    for (int64_t i = start_index; i < end_index; ++i) {
      const int32_t real = mem.template load<int16_t>(input, 2 * i);
      const int32_t imag = mem.template load<int16_t>(input, 2 * i + 1);
      // Each square fits 31 bits; their sum wraps in uint32 as TFLM's does.
      mem.template store<uint32_t>(output, i, static_cast<uint32_t>(real * real) + static_cast<uint32_t>(imag * imag));
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_energy(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  const CustomOptions options(ctx);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  if (input.type() != DataType::kInt16) fail_unsupported_type(ctx, "input", input.type(), "INT16");
  if (output.type() != DataType::kUInt32) fail_unsupported_type(ctx, "output", output.type(), "UINT32");
  ctx.require(input.rank() == 1 && output.rank() == 1,
              fmt::format("input has {} dimensions and output {}; both must have 1", input.rank(), output.rank()));
  EnergyKernel kernel;
  kernel.start_index = options.integer("start_index", 0, output.elements());
  kernel.end_index = options.integer("end_index", kernel.start_index, output.elements());
  ctx.require(2 * int64_t{kernel.end_index} <= input.elements(),
              fmt::format("end_index {} reads beyond the {} complex values of the input", kernel.end_index,
                          input.elements() / 2));
  return PreparedKernel::of(kernel);
}

}  // namespace dmo
