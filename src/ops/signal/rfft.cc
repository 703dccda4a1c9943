// SignalRfft, int16 (TFLM's signal/micro/kernels/rfft.cc RfftEval with
// signal/src/rfft_int16.cc, i.e. KISS FFT's kiss_fftr in FIXED_POINT=16,
// see kiss_fft_int16.h). Per frame of the input's last dimension, the
// frame is copied (memcpy) into the fft_length work area (TFLM's scratch
// buffer, `work_area` here) and zero-padded, the complex transform runs on
// the state's buffers, and kiss_fftr writes the fft_length / 2 + 1 complex
// outputs: DC and Nyquist first, then bins k and n - k for k ascending.
// Every input element of a frame is read before that frame's first store.
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "kiss_fft_int16.h"

namespace dmo {

namespace {

constexpr int32_t kTensorTypeInt16 = 7;  // TFLite's TensorType INT16, the 'T' option

struct RfftInt16Kernel {
  int64_t frames = 0;
  int64_t input_length = 0;  // elements per input frame
  int64_t fft_length = 0;
  std::shared_ptr<const signal::KissFftr16> state;
  // The zero-padded frame, as the complex pairs kiss_fftr reads it.
  mutable std::vector<signal::Complex16> work_area;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t output_length = fft_length + 2;  // int16 values per output frame
    for (int64_t frame = 0; frame < frames; ++frame) {
      for (int64_t i = 0; i < input_length; ++i) {
        signal::Complex16& pair = work_area[static_cast<size_t>(i / 2)];
        (i % 2 ? pair.i : pair.r) = mem.template load<int16_t>(input, frame * input_length + i);
      }
      for (int64_t i = input_length; i < fft_length; ++i) {
        signal::Complex16& pair = work_area[static_cast<size_t>(i / 2)];
        (i % 2 ? pair.i : pair.r) = 0;
      }
      split(mem, output, frame * output_length);
    }
  }

  // kiss_fftr: the half-length complex transform of the even and odd
  // samples, split into the real input's spectrum.
  template <class Memory>
  void split(Memory& mem, const TensorRef& output, int64_t at) const {
    using signal::Complex16;
    std::vector<Complex16>& half = state->tmpbuf;
    state->half.transform(work_area.data(), half.data());
    const int ncfft = state->half.size();
    auto store = [&](int64_t bin, bool imaginary, int32_t value) {
      mem.template store<int16_t>(output, at + 2 * bin + (imaginary ? 1 : 0), static_cast<int16_t>(value));
    };
    Complex16 dc = half[0];
    signal::fixdiv(dc, 2);
    store(0, false, dc.r + dc.i);
    store(ncfft, false, dc.r - dc.i);
    store(0, true, 0);
    store(ncfft, true, 0);
    for (int k = 1; k <= ncfft / 2; ++k) {
      Complex16 fpk = half[static_cast<size_t>(k)];
      Complex16 fpnk{half[static_cast<size_t>(ncfft - k)].r, static_cast<int16_t>(-half[static_cast<size_t>(ncfft - k)].i)};
      signal::fixdiv(fpk, 2);
      signal::fixdiv(fpnk, 2);
      const Complex16 f1k = signal::cadd(fpk, fpnk);
      const Complex16 f2k = signal::csub(fpk, fpnk);
      const Complex16 tw = signal::cmul(f2k, state->super_twiddles[static_cast<size_t>(k - 1)]);
      // HALF_OF shifts the int sum before it is narrowed.
      store(k, false, (f1k.r + tw.r) >> 1);
      store(k, true, (f1k.i + tw.i) >> 1);
      store(ncfft - k, false, (f1k.r - tw.r) >> 1);
      store(ncfft - k, true, (tw.i - f1k.i) >> 1);
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_rfft(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  const CustomOptions options(ctx);
  const int32_t type = options.integer("T", 0, 255);
  const int32_t fft_length = options.integer("fft_length", 2, 1 << 20);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  if (type != kTensorTypeInt16) {
    ctx.fail(fmt::format("custom option 'T' is TensorType {}; dmo's kernel supports INT16 (7) only", type));
  }
  if (input.type() != DataType::kInt16) fail_unsupported_type(ctx, "input", input.type(), "INT16");
  if (output.type() != DataType::kInt16) fail_unsupported_type(ctx, "output", output.type(), "INT16");
  ctx.require(fft_length % 2 == 0, fmt::format("fft_length {} is odd; the real FFT needs an even length", fft_length));
  ctx.require(input.rank() >= 1 && input.rank() == output.rank(),
              fmt::format("input has {} dimensions and output {}; they must be equal and at least 1", input.rank(),
                          output.rank()));
  const int64_t input_length = input.dim(input.rank() - 1);
  ctx.require(input_length > 0 && input_length <= fft_length,
              fmt::format("input frames of {} samples do not fit fft_length {}", input_length, fft_length));
  ctx.require(output.dim(output.rank() - 1) == fft_length + 2,
              fmt::format("output's last dimension is {}; fft_length {} gives {} (fft_length / 2 + 1 complex values)",
                          output.dim(output.rank() - 1), fft_length, fft_length + 2));
  const int64_t frames = input.elements() / input_length;
  ctx.require(output.elements() == frames * (fft_length + 2),
              fmt::format("output has {} elements for {} input frames; expected {}", output.elements(), frames,
                          frames * (fft_length + 2)));
  RfftInt16Kernel kernel;
  kernel.frames = frames;
  kernel.input_length = input_length;
  kernel.fft_length = fft_length;
  kernel.state = std::make_shared<const signal::KissFftr16>(fft_length);
  kernel.work_area.assign(static_cast<size_t>(fft_length / 2), signal::Complex16{});
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo
