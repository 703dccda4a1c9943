// TFLM's signal-library custom ops: values on small inputs computed by hand
// (and, for the FFT, against a plain DFT), their safe overlaps on the
// checking policy, and the refusals of bad operands and custom options.
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/ops/kernels.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::OneOp;

using OptionWriter = std::function<void(flexbuffers::Builder&)>;

std::vector<uint8_t> flex_map(const OptionWriter& write) {
  flexbuffers::Builder fbb;
  fbb.Map([&] { write(fbb); });
  fbb.Finish();
  return fbb.GetBuffer();
}

// Turns op 0 of a built graph into the custom op `code` with `options`.
Graph as_custom(Graph graph, const std::string& code, std::vector<uint8_t> options) {
  Op& op = graph.subgraphs[0].ops[0];
  op.custom_code = code;
  op.custom_options = std::move(options);
  return graph;
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Runs the graph unshared (checked and direct, which must agree); output k's values.
template <typename T>
std::vector<T> run_output(const Graph& graph, const std::vector<uint8_t>& input, size_t k = 0) {
  Interpreter checked(graph, unshared_placement(graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(graph, unshared_placement(graph.main()));
  direct.set_inputs(input);
  direct.run();
  const int32_t t = graph.main().outputs.at(k);
  EXPECT_EQ(direct.tensor_contents(t), checked.tensor_contents(t)) << "checking policy differs";
  return test::values_from<T>(direct.tensor_bytes(t));
}

std::string run_error(const Graph& graph) {
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(graph, text)                                            \
  do {                                                                           \
    const std::string message = run_error(graph);                                \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

// O_s is safe, and (where it leaves part of the input uncovered) one output
// element more is a clobber.
void expect_overlap_facts(const OneOp& m, const std::vector<uint8_t>& input, int64_t element_bytes) {
  const int64_t os = test::addresses(m).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input)) << "at O_s " << os;
  const int64_t whole = std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output));
  if (os + element_bytes <= whole) {
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + element_bytes, input)) << "one element beyond O_s " << os;
  }
}

// ---------------------------------------------------------------- SignalWindow

OneOp window_model(int64_t frames, const std::vector<int16_t>& weights, int32_t shift,
                   DataType output_type = DataType::kInt16) {
  const auto n = static_cast<int32_t>(weights.size());
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {static_cast<int32_t>(frames), n});
  const int32_t w = b.add_constant_values("weights", DataType::kInt16, {n}, weights);
  m.output = b.add_tensor("output", output_type, {static_cast<int32_t>(frames), n});
  b.add_op(OpKind::kCustom, {m.input, w}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalWindow", flex_map([&](auto& f) { f.Int("shift", shift); }));
  return m;
}

TEST(SignalWindow, MultipliesShiftsAndSaturatesPerFrame) {
  const OneOp m = window_model(2, {4096, 8192, 32767, 32767}, 12);
  const std::vector<int16_t> in = {100, -100, 32767, -32768, 7, 8, 1, -1};
  // (x * w) >> 12, clamped to int16; the weights restart with each frame.
  EXPECT_EQ(run_output<int16_t>(m.graph, bytes_of(in)),
            (std::vector<int16_t>{100, -200, 32767, -32768, 7, 16, 7, -8}));
}

TEST(SignalWindow, OverlapsItsInputWhole) {
  const OneOp m = window_model(3, {1, 2, 3, 4, 5}, 1);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 30);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 2);
}

TEST(SignalWindow, RefusesBadOperandsAndOptions) {
  EXPECT_RUN_ERROR(window_model(1, {1, 2}, 3, DataType::kInt32).graph,
                   "op 0 (SignalWindow): output type INT32 is not supported; supported: INT16");
  OneOp m = window_model(1, {1, 2}, 3);
  m.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) { f.Int("shifts", 3); });
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): custom option 'shift' is missing");
  m.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) { f.String("shift", "3"); });
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): custom option 'shift' is a string, not an integer");
  m.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) { f.Int("shift", 40); });
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): custom option 'shift' is 40, outside [0, 31]");
  m.graph.subgraphs[0].ops[0].custom_options.clear();
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): custom options are missing (a FlexBuffer map is expected)");
  m.graph.subgraphs[0].ops[0].custom_options = {1, 2, 3};
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): custom options are not a valid FlexBuffer");
  m.graph.subgraphs[0].ops[0].inputs.pop_back();
  m.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) { f.Int("shift", 3); });
  EXPECT_RUN_ERROR(m.graph, "op 0 (SignalWindow): expected 2 input(s), got 1");
}

// ---------------------------------------------------------------- SignalFftAutoScale

OneOp auto_scale_model(int32_t n) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {n});
  m.output = b.add_tensor("output", DataType::kInt16, {n});
  const int32_t bits = b.add_tensor("scale_bits", DataType::kInt32, {});
  b.add_op(OpKind::kCustom, {m.input}, {m.output, bits});
  b.set_inputs({m.input});
  b.set_outputs({m.output, bits});
  m.graph = as_custom(b.finish(), "SignalFftAutoScale", flex_map([](auto&) {}));
  return m;
}

TEST(SignalFftAutoScale, ShiftsUpToTheHeadroomOfTheLargestMagnitude) {
  const OneOp m = auto_scale_model(3);
  // Largest magnitude 200 has 8 bits: 16 - 8 - 1 = 7 bits of headroom.
  const std::vector<uint8_t> in = bytes_of(std::vector<int16_t>{100, -200, 50});
  EXPECT_EQ(run_output<int16_t>(m.graph, in, 0), (std::vector<int16_t>{12800, -25600, 6400}));
  EXPECT_EQ(run_output<int32_t>(m.graph, in, 1), std::vector<int32_t>{7});
  // All zeros and -32768 (whose negation wraps) give no shift.
  EXPECT_EQ(run_output<int32_t>(m.graph, bytes_of(std::vector<int16_t>{0, 0, 0}), 1), std::vector<int32_t>{0});
  EXPECT_EQ(run_output<int16_t>(m.graph, bytes_of(std::vector<int16_t>{1, 3, -32768}), 0),
            (std::vector<int16_t>{1, 3, -32768}));
  // A later value above the wrapped -32768 takes over as the maximum: 3 has
  // 2 bits, 13 bits of headroom (-32768 * 8192 wraps to 0 in int16).
  EXPECT_EQ(run_output<int16_t>(m.graph, bytes_of(std::vector<int16_t>{1, -32768, 3}), 0),
            (std::vector<int16_t>{8192, 0, 24576}));
}

TEST(SignalFftAutoScale, OverlapsItsInputWhole) {
  const OneOp m = auto_scale_model(40);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 80);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 2), 2);
}

// ---------------------------------------------------------------- SignalRfft

OneOp rfft_model(int32_t frames, int32_t input_length, int32_t fft_length, int32_t type_option = 7,
                 DataType type = DataType::kInt16) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", type, {frames, input_length});
  m.output = b.add_tensor("output", type, {frames, fft_length + 2});
  b.add_op(OpKind::kCustom, {m.input}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalRfft", flex_map([&](auto& f) {
                        f.Int("T", type_option);
                        f.Int("fft_length", fft_length);
                      }));
  return m;
}

TEST(SignalRfft, AnImpulseHasAFlatSpectrumScaledByTheLength) {
  // KISS FFT's fixed point divides by each stage's radix and the split by 2:
  // 8000 / 8 = 1000 in every bin (C_FIXDIV multiplies by 32767 / radix).
  const OneOp m = rfft_model(1, 8, 8);
  const std::vector<int16_t> out = run_output<int16_t>(m.graph, bytes_of(std::vector<int16_t>{8000, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(out, (std::vector<int16_t>{1000, 0, 1000, 0, 1000, 0, 1000, 0, 1000, 0}));
}

// Every radix KISS FFT has (4, 2, 3, 5 and the generic one for 7) against a
// double-precision DFT of the zero-padded frame divided by fft_length.
TEST(SignalRfft, EveryRadixFollowsTheScaledDft) {
  std::mt19937 random(7);
  for (int32_t fft_length : {8, 4, 16, 24, 40, 14, 512}) {
    SCOPED_TRACE(fft_length);
    const int32_t input_length = fft_length - fft_length / 4;
    const OneOp m = rfft_model(2, input_length, fft_length);
    std::uniform_int_distribution<int> sample(-8000, 8000);
    std::vector<int16_t> in(static_cast<size_t>(2 * input_length));
    for (int16_t& v : in) v = static_cast<int16_t>(sample(random));
    const std::vector<int16_t> out = run_output<int16_t>(m.graph, bytes_of(in));
    for (int32_t frame = 0; frame < 2; ++frame) {
      for (int32_t k = 0; k <= fft_length / 2; ++k) {
        std::complex<double> sum = 0;
        for (int32_t t = 0; t < input_length; ++t) {
          sum += static_cast<double>(in[static_cast<size_t>(frame * input_length + t)]) *
                 std::polar(1.0, -2 * M_PI * k * t / fft_length);
        }
        sum /= fft_length;
        const size_t at = static_cast<size_t>(frame * (fft_length + 2) + 2 * k);
        EXPECT_NEAR(out[at], sum.real(), 6) << "frame " << frame << " bin " << k;
        EXPECT_NEAR(out[at + 1], sum.imag(), 6) << "frame " << frame << " bin " << k;
      }
    }
  }
}

TEST(SignalRfft, ReadsEachFrameBeforeWritingIt) {
  // One frame: all reads precede the writes, the output may cover the input.
  const OneOp one = rfft_model(1, 6, 8);
  EXPECT_EQ(test::addresses(one).safe_overlap(), 20);
  expect_overlap_facts(one, pattern_input(one.graph.main(), 1), 2);
  // Two frames: frame 1 (input bytes from 12) is read after frame 0 wrote
  // output bytes up to 19, so 8 bytes less than the output.
  const OneOp two = rfft_model(2, 6, 8);
  EXPECT_EQ(test::addresses(two).safe_overlap(), 32);
  expect_overlap_facts(two, pattern_input(two.graph.main(), 1), 2);
}

TEST(SignalRfft, OverlapFactsHoldForRandomFrames) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 12; ++trial) {
    const int32_t fft_length = 2 * std::uniform_int_distribution<int32_t>(1, 12)(random);
    const int32_t input_length = std::uniform_int_distribution<int32_t>(1, fft_length)(random);
    const int32_t frames = std::uniform_int_distribution<int32_t>(1, 4)(random);
    SCOPED_TRACE(fmt::format("fft_length {} input_length {} frames {}", fft_length, input_length, frames));
    const OneOp m = rfft_model(frames, input_length, fft_length);
    expect_overlap_facts(m, pattern_input(m.graph.main(), static_cast<uint32_t>(trial)), 2);
  }
}

TEST(SignalRfft, RefusesBadShapesAndOptions) {
  EXPECT_RUN_ERROR(rfft_model(1, 6, 8, 1).graph,
                   "op 0 (SignalRfft): custom option 'T' is TensorType 1; supported: FLOAT32 (0), INT32 (2), INT16 (7)");
  // Input and output must both be of the type 'T' names.
  EXPECT_RUN_ERROR(rfft_model(1, 6, 8, 2).graph,
                   "op 0 (SignalRfft): input type INT16 is not supported; supported: INT32 (the 'T' option)");
  EXPECT_RUN_ERROR(rfft_model(1, 6, 8, 7, DataType::kFloat32).graph,
                   "op 0 (SignalRfft): input type FLOAT32 is not supported; supported: INT16 (the 'T' option)");
  OneOp mixed = rfft_model(1, 6, 8, 0, DataType::kFloat32);
  mixed.graph.subgraphs[0].tensors[static_cast<size_t>(mixed.output)].type = DataType::kInt32;
  EXPECT_RUN_ERROR(mixed.graph,
                   "op 0 (SignalRfft): output type INT32 is not supported; supported: FLOAT32 (the 'T' option)");
  EXPECT_RUN_ERROR(rfft_model(1, 10, 8, 2, DataType::kInt32).graph,
                   "op 0 (SignalRfft): input frames of 10 samples do not fit fft_length 8");
  EXPECT_RUN_ERROR(rfft_model(1, 10, 8).graph, "op 0 (SignalRfft): input frames of 10 samples do not fit fft_length 8");
  OneOp odd = rfft_model(1, 6, 8);
  odd.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) {
    f.Int("T", 7);
    f.Int("fft_length", 9);
  });
  EXPECT_RUN_ERROR(odd.graph, "op 0 (SignalRfft): fft_length 9 is odd");
  odd.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) {
    f.Int("T", 7);
    f.Int("fft_length", 16);
  });
  EXPECT_RUN_ERROR(odd.graph, "op 0 (SignalRfft): output's last dimension is 10; fft_length 16 gives 18");
}

// SignalRfft in INT32 (KISS FFT's FIXED_POINT=32 build: Q31 products, each
// stage divided by its radix) and FLOAT32 (float arithmetic, unscaled).

constexpr int32_t kRfftInt32 = 2;
constexpr int32_t kRfftFloat32 = 0;

// The DFT of the zero-padded frame, bin k, in double precision.
std::complex<double> dft_bin(const std::vector<double>& frame, int32_t fft_length, int32_t k) {
  std::complex<double> sum = 0;
  for (size_t t = 0; t < frame.size(); ++t) {
    sum += frame[t] * std::polar(1.0, -2 * M_PI * k * static_cast<double>(t) / fft_length);
  }
  return sum;
}

TEST(SignalRfftInt32, AnImpulseHasAFlatSpectrumScaledByTheLength) {
  // fft_length 8: the half-length transform is one radix-4 stage, which
  // multiplies by (2^31 - 1) / 4 in Q31 (8000000 -> 1999999.996, rounded
  // to 2000000), then the split's C_FIXDIV by 2 and HALF_OF: 1000000.
  const OneOp m = rfft_model(1, 8, 8, kRfftInt32, DataType::kInt32);
  const std::vector<int32_t> out =
      run_output<int32_t>(m.graph, bytes_of(std::vector<int32_t>{8000000, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(out, (std::vector<int32_t>{1000000, 0, 1000000, 0, 1000000, 0, 1000000, 0, 1000000, 0}));
  // Q31 rounding: 7 through the radix-4 stage is 7 * 536870911 / 2^31 =
  // 1.75, rounded to 2; the split's fixdiv by 2 rounds 2 * 1073741823 /
  // 2^31 to 1: DC 1, and bin 1 is (2 + 2) >> 1 after the fixdiv of each
  // half, (1 + 1) >> 1 = 1.
  const std::vector<int32_t> small = run_output<int32_t>(m.graph, bytes_of(std::vector<int32_t>{7, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(small, (std::vector<int32_t>{1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
}

// Every radix (4, 2, 3, 5 and the generic one for 7) against the DFT
// divided by fft_length, as the fixed-point build scales it.
TEST(SignalRfftInt32, EveryRadixFollowsTheScaledDft) {
  std::mt19937 random(17);
  for (int32_t fft_length : {8, 4, 16, 24, 40, 14, 512}) {
    SCOPED_TRACE(fft_length);
    const int32_t input_length = fft_length - fft_length / 4;
    const OneOp m = rfft_model(2, input_length, fft_length, kRfftInt32, DataType::kInt32);
    std::uniform_int_distribution<int32_t> sample(-(1 << 28), 1 << 28);
    std::vector<int32_t> in(static_cast<size_t>(2 * input_length));
    for (int32_t& v : in) v = sample(random);
    const std::vector<int32_t> out = run_output<int32_t>(m.graph, bytes_of(in));
    for (int32_t frame = 0; frame < 2; ++frame) {
      const std::vector<double> samples(in.begin() + frame * input_length, in.begin() + (frame + 1) * input_length);
      for (int32_t k = 0; k <= fft_length / 2; ++k) {
        const std::complex<double> expected = dft_bin(samples, fft_length, k) / static_cast<double>(fft_length);
        const size_t at = static_cast<size_t>(frame * (fft_length + 2) + 2 * k);
        EXPECT_NEAR(out[at], expected.real(), 8) << "frame " << frame << " bin " << k;
        EXPECT_NEAR(out[at + 1], expected.imag(), 8) << "frame " << frame << " bin " << k;
      }
    }
  }
}

TEST(SignalRfftFloat, AnImpulseHasAFlatSpectrum) {
  // No scaling in float: every bin of a unit impulse is exactly 1.
  const OneOp m = rfft_model(1, 6, 8, kRfftFloat32, DataType::kFloat32);
  const std::vector<float> out = run_output<float>(m.graph, bytes_of(std::vector<float>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(out, (std::vector<float>{1, 0, 1, 0, 1, 0, 1, 0, 1, 0}));
  // A constant frame of 8 ones: DC 8, every other bin 0 up to rounding.
  const OneOp full = rfft_model(1, 8, 8, kRfftFloat32, DataType::kFloat32);
  const std::vector<float> dc = run_output<float>(full.graph, bytes_of(std::vector<float>(8, 1.0f)));
  EXPECT_EQ(dc[0], 8.0f);
  for (size_t i = 1; i < dc.size(); ++i) EXPECT_NEAR(dc[i], 0.0f, 1e-6f) << i;
}

TEST(SignalRfftFloat, EveryRadixFollowsTheDft) {
  std::mt19937 random(23);
  for (int32_t fft_length : {8, 4, 16, 24, 40, 14, 512}) {
    SCOPED_TRACE(fft_length);
    const int32_t input_length = fft_length - fft_length / 4;
    const OneOp m = rfft_model(2, input_length, fft_length, kRfftFloat32, DataType::kFloat32);
    std::uniform_real_distribution<float> sample(-1.0f, 1.0f);
    std::vector<float> in(static_cast<size_t>(2 * input_length));
    for (float& v : in) v = sample(random);
    const std::vector<float> out = run_output<float>(m.graph, bytes_of(in));
    for (int32_t frame = 0; frame < 2; ++frame) {
      const std::vector<double> samples(in.begin() + frame * input_length, in.begin() + (frame + 1) * input_length);
      for (int32_t k = 0; k <= fft_length / 2; ++k) {
        const std::complex<double> expected = dft_bin(samples, fft_length, k);
        const size_t at = static_cast<size_t>(frame * (fft_length + 2) + 2 * k);
        EXPECT_NEAR(out[at], expected.real(), 1e-4) << "frame " << frame << " bin " << k;
        EXPECT_NEAR(out[at + 1], expected.imag(), 1e-4) << "frame " << frame << " bin " << k;
      }
    }
  }
}

// Inputs of bounded values: floats in [-1, 1], int32 in +-2^28.
std::vector<uint8_t> rfft_input(const OneOp& m, DataType type, std::mt19937& random) {
  const size_t count = static_cast<size_t>(m.graph.main().tensors[static_cast<size_t>(m.input)].element_count);
  if (type == DataType::kFloat32) {
    std::uniform_real_distribution<float> sample(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values) v = sample(random);
    return bytes_of(values);
  }
  std::uniform_int_distribution<int32_t> sample(-(1 << 28), 1 << 28);
  std::vector<int32_t> values(count);
  for (int32_t& v : values) v = sample(random);
  return bytes_of(values);
}

TEST(SignalRfftWide, ReadsEachFrameBeforeWritingIt) {
  std::mt19937 random(5);
  for (const auto& [option, type] : {std::pair{kRfftInt32, DataType::kInt32}, std::pair{kRfftFloat32, DataType::kFloat32}}) {
    SCOPED_TRACE(data_type_name(type));
    // One frame: the whole output (10 values of 4 bytes) may cover the input.
    const OneOp one = rfft_model(1, 6, 8, option, type);
    EXPECT_EQ(test::addresses(one).safe_overlap(), 40);
    expect_overlap_facts(one, rfft_input(one, type, random), 4);
    // Two frames: frame 1 (input bytes from 24) is read after frame 0 wrote
    // output bytes up to 39, so 16 bytes less than the output's 80.
    const OneOp two = rfft_model(2, 6, 8, option, type);
    EXPECT_EQ(test::addresses(two).safe_overlap(), 64);
    expect_overlap_facts(two, rfft_input(two, type, random), 4);
  }
}

TEST(SignalRfftWide, OverlapFactsHoldForRandomFrames) {
  std::mt19937 random(13);
  for (int trial = 0; trial < 60; ++trial) {
    const bool is_float = trial % 2 == 1;
    const DataType type = is_float ? DataType::kFloat32 : DataType::kInt32;
    const int32_t fft_length = 2 * std::uniform_int_distribution<int32_t>(1, 12)(random);
    const int32_t input_length = std::uniform_int_distribution<int32_t>(1, fft_length)(random);
    const int32_t frames = std::uniform_int_distribution<int32_t>(1, 4)(random);
    SCOPED_TRACE(fmt::format("{} fft_length {} input_length {} frames {}", data_type_name(type), fft_length,
                             input_length, frames));
    const OneOp m = rfft_model(frames, input_length, fft_length, is_float ? kRfftFloat32 : kRfftInt32, type);
    // The closed form of the frame loop: the last frame's input is read
    // after every earlier output frame was written, so the output may
    // cover one output frame plus the input frames before the last.
    const int64_t in_frame = 4 * int64_t{input_length}, out_frame = 4 * int64_t{fft_length + 2};
    EXPECT_EQ(test::addresses(m).safe_overlap(), out_frame + (frames - 1) * in_frame);
    expect_overlap_facts(m, rfft_input(m, type, random), 4);
  }
}

// ---------------------------------------------------------------- SignalEnergy

OneOp energy_model(int32_t bins, int32_t start, int32_t end) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {2 * bins});
  m.output = b.add_tensor("output", DataType::kUInt32, {bins});
  b.add_op(OpKind::kCustom, {m.input}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalEnergy", flex_map([&](auto& f) {
                        f.Int("end_index", end);
                        f.Int("start_index", start);
                      }));
  return m;
}

TEST(SignalEnergy, SquaresTheMagnitudeOfTheRangeAndLeavesTheRestUntouched) {
  const OneOp m = energy_model(4, 1, 3);
  const std::vector<int16_t> in = {3, 4, 1, -2, -32768, -32768, 9, 9};
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_tensor(m.output, std::vector<uint8_t>(16, 0xEE));
  interpreter.set_inputs(bytes_of(in));
  interpreter.run();
  // 1 + 4, and 2^30 + 2^30 wrapping into uint32 as TFLM's int32 sum does.
  EXPECT_EQ(test::values_from<uint32_t>(interpreter.tensor_bytes(m.output)),
            (std::vector<uint32_t>{0xEEEEEEEE, 5, 0x80000000u, 0xEEEEEEEE}));
}

// The energy's bins outside [start, end) hold what the arena held, so the
// overlapped run is compared with the unshared one on the bins it writes.
bool energy_clobbers_at_overlap(const OneOp& m, int64_t overlap, const std::vector<uint8_t>& input, int32_t start,
                                int32_t end) {
  Interpreter overlapped(m.graph, test::overlapped_placement(m, overlap));
  overlapped.set_inputs(input);
  const bool clobbered = overlapped.run_checked().has_value();
  if (!clobbered) {
    Interpreter reference(m.graph, unshared_placement(m.graph.main()));
    reference.set_inputs(input);
    reference.run();
    const auto got = test::values_from<uint32_t>(overlapped.tensor_bytes(m.output));
    const auto expected = test::values_from<uint32_t>(reference.tensor_bytes(m.output));
    for (int32_t i = start; i < end; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], expected[static_cast<size_t>(i)]) << "bin " << i;
  }
  return clobbered;
}

void expect_energy_overlap_facts(int32_t bins, int32_t start, int32_t end, uint32_t seed) {
  const OneOp m = energy_model(bins, start, end);
  const std::vector<uint8_t> input = pattern_input(m.graph.main(), seed);
  const int64_t os = test::addresses(m).safe_overlap();
  EXPECT_FALSE(energy_clobbers_at_overlap(m, os, input, start, end)) << "at O_s " << os;
  if (os + 4 <= test::bytes_of_tensor(m, m.output)) {
    EXPECT_TRUE(energy_clobbers_at_overlap(m, os + 4, input, start, end)) << "one element beyond O_s " << os;
  }
}

TEST(SignalEnergy, OverlapsItsInputWholeAndUnwrittenBinsAreNoClobber) {
  EXPECT_EQ(test::addresses(energy_model(9, 2, 7)).safe_overlap(), 36);
  expect_energy_overlap_facts(9, 2, 7, 1);
  expect_energy_overlap_facts(9, 0, 9, 2);
}

TEST(SignalEnergy, OverlapFactsHoldForRandomRanges) {
  std::mt19937 random(5);
  for (int trial = 0; trial < 12; ++trial) {
    const int32_t bins = std::uniform_int_distribution<int32_t>(1, 20)(random);
    const int32_t start = std::uniform_int_distribution<int32_t>(0, bins)(random);
    const int32_t end = std::uniform_int_distribution<int32_t>(start, bins)(random);
    SCOPED_TRACE(fmt::format("bins {} range [{}, {})", bins, start, end));
    EXPECT_EQ(test::addresses(energy_model(bins, start, end)).safe_overlap(), 4 * bins);
    expect_energy_overlap_facts(bins, start, end, static_cast<uint32_t>(trial));
  }
}

TEST(SignalEnergy, RefusesRangesOutsideItsTensors) {
  EXPECT_RUN_ERROR(energy_model(4, 3, 5).graph, "op 0 (SignalEnergy): custom option 'end_index' is 5, outside [3, 4]");
  EXPECT_RUN_ERROR(energy_model(4, -1, 2).graph, "op 0 (SignalEnergy): custom option 'start_index' is -1, outside [0, 4]");
}

// A byte a reader loads that its writer never stored holds what the arena
// held (TFLM's behaviour): whole-arena checking reports no clobber for it.
TEST(SignalEnergy, ReadingItsUnwrittenBinsIsNoClobber) {
  GraphBuilder b("signal_kernels_test");
  const int32_t in = b.add_tensor("input", DataType::kInt16, {8});
  const int32_t window = b.add_tensor("window", DataType::kInt16, {8});
  const int32_t energy = b.add_tensor("energy", DataType::kUInt32, {4});
  const int32_t log = b.add_tensor("log", DataType::kInt16, {4});
  const int32_t weights = b.add_constant_values("weights", DataType::kInt16, {8}, std::vector<int16_t>(8, 4096));
  b.add_op(OpKind::kCustom, {in, weights}, {window});
  b.add_op(OpKind::kCustom, {window}, {energy});
  b.add_op(OpKind::kCustom, {energy}, {log});
  b.set_inputs({in});
  b.set_outputs({log});
  Graph graph = b.finish();
  auto set = [&](size_t op, const char* code, std::vector<uint8_t> options) {
    graph.subgraphs[0].ops[op].custom_code = code;
    graph.subgraphs[0].ops[op].custom_options = std::move(options);
  };
  set(0, "SignalWindow", flex_map([](auto& f) { f.Int("shift", 12); }));
  set(1, "SignalEnergy", flex_map([](auto& f) {
        f.Int("end_index", 3);
        f.Int("start_index", 1);
      }));
  set(2, "SignalFilterBankLog", flex_map([](auto& f) {
        f.Int("input_correction_bits", 0);
        f.Int("output_scale", 64);
      }));
  // The energy sits where the window was: its bin 0 holds the window's bytes.
  TensorPlacement p;
  p.offsets = {32, 0, 0, 16, -1};
  p.arena_size = 48;
  Interpreter interpreter(graph, p);
  interpreter.set_inputs(pattern_input(graph.main(), 3));
  EXPECT_FALSE(interpreter.run_checked().has_value());
}

// ---------------------------------------------------------------- SignalFilterBank

struct FilterBankSetup {
  std::vector<int16_t> weights = {1, 2, 3, 4}, unweights = {5, 6, 7, 8};
  std::vector<int16_t> frequency_starts = {0, 1, 2}, weight_starts = {0, 1, 2}, widths = {1, 1, 2};
  int32_t channels = 2;
  int32_t inputs = 4;
  bool constant_tables = true;
};

OneOp filter_bank_model(const FilterBankSetup& s) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kUInt32, {s.inputs});
  auto table = [&](const char* name, const std::vector<int16_t>& v) {
    return b.add_constant_values(name, DataType::kInt16, {static_cast<int32_t>(v.size())}, v);
  };
  const int32_t w = table("weights", s.weights), u = table("unweights", s.unweights);
  const int32_t f = table("frequency_starts", s.frequency_starts), ws = table("weight_starts", s.weight_starts);
  const int32_t widths = s.constant_tables ? table("widths", s.widths)
                                           : b.add_tensor("widths", DataType::kInt16, {static_cast<int32_t>(s.widths.size())});
  m.output = b.add_tensor("output", DataType::kUInt64, {s.channels});
  b.add_op(OpKind::kCustom, {m.input, w, u, f, ws, widths}, {m.output});
  b.set_inputs(s.constant_tables ? std::vector<int32_t>{m.input} : std::vector<int32_t>{m.input, widths});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalFilterBank", flex_map([&](auto& fb) { fb.Int("num_channels", s.channels); }));
  return m;
}

TEST(SignalFilterBank, AccumulatesWeightsAndCarriesUnweightsToTheNextChannel) {
  const OneOp m = filter_bank_model({});
  // Channel 0 (scratch) takes 1*10 and carries 5*10; channel 1 adds 2*20 and
  // carries 6*20; channel 2 adds 3*30 + 4*40.
  EXPECT_EQ(run_output<uint64_t>(m.graph, bytes_of(std::vector<uint32_t>{10, 20, 30, 40})),
            (std::vector<uint64_t>{90, 370}));
  // Negative weights convert to uint64 and wrap, as TFLM's int16 * uint64 does.
  FilterBankSetup negative;
  negative.weights = {1, -1, 3, 4};
  const OneOp n = filter_bank_model(negative);
  EXPECT_EQ(run_output<uint64_t>(n.graph, bytes_of(std::vector<uint32_t>{10, 20, 30, 40})),
            (std::vector<uint64_t>{50 - 20, 370}));
}

TEST(SignalFilterBank, ReadsEveryInputBeforeWriting) {
  FilterBankSetup s;
  s.inputs = 8;
  const OneOp m = filter_bank_model(s);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 16);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 8);
}

TEST(SignalFilterBank, RefusesTablesThatAreNotConstantOrReachOutside) {
  FilterBankSetup variable;
  variable.constant_tables = false;
  EXPECT_RUN_ERROR(filter_bank_model(variable).graph,
                   "op 0 (SignalFilterBank): channel widths (input 5) must be constant");
  FilterBankSetup outside;
  outside.widths = {1, 1, 3};
  EXPECT_RUN_ERROR(filter_bank_model(outside).graph,
                   "op 0 (SignalFilterBank): channel 2 reads input elements [2, 5), outside its 4");
  FilterBankSetup short_table;
  short_table.widths = {1, 1};
  EXPECT_RUN_ERROR(filter_bank_model(short_table).graph,
                   "op 0 (SignalFilterBank): channel widths (input 5) has 2 entries; num_channels 2 needs 3");
}

// ---------------------------------------------------------------- SignalFilterBankSquareRoot

OneOp square_root_model(int32_t n, int32_t scale_bits) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kUInt64, {n});
  const int32_t bits = b.add_constant_values("scale_bits", DataType::kInt32, {}, std::vector<int32_t>{scale_bits});
  m.output = b.add_tensor("output", DataType::kUInt32, {n});
  b.add_op(OpKind::kCustom, {m.input, bits}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalFilterBankSquareRoot", flex_map([](auto&) {}));
  return m;
}

TEST(SignalFilterBankSquareRoot, RoundsTheRootAndShiftsItDown) {
  // Roots round up when the remainder exceeds the root: 15 -> 4, 17 -> 4, 20 -> 4, 21 -> 5.
  const std::vector<uint64_t> in = {0, 15, 16, 17, 20, 21, uint64_t{1} << 40, (uint64_t{1} << 40) + (uint64_t{1} << 21)};
  EXPECT_EQ(run_output<uint32_t>(square_root_model(8, 0).graph, bytes_of(in)),
            (std::vector<uint32_t>{0, 4, 4, 4, 4, 5, 1u << 20, (1u << 20) + 1}));
  EXPECT_EQ(run_output<uint32_t>(square_root_model(8, 1).graph, bytes_of(in)),
            (std::vector<uint32_t>{0, 2, 2, 2, 2, 2, 1u << 19, 1u << 19}));
}

TEST(SignalFilterBankSquareRoot, OverlapsItsInputWhole) {
  const OneOp m = square_root_model(10, 2);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 40);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 4);
}

// ---------------------------------------------------------------- SignalFilterBankSpectralSubtraction

OneOp spectral_subtraction_model(int32_t channels, int32_t noise_channels = -1) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kUInt32, {channels});
  m.output = b.add_tensor("output", DataType::kUInt32, {channels});
  const int32_t noise = b.add_tensor("noise", DataType::kUInt32, {noise_channels < 0 ? channels : noise_channels});
  b.add_op(OpKind::kCustom, {m.input}, {m.output, noise});
  b.set_inputs({m.input});
  b.set_outputs({m.output, noise});
  m.graph = as_custom(b.finish(), "SignalFilterBankSpectralSubtraction", flex_map([&](auto& f) {
                        f.Int("alternate_one_minus_smoothing", 8);
                        f.Int("alternate_smoothing", 8);
                        f.Bool("clamping", false);
                        f.Int("min_signal_remaining", 2);
                        f.Int("num_channels", channels);
                        f.Int("one_minus_smoothing", 12);
                        f.Int("smoothing", 4);
                        f.Int("smoothing_bits", 2);
                        f.Int("spectral_subtraction_bits", 4);
                      }));
  return m;
}

TEST(SignalFilterBankSpectralSubtraction, SubtractsTheSmoothedNoiseKeptAcrossInferences) {
  const OneOp m = spectral_subtraction_model(2);
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<uint32_t>{100, 50}));
  interpreter.run();
  // Channel 0: noise (400 * 4) >> 4 = 100, out (400 - 100) >> 2 = 75 above
  // the floor (100 * 2) >> 4 = 12. Channel 1 (alternate): noise 100, out 25.
  EXPECT_EQ(test::values_from<uint32_t>(interpreter.tensor_bytes(m.output)), (std::vector<uint32_t>{75, 25}));
  EXPECT_EQ(test::values_from<uint32_t>(interpreter.tensor_bytes(m.graph.main().outputs[1])),
            (std::vector<uint32_t>{100, 100}));
  // The estimate persists: channel 0 now (1600 + 100 * 12) >> 4 = 175.
  interpreter.run();
  EXPECT_EQ(test::values_from<uint32_t>(interpreter.tensor_bytes(m.output)), (std::vector<uint32_t>{56, 12}));
  EXPECT_EQ(test::values_from<uint32_t>(interpreter.tensor_bytes(m.graph.main().outputs[1])),
            (std::vector<uint32_t>{175, 150}));
}

TEST(SignalFilterBankSpectralSubtraction, OverlapsItsInputWhole) {
  const OneOp m = spectral_subtraction_model(12);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 48);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 4);
}

TEST(SignalFilterBankSpectralSubtraction, RefusesAnEstimateOfAnotherSizeAndIllTypedOptions) {
  EXPECT_RUN_ERROR(spectral_subtraction_model(4, 3).graph,
                   "op 0 (SignalFilterBankSpectralSubtraction): output 1 (noise estimate) has 3 elements for "
                   "num_channels 4");
  OneOp m = spectral_subtraction_model(4);
  m.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) {
    f.Int("num_channels", 4);
    f.Float("alternate_one_minus_smoothing", 0.5f);
  });
  EXPECT_RUN_ERROR(m.graph, "custom option 'alternate_one_minus_smoothing' is a float, not an integer");
}

// ---------------------------------------------------------------- SignalPCAN

OneOp pcan_model(int32_t channels, bool constant_lut = true) {
  std::vector<int16_t> lut(125, 0);
  lut[0] = 4096;
  lut[1] = 8192;
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kUInt32, {channels});
  const int32_t noise = b.add_tensor("noise", DataType::kUInt32, {channels});
  const int32_t table = constant_lut ? b.add_constant_values("gain_lut", DataType::kInt16, {125}, lut)
                                     : b.add_tensor("gain_lut", DataType::kInt16, {125});
  m.output = b.add_tensor("output", DataType::kUInt32, {channels});
  b.add_op(OpKind::kCustom, {m.input, noise, table}, {m.output});
  b.set_inputs(constant_lut ? std::vector<int32_t>{m.input, noise} : std::vector<int32_t>{m.input, noise, table});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalPCAN", flex_map([](auto& f) { f.Int("snr_shift", 6); }));
  return m;
}

TEST(SignalPCAN, GainsByTheNoiseThenShrinks) {
  const OneOp m = pcan_model(3);
  std::vector<uint8_t> in = bytes_of(std::vector<uint32_t>{1000, 64, 100});
  const std::vector<uint8_t> noise = bytes_of(std::vector<uint32_t>{0, 1, 0});
  in.insert(in.end(), noise.begin(), noise.end());
  // snr = (x * lut[noise]) >> 6: 64000 and 8192 shrink to x / 64 - 64 (936,
  // 64); 6400 is below 2 << 12, so 6400^2 >> 20 = 39.
  EXPECT_EQ(run_output<uint32_t>(m.graph, in), (std::vector<uint32_t>{936, 64, 39}));
}

TEST(SignalPCAN, CopiesTheInputFirstSoNoOverlapIsSafe) {
  const OneOp m = pcan_model(6);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 0);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 4);
}

TEST(SignalPCAN, RefusesAGainTableThatIsNotConstant) {
  EXPECT_RUN_ERROR(pcan_model(3, false).graph, "op 0 (SignalPCAN): input 2 (gain table) must be constant");
}

// ---------------------------------------------------------------- SignalFilterBankLog

OneOp log_model(int32_t n, int32_t correction_bits, int32_t output_scale) {
  GraphBuilder b("signal_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kUInt32, {n});
  m.output = b.add_tensor("output", DataType::kInt16, {n});
  b.add_op(OpKind::kCustom, {m.input}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = as_custom(b.finish(), "SignalFilterBankLog", flex_map([&](auto& f) {
                        f.Int("input_correction_bits", correction_bits);
                        f.Int("output_scale", output_scale);
                      }));
  return m;
}

TEST(SignalFilterBankLog, ScaledNaturalLogSaturatedToInt16) {
  // 64 ln 2 = 44.4 and 64 ln 1024 = 443.6 (rounded in 16-bit fixed point to
  // 44 and 444); inputs below 2 give 0; a huge scale saturates.
  const std::vector<uint8_t> in = bytes_of(std::vector<uint32_t>{0, 1, 2, 1024});
  EXPECT_EQ(run_output<int16_t>(log_model(4, 0, 64).graph, in), (std::vector<int16_t>{0, 0, 44, 444}));
  // One correction bit doubles the input: 1 becomes 2.
  EXPECT_EQ(run_output<int16_t>(log_model(4, 1, 64).graph, in), (std::vector<int16_t>{0, 44, 89, 488}));
  EXPECT_EQ(run_output<int16_t>(log_model(4, 0, 1 << 16).graph, in), (std::vector<int16_t>{0, 0, 32767, 32767}));
}

TEST(SignalFilterBankLog, OverlapsItsInputWhole) {
  const OneOp m = log_model(16, 3, 64);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 32);
  expect_overlap_facts(m, pattern_input(m.graph.main(), 1), 2);
}

// ---------------------------------------------------------------- custom-op dispatch

Graph one_custom_op(const std::string& code) {
  GraphBuilder b("signal_kernels_test");
  const int32_t in = b.add_tensor("in", DataType::kInt8, {4});
  const int32_t out = b.add_tensor("out", DataType::kInt8, {4});
  b.add_op(OpKind::kCustom, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  return as_custom(b.finish(), code, {});
}

TEST(CustomOps, AcceleratorAndUnknownCodesAreRefusedByName) {
  for (const char* code : {"ethos-u", "edgetpu-custom-op", "NPU_OP"}) {
    const std::string message = run_error(one_custom_op(code));
    EXPECT_EQ(message, fmt::format("op 0 ({0}): custom op '{0}' runs on an accelerator; dmo cannot execute it", code));
    const auto missing = test::missing_kernel(message);
    ASSERT_TRUE(missing.has_value()) << message;
    EXPECT_EQ(missing->kind, code);
  }
  const std::string message = run_error(one_custom_op("MyCustomOp"));
  EXPECT_EQ(message, "op 0 (MyCustomOp): dmo has no kernel for custom op 'MyCustomOp'");
  ASSERT_TRUE(test::missing_kernel(message).has_value());
  EXPECT_TRUE(is_accelerator_custom_op(one_custom_op("ethos-u").main().ops[0]));
  EXPECT_FALSE(is_accelerator_custom_op(one_custom_op("SignalRfft").main().ops[0]));
}

std::string write_temp(const Graph& graph, const std::string& name) {
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_signal_" + std::to_string(::getpid()) + "_" + name)).string();
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return file;
}

void expect_refused(const test::CommandResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "wanted: " << message << "\ngot: " << r.err;
}

TEST(CustomOps, TheCliRefusesInOneLineNamingTheFileOpAndProblem) {
  const std::string accelerator = write_temp(one_custom_op("ethos-u"), "npu.tflite");
  OneOp window = window_model(1, {1, 2}, 3);
  window.graph.subgraphs[0].ops[0].custom_options = flex_map([](auto& f) { f.Bool("shift", true); });
  const std::string ill_typed = write_temp(window.graph, "window.tflite");
  for (const char* command : {"run", "verify"}) {
    expect_refused(test::run_dmo({command, accelerator}),
                   accelerator + ": op 0 (ethos-u): custom op 'ethos-u' runs on an accelerator; dmo cannot execute it");
    expect_refused(test::run_dmo({command, ill_typed}),
                   ill_typed + ": op 0 (SignalWindow): custom option 'shift' is a bool, not an integer");
  }
  // Planning needs no kernel: the accelerator op just gets no overlap.
  EXPECT_EQ(test::run_dmo({"plan", accelerator}).exit_status, 0);
  std::filesystem::remove(accelerator);
  std::filesystem::remove(ill_typed);
}

// Custom options survive the writer and the reader.
TEST(CustomOps, OptionsRoundTripThroughATfliteFile) {
  const OneOp m = rfft_model(1, 6, 8);
  const std::string file = write_temp(m.graph, "rfft.tflite");
  auto r = test::run_dmo({"run", file});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo
