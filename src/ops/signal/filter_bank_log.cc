// SignalFilterBankLog (TFLM's signal/micro/kernels/filter_bank_log.cc
// FilterBankLogEval, calling signal/src/filter_bank_log.cc FilterbankLog
// and log.cc Log32): each channel shifted up by the correction bits, its
// scaled natural log saturated to int16 (0 for inputs of 0 or 1); input and
// output walk ascending together.
#include <fmt/format.h>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "signal_math.h"

namespace dmo {

namespace {

struct FilterBankLogKernel {
  int64_t channels = 0;
  uint32_t output_scale = 0;
  uint32_t correction_bits = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    for (int64_t i = 0; i < channels; ++i) {
      const uint32_t scaled = mem.template load<uint32_t>(input, i) << correction_bits;
      int16_t value = 0;
      if (scaled > 1) {
        const uint32_t log = signal::log32(scaled, output_scale);
        value = static_cast<int16_t>(log < 32767u ? log : 32767u);
      }
      mem.template store<int16_t>(output, i, value);
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_filter_bank_log(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  const CustomOptions options(ctx);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  if (input.type() != DataType::kUInt32) fail_unsupported_type(ctx, "input", input.type(), "UINT32");
  if (output.type() != DataType::kInt16) fail_unsupported_type(ctx, "output", output.type(), "INT16");
  ctx.require(input.rank() == 1 && output.rank() == 1,
              fmt::format("input has {} dimensions and output {}; both must have 1", input.rank(), output.rank()));
  require_same_element_count(ctx);
  FilterBankLogKernel kernel;
  kernel.channels = input.elements();
  kernel.correction_bits = static_cast<uint32_t>(options.integer("input_correction_bits", 0, 31));
  // TFLM passes the int32 option as Log32's uint32 scale.
  kernel.output_scale = static_cast<uint32_t>(
      options.integer("output_scale", std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  return PreparedKernel::of(kernel);
}

}  // namespace dmo
