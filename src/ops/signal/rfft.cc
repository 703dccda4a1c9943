// SignalRfft (TFLM's signal/micro/kernels/rfft.cc RfftEval with
// signal/src/rfft_int16.cc, rfft_int32.cc and rfft_float.cc, i.e. KISS
// FFT's kiss_fftr in FIXED_POINT=16, FIXED_POINT=32 or float, see
// kiss_fft.h). Per frame of the input's last dimension, the frame is copied
// (memcpy) into the fft_length work area (TFLM's scratch buffer of
// fft_length elements of the type, `work_area` here) and zero-padded, the
// complex transform runs on the state's buffers, and kiss_fftr writes the
// fft_length / 2 + 1 complex outputs: DC and Nyquist first, then bins k and
// n - k for k ascending. Every input element of a frame is read before
// that frame's first store.
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "kiss_fft.h"

namespace dmo {

namespace {

// TFLite's TensorType values the 'T' option takes.
constexpr int32_t kTensorTypeFloat32 = 0;
constexpr int32_t kTensorTypeInt32 = 2;
constexpr int32_t kTensorTypeInt16 = 7;

// A: the arithmetic of KISS FFT's build for the element type.
template <class A>
struct RfftKernel {
  using T = typename A::Scalar;
  int64_t frames = 0;
  int64_t input_length = 0;  // elements per input frame
  int64_t fft_length = 0;
  std::shared_ptr<const signal::KissFftr<A>> state;
  // The zero-padded frame, as the complex pairs kiss_fftr reads it.
  mutable std::vector<typename A::Cpx> work_area;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t output_length = fft_length + 2;  // values per output frame
    for (int64_t frame = 0; frame < frames; ++frame) {
      for (int64_t i = 0; i < input_length; ++i) {
        typename A::Cpx& pair = work_area[static_cast<size_t>(i / 2)];
        (i % 2 ? pair.i : pair.r) = mem.template load<T>(input, frame * input_length + i);
      }
      for (int64_t i = input_length; i < fft_length; ++i) {
        typename A::Cpx& pair = work_area[static_cast<size_t>(i / 2)];
        (i % 2 ? pair.i : pair.r) = T{};
      }
      state->half.transform(work_area.data(), state->tmpbuf.data());
      const int64_t at = frame * output_length;
      state->split([&](int bin, bool imaginary, T value) {
        mem.template store<T>(output, at + 2 * bin + (imaginary ? 1 : 0), value);
      });
    }
  }
};

template <class A>
PreparedKernel rfft_kernel(int64_t frames, int64_t input_length, int32_t fft_length) {
  RfftKernel<A> kernel;
  kernel.frames = frames;
  kernel.input_length = input_length;
  kernel.fft_length = fft_length;
  kernel.state = std::make_shared<const signal::KissFftr<A>>(fft_length);
  kernel.work_area.assign(static_cast<size_t>(fft_length / 2), typename A::Cpx{});
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace

PreparedKernel prepare_signal_rfft(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  const CustomOptions options(ctx);
  const int32_t type = options.integer("T", 0, 255);
  const int32_t fft_length = options.integer("fft_length", 2, 1 << 20);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  DataType element = DataType::kInt16;
  switch (type) {
    case kTensorTypeInt16: element = DataType::kInt16; break;
    case kTensorTypeInt32: element = DataType::kInt32; break;
    case kTensorTypeFloat32: element = DataType::kFloat32; break;
    default:
      ctx.fail(fmt::format("custom option 'T' is TensorType {}; supported: FLOAT32 (0), INT32 (2), INT16 (7)", type));
  }
  // RfftPrepare: input and output both of the type 'T' names.
  const std::string named = fmt::format("{} (the 'T' option)", data_type_name(element));
  if (input.type() != element) fail_unsupported_type(ctx, "input", input.type(), named);
  if (output.type() != element) fail_unsupported_type(ctx, "output", output.type(), named);
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
  switch (element) {
    case DataType::kInt32: return rfft_kernel<signal::Int32Arithmetic>(frames, input_length, fft_length);
    case DataType::kFloat32: return rfft_kernel<signal::FloatArithmetic>(frames, input_length, fft_length);
    default: return rfft_kernel<signal::Int16Arithmetic>(frames, input_length, fft_length);
  }
}

}  // namespace dmo
