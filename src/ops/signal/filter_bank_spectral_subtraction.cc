// SignalFilterBankSpectralSubtraction (TFLM's signal/micro/kernels/
// filter_bank_spectral_subtraction.cc Eval, calling signal/src/
// filter_bank_spectral_subtraction.cc FilterbankSpectralSubtraction): per
// channel, the persistent noise estimate is smoothed towards the input
// (alternate coefficients on odd channels), subtracted from it with a
// floor, and the result stored; then the whole estimate is copied (memcpy)
// into output 1. The estimate lives in the kernel, zeroed at prepare as
// TFLM's Prepare (ResetState) zeroes it, so one run from a fresh kernel is
// TFLM's first inference.
#include <fmt/format.h>

#include <vector>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct SpectralSubtractionConfig {
  uint32_t smoothing = 0, one_minus_smoothing = 0;
  uint32_t alternate_smoothing = 0, alternate_one_minus_smoothing = 0;
  uint32_t min_signal_remaining = 0;
  uint32_t smoothing_bits = 0, spectral_subtraction_bits = 0;
  bool clamping = false;
};

struct SpectralSubtractionKernel {
  SpectralSubtractionConfig config;
  mutable std::vector<uint32_t> noise_estimate;  // TFLM's persistent estimate, one per channel

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const SpectralSubtractionConfig& c = config;
    for (size_t i = 0; i < noise_estimate.size(); ++i) {
      const bool odd = (i & 1) != 0;
      const uint32_t smoothing = odd ? c.alternate_smoothing : c.smoothing;
      const uint32_t one_minus_smoothing = odd ? c.alternate_one_minus_smoothing : c.one_minus_smoothing;
      const auto at = static_cast<int64_t>(i);
      const uint32_t signal_scaled_up = mem.template load<uint32_t>(input, at) << c.smoothing_bits;
      noise_estimate[i] = static_cast<uint32_t>((static_cast<uint64_t>(signal_scaled_up) * smoothing +
                                                 static_cast<uint64_t>(noise_estimate[i]) * one_minus_smoothing) >>
                                                c.spectral_subtraction_bits);
      uint32_t estimate_scaled_up = noise_estimate[i];
      // The signal minus the estimate never goes negative.
      if (estimate_scaled_up > signal_scaled_up) {
        estimate_scaled_up = signal_scaled_up;
        if (c.clamping) noise_estimate[i] = estimate_scaled_up;
      }
      const auto floor = static_cast<uint32_t>(
          (static_cast<uint64_t>(mem.template load<uint32_t>(input, at)) * c.min_signal_remaining) >>
          c.spectral_subtraction_bits);
      const uint32_t subtracted = (signal_scaled_up - estimate_scaled_up) >> c.smoothing_bits;
      mem.template store<uint32_t>(output, at, subtracted > floor ? subtracted : floor);
    }
    // The memcpy of the estimate into output 1.
    for (size_t i = 0; i < noise_estimate.size(); ++i) {
      mem.template store<uint32_t>(io.output(1), static_cast<int64_t>(i), noise_estimate[i]);
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_filter_bank_spectral_subtraction(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 2);
  ctx.require(ctx.output(1).tensor != nullptr, "output 1 (the noise estimate) is missing");
  const CustomOptions options(ctx);
  const char* names[] = {"input", "output", "output 1 (noise estimate)"};
  const TensorRef* operands[] = {&ctx.input(0), &ctx.output(0), &ctx.output(1)};
  const int32_t channels = options.integer("num_channels", 0, 1 << 20);
  for (size_t i = 0; i < 3; ++i) {
    const TensorRef& t = *operands[i];
    if (t.type() != DataType::kUInt32) fail_unsupported_type(ctx, names[i], t.type(), "UINT32");
    ctx.require(t.rank() == 1, fmt::format("{} has {} dimensions; expected 1", names[i], t.rank()));
    ctx.require(t.elements() == channels,
                fmt::format("{} has {} elements for num_channels {}", names[i], t.elements(), channels));
  }
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  // TFLM reads each coefficient as an int32 into a uint32 field.
  auto coefficient = [&](const char* key) { return static_cast<uint32_t>(options.integer(key, kMin, kMax)); };
  SpectralSubtractionKernel kernel;
  SpectralSubtractionConfig& c = kernel.config;
  c.alternate_one_minus_smoothing = coefficient("alternate_one_minus_smoothing");
  c.alternate_smoothing = coefficient("alternate_smoothing");
  c.clamping = options.boolean("clamping");
  c.min_signal_remaining = coefficient("min_signal_remaining");
  c.one_minus_smoothing = coefficient("one_minus_smoothing");
  c.smoothing = coefficient("smoothing");
  c.smoothing_bits = static_cast<uint32_t>(options.integer("smoothing_bits", 0, 31));
  c.spectral_subtraction_bits = static_cast<uint32_t>(options.integer("spectral_subtraction_bits", 0, 63));
  kernel.noise_estimate.assign(static_cast<size_t>(channels), 0);
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo
