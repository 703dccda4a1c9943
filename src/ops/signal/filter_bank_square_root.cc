// SignalFilterBankSquareRoot (TFLM's signal/micro/kernels/
// filter_bank_square_root.cc Eval, calling signal/src/
// filter_bank_square_root.cc FilterbankSqrt and square_root_64.cc Sqrt64):
// the scale bits are read once, then each channel's root is stored shifted
// down by them, input and output walking ascending together.
#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "signal_math.h"

namespace dmo {

namespace {

struct FilterBankSquareRootKernel {
  int64_t channels = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    // A uint32 shifted by a run-time count: x86 uses its low 5 bits, as
    // TFLM's compiled shift does there.
    const auto shift = static_cast<uint32_t>(mem.template load<int32_t>(io.input(1), 0)) & 31u;
    for (int64_t i = 0; i < channels; ++i) {
      mem.template store<uint32_t>(output, i, signal::sqrt64(mem.template load<uint64_t>(input, i)) >> shift);
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_filter_bank_square_root(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& scale_bits = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  if (input.type() != DataType::kUInt64) fail_unsupported_type(ctx, "input", input.type(), "UINT64");
  if (scale_bits.type() != DataType::kInt32) fail_unsupported_type(ctx, "input 1 (scale bits)", scale_bits.type(), "INT32");
  if (output.type() != DataType::kUInt32) fail_unsupported_type(ctx, "output", output.type(), "UINT32");
  ctx.require(input.rank() == 1 && output.rank() == 1,
              fmt::format("input has {} dimensions and output {}; both must have 1", input.rank(), output.rank()));
  ctx.require(scale_bits.rank() == 0,
              fmt::format("input 1 (scale bits) has {} dimensions; expected a scalar", scale_bits.rank()));
  require_same_element_count(ctx);
  return PreparedKernel::of(FilterBankSquareRootKernel{input.elements()});
}

}  // namespace dmo
