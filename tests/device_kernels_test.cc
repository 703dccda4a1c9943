// dmo's int8 device kernels (ops/eval/*_s8_device.h), compiled here with
// the plain C versions of the DSP intrinsics: on random shapes, regions
// and walks they give the reference nests' bytes, and laid out at the
// reference order's O_s over their input they still do, since every store
// follows the reads the reference made before it. Run as the dmo-device
// kernel family (what plans for generated code use), each kernel's own
// order gives its O_s: clean there under the checking policy, a clobber
// one byte further.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dmo/ops/device_channel_stages.h"
#include "dmo/ops/device_kernel.h"
#include "dmo/ops/device_tables.h"
#include "dmo/ops/eval/add_s8_device.h"
#include "dmo/ops/eval/average_pool_s8_device.h"
#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/depthwise_s8_device.h"
#include "dmo/ops/eval/device_tensor.h"
#include "dmo/ops/eval/fully_connected_s8_device.h"
#include "dmo/ops/padding.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::OneOp;
using test::per_tensor;

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (uint8_t& v : bytes) v = static_cast<uint8_t>(pick(rng, 0, 255));
  return bytes;
}

Quantization per_channel(std::mt19937& rng, int32_t channels, int32_t dimension) {
  Quantization q;
  for (int32_t c = 0; c < channels; ++c) {
    q.scale.push_back(0.001f * static_cast<float>(pick(rng, 1, 40)));
    q.zero_point.push_back(0);
  }
  q.quantized_dimension = dimension;
  return q;
}

std::vector<int8_t> random_weights(std::mt19937& rng, size_t n) {
  std::vector<int8_t> w(n);
  for (int8_t& v : w) v = static_cast<int8_t>(pick(rng, -127, 127));
  return w;
}

int32_t add_bias(GraphBuilder& b, std::mt19937& rng, int32_t n) {
  std::vector<int32_t> bias(static_cast<size_t>(n));
  for (int32_t& v : bias) v = pick(rng, -3000, 3000);
  return b.add_constant_values<int32_t>("bias", DataType::kInt32, {n}, bias);
}

Activation random_activation(std::mt19937& rng) {
  const int a = pick(rng, 0, 2);
  return a == 0 ? Activation::kNone : a == 1 ? Activation::kRelu : Activation::kRelu6;
}

struct Window2d {
  int32_t height, width, channels, out_channels, filter_h, filter_w, stride, dilation;
  Padding padding;
  int32_t multiplier = 1;  // depthwise
  int32_t out_h() const { return window_output_size(padding, height, filter_h, stride, dilation); }
  int32_t out_w() const { return window_output_size(padding, width, filter_w, stride, dilation); }
  std::string text() const {
    return fmt::format("{}x{}x{} -> {} k{}x{} s{} d{} m{} {}", height, width, channels, out_channels, filter_h,
                       filter_w, stride, dilation, multiplier, padding == Padding::kSame ? "SAME" : "VALID");
  }
};

Window2d random_window(std::mt19937& rng, bool depthwise) {
  Window2d w{};
  for (;;) {
    w.height = pick(rng, 1, 9);
    w.width = pick(rng, 1, 9);
    w.channels = pick(rng, 1, 13);
    // Multipliers 2 to 4 and 8 (one input channel to eight: its own path).
    w.multiplier = depthwise && pick(rng, 0, 2) == 0 ? std::array{2, 3, 4, 8}[pick(rng, 0, 3)] : 1;
    w.out_channels = depthwise ? w.channels * w.multiplier : pick(rng, 1, 13);
    w.filter_h = pick(rng, 1, 4);
    w.filter_w = pick(rng, 1, 4);
    w.stride = pick(rng, 1, 2);
    w.dilation = pick(rng, 1, 2);
    w.padding = pick(rng, 0, 1) == 0 ? Padding::kSame : Padding::kValid;
    if (w.out_h() > 0 && w.out_w() > 0) return w;
  }
}

// `dead_channel`: output channel 0 has zero weights and a bias near the
// int32 limit (as converters leave a pruned channel), so its output is
// one value.
OneOp conv_layer(const Window2d& w, std::mt19937& rng, bool depthwise, bool dead_channel = false) {
  GraphBuilder b("device_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, w.height, w.width, w.channels},
                         per_tensor(0.05f, pick(rng, -128, 127)));
  const Shape filter_shape = depthwise ? Shape{1, w.filter_h, w.filter_w, w.out_channels}
                                       : Shape{w.out_channels, w.filter_h, w.filter_w, w.channels};
  const size_t filter_elements = static_cast<size_t>(w.filter_h * w.filter_w * w.out_channels *
                                                     (depthwise ? 1 : w.channels));
  std::vector<int8_t> weights = random_weights(rng, filter_elements);
  std::vector<int32_t> biases(static_cast<size_t>(w.out_channels));
  for (int32_t& v : biases) v = pick(rng, -3000, 3000);
  if (dead_channel) {
    const size_t row = filter_elements / static_cast<size_t>(w.out_channels);
    for (size_t i = 0; i < row; ++i) weights[depthwise ? i * static_cast<size_t>(w.out_channels) : i] = 0;
    biases[0] = (pick(rng, 0, 1) == 0 ? 1 : -1) * (INT32_MAX - pick(rng, 0, 100000));
  }
  const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, filter_shape, weights,
                                                       per_channel(rng, w.out_channels, depthwise ? 3 : 0));
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {w.out_channels}, biases);
  m.output = b.add_tensor("output", DataType::kInt8, {1, w.out_h(), w.out_w(), w.out_channels},
                          per_tensor(0.1f, pick(rng, -20, 20)));
  if (depthwise) {
    DepthwiseConv2DParams p;
    p.padding = w.padding;
    p.stride_h = p.stride_w = w.stride;
    p.dilation_h = p.dilation_w = w.dilation;
    p.depth_multiplier = w.multiplier;
    p.activation = random_activation(rng);
    b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter, bias}, {m.output}, p);
  } else {
    Conv2DParams p;
    p.padding = w.padding;
    p.stride_h = p.stride_w = w.stride;
    p.dilation_h = p.dilation_w = w.dilation;
    p.activation = random_activation(rng);
    b.add_op(OpKind::kConv2D, {m.input, filter, bias}, {m.output}, p);
  }
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

OneOp fully_connected_layer(std::mt19937& rng, std::string& text) {
  const int32_t batches = pick(rng, 1, 3), depth = pick(rng, 1, 40), units = pick(rng, 1, 13);
  text = fmt::format("{}x{} -> {}", batches, depth, units);
  GraphBuilder b("device_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {batches, depth}, per_tensor(0.05f, pick(rng, -128, 127)));
  // Weights with a zero point too, in a third of the layers (the kernel
  // then adds filter_offset * sum(row)).
  const int32_t weights_zero_point = pick(rng, 0, 2) == 0 ? pick(rng, -20, 20) : 0;
  const int32_t weights = b.add_constant_values<int8_t>("weights", DataType::kInt8, {units, depth},
                                                        random_weights(rng, static_cast<size_t>(units * depth)),
                                                        per_tensor(0.004f, weights_zero_point));
  const int32_t bias = add_bias(b, rng, units);
  // An output scale that keeps most sums inside int8, so rounding shows.
  m.output = b.add_tensor("output", DataType::kInt8, {batches, units},
                          per_tensor(0.002f * static_cast<float>(depth), pick(rng, -20, 20)));
  FullyConnectedParams p;
  p.activation = random_activation(rng);
  b.add_op(OpKind::kFullyConnected, {m.input, weights, bias}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

OneOp average_pool_layer(const Window2d& w, std::mt19937& rng) {
  GraphBuilder b("device_kernels_test");
  OneOp m;
  const Quantization q = per_tensor(0.05f, pick(rng, -20, 20));
  m.input = b.add_tensor("input", DataType::kInt8, {1, w.height, w.width, w.channels}, q);
  m.output = b.add_tensor("output", DataType::kInt8, {1, w.out_h(), w.out_w(), w.channels}, q);
  Pool2DParams p;
  p.padding = w.padding;
  p.stride_h = p.stride_w = w.stride;
  p.filter_h = w.filter_h;
  p.filter_w = w.filter_w;
  b.add_op(OpKind::kAveragePool2D, {m.input}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

OneOp add_layer(std::mt19937& rng, std::string& text) {
  const Shape shape{1, pick(rng, 1, 6), pick(rng, 1, 6), pick(rng, 1, 9)};
  text = fmt::format("{}x{}x{}", shape[1], shape[2], shape[3]);
  GraphBuilder b("device_kernels_test");
  OneOp m;
  m.input = b.add_tensor("a", DataType::kInt8, shape, per_tensor(0.01f * static_cast<float>(pick(rng, 1, 20)),
                                                                  pick(rng, -128, 127)));
  // The second operand constant, so the test's arena holds the first alone.
  const int32_t other = b.add_constant_values<int8_t>(
      "b", DataType::kInt8, shape, random_weights(rng, static_cast<size_t>(shape[1] * shape[2] * shape[3])),
      per_tensor(0.01f * static_cast<float>(pick(rng, 1, 20)), pick(rng, -128, 127)));
  m.output = b.add_tensor("sum", DataType::kInt8, shape,
                          per_tensor(0.01f * static_cast<float>(pick(rng, 1, 40)), pick(rng, -20, 20)));
  ElementwiseParams p;
  p.activation = random_activation(rng);
  b.add_op(OpKind::kAdd, {m.input, other}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// The op's operands as generated code hands them to a device kernel, the
// activations at the given offsets of `arena`.
struct DeviceOperands {
  std::vector<std::vector<int32_t>> dims;
  std::vector<DeviceTensor> inputs, outputs;
};

DeviceTensor device_tensor(const Tensor& t, int32_t index, uint8_t* data, std::vector<int32_t>& dims) {
  dims.assign(t.shape.begin(), t.shape.end());
  DeviceTensor d;
  d.data = data;
  d.dims = dims.data();
  d.rank_ = static_cast<int32_t>(dims.size());
  d.elements_ = t.element_count;
  d.bytes = t.byte_size;
  d.index = index;
  return d;
}

DeviceOperands operands_in(OneOp& m, std::vector<uint8_t>& arena, int64_t output_at, int64_t input_at) {
  const Subgraph& sg = m.graph.main();
  const Op& op = sg.ops[0];
  DeviceOperands o;
  o.dims.resize(op.inputs.size() + 1);
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const int32_t t = op.inputs[i];
    const Tensor& tensor = sg.tensors[static_cast<size_t>(t)];
    uint8_t* data = t == m.input ? arena.data() + input_at : const_cast<uint8_t*>(tensor.data.data());
    o.inputs.push_back(device_tensor(tensor, t, data, o.dims[i]));
  }
  o.outputs.push_back(device_tensor(sg.tensors[static_cast<size_t>(m.output)], m.output, arena.data() + output_at,
                                    o.dims.back()));
  return o;
}

// The reference nest's output, run by the interpreter on its own buffers.
std::vector<uint8_t> reference_output(const OneOp& m, const std::vector<uint8_t>& input) {
  Interpreter reference(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, KernelFamily::kTflmReference));
  reference.set_inputs(input);
  reference.run();
  return reference.tensor_contents(m.output);
}

// Runs the device kernel of `m` over `region`, walking as asked, with the
// output at 0 of an arena and the input laid `overlap` bytes over its end.
std::vector<uint8_t> device_output(OneOp& m, const std::vector<uint8_t>& input, int64_t overlap,
                                   OutputRegion region = {}, bool descending = false,
                                   std::optional<StageForm> form = std::nullopt) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                test::schedule_for(m, KernelFamily::kTflmReference));
  const DeviceKernel& k = *interpreter.prepared(0).device;
  const int64_t out_bytes = test::bytes_of_tensor(m, m.output);
  const int64_t input_at = out_bytes - overlap;
  const int64_t arena_bytes = std::max(out_bytes, input_at + static_cast<int64_t>(input.size()));
  std::vector<uint8_t> arena(static_cast<size_t>(arena_bytes), 0xA5);
  std::memcpy(arena.data() + input_at, input.data(), input.size());
  DeviceOperands o = operands_in(m, arena, 0, input_at);
  // Generated code stores conv and fully connected weights packed.
  std::vector<int8_t> packed;
  if (k.loops == DeviceLoops::kConv || k.loops == DeviceLoops::kFullyConnected) {
    packed = device_packed_rows(m.graph.main(), m.graph.main().ops[0], k);
    o.inputs[1].data = reinterpret_cast<uint8_t*>(packed.data());
  }
  const DeviceKernelIO io{o.inputs.data(), static_cast<int32_t>(o.inputs.size()), o.outputs.data(), 1, descending,
                          region};
  std::vector<int8_t> gather(4096);
  std::vector<int16_t> column(4096);
  std::vector<int32_t> window_terms, row_terms;
  std::vector<int8_t> packed_windows;
  const DeviceColumnBuffers scratch{gather.data(), column.data()};
  // Generated code's table of per-channel output stages, in its own form
  // or the general one.
  DeviceChannelStages table;
  if (k.loops == DeviceLoops::kConv || k.loops == DeviceLoops::kDepthwiseConv ||
      k.loops == DeviceLoops::kFullyConnected) {
    const std::optional<DeviceChannelStages> built = device_channel_stages(m.graph.main(), m.graph.main().ops[0], k);
    EXPECT_TRUE(built.has_value());
    if (built) table = *built;
    if (form && *form != table.form) {
      const StageForm wanted = *form;
      const int32_t offset = k.requantization.output_offset;
      for (size_t c = 0; c < table.table.size(); ++c) {
        const ChannelStage& built_stage = table.table[c];
        const bool folded = table.form == StageForm::kFolded;
        if (built_stage.multiplier == 0) {  // a constant channel: its value again
          const int32_t value = folded ? (built_stage.half - 1) / 2 : built_stage.half + offset;
          table.table[c] = constant_channel_stage(value, offset, wanted);
          continue;
        }
        const int32_t bias = folded ? built_stage.bias / 2 : built_stage.bias;
        table.table[c] = channel_stage(bias, k.requantization.multipliers[c], wanted, offset);
      }
      table.form = wanted;
    }
  }
  const ChannelStages stages{table.table.data(), table.form};
  switch (k.loops) {
    case DeviceLoops::kConv:
      EXPECT_TRUE(conv_s8_device_applies(k.conv, io));
      // In place where generated code reads the pixels so.
      row_terms = device_row_terms(m.graph.main(), m.graph.main().ops[0], k);
      conv_s8_device(k.conv, k.requantization, io, stages, scratch, row_terms.empty() ? nullptr : row_terms.data());
      break;
    case DeviceLoops::kDepthwiseConv:
      EXPECT_TRUE(depthwise_s8_device_applies(k.depthwise, io));
      // The tables generated code keeps.
      window_terms = device_window_terms(m.graph.main(), m.graph.main().ops[0], k);
      packed_windows = device_packed_windows(m.graph.main(), m.graph.main().ops[0], k);
      depthwise_s8_device(k.depthwise, k.requantization, io, stages,
                          window_terms.empty() ? nullptr : window_terms.data(),
                          packed_windows.empty() ? nullptr : packed_windows.data());
      break;
    case DeviceLoops::kFullyConnected:
      EXPECT_TRUE(fully_connected_s8_device_applies(io));
      fully_connected_s8_device(k.fully_connected, k.requantization, io, stages);
      break;
    case DeviceLoops::kAdd:
      EXPECT_TRUE(add_s8_device_applies(k.broadcast, io));
      add_s8_device(k.add, io);
      break;
    case DeviceLoops::kAveragePool:
      EXPECT_TRUE(average_pool_s8_device_applies(io));
      average_pool_s8_device(k.pool, k.pool_range, io);
      break;
    default: ADD_FAILURE() << "no int8 device kernel";
  }
  return {arena.begin(), arena.begin() + out_bytes};
}

// The form of the output stages generated code keeps for `m` (a conv-like op).
std::optional<StageForm> device_stage_form(const OneOp& m) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                test::schedule_for(m, KernelFamily::kTflmReference));
  const DeviceKernel& k = *interpreter.prepared(0).device;
  if (k.loops != DeviceLoops::kConv && k.loops != DeviceLoops::kDepthwiseConv &&
      k.loops != DeviceLoops::kFullyConnected) {
    return std::nullopt;
  }
  const std::optional<DeviceChannelStages> built = device_channel_stages(m.graph.main(), m.graph.main().ops[0], k);
  if (!built) return std::nullopt;
  return built->form;
}

// Whether the device kernel of `m` is a conv reading its input in place
// two pixels at a time (conv_s8_device's 1x1 form), or one window at a
// time (its other form without column buffers).
bool reads_pixels_in_place(const OneOp& m) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                test::schedule_for(m, KernelFamily::kTflmReference));
  const DeviceKernel& k = *interpreter.prepared(0).device;
  return k.loops == DeviceLoops::kConv && conv_reads_pixels_in_place(k.conv, k.requantization.filter_offset);
}
bool reads_windows_in_place(const OneOp& m) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                test::schedule_for(m, KernelFamily::kTflmReference));
  const DeviceKernel& k = *interpreter.prepared(0).device;
  return k.loops == DeviceLoops::kConv && conv_reads_windows_in_place(k.conv, k.requantization.filter_offset);
}

// The reference's bytes, alone, at the O_s plans for generated code use
// (the dmo-device family's) and at the reference order's where that is no
// more; a few regions in both walks give the same bytes as the whole
// output there.
void expect_device_matches_reference(OneOp& m, std::mt19937& rng, const std::string& what) {
  const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
  const std::vector<uint8_t> expected = reference_output(m, input);
  EXPECT_EQ(device_output(m, input, 0), expected) << what << " unshared";
  EXPECT_EQ(device_output(m, input, 0, {}, false, StageForm::kGeneral), expected) << what << " general stages";
  if (device_stage_form(m) == StageForm::kFolded) {
    EXPECT_EQ(device_output(m, input, 0, {}, false, StageForm::kBounded), expected) << what << " bounded stages";
  }
  const int64_t own = test::addresses(m, KernelFamily::kDmoDevice).safe_overlap();
  EXPECT_EQ(device_output(m, input, own), expected) << what << " at its own O_s " << own;
  const int64_t os = test::addresses(m).safe_overlap();
  if (os <= own) {
    EXPECT_EQ(device_output(m, input, os), expected) << what << " at the reference O_s " << os;
  }
  EXPECT_EQ(device_output(m, input, 0, {}, true), expected) << what << " descending";
  const Tensor& out = m.graph.main().tensors[static_cast<size_t>(m.output)];
  if (out.shape.size() != 4) return;
  const int32_t h = out.shape[1], w = out.shape[2];
  OutputRegion region;
  region.row_begin = pick(rng, 0, h - 1);
  region.row_end = pick(rng, region.row_begin + 1, h);
  region.col_begin = pick(rng, 0, w - 1);
  region.col_end = pick(rng, region.col_begin + 1, w);
  const std::vector<uint8_t> banded = device_output(m, input, 0, region, pick(rng, 0, 1) == 1);
  const int32_t c = out.shape[3];
  for (int32_t y = region.row_begin; y < region.row_end; ++y) {
    for (int32_t x = region.col_begin; x < region.col_end; ++x) {
      const size_t at = static_cast<size_t>((y * w + x) * c);
      ASSERT_TRUE(std::equal(expected.begin() + static_cast<ptrdiff_t>(at),
                             expected.begin() + static_cast<ptrdiff_t>(at) + c,
                             banded.begin() + static_cast<ptrdiff_t>(at)))
          << what << " region pixel " << y << "," << x;
    }
  }
}

TEST(DeviceKernels, ClosedFormTapSpanIsTheLoopsSpan) {
  for (int32_t origin = -12; origin <= 12; ++origin) {
    for (int32_t dilation = 1; dilation <= 4; ++dilation) {
      for (int32_t filter = 1; filter <= 6; ++filter) {
        for (int32_t extent = 1; extent <= 8; ++extent) {
          const TapSpan loop = taps_inside(origin, dilation, filter, extent);
          const TapSpan closed = taps_inside_closed_form(origin, dilation, filter, extent);
          ASSERT_EQ(closed.first, loop.first) << origin << " " << dilation << " " << filter << " " << extent;
          ASSERT_EQ(closed.last, loop.last) << origin << " " << dilation << " " << filter << " " << extent;
        }
      }
    }
  }
}

// The table's output stage is TFLite's (+ bias, MultiplyByQuantizedMultiplier,
// + zero point, clamp): the bounded form for every sum within the bound
// channel_stage_fits allows, at its edges too, for shifts either way (a
// sum beyond it is refused); the general form for any sum; the folded
// form wherever the right shift allows it.
TEST(DeviceKernels, OutputStageIsTheReferencesWithinItsBound) {
  std::mt19937 rng(10);
  int checked = 0, folded_checked = 0;
  for (int i = 0; i < 4000; ++i) {
    QuantizedMultiplier m;
    m.multiplier = pick(rng, 1 << 30, INT32_MAX);
    m.shift = pick(rng, 0, 1) == 0 ? pick(rng, -3, 1) : pick(rng, -31, 6);  // small right shifts meet halves
    const int32_t bias = pick(rng, -50000, 50000);
    const int32_t left = m.shift > 0 ? m.shift : 0;
    const int64_t limit = (int64_t{1} << (30 - left)) - 1 - std::abs(int64_t{bias});
    const auto bound = static_cast<int32_t>(pick(rng, 0, 3) == 0 ? limit : pick(rng, 0, static_cast<int32_t>(std::max<int64_t>(limit, 0))));
    if (bound < 0) {
      EXPECT_FALSE(channel_stage_fits(bias, m, 0));
      continue;
    }
    ASSERT_TRUE(channel_stage_fits(bias, m, bound)) << m.multiplier << " " << m.shift << " " << bias;
    ASSERT_FALSE(channel_stage_fits(bias, m, limit + 1));
    const ChannelStage bounded = channel_stage(bias, m, StageForm::kBounded);
    const ChannelStage general = channel_stage(bias, m, StageForm::kGeneral);
    const int32_t offset = pick(rng, -128, 127);
    const int32_t lo = pick(rng, -128, 0), hi = pick(rng, lo, 127);
    for (int j = 0; j < 16; ++j) {
      // Most sums where the output is not clamped, so rounding shows.
      const int32_t right = m.shift > 0 ? 0 : -m.shift;
      const auto unclamped = static_cast<int32_t>(std::clamp<int64_t>((int64_t{300} << right) >> left, 1, std::max(bound, 1)));
      const int32_t spread = j % 4 == 3 ? bound : unclamped;
      const int32_t acc = j == 0 ? bound : j == 1 ? -bound : pick(rng, -spread, spread);
      const int32_t exact = multiply_by_quantized_multiplier(acc + bias, m) + offset;
      ASSERT_EQ((apply_stage<StageForm::kBounded, false>(bounded, acc, offset, lo, hi)), std::clamp(exact, lo, hi))
          << acc << " " << bias << " " << m.multiplier << " " << m.shift;
      ASSERT_EQ((apply_stage<StageForm::kBounded, true>(bounded, acc, offset, -128, 127)),
                std::clamp(exact, -128, 127));
      ASSERT_EQ((apply_stage<StageForm::kGeneral, false>(general, acc, offset, lo, hi)), std::clamp(exact, lo, hi));
      if (channel_stage_folds(m)) {
        const ChannelStage folded = channel_stage(bias, m, StageForm::kFolded, offset);
        ASSERT_EQ((apply_stage<StageForm::kFolded, false>(folded, acc, offset, lo, hi)), std::clamp(exact, lo, hi))
            << acc << " " << bias << " " << m.multiplier << " " << m.shift << " " << offset;
        ASSERT_EQ((apply_stage<StageForm::kFolded, true>(folded, acc, offset, -128, 127)),
                  std::clamp(exact, -128, 127));
        ++folded_checked;
      }
      // The general form takes any sum.
      const auto any = static_cast<int32_t>(rng());
      const int32_t any_exact =
          multiply_by_quantized_multiplier(static_cast<int32_t>(static_cast<uint32_t>(any) + static_cast<uint32_t>(bias)), m) +
          offset;
      ASSERT_EQ((apply_stage<StageForm::kGeneral, true>(general, any, offset, -128, 127)),
                std::clamp(any_exact, -128, 127))
          << any << " " << bias << " " << m.multiplier << " " << m.shift;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20000);
  EXPECT_GT(folded_checked, 10000);
}

// A constant channel's stage gives its value for any sum in every form.
TEST(DeviceKernels, AConstantStageGivesItsValueInEveryForm) {
  std::mt19937 rng(18);
  for (int i = 0; i < 2000; ++i) {
    const int32_t offset = pick(rng, -128, 127);
    const int32_t value = pick(rng, -128, 127);
    const auto acc = static_cast<int32_t>(rng() >> pick(rng, 2, 31)) * (pick(rng, 0, 1) == 0 ? 1 : -1);
    for (StageForm form : {StageForm::kBounded, StageForm::kGeneral, StageForm::kFolded}) {
      const ChannelStage stage = constant_channel_stage(value, offset, form);
      int32_t out = 0;
      with_output_stage(form, -128, 127, [&]<StageForm kForm, bool kFullRange>() {
        out = apply_stage<kForm, kFullRange>(stage, acc, offset, -128, 127);
      });
      ASSERT_EQ(out, value) << static_cast<int>(form) << " " << acc << " " << offset;
    }
  }
}

TEST(DeviceKernels, ConvMatchesTheReferenceOnRandomShapesAndAtItsSafeOverlap) {
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    const Window2d w = random_window(rng, false);
    OneOp m = conv_layer(w, rng, false);
    expect_device_matches_reference(m, rng, "conv " + w.text());
  }
}

TEST(DeviceKernels, PointwiseConvMatchesTheReferenceOnWideLayers) {
  std::mt19937 rng(12);
  for (int i = 0; i < 30; ++i) {
    Window2d w{pick(rng, 1, 6), pick(rng, 1, 6), pick(rng, 16, 70), pick(rng, 16, 70), 1, 1, 1, 1, Padding::kValid};
    OneOp m = conv_layer(w, rng, false);
    expect_device_matches_reference(m, rng, "1x1 conv " + w.text());
  }
}

// A depthwise layer's window; every third (i % 3 == 0) a 3x3 filter on an
// input holding whole windows, for the unrolled 3x3 paths.
Window2d random_depthwise_window(std::mt19937& rng, int i) {
  Window2d w = random_window(rng, true);
  if (i % 3 == 0) {
    w.filter_h = w.filter_w = 3;
    w.height = pick(rng, 2 * w.dilation + 1, 9);
    w.width = pick(rng, 2 * w.dilation + 1, 9);
  }
  return w;
}

TEST(DeviceKernels, DepthwiseMatchesTheReferenceOnRandomShapesAndAtItsSafeOverlap) {
  std::mt19937 rng(13);
  for (int i = 0; i < 300; ++i) {
    const Window2d w = random_depthwise_window(rng, i);
    OneOp m = conv_layer(w, rng, true);
    expect_device_matches_reference(m, rng, "depthwise " + w.text());
  }
}

// A channel whose bias is too large for the bounded stage form but whose
// output is one value keeps the table in the bounded form.
TEST(DeviceKernels, AConstantChannelKeepsTheBoundedStageForm) {
  std::mt19937 rng(17);
  for (int i = 0; i < 100; ++i) {
    const bool depthwise = i % 2 == 1;
    const Window2d w = random_window(rng, depthwise);
    OneOp m = conv_layer(w, rng, depthwise, true);
    const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                  test::schedule_for(m, KernelFamily::kTflmReference));
    const std::optional<DeviceChannelStages> stages =
        device_channel_stages(m.graph.main(), m.graph.main().ops[0], *interpreter.prepared(0).device);
    ASSERT_TRUE(stages.has_value());
    EXPECT_NE(stages->form, StageForm::kGeneral) << w.text();
    EXPECT_EQ(stages->table[0].multiplier, 0) << w.text();
    expect_device_matches_reference(m, rng, "dead channel " + w.text());
  }
}

TEST(DeviceKernels, FullyConnectedMatchesTheReferenceOnRandomShapesAndAtItsSafeOverlap) {
  std::mt19937 rng(14);
  for (int i = 0; i < 200; ++i) {
    std::string text;
    OneOp m = fully_connected_layer(rng, text);
    expect_device_matches_reference(m, rng, "fully connected " + text);
  }
}

// Whether one byte more than the reference order's O_s breaks the device
// kernel (seen as wrong bytes, when the clobbered value differs); nothing
// when O_s already covers the smaller tensor.
struct OnePast {
  int tried = 0, clobbered = 0;
  void check(OneOp& m, std::mt19937& rng) {
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    const int64_t os = test::addresses(m).safe_overlap();
    if (os >= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) return;
    ++tried;
    if (device_output(m, input, os + 1) != reference_output(m, input)) ++clobbered;
  }
};

// ADD works element by element, so its O_s is the whole tensor (in place).
TEST(DeviceKernels, AddMatchesTheReferenceOnRandomScalesAndInPlace) {
  std::mt19937 rng(16);
  for (int i = 0; i < 200; ++i) {
    std::string text;
    OneOp m = add_layer(rng, text);
    ASSERT_EQ(test::addresses(m).safe_overlap(), test::bytes_of_tensor(m, m.output)) << text;
    expect_device_matches_reference(m, rng, "add " + text);
  }
}

// AVERAGE_POOL_2D keeps the reference's order exactly, so its O_s is the
// reference's: one byte more clobbers.
TEST(DeviceKernels, AveragePoolMatchesTheReferenceAndClobbersOneByteBeyondItsSafeOverlap) {
  std::mt19937 rng(15);
  OnePast one_past;
  for (int i = 0; i < 500; ++i) {
    Window2d w = random_window(rng, true);
    w.dilation = 1;
    if (w.out_h() <= 0 || w.out_w() <= 0) continue;
    OneOp m = average_pool_layer(w, rng);
    expect_device_matches_reference(m, rng, "average pool " + w.text());
    one_past.check(m, rng);
  }
  ASSERT_GT(one_past.tried, 50);
  EXPECT_GE(one_past.clobbered, one_past.tried * 9 / 10);
}

// The dmo-device family's O_s of `m`: the checking policy finds no
// clobber there and one byte further finds one (unless O_s already covers
// the smaller tensor). Counts the layers where the device order allows
// more than the reference order.
// A 1x1 conv reading its pixels in place stores a pixel pair's channels
// between reads of both pixels, so its O_s may be up to one output pixel
// below the reference's (which stores one pixel's channels between reads
// of that pixel); every other device order, a conv reading one window at
// a time among them, stores no earlier than the reference's.
struct DeviceOrderOverlap {
  int tried = 0, past_checked = 0, above_reference = 0, below_reference = 0, windows_in_place = 0;
  void check(const OneOp& m, std::mt19937& rng, const std::string& what) {
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    const int64_t os = test::addresses(m, KernelFamily::kDmoDevice).safe_overlap();
    const int64_t reference = test::addresses(m).safe_overlap();
    ++tried;
    if (reads_pixels_in_place(m)) {
      const std::vector<int32_t>& shape = m.graph.main().tensors[static_cast<size_t>(m.output)].shape;
      EXPECT_GE(os, reference - shape.back()) << what << " in place";
    } else if (reads_windows_in_place(m)) {
      ++windows_in_place;
      EXPECT_GE(os, reference) << what << " windows in place";
    } else {
      EXPECT_GE(os, reference) << what;
    }
    above_reference += os > reference;
    below_reference += os < reference;
    EXPECT_FALSE(test::clobbers_at_overlap(m, os, input, KernelFamily::kDmoDevice)) << what << " at its O_s " << os;
    if (os >= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) return;
    ++past_checked;
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + 1, input, KernelFamily::kDmoDevice))
        << what << " one byte past its O_s " << os;
  }
};

TEST(DeviceOrderFamily, EachKernelIsCleanAtItsOwnSafeOverlapAndClobbersOneBytePast) {
  std::mt19937 rng(18);
  DeviceOrderOverlap conv, pointwise, depthwise, fully_connected, pool, add;
  for (int i = 0; i < 120; ++i) {
    const Window2d w = random_window(rng, false);
    conv.check(conv_layer(w, rng, false), rng, "conv " + w.text());
  }
  for (int i = 0; i < 40; ++i) {
    Window2d w{pick(rng, 1, 6), pick(rng, 1, 6), pick(rng, 4, 40), pick(rng, 4, 40), 1, 1, pick(rng, 1, 2), 1,
               Padding::kValid};
    pointwise.check(conv_layer(w, rng, false), rng, "1x1 conv " + w.text());
  }
  for (int i = 0; i < 150; ++i) {
    const Window2d w = random_depthwise_window(rng, i);
    depthwise.check(conv_layer(w, rng, true), rng, "depthwise " + w.text());
  }
  for (int i = 0; i < 100; ++i) {
    std::string text;
    const OneOp m = fully_connected_layer(rng, text);
    fully_connected.check(m, rng, "fully connected " + text);
  }
  for (int i = 0; i < 150; ++i) {
    Window2d w = random_window(rng, true);
    w.dilation = 1;
    if (w.out_h() <= 0 || w.out_w() <= 0) continue;
    pool.check(average_pool_layer(w, rng), rng, "average pool " + w.text());
  }
  for (int i = 0; i < 60; ++i) {
    std::string text;
    const OneOp m = add_layer(rng, text);
    add.check(m, rng, "add " + text);
  }
  // Enough layers whose O_s is below the smaller tensor for the one-past
  // check to mean something, per kernel (ADD is in place: never).
  // A pointwise conv's pixel-outer order mostly overlaps all of the
  // smaller tensor.
  EXPECT_GT(conv.past_checked + pointwise.past_checked, 40);
  EXPECT_GT(conv.windows_in_place, 60);
  EXPECT_GT(depthwise.past_checked, 40);
  EXPECT_GT(fully_connected.past_checked, 20);
  EXPECT_GT(pool.past_checked, 20);
  EXPECT_EQ(add.past_checked, 0);
  std::cout << fmt::format("one byte past checked: conv {}, 1x1 conv {}, depthwise {}, fully connected {}, "
                           "average pool {}; above the reference O_s: conv {}, 1x1 conv {}, depthwise {}, "
                           "fully connected {}, average pool {}; below it (1x1 in place): {}\n",
                           conv.past_checked, pointwise.past_checked, depthwise.past_checked,
                           fully_connected.past_checked, pool.past_checked, conv.above_reference,
                           pointwise.above_reference, depthwise.above_reference, fully_connected.above_reference,
                           pool.above_reference, conv.below_reference + pointwise.below_reference);
  // The device orders store later than the reference's where they group
  // outputs (conv pixel pairs, four channels or units at a time).
  EXPECT_GT(conv.above_reference + pointwise.above_reference, 0);
  EXPECT_GT(depthwise.above_reference, 0);
  EXPECT_GT(fully_connected.above_reference, 0);
}

// The scratch the dmo-device conv kernel asks the plan for: none for a 1x1
// conv of up to 64 output channels (it reads its pixels in place), two
// pixels' int16 columns for a wider one, and windows too where it gathers.
TEST(DeviceOrderFamily, OnlyAPointwiseConvOfMoreThan64ChannelsAsksForScratch) {
  std::mt19937 rng(19);
  auto scratch_of = [&](const Window2d& w) {
    const OneOp m = conv_layer(w, rng, false);
    const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()),
                                  test::schedule_for(m, KernelFamily::kDmoDevice));
    int64_t bytes = 0;
    for (const KernelScratch& s : interpreter.prepared(0).scratch) bytes += s.bytes;
    return bytes;
  };
  EXPECT_EQ(scratch_of({5, 4, 24, 8, 1, 1, 1, 1, Padding::kValid}), 0);
  EXPECT_EQ(scratch_of({5, 4, 24, 64, 1, 1, 2, 1, Padding::kValid}), 0);
  EXPECT_EQ(scratch_of({5, 4, 24, 65, 1, 1, 1, 1, Padding::kValid}), 2 * 2 * 24);
  // Any other window is read in place, one pixel at a time.
  EXPECT_EQ(scratch_of({5, 4, 24, 8, 3, 3, 1, 1, Padding::kSame}), 0);
  EXPECT_EQ(scratch_of({9, 9, 3, 8, 3, 3, 2, 1, Padding::kSame}), 0);
}

}  // namespace
}  // namespace dmo
