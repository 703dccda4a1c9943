// SignalPCAN (TFLM's signal/micro/kernels/pcan.cc PcanEval, calling
// signal/src/pcan_argc_fixed.cc ApplyPcanAutoGainControlFixed): the input
// is first copied (memcpy) into the output, then each channel's gain from
// the noise estimate (WideDynamicFunction over the gain table) scales the
// output in place and PcanShrink compresses it. The copy makes any overlap
// of output and input unsafe. The gain table is indexed by data, so it must
// be constant and is read here.
#include <fmt/format.h>

#include <vector>

#include "../elementwise.h"
#include "../custom_options.h"
#include "dmo/ops/kernels.h"
#include "signal_math.h"

namespace dmo {

namespace {

constexpr int kPcanSnrBits = 12;
constexpr int kPcanOutputBits = 6;
// WideDynamicFunction reads at most lut[4 * 32 - 6 + 2].
constexpr int64_t kGainTableEntries = 4 * 32 - 6 + 3;

int16_t wide_dynamic_function(uint32_t x, const std::vector<int16_t>& lut) {
  if (x <= 2) return lut[x];
  const auto interval = static_cast<int16_t>(signal::most_significant_bit32(x));
  const int16_t* entry = lut.data() + (4 * interval - 6);
  const auto frac = static_cast<int16_t>(
      ((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) & 0x3FF);
  // int32 arithmetic, wrapping as TFLM's does on overflow.
  uint32_t result = static_cast<uint32_t>((int32_t{entry[2]} * frac) >> 5);
  result += static_cast<uint32_t>(entry[1]) << 5;
  result *= static_cast<uint32_t>(static_cast<int32_t>(frac));
  result = static_cast<uint32_t>(static_cast<int32_t>(result + (1u << 14)) >> 15);
  result += static_cast<uint32_t>(static_cast<int32_t>(entry[0]));
  return static_cast<int16_t>(result);
}

uint32_t pcan_shrink(uint32_t x) {
  if (x < (2u << kPcanSnrBits)) return (x * x) >> (2 + 2 * kPcanSnrBits - kPcanOutputBits);
  return (x >> (kPcanSnrBits - kPcanOutputBits)) - (1u << kPcanOutputBits);
}

struct PcanKernel {
  int32_t snr_shift = 0;
  int64_t channels = 0;
  std::vector<int16_t> gain_lut;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& noise_estimate = io.input(1);
    const TensorRef& output = io.output(0);
    mem.template copy<uint32_t>(output, 0, input, 0, channels);
    for (int64_t i = 0; i < channels; ++i) {
      // int16 gain widened to uint32 (sign-extended) as TFLM assigns it.
      const auto gain = static_cast<uint32_t>(
          static_cast<int32_t>(wide_dynamic_function(mem.template load<uint32_t>(noise_estimate, i), gain_lut)));
      const auto snr =
          static_cast<uint32_t>((static_cast<uint64_t>(mem.template load<uint32_t>(output, i)) * gain) >> snr_shift);
      mem.template store<uint32_t>(output, i, pcan_shrink(snr));
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_pcan(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 1);
  const CustomOptions options(ctx);
  const TensorRef& input = ctx.input(0);
  const TensorRef& noise = ctx.input(1);
  const TensorRef& lut = ctx.input(2);
  const TensorRef& output = ctx.output(0);
  if (input.type() != DataType::kUInt32) fail_unsupported_type(ctx, "input", input.type(), "UINT32");
  if (noise.type() != DataType::kUInt32) fail_unsupported_type(ctx, "input 1 (noise estimate)", noise.type(), "UINT32");
  if (lut.type() != DataType::kInt16) fail_unsupported_type(ctx, "input 2 (gain table)", lut.type(), "INT16");
  if (output.type() != DataType::kUInt32) fail_unsupported_type(ctx, "output", output.type(), "UINT32");
  for (auto [what, t] : {std::pair{"input", &input}, std::pair{"input 1 (noise estimate)", &noise},
                         std::pair{"input 2 (gain table)", &lut}, std::pair{"output", &output}}) {
    ctx.require(t->rank() == 1, fmt::format("{} has {} dimensions; expected 1", what, t->rank()));
  }
  ctx.require(input.elements() > 0, "input has no elements");
  ctx.require(noise.elements() == input.elements() && output.elements() == input.elements(),
              fmt::format("input, noise estimate and output have {}, {} and {} elements; they must be equal",
                          input.elements(), noise.elements(), output.elements()));
  ctx.require(lut.tensor->is_constant, "input 2 (gain table) must be constant");
  ctx.require(lut.elements() >= kGainTableEntries &&
                  static_cast<int64_t>(lut.tensor->data.size()) >= lut.elements() * 2,
              fmt::format("input 2 (gain table) has {} entries; the gain function reads {}", lut.elements(),
                          kGainTableEntries));
  PcanKernel kernel;
  kernel.snr_shift = options.integer("snr_shift", 0, 63);
  kernel.channels = input.elements();
  kernel.gain_lut.resize(static_cast<size_t>(lut.elements()));
  std::memcpy(kernel.gain_lut.data(), lut.tensor->data.data(), kernel.gain_lut.size() * sizeof(int16_t));
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo
