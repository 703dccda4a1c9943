// int16 CONV_2D with int8 filters ("16x8"): TFLM's reference kernel
// (values against an independent computation here, with TFLite's 64-bit
// and 32-bit MultiplyByQuantizedMultiplier re-derived from their
// definitions; operand errors; the safe overlap on typical and random
// layers) and its CMSIS-NN mirror arm_convolve_s16 in the cmsis-nn and
// cmsis-nn-dsp families (selection, scratch, CMSIS-NN's own values where
// they differ, refusals, the safe overlap on typical and random layers).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/ops/cmsis_nn_coverage.h"
#include "dmo/ops/padding.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::OneOp;
using test::per_tensor;

constexpr std::array<KernelFamily, 2> kCmsisFamilies = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};
constexpr std::array<KernelFamily, 3> kAllFamilies = {KernelFamily::kTflmReference, KernelFamily::kCmsisNn,
                                                      KernelFamily::kCmsisNnDsp};

enum class BiasKind { kNone, kInt32, kInt64 };

struct Conv16Case {
  int32_t batches = 1;
  int32_t height = 8, width = 8, depth = 4;
  int32_t filter_height = 3, filter_width = 3, filter_depth = 0;  // 0: the input depth
  int32_t output_depth = 4;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Padding padding = Padding::kSame;
  BiasKind bias = BiasKind::kInt64;
  Activation activation = Activation::kNone;
};

// A one-op graph and the constants it was built from.
struct Conv16Model {
  Conv16Case c;
  OneOp op;
  std::vector<int8_t> filter;
  std::vector<int64_t> bias;  // empty without a bias
  float input_scale = 0, output_scale = 0;
  std::vector<float> filter_scales;  // one per output channel
};

int32_t filter_depth_of(const Conv16Case& c) { return c.filter_depth > 0 ? c.filter_depth : c.depth; }

int32_t out_height(const Conv16Case& c) {
  return window_output_size(c.padding, c.height, c.filter_height, c.stride_h, c.dilation_h);
}
int32_t out_width(const Conv16Case& c) {
  return window_output_size(c.padding, c.width, c.filter_width, c.stride_w, c.dilation_w);
}

// Random weights, per-channel filter scales and biases; input and output
// zero points 0, as TFLite quantizes int16.
Conv16Model conv16_model(const Conv16Case& c, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  Conv16Model model;
  model.c = c;
  const int32_t filter_depth = filter_depth_of(c);
  const int64_t filter_count = int64_t{c.output_depth} * c.filter_height * c.filter_width * filter_depth;
  std::uniform_int_distribution<int> weight(-127, 127);
  for (int64_t i = 0; i < filter_count; ++i) model.filter.push_back(static_cast<int8_t>(weight(rng)));
  std::uniform_int_distribution<int64_t> bias_value(-(int64_t{1} << 20), int64_t{1} << 20);
  if (c.bias != BiasKind::kNone) {
    for (int32_t o = 0; o < c.output_depth; ++o) model.bias.push_back(bias_value(rng));
  }
  model.input_scale = 0.0005f;
  const float taps = static_cast<float>(c.filter_height * c.filter_width * filter_depth);
  Quantization filter_quant;
  for (int32_t o = 0; o < c.output_depth; ++o) {
    model.filter_scales.push_back(0.01f * (1.0f + 0.1f * static_cast<float>(o % 3)));
    filter_quant.scale.push_back(model.filter_scales.back());
    filter_quant.zero_point.push_back(0);
  }
  model.output_scale = model.input_scale * 0.01f * 100.0f * std::sqrt(taps);

  GraphBuilder b("conv16_test");
  OneOp& m = model.op;
  m.input = b.add_tensor("input", DataType::kInt16, {c.batches, c.height, c.width, c.depth},
                         per_tensor(model.input_scale, 0));
  const int32_t filter = b.add_constant_values<int8_t>(
      "filter", DataType::kInt8, {c.output_depth, c.filter_height, c.filter_width, filter_depth}, model.filter,
      filter_quant);
  std::vector<int32_t> inputs = {m.input, filter};
  if (c.bias == BiasKind::kInt64) {
    inputs.push_back(b.add_constant_values<int64_t>("bias", DataType::kInt64, {c.output_depth}, model.bias));
  } else if (c.bias == BiasKind::kInt32) {
    const std::vector<int32_t> narrow(model.bias.begin(), model.bias.end());
    inputs.push_back(b.add_constant_values<int32_t>("bias", DataType::kInt32, {c.output_depth}, narrow));
  }
  m.output = b.add_tensor("output", DataType::kInt16, {c.batches, out_height(c), out_width(c), c.output_depth},
                          per_tensor(model.output_scale, 0));
  b.add_op(OpKind::kConv2D, inputs, {m.output},
           Conv2DParams{c.padding, c.stride_w, c.stride_h, c.dilation_w, c.dilation_h, c.activation});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return model;
}

// ------------------------------------------- TFLite's arithmetic, re-derived

struct Multiplier {
  int32_t mantissa = 0;  // Q31 in [2^30, 2^31)
  int shift = 0;         // positive: left
};

// QuantizeMultiplier: real = mantissa / 2^31 * 2^shift, the mantissa
// rounded to 31 bits; below 2^-31 the multiplier is 0.
Multiplier quantize(double real) {
  if (real == 0.0) return {};
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent);
  auto q = static_cast<int64_t>(std::round(fraction * 2147483648.0));
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++exponent;
  }
  if (exponent < -31) return {};
  return {static_cast<int32_t>(q), exponent};
}

// The 64-bit MultiplyByQuantizedMultiplier: the mantissa rounded to 16 bits
// (saturating at 0x7FFF), then one right shift by 15 - shift, rounding half
// up.
int32_t multiply_64(int64_t x, Multiplier m) {
  const int64_t reduced = m.mantissa < 0x7FFF0000 ? (m.mantissa + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - m.shift;
  return static_cast<int32_t>((x * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift);
}

// The 32-bit one: x shifted left by a positive shift, the high half of the
// doubled product (nudged by 2^30, or 1 - 2^30 below zero, and truncated),
// then a right shift rounding half away from zero.
int32_t multiply_32(int32_t x, Multiplier m) {
  const int left = std::max(m.shift, 0), right = std::max(-m.shift, 0);
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  int32_t high = std::numeric_limits<int32_t>::max();
  if (!(shifted == std::numeric_limits<int32_t>::min() && m.mantissa == std::numeric_limits<int32_t>::min())) {
    const int64_t product = int64_t{shifted} * m.mantissa;
    const int64_t nudge = product >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
    high = static_cast<int32_t>((product + nudge) / (int64_t{1} << 31));
  }
  if (right == 0) return high;
  const int64_t divisor = int64_t{1} << right;
  const double exact = static_cast<double>(high) / static_cast<double>(divisor);
  return static_cast<int32_t>(exact < 0 ? -std::floor(-exact + 0.5) : std::floor(exact + 0.5));
}

// TFLite's SAME padding before the first row or column.
int32_t padding_before(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation, int32_t out) {
  if (padding != Padding::kSame) return 0;
  const int32_t effective = (filter - 1) * dilation + 1;
  return std::max(0, (out - 1) * stride + effective - in) / 2;
}

// The output TFLM's reference ConvEval computes for int16: the exact sum
// of products (every tap inside the input), the bias, then the 64-bit
// multiply for an int64 bias or none (the options give no INT32
// quantized_bias_type), else the sum and bias wrapped to 32 bits and the
// 32-bit multiply; clamped to the activation's range.
std::vector<int16_t> tflite_conv16(const Conv16Model& model, const std::vector<int16_t>& input) {
  const Conv16Case& c = model.c;
  const int32_t oh = out_height(c), ow = out_width(c), fd = filter_depth_of(c);
  const int32_t groups = c.depth / fd, per_group = c.output_depth / groups;
  const int32_t pad_h = padding_before(c.padding, c.height, c.filter_height, c.stride_h, c.dilation_h, oh);
  const int32_t pad_w = padding_before(c.padding, c.width, c.filter_width, c.stride_w, c.dilation_w, ow);
  int32_t low = -32768, high = 32767;
  if (c.activation == Activation::kRelu || c.activation == Activation::kRelu6) low = 0;
  if (c.activation == Activation::kRelu6) {
    high = std::min(high, static_cast<int32_t>(std::round(6.0f / model.output_scale)));
  }
  std::vector<int16_t> output;
  for (int32_t n = 0; n < c.batches; ++n) {
    for (int32_t y = 0; y < oh; ++y) {
      for (int32_t x = 0; x < ow; ++x) {
        for (int32_t o = 0; o < c.output_depth; ++o) {
          const int32_t group = o / per_group;
          int64_t sum = 0;
          for (int32_t ky = 0; ky < c.filter_height; ++ky) {
            for (int32_t kx = 0; kx < c.filter_width; ++kx) {
              const int32_t iy = y * c.stride_h - pad_h + ky * c.dilation_h;
              const int32_t ix = x * c.stride_w - pad_w + kx * c.dilation_w;
              if (iy < 0 || iy >= c.height || ix < 0 || ix >= c.width) continue;
              for (int32_t i = 0; i < fd; ++i) {
                const int16_t v = input[static_cast<size_t>(((n * c.height + iy) * c.width + ix) * c.depth +
                                                            group * fd + i)];
                const int8_t w =
                    model.filter[static_cast<size_t>(((o * c.filter_height + ky) * c.filter_width + kx) * fd + i)];
                sum += int64_t{v} * w;
              }
            }
          }
          const int64_t bias = model.bias.empty() ? 0 : model.bias[static_cast<size_t>(o)];
          const Multiplier m = quantize(static_cast<double>(model.input_scale) *
                                        static_cast<double>(model.filter_scales[static_cast<size_t>(o)]) /
                                        static_cast<double>(model.output_scale));
          int32_t scaled = 0;
          if (c.bias != BiasKind::kInt32) {
            scaled = multiply_64(sum + bias, m);
          } else {
            const auto wrapped = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)) +
                                                      static_cast<uint32_t>(static_cast<int32_t>(bias)));
            scaled = multiply_32(wrapped, m);
          }
          output.push_back(static_cast<int16_t>(std::clamp(scaled, low, high)));
        }
      }
    }
  }
  return output;
}

// ------------------------------------------------------------------ running

Schedule schedule_of(const Graph& graph, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  return schedule;
}

std::vector<int16_t> run_conv(const OneOp& m, const std::vector<int16_t>& input, KernelFamily family) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_of(m.graph, family));
  interpreter.set_inputs(test::bytes_of(input));
  EXPECT_FALSE(interpreter.run_checked().has_value());
  return test::values_from<int16_t>(interpreter.tensor_contents(m.output));
}

std::vector<int16_t> random_values(const OneOp& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-32768, 32767);
  std::vector<int16_t> values(static_cast<size_t>(test::bytes_of_tensor(m, m.input) / 2));
  for (int16_t& v : values) v = static_cast<int16_t>(value(rng));
  return values;
}

std::string implementation_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_of(m.graph, family));
  return interpreter.prepared(0).implementation;
}

std::vector<KernelScratch> scratch_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_of(m.graph, family));
  return interpreter.prepared(0).scratch;
}

std::string error_running(const Graph& graph, KernelFamily family = KernelFamily::kTflmReference) {
  return test::error_of([&] {
    Interpreter interpreter(graph, unshared_placement(graph.main()), schedule_of(graph, family));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  });
}

// `family`'s kernel on `m`: no clobber at its O_s (outputs equal to TFLM's
// reference kernel's, checked inside), a clobber one int16 element beyond
// where both tensors extend that far. Returns O_s.
int64_t check_overlap_facts(const OneOp& m, KernelFamily family, uint32_t seed, const std::string& where) {
  const std::vector<uint8_t> input = test::bytes_of(random_values(m, seed));
  const int64_t os = test::addresses(m, family).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input, family)) << where << " O_s " << os;
  const int64_t limit = std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output));
  if (os + 2 <= limit) {
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + 2, input, family)) << where << " O_s " << os;
  }
  return os;
}

Conv16Case same_3x3_8_to_8_on_16x16() {
  Conv16Case c;
  c.height = c.width = 16;
  c.depth = c.output_depth = 8;
  return c;
}

Conv16Case pointwise_16_to_8_on_8x8() {
  Conv16Case c;
  c.depth = 16;
  c.output_depth = 8;
  c.filter_height = c.filter_width = 1;
  c.padding = Padding::kValid;
  return c;
}

Conv16Case strided_3x3_on_16x16() {
  Conv16Case c = same_3x3_8_to_8_on_16x16();
  c.stride_h = c.stride_w = 2;
  return c;
}

// One int16 1x1 CONV_2D of a [1, 1, pixels, depth] input with every weight
// `weight`, input and filter scale 1 and output scale `output_scale`.
struct SmallConv {
  int32_t pixels = 1, depth = 1;
  int8_t weight = 1;
  float output_scale = 1.0f;
  BiasKind bias = BiasKind::kInt64;
  int64_t bias_value = 0;
  Activation activation = Activation::kNone;
  DataType quantized_bias_type = DataType::kFloat32;  // the options' field, FLOAT32 meaning unset
};

Graph small_conv(const SmallConv& s) {
  GraphBuilder b("conv16_test");
  const int32_t in = b.add_tensor("input", DataType::kInt16, {1, 1, s.pixels, s.depth}, per_tensor(1.0f, 0));
  const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, {1, 1, 1, s.depth},
                                                       std::vector<int8_t>(static_cast<size_t>(s.depth), s.weight),
                                                       per_tensor(1.0f, 0));
  std::vector<int32_t> inputs = {in, filter};
  if (s.bias == BiasKind::kInt64) {
    inputs.push_back(b.add_constant_values<int64_t>("bias", DataType::kInt64, {1}, {s.bias_value}));
  } else if (s.bias == BiasKind::kInt32) {
    inputs.push_back(
        b.add_constant_values<int32_t>("bias", DataType::kInt32, {1}, {static_cast<int32_t>(s.bias_value)}));
  }
  const int32_t out = b.add_tensor("output", DataType::kInt16, {1, 1, s.pixels, 1}, per_tensor(s.output_scale, 0));
  b.add_op(OpKind::kConv2D, inputs, {out},
           Conv2DParams{Padding::kValid, 1, 1, 1, 1, s.activation, s.quantized_bias_type});
  b.set_inputs({in});
  b.set_outputs({out});
  return b.finish();
}

std::vector<int16_t> run_small(const SmallConv& s, const std::vector<int16_t>& input, KernelFamily family) {
  OneOp m;
  m.graph = small_conv(s);
  m.input = 0;
  m.output = static_cast<int32_t>(m.graph.main().tensors.size()) - 1;
  return run_conv(m, input, family);
}

// ------------------------------------------------------ reference kernel

TEST(Conv16, RequantizesWithTheMultiplyOfTheBiasType) {
  // Multiplier 1/3 (mantissa 0x55555555, shift -1) on the sum -1999 (true
  // value -666.33). 64-bit: 16-bit multiplier 0x5555, one shift by 16:
  // (-1999 * 21845 + 32768) >> 16 = -666. 32-bit: the doubled high half
  // rounds -1332.67 to -1333, the shift by 1 rounds -666.5 away from zero:
  // -667. Without a bias TFLM's reference ConvEval accumulates in 64 bits
  // (quantized_bias_type not INT32); the CMSIS-NN glue takes its int32 path.
  for (KernelFamily family : kAllFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    SmallConv s;
    s.output_scale = 3.0f;
    EXPECT_EQ(run_small(s, {-1999}, family), std::vector<int16_t>{-666});
    s.bias = BiasKind::kInt32;
    EXPECT_EQ(run_small(s, {-1999}, family), std::vector<int16_t>{-667});
    s.bias = BiasKind::kNone;
    EXPECT_EQ(run_small(s, {-1999}, family),
              std::vector<int16_t>{family == KernelFamily::kTflmReference ? int16_t{-666} : int16_t{-667}});
    // quantized_bias_type INT32 asks for the int32 accumulator.
    s.quantized_bias_type = DataType::kInt32;
    EXPECT_EQ(run_small(s, {-1999}, family), std::vector<int16_t>{-667});
    s.quantized_bias_type = DataType::kFloat32;
    // The bias is added before the multiply: -2000 + 1 = -1999 again.
    s.bias = BiasKind::kInt64;
    s.bias_value = 1;
    EXPECT_EQ(run_small(s, {-2000}, family), std::vector<int16_t>{-666});
  }
}

TEST(Conv16, SaturatesAndClampsToTheActivation) {
  for (KernelFamily family : kAllFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    SmallConv s;
    s.depth = 2;
    s.pixels = 3;
    s.weight = 127;
    // Output scale 1: 2 * 32767 * 127 saturates at 32767, 2 * -32768 * 127
    // at -32768; 2 * 100 * 127 = 25400 fits.
    EXPECT_EQ(run_small(s, {32767, 32767, -32768, -32768, 100, 100}, family),
              (std::vector<int16_t>{32767, -32768, 25400}));
    // Weight 1, output scale 0.01 (multiplier exactly 100): sums -10, 3, 8
    // give -1000, 300, 800; RELU6 clamps them to [0, round(6 / 0.01)].
    s.weight = 1;
    s.output_scale = 0.01f;
    s.activation = Activation::kRelu6;
    EXPECT_EQ(run_small(s, {-5, -5, 1, 2, 4, 4}, family), (std::vector<int16_t>{0, 300, 600}));
    // Output scale 1: RELU clamps -10 to 0 and keeps 3 and 8.
    s.output_scale = 1.0f;
    s.activation = Activation::kRelu;
    EXPECT_EQ(run_small(s, {-5, -5, 1, 2, 4, 4}, family), (std::vector<int16_t>{0, 3, 8}));
  }
}

// 512 products of -32768 * -128 = 2^22 sum to 2^31: an int64 bias keeps
// it (times 2^-16: 32768, saturated to 32767); an int32 bias (as TFLM's
// reference accumulates then) wraps it to -2^31 (-32768).
TEST(Conv16, AccumulatesInTheBiasType) {
  SmallConv s;
  s.depth = 512;
  s.weight = -128;
  s.output_scale = 65536.0f;
  const std::vector<int16_t> input(512, -32768);
  EXPECT_EQ(run_small(s, input, KernelFamily::kTflmReference), std::vector<int16_t>{32767});
  s.bias = BiasKind::kInt32;
  EXPECT_EQ(run_small(s, input, KernelFamily::kTflmReference), std::vector<int16_t>{-32768});
}

TEST(Conv16, MatchesAnIndependentComputation) {
  Conv16Case grouped = same_3x3_8_to_8_on_16x16();
  grouped.height = grouped.width = 6;
  grouped.filter_depth = 4;
  grouped.output_depth = 6;
  Conv16Case dilated_batches = strided_3x3_on_16x16();
  dilated_batches.batches = 2;
  dilated_batches.height = dilated_batches.width = 9;
  dilated_batches.dilation_h = 2;
  dilated_batches.output_depth = 5;
  dilated_batches.activation = Activation::kRelu;
  Conv16Case valid_relu6 = same_3x3_8_to_8_on_16x16();
  valid_relu6.padding = Padding::kValid;
  valid_relu6.activation = Activation::kRelu6;
  const std::vector<Conv16Case> layers = {same_3x3_8_to_8_on_16x16(), pointwise_16_to_8_on_8x8(),
                                          strided_3x3_on_16x16(),     grouped,
                                          dilated_batches,            valid_relu6};
  int differing_from_clamp = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}) {
      Conv16Case c = layers[i];
      c.bias = bias;
      const Conv16Model model = conv16_model(c, static_cast<uint32_t>(i) + 11);
      const std::vector<int16_t> input = random_values(model.op, static_cast<uint32_t>(i) + 5);
      const std::vector<int16_t> expected = tflite_conv16(model, input);
      const std::vector<int16_t> reference = run_conv(model.op, input, KernelFamily::kTflmReference);
      EXPECT_EQ(reference, expected) << "layer " << i << " bias " << static_cast<int>(bias);
      for (int16_t v : expected) differing_from_clamp += (v != 32767 && v != -32768 && v != 0) ? 1 : 0;
    }
  }
  EXPECT_GT(differing_from_clamp, 1000);  // the layers exercise the arithmetic, not only the clamps
}

// TFLM's reference kernel neither checks nor applies int16 zero points.
TEST(Conv16, ReferenceIgnoresZeroPointsAsTflmDoes) {
  const Conv16Model model = conv16_model(same_3x3_8_to_8_on_16x16(), 3);
  Graph shifted = model.op.graph;
  shifted.subgraphs[0].tensors[static_cast<size_t>(model.op.input)].quantization.zero_point = {7};
  shifted.subgraphs[0].tensors[static_cast<size_t>(model.op.output)].quantization.zero_point = {-9};
  OneOp m = model.op;
  m.graph = shifted;
  const std::vector<int16_t> input = random_values(m, 4);
  EXPECT_EQ(run_conv(m, input, KernelFamily::kTflmReference), run_conv(model.op, input, KernelFamily::kTflmReference));
}

// A graph of one int16 CONV_2D whose operand types are given.
Graph typed_conv(DataType input, DataType filter, std::optional<DataType> bias, DataType output,
                 float output_scale = 0.5f) {
  GraphBuilder b("conv16_test");
  const int32_t in = b.add_tensor("input", input, {1, 4, 4, 4}, per_tensor(0.5f, 0));
  const size_t filter_bytes = 16 * static_cast<size_t>(element_size(filter).value());
  const int32_t weights =
      b.add_constant("filter", filter, {4, 1, 1, 4}, std::vector<uint8_t>(filter_bytes, 1), per_tensor(0.5f, 0));
  std::vector<int32_t> inputs = {in, weights};
  if (bias) {
    const size_t bias_bytes = 4 * static_cast<size_t>(element_size(*bias).value());
    inputs.push_back(b.add_constant("bias", *bias, {4}, std::vector<uint8_t>(bias_bytes, 0)));
  }
  const int32_t out = b.add_tensor("output", output, {1, 4, 4, 4}, per_tensor(output_scale, 0));
  b.add_op(OpKind::kConv2D, inputs, {out}, Conv2DParams{});
  b.set_inputs({in});
  b.set_outputs({out});
  return b.finish();
}

TEST(Conv16, BadOperandsNameOpKindAndProblem) {
  using DT = DataType;
  for (KernelFamily family : kAllFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    EXPECT_EQ(error_running(typed_conv(DT::kInt16, DT::kInt16, DT::kInt64, DT::kInt16), family),
              "op 0 (CONV_2D): filter type INT16 with INT16 input is not supported; the filter must be INT8");
    EXPECT_EQ(error_running(typed_conv(DT::kInt16, DT::kInt8, DT::kInt16, DT::kInt16), family),
              "op 0 (CONV_2D): bias type INT16 with INT16 input is not supported; the bias must be INT32 or INT64");
    EXPECT_EQ(error_running(typed_conv(DT::kInt16, DT::kInt8, DT::kInt64, DT::kInt8), family),
              "op 0 (CONV_2D): output type INT8 with INT16 input is not supported; the output must be INT16");
    EXPECT_EQ(error_running(typed_conv(DT::kInt32, DT::kInt8, std::nullopt, DT::kInt32), family),
              "op 0 (CONV_2D): input type INT32 is not supported; supported: FLOAT32, INT8, UINT8, INT16");
    // 0.5 * 0.5 / 0.0001 = 2500 needs a left shift of 12: too far for the
    // 64-bit multiply, fine for the 32-bit one.
    EXPECT_EQ(error_running(typed_conv(DT::kInt16, DT::kInt8, DT::kInt64, DT::kInt16, 0.0001f), family),
              "op 0 (CONV_2D): output channel 0 has requantization shift 12, above the 64-bit requantization's "
              "limit of 7");
    EXPECT_EQ(error_running(typed_conv(DT::kInt16, DT::kInt8, DT::kInt32, DT::kInt16, 0.0001f), family), "");
    {  // one input only
      GraphBuilder b("conv16_test");
      const int32_t in = b.add_tensor("input", DT::kInt16, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t out = b.add_tensor("output", DT::kInt16, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {in}, {out}, Conv2DParams{});
      b.set_inputs({in});
      b.set_outputs({out});
      EXPECT_EQ(error_running(b.finish(), family),
                "op 0 (CONV_2D): expected 2 or 3 inputs (input, filter, bias), got 1");
    }
    {  // a bias of the wrong length
      GraphBuilder b("conv16_test");
      const int32_t in = b.add_tensor("input", DT::kInt16, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t w = b.add_constant_values<int8_t>("filter", DT::kInt8, {4, 1, 1, 4}, std::vector<int8_t>(16, 1),
                                                      per_tensor(0.5f, 0));
      const int32_t bias = b.add_constant_values<int64_t>("bias", DT::kInt64, {3}, {0, 0, 0});
      const int32_t out = b.add_tensor("output", DT::kInt16, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {in, w, bias}, {out}, Conv2DParams{});
      b.set_inputs({in});
      b.set_outputs({out});
      EXPECT_EQ(error_running(b.finish(), family), "op 0 (CONV_2D): bias has 3 elements for 4 output channels");
    }
    {  // no quantization parameters
      GraphBuilder b("conv16_test");
      const int32_t in = b.add_tensor("input", DT::kInt16, {1, 4, 4, 4});
      const int32_t w = b.add_constant_values<int8_t>("filter", DT::kInt8, {4, 1, 1, 4}, std::vector<int8_t>(16, 1),
                                                      per_tensor(0.5f, 0));
      const int32_t out = b.add_tensor("output", DT::kInt16, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {in, w}, {out}, Conv2DParams{});
      b.set_inputs({in});
      b.set_outputs({out});
      EXPECT_EQ(error_running(b.finish(), family), "op 0 (CONV_2D): quantized input has no quantization parameters");
    }
  }
}

TEST(Conv16, CliReportsABadBiasInOneLineWithExitTwo) {
  const std::vector<uint8_t> bytes =
      write_tflite(typed_conv(DataType::kInt16, DataType::kInt8, DataType::kInt8, DataType::kInt16));
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_conv16_{}_bias.tflite", ::getpid())).string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"run", file});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file +
                       ": op 0 (CONV_2D): bias type INT8 with INT16 input is not supported; the bias must be INT32 "
                       "or INT64"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(file);
}

TEST(Conv16, CliRunsAValidModel) {
  const std::vector<uint8_t> bytes = write_tflite(conv16_model(same_3x3_8_to_8_on_16x16()).op.graph);
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_conv16_{}_ok.tflite", ::getpid())).string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"verify", file});
  EXPECT_EQ(r.exit_status, 0) << r.out << r.err;
  std::filesystem::remove(file);
}

// ------------------------------------------------------------ CMSIS-NN

TEST(CmsisNnConv16, RunsArmConvolveS16WithTheGluesScratch) {
  // arm_convolve_s16_get_buffer_size: 2 columns of kernel_h * kernel_w *
  // input depth int16 values, whatever the bias type (the glue never sees
  // the bias when it decides).
  struct Expected {
    Conv16Case layer;
    int64_t scratch;
  };
  Conv16Case dilated = same_3x3_8_to_8_on_16x16();
  dilated.dilation_h = dilated.dilation_w = 2;
  Conv16Case rectangle = pointwise_16_to_8_on_8x8();
  rectangle.filter_height = 2;
  rectangle.filter_width = 5;
  rectangle.depth = 3;
  const std::vector<Expected> expected = {
      {same_3x3_8_to_8_on_16x16(), 2 * 3 * 3 * 8 * 2},  // 288
      {pointwise_16_to_8_on_8x8(), 2 * 1 * 1 * 16 * 2},  // 64: no 1x1 kernel for s16
      {strided_3x3_on_16x16(), 288},
      {dilated, 288},
      {rectangle, 2 * 2 * 5 * 3 * 2},  // 120
  };
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    const std::string name =
        std::string("arm_convolve_s16") + (family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)");
    for (const Expected& e : expected) {
      for (BiasKind bias : {BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}) {
        Conv16Case c = e.layer;
        c.bias = bias;
        const OneOp m = conv16_model(c).op;
        EXPECT_EQ(implementation_of(m, family), name);
        const std::vector<KernelScratch> scratch = scratch_of(m, family);
        ASSERT_EQ(scratch.size(), 1u);
        EXPECT_EQ(scratch[0].bytes, e.scratch);
      }
    }
  }
  EXPECT_EQ(implementation_of(conv16_model(same_3x3_8_to_8_on_16x16()).op, KernelFamily::kTflmReference), "");
  EXPECT_TRUE(scratch_of(conv16_model(same_3x3_8_to_8_on_16x16()).op, KernelFamily::kTflmReference).empty());
  EXPECT_EQ(unmirrored_cmsis_nn_function(conv16_model(same_3x3_8_to_8_on_16x16()).op.graph.main(),
                                         conv16_model(same_3x3_8_to_8_on_16x16()).op.graph.main().ops[0]),
            std::nullopt);
}

TEST(CmsisNnConv16, FloatRunsTheReferenceKernel) {
  GraphBuilder b("conv16_test");
  const int32_t in = b.add_tensor("input", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t w =
      b.add_constant_values<float>("filter", DataType::kFloat32, {2, 3, 3, 2}, std::vector<float>(36, 0.25f));
  const int32_t out = b.add_tensor("output", DataType::kFloat32, {1, 4, 4, 2});
  b.add_op(OpKind::kConv2D, {in, w}, {out}, Conv2DParams{});
  b.set_inputs({in});
  b.set_outputs({out});
  OneOp m;
  m.graph = b.finish();
  m.input = in;
  m.output = out;
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(m, family), "");
    EXPECT_TRUE(scratch_of(m, family).empty());
    EXPECT_EQ(test::addresses(m, family).safe_overlap(), test::addresses(m).safe_overlap());
  }
}

// With an int64 bias, arm_nn_mat_mult_kernel_s16 sums the first 512
// columns in 32 bits, and the odd last pixel's loop sums all of them so:
// 512 products of 2^22 wrap to -2^31 where the reference keeps 2^31
// (saturating at 32767 after the 2^-16 multiply). CMSIS-NN's -32768 is what
// firmware built with it computes.
TEST(CmsisNnConv16, SumsTheFirst512ColumnsIn32Bits) {
  SmallConv s;
  s.depth = 512;
  s.weight = -128;
  s.output_scale = 65536.0f;
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    s.pixels = 1;  // the odd pixel
    EXPECT_EQ(run_small(s, std::vector<int16_t>(512, -32768), family), std::vector<int16_t>{-32768});
    s.pixels = 2;  // a pixel pair
    EXPECT_EQ(run_small(s, std::vector<int16_t>(1024, -32768), family), (std::vector<int16_t>{-32768, -32768}));
    // One column fewer: 511 * 2^22 fits, and so does the reference's value.
    s.depth = 511;
    EXPECT_EQ(run_small(s, std::vector<int16_t>(1022, -32768), family), (std::vector<int16_t>{32704, 32704}));
    s.depth = 512;
  }
}

TEST(CmsisNnConv16, RefusesWhatArmConvolveS16CannotCompute) {
  Conv16Case grouped = same_3x3_8_to_8_on_16x16();
  grouped.filter_depth = 4;
  const OneOp grouped_op = conv16_model(grouped).op;
  const Conv16Model model = conv16_model(same_3x3_8_to_8_on_16x16());
  Graph zero_point = model.op.graph;
  zero_point.subgraphs[0].tensors[static_cast<size_t>(model.op.input)].quantization.zero_point = {3};
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    EXPECT_EQ(error_running(grouped_op.graph, family),
              "op 0 (CONV_2D): grouped convolution (filter depth 4, input depth 8) is not supported by "
              "arm_convolve_s16, which reads the filter with the input's depth");
    EXPECT_EQ(error_running(zero_point, family), "op 0 (CONV_2D): int16 input and output must have zero point 0");
  }
  EXPECT_EQ(error_running(grouped_op.graph), "");
  EXPECT_EQ(error_running(zero_point), "");
}

// ---------------------------------------------------------- safe overlap

// The O_s each family reaches on typical layers (address-only policy),
// with no clobber there and one an element beyond.
TEST(Conv16, SafeOverlapOfTypicalLayersPerFamily) {
  struct Expected {
    Conv16Case layer;
    int64_t reference, cmsis_nn, cmsis_nn_dsp;
  };
  const std::vector<Expected> expected = {
      // arm_convolve_s16 reads each window once and stores a pixel only
      // after the next pixel's window is read; the reference rereads the
      // window for every output channel.
      {same_3x3_8_to_8_on_16x16(), 3810, 3824, 3824},
      // The output (1024 bytes) fits wholly inside the input for CMSIS-NN.
      {pointwise_16_to_8_on_8x8(), 1010, 1024, 1024},
      {strided_3x3_on_16x16(), 1010, 1024, 1024},
  };
  for (const Expected& e : expected) {
    const OneOp m = conv16_model(e.layer).op;
    EXPECT_EQ(check_overlap_facts(m, KernelFamily::kTflmReference, 3, "reference"), e.reference);
    EXPECT_EQ(check_overlap_facts(m, KernelFamily::kCmsisNn, 3, "portable"), e.cmsis_nn);
    EXPECT_EQ(check_overlap_facts(m, KernelFamily::kCmsisNnDsp, 3, "dsp"), e.cmsis_nn_dsp);
  }
}

// A random layer: batches, odd and even pixel and channel counts, padding,
// strides, dilations, every bias kind; grouped only for the reference.
Conv16Case random_case(std::mt19937& rng, bool grouped_allowed) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Conv16Case c;
  c.batches = pick(1, 2);
  c.height = pick(1, 7);
  c.width = pick(1, 8);
  c.depth = pick(1, 6);
  c.output_depth = pick(1, 6);
  c.filter_height = pick(1, 3);
  c.filter_width = pick(1, 3);
  c.stride_h = pick(1, 3);
  c.stride_w = pick(1, 3);
  c.dilation_h = pick(0, 3) == 0 ? 2 : 1;
  c.dilation_w = pick(0, 3) == 0 ? 2 : 1;
  c.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
  c.bias = std::array<BiasKind, 3>{BiasKind::kInt64, BiasKind::kInt32, BiasKind::kNone}[static_cast<size_t>(pick(0, 2))];
  c.activation = std::array<Activation, 3>{Activation::kNone, Activation::kRelu,
                                           Activation::kRelu6}[static_cast<size_t>(pick(0, 2))];
  if (grouped_allowed && pick(0, 3) == 0) {
    const int groups = pick(2, 3);
    c.filter_depth = pick(1, 2);
    c.depth = groups * c.filter_depth;
    c.output_depth = groups * pick(1, 2);
  }
  return c;
}

bool fits(const Conv16Case& c) { return out_height(c) > 0 && out_width(c) > 0; }

TEST(Conv16, SafeOverlapHoldsOnRandomLayers) {
  std::mt19937 rng(20261201);
  int checked = 0, beyond = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Conv16Case c = random_case(rng, /*grouped_allowed=*/true);
    if (!fits(c)) continue;
    const OneOp m = conv16_model(c, static_cast<uint32_t>(trial)).op;
    const int64_t os = check_overlap_facts(m, KernelFamily::kTflmReference, static_cast<uint32_t>(trial),
                                           fmt::format("trial {}", trial));
    if (os + 2 <= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) ++beyond;
    ++checked;
  }
  EXPECT_GE(checked, 200);
  EXPECT_GE(beyond, 150);
}

TEST(CmsisNnConv16, SafeOverlapHoldsOnRandomLayers) {
  std::mt19937 rng(20261202);
  int checked = 0, beyond = 0, odd_pixels = 0, odd_channels = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Conv16Case c = random_case(rng, /*grouped_allowed=*/false);
    if (!fits(c)) continue;
    const OneOp m = conv16_model(c, static_cast<uint32_t>(trial)).op;
    for (KernelFamily family : kCmsisFamilies) {
      const std::string where = fmt::format("trial {} {}", trial, kernel_family_name(family));
      ASSERT_EQ(implementation_of(m, family).rfind("arm_convolve_s16 (", 0), 0u) << where;
      const int64_t os = check_overlap_facts(m, family, static_cast<uint32_t>(trial) * 2 + 1, where);
      if (os + 2 <= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) ++beyond;
    }
    odd_pixels += (out_height(c) * out_width(c)) % 2;
    odd_channels += c.output_depth % 2;
    ++checked;
  }
  EXPECT_GE(checked, 200);
  // Strided layers' outputs often fit inside the input, O_s then being the
  // whole output; the rest still check the clobber one element beyond.
  EXPECT_GE(beyond, 80);
  EXPECT_GE(odd_pixels, 50);
  EXPECT_GE(odd_channels, 50);
}

}  // namespace
}  // namespace dmo
