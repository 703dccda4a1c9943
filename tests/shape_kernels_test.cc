// Shape, copy and reduction kernels: RESHAPE, SQUEEZE, CONCATENATION, SPLIT,
// PAD/PADV2, MEAN, STRIDED_SLICE and SVDF. Hand-computed results for every
// supported type (negative axes, masks, rounding, saturation, the SVDF state
// across inferences), the errors for what they do not run, the algorithmic
// safe overlap their loop order gives, each such op of the golden models run
// alone on TFLM's recorded inputs, and the uint8 coral_split_concat model.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

std::vector<uint8_t> concat_bytes(const std::vector<std::vector<uint8_t>>& parts) {
  std::vector<uint8_t> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Runs the graph unshared with the direct and the checking policy (which must
// find no clobber and compute the same bytes); returns each graph output.
std::vector<std::vector<uint8_t>> run_graph(const Graph& graph, const std::vector<uint8_t>& input) {
  Interpreter checked(graph, unshared_placement(graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(graph, unshared_placement(graph.main()));
  direct.set_inputs(input);
  direct.run();
  std::vector<std::vector<uint8_t>> outputs;
  for (int32_t t : graph.main().outputs) {
    auto bytes = direct.tensor_bytes(t);
    outputs.emplace_back(bytes.begin(), bytes.end());
    auto again = checked.tensor_bytes(t);
    EXPECT_EQ(outputs.back(), std::vector<uint8_t>(again.begin(), again.end())) << "checking policy differs";
  }
  return outputs;
}

// The error message running the graph gives; empty when it runs.
std::string run_error(const Graph& graph, const std::vector<uint8_t>& input) {
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(input);
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(graph, input, text)                                     \
  do {                                                                           \
    const std::string message = run_error(graph, input);                        \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

int64_t overlap_of(const Graph& graph, int32_t input, int32_t output) {
  return algorithmic_safe_overlap(graph, 0, input, output);
}

// ---------------------------------------------------------------- RESHAPE

struct OneOp {
  Graph graph;
  std::vector<int32_t> inputs, outputs;  // graph inputs and outputs
};

// The algorithmic O_s of (input, output 0) of the one op of `m`, checked
// as the checking policy sees it: no clobber with the output's end over the
// input's start by O_s bytes, a clobber one byte further while that stays
// below both tensors. Returns O_s.
int64_t expect_tight_overlap(const OneOp& m, int32_t input, const std::vector<uint8_t>& graph_inputs) {
  const test::OneOp pair{m.graph, input, m.outputs[0]};
  const int64_t os = overlap_of(m.graph, input, pair.output);
  EXPECT_FALSE(test::clobbers_at_overlap(pair, os, graph_inputs)) << "O_s " << os;
  if (os + 1 <= std::min(test::bytes_of_tensor(pair, input), test::bytes_of_tensor(pair, pair.output))) {
    EXPECT_TRUE(test::clobbers_at_overlap(pair, os + 1, graph_inputs)) << "O_s " << os << " + 1 byte";
  }
  return os;
}

OneOp reshape_model(OpKind kind, DataType type, const Shape& in, const Shape& out, bool with_shape_tensor) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  const int32_t input = b.add_tensor("input", type, in);
  std::vector<int32_t> op_inputs = {input};
  if (with_shape_tensor) {
    std::vector<int32_t> dims(out.begin(), out.end());
    op_inputs.push_back(b.add_constant_values<int32_t>("shape", DataType::kInt32, {static_cast<int32_t>(dims.size())},
                                                       dims));
  }
  const int32_t output = b.add_tensor("output", type, out);
  b.add_op(kind, op_inputs, {output}, kind == OpKind::kSqueeze ? OpParams{SqueezeParams{}} : OpParams{ReshapeParams{}});
  b.set_inputs({input});
  b.set_outputs({output});
  m.inputs = {input};
  m.outputs = {output};
  m.graph = b.finish();
  return m;
}

TEST(Reshape, CopiesFloatsInFlatOrder) {
  OneOp m = reshape_model(OpKind::kReshape, DataType::kFloat32, {2, 3}, {3, 2}, true);
  std::vector<float> in = {1.5f, -2.0f, 3.25f, 4.0f, -0.0f, 6.0f};
  EXPECT_EQ(values_from<float>(run_graph(m.graph, bytes_of(in))[0]), in);
}

TEST(Reshape, CopiesEveryFixedSizeType) {
  for (DataType type : {DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64,
                        DataType::kBool, DataType::kFloat16}) {
    OneOp m = reshape_model(OpKind::kReshape, type, {1, 2, 2}, {4}, false);
    std::vector<uint8_t> in(static_cast<size_t>(4 * element_size(type).value()));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(0xA0 + 7 * i);
    EXPECT_EQ(run_graph(m.graph, in)[0], in) << data_type_name(type);
  }
}

TEST(Reshape, ZeroSizeShapeTensorGivesAScalar) {
  // As litert_zero_size_constant: the shape operand is an INT32 [0] tensor
  // without data, the output a scalar.
  GraphBuilder b("shape_kernels_test");
  const int32_t input = b.add_tensor("input", DataType::kInt32, {1});
  const int32_t shape = b.add_constant("shape", DataType::kInt32, {0}, {});
  const int32_t output = b.add_tensor("output", DataType::kInt32, {});
  b.add_op(OpKind::kReshape, {input, shape}, {output}, ReshapeParams{});
  b.set_inputs({input});
  b.set_outputs({output});
  Graph graph = b.finish();
  EXPECT_EQ(values_from<int32_t>(run_graph(graph, bytes_of(std::vector<int32_t>{-77}))[0]),
            std::vector<int32_t>{-77});
}

TEST(Reshape, ZeroElementTensorsCopyNothing) {
  OneOp m = reshape_model(OpKind::kReshape, DataType::kFloat32, {0, 3}, {3, 0}, false);
  EXPECT_TRUE(run_graph(m.graph, {})[0].empty());
}

TEST(Reshape, RejectsDifferentElementCountsAndTypes) {
  OneOp m = reshape_model(OpKind::kReshape, DataType::kFloat32, {2, 3}, {4}, false);
  EXPECT_RUN_ERROR(m.graph, std::vector<uint8_t>(24), "op 0 (RESHAPE): input 2x3 has 6 elements but output 4 has 4");
  GraphBuilder b("shape_kernels_test");
  const int32_t input = b.add_tensor("input", DataType::kFloat32, {2});
  const int32_t output = b.add_tensor("output", DataType::kInt32, {2});
  b.add_op(OpKind::kReshape, {input}, {output}, ReshapeParams{});
  b.set_inputs({input});
  b.set_outputs({output});
  Graph graph = b.finish();
  EXPECT_RUN_ERROR(graph, std::vector<uint8_t>(8), "output type INT32 differs from input type FLOAT32");
}

TEST(Reshape, RejectsTypesWithoutAFixedElementWidth) {
  OneOp m = reshape_model(OpKind::kReshape, DataType::kComplex128, {1}, {1}, false);
  EXPECT_RUN_ERROR(m.graph, std::vector<uint8_t>(16), "type COMPLEX128 is not supported");
}

TEST(Reshape, MemcpyAllowsNoOverlap) {
  // TFLM copies with memcpy, whose order C leaves open: only disjoint bytes are safe.
  for (DataType type : {DataType::kFloat32, DataType::kInt8, DataType::kInt16, DataType::kInt64}) {
    OneOp m = reshape_model(OpKind::kReshape, type, {2, 3}, {6}, true);
    EXPECT_EQ(overlap_of(m.graph, m.inputs[0], m.outputs[0]), 0);
  }
}

TEST(Squeeze, CopiesWithMemcpyAndAllowsNoOverlap) {
  OneOp m = reshape_model(OpKind::kSqueeze, DataType::kInt8, {1, 3, 1}, {3}, false);
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{-1, 2, -3}))[0]),
            (std::vector<int8_t>{-1, 2, -3}));
  EXPECT_EQ(overlap_of(m.graph, m.inputs[0], m.outputs[0]), 0);
}

// ---------------------------------------------------------- CONCATENATION

OneOp concat_model(DataType type, const std::vector<Shape>& ins, const Shape& out, int32_t axis,
                   std::vector<Quantization> quants = {}, Quantization out_quant = {},
                   Activation activation = Activation::kNone) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Quantization quant = i < quants.size() ? quants[i] : Quantization{};
    m.inputs.push_back(b.add_tensor("in" + std::to_string(i), type, ins[i], quant));
  }
  m.outputs = {b.add_tensor("out", type, out, out_quant)};
  b.add_op(OpKind::kConcatenation, m.inputs, m.outputs, ConcatenationParams{axis, activation});
  b.set_inputs(m.inputs);
  b.set_outputs(m.outputs);
  m.graph = b.finish();
  return m;
}

TEST(Concatenation, FloatAlongInnerAxisInterleavesRows) {
  std::vector<float> a = {1, 2, 3, 4}, c = {10, 20};
  for (int32_t axis : {1, -1}) {
    OneOp m = concat_model(DataType::kFloat32, {{2, 2}, {2, 1}}, {2, 3}, axis);
    EXPECT_EQ(values_from<float>(run_graph(m.graph, concat_bytes({bytes_of(a), bytes_of(c)}))[0]),
              (std::vector<float>{1, 2, 10, 3, 4, 20}))
        << "axis " << axis;
  }
}

TEST(Concatenation, FloatAlongOuterAxisAppends) {
  OneOp m = concat_model(DataType::kFloat32, {{1, 2}, {2, 2}, {0, 2}}, {3, 2}, -2);
  std::vector<float> a = {1, 2}, c = {3, 4, 5, 6};
  EXPECT_EQ(values_from<float>(run_graph(m.graph, concat_bytes({bytes_of(a), bytes_of(c)}))[0]),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Concatenation, EveryIntegerTypeCopiesUnchanged) {
  const Quantization q = per_tensor(0.5f, 3);
  {
    OneOp m = concat_model(DataType::kInt8, {{1, 2, 1}, {1, 2, 2}}, {1, 2, 3}, 2, {q, q}, q);
    EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{-128, 127, 1, 2, 3, 4}))[0]),
              (std::vector<int8_t>{-128, 1, 2, 127, 3, 4}));
  }
  {
    OneOp m = concat_model(DataType::kUInt8, {{2, 1}, {2, 1}}, {2, 2}, 1, {q, q}, q);
    EXPECT_EQ(values_from<uint8_t>(run_graph(m.graph, bytes_of(std::vector<uint8_t>{0, 255, 7, 9}))[0]),
              (std::vector<uint8_t>{0, 7, 255, 9}));
  }
  {
    const Quantization q16 = per_tensor(0.25f, 0);
    OneOp m = concat_model(DataType::kInt16, {{2}, {1}}, {3}, 0, {q16, q16}, q16);
    EXPECT_EQ(values_from<int16_t>(run_graph(m.graph, bytes_of(std::vector<int16_t>{-32768, 32767, 5}))[0]),
              (std::vector<int16_t>{-32768, 32767, 5}));
  }
  {
    OneOp m = concat_model(DataType::kInt32, {{2, 1}, {2, 1}}, {2, 2}, 1);
    EXPECT_EQ(values_from<int32_t>(run_graph(m.graph, bytes_of(std::vector<int32_t>{1, -2, 300000, 4}))[0]),
              (std::vector<int32_t>{1, 300000, -2, 4}));
  }
  {
    OneOp m = concat_model(DataType::kInt64, {{1}, {1}}, {2}, 0);
    EXPECT_EQ(values_from<int64_t>(run_graph(m.graph, bytes_of(std::vector<int64_t>{-(int64_t{1} << 40), 9}))[0]),
              (std::vector<int64_t>{-(int64_t{1} << 40), 9}));
  }
}

TEST(Concatenation, RejectsWhatTflmDoesNotRun) {
  const Quantization q = per_tensor(0.5f, 3);
  OneOp scaled = concat_model(DataType::kInt8, {{1}, {1}}, {2}, 0, {q, per_tensor(0.25f, 3)}, q);
  EXPECT_RUN_ERROR(scaled.graph, std::vector<uint8_t>(2),
                   "op 0 (CONCATENATION): input 1 is quantized differently from the output");
  OneOp shifted = concat_model(DataType::kUInt8, {{1}, {1}}, {2}, 0, {q, q}, per_tensor(0.5f, 4));
  EXPECT_RUN_ERROR(shifted.graph, std::vector<uint8_t>(2), "input 0 is quantized differently");
  OneOp relu = concat_model(DataType::kFloat32, {{1}, {1}}, {2}, 0, {}, {}, Activation::kRelu);
  EXPECT_RUN_ERROR(relu.graph, std::vector<uint8_t>(8), "fused activation 1 is not supported");
  OneOp boolean = concat_model(DataType::kBool, {{1}, {1}}, {2}, 0);
  EXPECT_RUN_ERROR(boolean.graph, std::vector<uint8_t>(2), "type BOOL is not supported; supported: FLOAT32");
  OneOp axis = concat_model(DataType::kFloat32, {{1}, {1}}, {2}, 1);
  EXPECT_RUN_ERROR(axis.graph, std::vector<uint8_t>(8), "axis 1 is outside a 1-D output");
  OneOp sum = concat_model(DataType::kFloat32, {{1}, {1}}, {3}, 0);
  EXPECT_RUN_ERROR(sum.graph, std::vector<uint8_t>(8), "inputs add up to 2 along axis 0, the output has 3");
  OneOp other = concat_model(DataType::kFloat32, {{1, 2}, {1, 3}}, {2, 2}, 0);
  EXPECT_RUN_ERROR(other.graph, std::vector<uint8_t>(20), "input 1 shape 1x3 does not match output shape 2x2");
}

TEST(Concatenation, MemcpyBlocksOverlapOnlyWhollyBelowTheirSource) {
  // Each block goes over with memcpy, whose order is open: it may write its
  // whole destination before reading its source, so an input may overlap
  // the output only as far as every block's copy lands wholly below it.
  const std::vector<uint8_t> six = bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6});
  // Along axis 0: input 0's 16 bytes go to output bytes 0..15 (24 - 16);
  // input 1's 8 bytes to output bytes 16..23, above their source (0).
  OneOp outer = concat_model(DataType::kFloat32, {{2, 2}, {1, 2}}, {3, 2}, 0);
  EXPECT_EQ(expect_tight_overlap(outer, outer.inputs[0], six), 8);
  EXPECT_EQ(expect_tight_overlap(outer, outer.inputs[1], six), 0);
  // Along axis 1, two rows: input 0's row 1 (bytes 8..15) goes to output
  // bytes 12..19 (24 - 12); input 1's row 1 (bytes 4..7) to 20..23 (24 - 20).
  OneOp inner = concat_model(DataType::kFloat32, {{2, 2}, {2, 1}}, {2, 3}, 1);
  EXPECT_EQ(expect_tight_overlap(inner, inner.inputs[0], six), 12);
  EXPECT_EQ(expect_tight_overlap(inner, inner.inputs[1], six), 4);
}

// ------------------------------------------------------------------ SPLIT

OneOp split_model(DataType type, const Shape& in, const Shape& out, int32_t splits, int32_t axis,
                  bool constant_axis = true) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  const int32_t axis_tensor = constant_axis
                                  ? b.add_constant_values<int32_t>("axis", DataType::kInt32, {}, {axis})
                                  : b.add_tensor("axis", DataType::kInt32, {});
  const int32_t input = b.add_tensor("input", type, in);
  for (int32_t i = 0; i < splits; ++i) m.outputs.push_back(b.add_tensor("out" + std::to_string(i), type, out));
  b.add_op(OpKind::kSplit, {axis_tensor, input}, m.outputs, SplitParams{splits});
  m.inputs = constant_axis ? std::vector<int32_t>{input} : std::vector<int32_t>{axis_tensor, input};
  b.set_inputs(m.inputs);
  b.set_outputs(m.outputs);
  m.graph = b.finish();
  return m;
}

TEST(Split, FloatAlongInnerAxis) {
  std::vector<float> in = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int32_t axis : {1, -1}) {
    OneOp m = split_model(DataType::kFloat32, {2, 4}, {2, 2}, 2, axis);
    auto out = run_graph(m.graph, bytes_of(in));
    EXPECT_EQ(values_from<float>(out[0]), (std::vector<float>{0, 1, 4, 5})) << "axis " << axis;
    EXPECT_EQ(values_from<float>(out[1]), (std::vector<float>{2, 3, 6, 7})) << "axis " << axis;
  }
}

TEST(Split, AlongOuterAxisIntoThree) {
  OneOp m = split_model(DataType::kInt32, {3, 2}, {1, 2}, 3, -2);
  auto out = run_graph(m.graph, bytes_of(std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values_from<int32_t>(out[0]), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(values_from<int32_t>(out[1]), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(values_from<int32_t>(out[2]), (std::vector<int32_t>{5, 6}));
}

TEST(Split, EverySupportedType) {
  for (DataType type : {DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kInt32}) {
    OneOp m = split_model(type, {1, 2, 2}, {1, 2, 1}, 2, 2);
    const size_t width = static_cast<size_t>(element_size(type).value());
    std::vector<uint8_t> in(4 * width);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(0x80 + i);
    auto out = run_graph(m.graph, in);
    for (size_t e = 0; e < 4; ++e) {
      const auto& part = out[e % 2];
      EXPECT_TRUE(std::equal(in.begin() + static_cast<long>(e * width), in.begin() + static_cast<long>((e + 1) * width),
                             part.begin() + static_cast<long>((e / 2) * width)))
          << data_type_name(type) << " element " << e;
    }
  }
}

TEST(Split, RejectsWhatItCannotRun) {
  OneOp int64 = split_model(DataType::kInt64, {2}, {1}, 2, 0);
  EXPECT_RUN_ERROR(int64.graph, std::vector<uint8_t>(16), "op 0 (SPLIT): input type INT64 is not supported");
  OneOp dynamic = split_model(DataType::kFloat32, {2}, {1}, 2, 0, false);
  EXPECT_RUN_ERROR(dynamic.graph, std::vector<uint8_t>(12), "axis (input 0) must be constant");
  OneOp uneven = split_model(DataType::kFloat32, {3}, {1}, 2, 0);
  EXPECT_RUN_ERROR(uneven.graph, std::vector<uint8_t>(12), "does not split into 2 equal parts");
  OneOp wrong = split_model(DataType::kFloat32, {4}, {1}, 2, 0);
  EXPECT_RUN_ERROR(wrong.graph, std::vector<uint8_t>(16), "output 0 has shape 1, expected 2");
  OneOp axis = split_model(DataType::kFloat32, {4}, {2}, 2, -2);
  EXPECT_RUN_ERROR(axis.graph, std::vector<uint8_t>(16), "axis -2 is outside a 1-D input");
}

TEST(Split, SafeOverlapIsTheWholeSlice) {
  OneOp m = split_model(DataType::kFloat32, {2, 4}, {2, 2}, 2, 1);
  EXPECT_EQ(overlap_of(m.graph, m.inputs[0], m.outputs[0]), 16);
  EXPECT_EQ(overlap_of(m.graph, m.inputs[0], m.outputs[1]), 16);
}

// -------------------------------------------------------------------- PAD

template <typename P>
OneOp pad_model(DataType type, const Shape& in, const Shape& out, const std::vector<P>& paddings, DataType pad_type,
                Quantization quant = {}, int32_t constant_value = kNoTensor, bool constant_paddings = true) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  const int32_t input = b.add_tensor("input", type, in, quant);
  const Shape pad_shape = {static_cast<int32_t>(in.size()), 2};
  const int32_t pads = constant_paddings ? b.add_constant_values<P>("paddings", pad_type, pad_shape, paddings)
                                         : b.add_tensor("paddings", pad_type, pad_shape);
  m.outputs = {b.add_tensor("output", type, out, quant)};
  std::vector<int32_t> op_inputs = {input, pads};
  m.inputs = constant_paddings ? std::vector<int32_t>{input} : std::vector<int32_t>{input, pads};
  if (constant_value != kNoTensor) {
    op_inputs.push_back(b.add_tensor("constant", type, {}, quant));
    m.inputs.push_back(op_inputs.back());
  }
  b.add_op(constant_value != kNoTensor ? OpKind::kPadV2 : OpKind::kPad, op_inputs, m.outputs);
  b.set_inputs(m.inputs);
  b.set_outputs(m.outputs);
  m.graph = b.finish();
  return m;
}

const std::vector<int32_t> kPadTopRight = {1, 0, 0, 1};  // one row above, one column to the right

TEST(Pad, FloatPadsWithZero) {
  OneOp m = pad_model<int32_t>(DataType::kFloat32, {2, 2}, {3, 3}, kPadTopRight, DataType::kInt32);
  EXPECT_EQ(values_from<float>(run_graph(m.graph, bytes_of(std::vector<float>{1, 2, 3, 4}))[0]),
            (std::vector<float>{0, 0, 0, 1, 2, 0, 3, 4, 0}));
}

TEST(Pad, QuantizedPadsWithTheOutputZeroPoint) {
  OneOp s8 = pad_model<int32_t>(DataType::kInt8, {2, 2}, {3, 3}, kPadTopRight, DataType::kInt32, per_tensor(0.5f, -5));
  EXPECT_EQ(values_from<int8_t>(run_graph(s8.graph, bytes_of(std::vector<int8_t>{1, -2, 127, -128}))[0]),
            (std::vector<int8_t>{-5, -5, -5, 1, -2, -5, 127, -128, -5}));
  OneOp u8 =
      pad_model<int32_t>(DataType::kUInt8, {2, 2}, {3, 3}, kPadTopRight, DataType::kInt32, per_tensor(0.5f, 128));
  EXPECT_EQ(values_from<uint8_t>(run_graph(u8.graph, bytes_of(std::vector<uint8_t>{1, 2, 255, 0}))[0]),
            (std::vector<uint8_t>{128, 128, 128, 1, 2, 128, 255, 0, 128}));
}

TEST(Pad, Int16AndInt32PadWithZero) {
  // TFLite Micro pads INT16 with 0 whatever the zero point says.
  OneOp s16 = pad_model<int32_t>(DataType::kInt16, {2}, {4}, {1, 1}, DataType::kInt32, per_tensor(0.5f, 0));
  EXPECT_EQ(values_from<int16_t>(run_graph(s16.graph, bytes_of(std::vector<int16_t>{-300, 300}))[0]),
            (std::vector<int16_t>{0, -300, 300, 0}));
  OneOp s32 = pad_model<int64_t>(DataType::kInt32, {1, 1, 2}, {1, 2, 3}, {0, 0, 1, 0, 0, 1}, DataType::kInt64);
  EXPECT_EQ(values_from<int32_t>(run_graph(s32.graph, bytes_of(std::vector<int32_t>{7, -8}))[0]),
            (std::vector<int32_t>{0, 0, 0, 7, -8, 0}));
}

TEST(Pad, PadV2UsesItsConstantValue) {
  OneOp f = pad_model<int32_t>(DataType::kFloat32, {2}, {4}, {2, 0}, DataType::kInt32, {}, 1);
  EXPECT_EQ(values_from<float>(run_graph(f.graph, concat_bytes({bytes_of(std::vector<float>{1, 2}),
                                                                bytes_of(std::vector<float>{9.5f})}))[0]),
            (std::vector<float>{9.5f, 9.5f, 1, 2}));
  OneOp s8 = pad_model<int32_t>(DataType::kInt8, {1}, {3}, {1, 1}, DataType::kInt32, per_tensor(0.5f, -5), 1);
  EXPECT_EQ(values_from<int8_t>(run_graph(s8.graph, bytes_of(std::vector<int8_t>{3, 100}))[0]),
            (std::vector<int8_t>{100, 3, 100}));
}

TEST(Pad, RejectsWhatItCannotRun) {
  OneOp int64 = pad_model<int32_t>(DataType::kInt64, {1}, {2}, {1, 0}, DataType::kInt32);
  EXPECT_RUN_ERROR(int64.graph, std::vector<uint8_t>(8), "op 0 (PAD): input type INT64 is not supported");
  OneOp dynamic = pad_model<int32_t>(DataType::kFloat32, {1}, {2}, {1, 0}, DataType::kInt32, {}, kNoTensor, false);
  EXPECT_RUN_ERROR(dynamic.graph, std::vector<uint8_t>(12), "paddings (input 1) must be constant");
  OneOp shape = pad_model<int32_t>(DataType::kFloat32, {1}, {3}, {1, 0}, DataType::kInt32);
  EXPECT_RUN_ERROR(shape.graph, std::vector<uint8_t>(4),
                   "output dimension 0 is 3, but input 1 padded by (1, 0) gives 2");
  OneOp negative = pad_model<int32_t>(DataType::kFloat32, {2}, {1}, {-1, 0}, DataType::kInt32);
  EXPECT_RUN_ERROR(negative.graph, std::vector<uint8_t>(8), "negative padding (-1, 0) on dimension 0");
  OneOp pad_type = pad_model<int16_t>(DataType::kFloat32, {1}, {2}, {1, 0}, DataType::kInt16);
  EXPECT_RUN_ERROR(pad_type.graph, std::vector<uint8_t>(4), "paddings (input 1) has type INT16");
}

TEST(Pad, SafeOverlapFollowsTheOutputOrder) {
  // Output row-major: in[2] (byte 8) is read after out[5] (to byte 23).
  OneOp m = pad_model<int32_t>(DataType::kFloat32, {2, 2}, {3, 3}, kPadTopRight, DataType::kInt32);
  EXPECT_EQ(overlap_of(m.graph, 0, m.outputs[0]), 36 - 16);
  // Padding only at the end: each element is read before its slot is written.
  OneOp tail = pad_model<int32_t>(DataType::kInt8, {4}, {6}, {0, 2}, DataType::kInt32, per_tensor(1.0f, 0));
  EXPECT_EQ(overlap_of(tail.graph, 0, tail.outputs[0]), 6);
}

// ------------------------------------------------------------------- MEAN

OneOp reduction_model(OpKind kind, DataType type, const Shape& in, const Shape& out, const std::vector<int32_t>& axes,
                      Quantization in_quant = {}, Quantization out_quant = {}, bool keep_dims = false,
                      bool constant_axes = true) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  const int32_t input = b.add_tensor("input", type, in, in_quant);
  const Shape axis_shape = {static_cast<int32_t>(axes.size())};
  const int32_t axis = constant_axes ? b.add_constant_values<int32_t>("axis", DataType::kInt32, axis_shape, axes)
                                     : b.add_tensor("axis", DataType::kInt32, axis_shape);
  m.outputs = {b.add_tensor("output", type, out, out_quant)};
  b.add_op(kind, {input, axis}, m.outputs, ReducerParams{keep_dims});
  m.inputs = constant_axes ? std::vector<int32_t>{input} : std::vector<int32_t>{input, axis};
  b.set_inputs(m.inputs);
  b.set_outputs(m.outputs);
  m.graph = b.finish();
  return m;
}

OneOp mean_model(DataType type, const Shape& in, const Shape& out, const std::vector<int32_t>& axes,
                 Quantization in_quant = {}, Quantization out_quant = {}, bool keep_dims = false,
                 bool constant_axes = true) {
  return reduction_model(OpKind::kMean, type, in, out, axes, in_quant, out_quant, keep_dims, constant_axes);
}

TEST(Mean, FloatOverEachAxis) {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  OneOp rows = mean_model(DataType::kFloat32, {2, 3}, {2}, {-1});
  EXPECT_EQ(values_from<float>(run_graph(rows.graph, bytes_of(in))[0]), (std::vector<float>{2, 5}));
  OneOp cols = mean_model(DataType::kFloat32, {2, 3}, {1, 3}, {0}, {}, {}, true);
  EXPECT_EQ(values_from<float>(run_graph(cols.graph, bytes_of(in))[0]), (std::vector<float>{2.5f, 3.5f, 4.5f}));
  OneOp all = mean_model(DataType::kFloat32, {2, 3}, {}, {1, 0, -1});  // repeated axes count once
  EXPECT_EQ(values_from<float>(run_graph(all.graph, bytes_of(in))[0]), (std::vector<float>{3.5f}));
  OneOp none = mean_model(DataType::kFloat32, {2, 3}, {2, 3}, {});
  EXPECT_EQ(values_from<float>(run_graph(none.graph, bytes_of(in))[0]), in);
}

TEST(Mean, FloatSumsInInputOrderThenDivides) {
  // Height and width of a 1x2x2x2 input (the keep_dims special case): the
  // float sum 1e8 + 1 + 1 - 1e8 in row-major order is 0, not 2.
  OneOp m = mean_model(DataType::kFloat32, {1, 2, 2, 2}, {1, 1, 1, 2}, {1, 2}, {}, {}, true);
  const std::vector<float> in = {1e8f, 1, 1, 2, 1, 3, -1e8f, 4};
  EXPECT_EQ(values_from<float>(run_graph(m.graph, bytes_of(in))[0]), (std::vector<float>{0.0f, 2.5f}));
}

TEST(Mean, Int8WithOneQuantizationRoundsAsTflmRequantizes) {
  // Input and output share scale and zero point: TFLM still requantizes
  // (QuantizedMeanOrSum), rounding half away from zero.
  const Quantization q = per_tensor(0.5f, 0);
  OneOp m = mean_model(DataType::kInt8, {3, 4}, {3}, {1}, q, q);
  // Means 2.5, -2.5 and 2.75.
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{1, 2, 3, 4, -1, -2, -3, -4, 1, 2, 3,
                                                                                  5}))[0]),
            (std::vector<int8_t>{3, -3, 3}));
}

// TFLM's integer MEAN written out from its definition, apart from dmo's
// code: QuantizeMultiplier(input_scale / output_scale), 1/count folded into
// the multiplier, MultiplyByQuantizedMultiplier with its two roundings.
std::vector<int8_t> tflm_int8_mean_over_rows(const std::vector<int8_t>& in, int64_t rows, int64_t channels,
                                             double real_multiplier, int32_t in_zp, int32_t out_zp) {
  int exponent = 0;
  const double fraction = std::frexp(real_multiplier, &exponent);
  auto fixed = static_cast<int64_t>(std::round(fraction * 2147483648.0));
  if (fixed == 2147483648) {
    fixed /= 2;
    ++exponent;
  }
  int fold = 63 - std::countl_zero(static_cast<uint64_t>(rows));
  fold = std::min({fold, 32, 31 + exponent});
  const auto multiplier = static_cast<int32_t>((fixed << fold) / rows);
  const int shift = exponent - fold;
  std::vector<int8_t> out;
  for (int64_t c = 0; c < channels; ++c) {
    int64_t sum = 0;
    for (int64_t r = 0; r < rows; ++r) sum += in[static_cast<size_t>(r * channels + c)];
    const auto x = static_cast<int32_t>(sum - int64_t{in_zp} * rows);
    const int64_t left = x * (int64_t{1} << std::max(shift, 0));
    const int64_t product = left * multiplier;
    const int64_t nudge = product >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30);
    const auto high = static_cast<int32_t>((product + nudge) / (int64_t{1} << 31));
    const int right = std::max(-shift, 0);
    const int32_t mask = static_cast<int32_t>((int64_t{1} << right) - 1);
    const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    const int32_t rounded = (high >> right) + ((high & mask) > threshold ? 1 : 0);
    out.push_back(static_cast<int8_t>(std::clamp(rounded + out_zp, -128, 127)));
  }
  return out;
}

TEST(Mean, MobileNetV2ClassifierHeadIsTflmsRequantizedMean) {
  // A real MobileNet v2 head: 7x7x1280 -> 1x1x1x1280 over height and width,
  // input and output sharing scale and zero point.
  const Quantization q = per_tensor(0.0235294f, -128);
  OneOp m = mean_model(DataType::kInt8, {1, 7, 7, 1280}, {1, 1, 1, 1280}, {1, 2}, q, q, true);
  std::vector<int8_t> in(7 * 7 * 1280);
  uint32_t state = 12345;
  for (int8_t& v : in) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    v = static_cast<int8_t>(state >> 24);
  }
  const std::vector<int8_t> expected = tflm_int8_mean_over_rows(in, 49, 1280, 1.0, -128, -128);
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(in))[0]), expected);
  // The case tells rounding from truncation on many channels.
  int64_t truncation_differs = 0;
  for (int64_t c = 0; c < 1280; ++c) {
    int32_t sum = 0;
    for (int64_t r = 0; r < 49; ++r) sum += in[static_cast<size_t>(r * 1280 + c)];
    truncation_differs += static_cast<int8_t>(sum / 49) != expected[static_cast<size_t>(c)];
  }
  EXPECT_GT(truncation_differs, 100);
}

TEST(Mean, Int8RequantizedRoundsHalfAwayFromZero) {
  // Output scale twice the input's: the quantized means 5, -5 and 5.5 halve
  // to 2.5, -2.5 and 2.75.
  OneOp m = mean_model(DataType::kInt8, {3, 2}, {3}, {1}, per_tensor(0.5f, 0), per_tensor(1.0f, 0));
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{4, 6, -4, -6, 5, 6}))[0]),
            (std::vector<int8_t>{3, -3, 3}));
}

TEST(Mean, Int8RequantizesAndSaturates) {
  // Input real (q - 2) * 0.5, output real (q + 3) * 0.25: [3, 6] -> 1.25 -> 2;
  // [127, 127] -> 62.5 -> 247 -> 127; [-128, -128] -> -65 -> -263 -> -128.
  OneOp m = mean_model(DataType::kInt8, {3, 2}, {3}, {1}, per_tensor(0.5f, 2), per_tensor(0.25f, -3));
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{3, 6, 127, 127, -128, -128}))[0]),
            (std::vector<int8_t>{2, 127, -128}));
}

TEST(Mean, UInt8AndInt16) {
  // uint8, zero point 128, same scale: requantized as int8 is,
  // [130, 133] -> 131.5 -> 132 and [0, 1] -> -127.5 -> 1.
  const Quantization q = per_tensor(0.1f, 128);
  OneOp u8 = mean_model(DataType::kUInt8, {2, 2}, {2}, {1}, q, q);
  EXPECT_EQ(values_from<uint8_t>(run_graph(u8.graph, bytes_of(std::vector<uint8_t>{130, 133, 0, 1}))[0]),
            (std::vector<uint8_t>{132, 1}));
  // int16, output scale twice the input's: mean 1001 -> 500.5 -> 501.
  OneOp s16 = mean_model(DataType::kInt16, {1, 2}, {1}, {1}, per_tensor(1.0f, 0), per_tensor(2.0f, 0));
  EXPECT_EQ(values_from<int16_t>(run_graph(s16.graph, bytes_of(std::vector<int16_t>{1000, 1002}))[0]),
            (std::vector<int16_t>{501}));
}

TEST(Mean, RejectsWhatItCannotRun) {
  OneOp int32 = mean_model(DataType::kInt32, {2}, {}, {0});
  EXPECT_RUN_ERROR(int32.graph, std::vector<uint8_t>(8), "op 0 (MEAN): input type INT32 is not supported");
  OneOp dynamic = mean_model(DataType::kFloat32, {2}, {}, {0}, {}, {}, false, false);
  EXPECT_RUN_ERROR(dynamic.graph, std::vector<uint8_t>(12), "axis (input 1) must be constant");
  OneOp axis = mean_model(DataType::kFloat32, {2}, {}, {1});
  EXPECT_RUN_ERROR(axis.graph, std::vector<uint8_t>(8), "axis 1 is outside a 1-D input");
  OneOp count = mean_model(DataType::kFloat32, {2, 3}, {3}, {1});
  EXPECT_RUN_ERROR(count.graph, std::vector<uint8_t>(24), "output 3 has 3 elements, the kept dimensions");
  OneOp unquantized = mean_model(DataType::kInt8, {2}, {}, {0});
  EXPECT_RUN_ERROR(unquantized.graph, std::vector<uint8_t>(2), "per-tensor quantization");
}

TEST(Mean, SafeOverlapFollowsTflmsPath) {
  // The general path resets the whole output before reading the input.
  OneOp rows = mean_model(DataType::kFloat32, {3, 2}, {3}, {1});
  EXPECT_EQ(overlap_of(rows.graph, 0, rows.outputs[0]), 0);
  OneOp cols = mean_model(DataType::kFloat32, {3, 2}, {2}, {0});
  EXPECT_EQ(overlap_of(cols.graph, 0, cols.outputs[0]), 0);
  // The 4-D path over height and width stores each output after its inputs,
  // and the inputs of later outputs lie beyond it: the whole output.
  OneOp pooled = mean_model(DataType::kFloat32, {1, 3, 3, 4}, {1, 1, 1, 4}, {1, 2}, {}, {}, true);
  EXPECT_EQ(overlap_of(pooled.graph, 0, pooled.outputs[0]), 16);
  // The same axes counted from the end are not TFLM's 4-D case.
  OneOp negative = mean_model(DataType::kFloat32, {1, 3, 3, 4}, {1, 1, 1, 4}, {-3, -2}, {}, {}, true);
  EXPECT_EQ(overlap_of(negative.graph, 0, negative.outputs[0]), 0);
}

// -------------------------------------------------------------------- SUM

TEST(Sum, FloatOverAnAxisAndAll) {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  OneOp rows = reduction_model(OpKind::kSum, DataType::kFloat32, {2, 3}, {2}, {-1});
  EXPECT_EQ(values_from<float>(run_graph(rows.graph, bytes_of(in))[0]), (std::vector<float>{6, 15}));
  OneOp all = reduction_model(OpKind::kSum, DataType::kFloat32, {2, 3}, {1, 1}, {0, 1}, {}, {}, true);
  EXPECT_EQ(values_from<float>(run_graph(all.graph, bytes_of(in))[0]), (std::vector<float>{21}));
  // ReduceGeneric adds in row-major input order: 1e8 + 1 + 1 - 1e8 is 0.
  OneOp order = reduction_model(OpKind::kSum, DataType::kFloat32, {4, 1}, {1}, {0});
  EXPECT_EQ(values_from<float>(run_graph(order.graph, bytes_of(std::vector<float>{1e8f, 1, 1, -1e8f}))[0]),
            (std::vector<float>{0.0f}));
}

TEST(Sum, Int8RequantizesTheSumWithoutDividing) {
  // Output scale twice the input's: sums 10, -10 and 11 halve to 5, -5, 5.5.
  OneOp m = reduction_model(OpKind::kSum, DataType::kInt8, {3, 2}, {3}, {1}, per_tensor(0.5f, 0),
                            per_tensor(1.0f, 0));
  EXPECT_EQ(values_from<int8_t>(run_graph(m.graph, bytes_of(std::vector<int8_t>{4, 6, -4, -6, 5, 6}))[0]),
            (std::vector<int8_t>{5, -5, 6}));
  // Zero points come off per summed element and the result saturates.
  OneOp z = reduction_model(OpKind::kSum, DataType::kInt16, {2, 2}, {2}, {1}, per_tensor(1.0f, 0),
                            per_tensor(1.0f, 0));
  EXPECT_EQ(values_from<int16_t>(run_graph(z.graph, bytes_of(std::vector<int16_t>{30000, 30000, -7, 2}))[0]),
            (std::vector<int16_t>{32767, -5}));
}

TEST(Sum, RejectsUInt8AsTflmDoes) {
  OneOp u8 = reduction_model(OpKind::kSum, DataType::kUInt8, {2}, {}, {0}, per_tensor(1.0f, 0), per_tensor(1.0f, 0));
  EXPECT_RUN_ERROR(u8.graph, std::vector<uint8_t>(2), "op 0 (SUM): input type UINT8 is not supported");
}

TEST(Sum, SafeOverlapIsZeroAsTheOutputIsResetFirst) {
  OneOp m = reduction_model(OpKind::kSum, DataType::kFloat32, {3, 2}, {3}, {1});
  EXPECT_EQ(overlap_of(m.graph, 0, m.outputs[0]), 0);
}

// ---------------------------------------------------------- STRIDED_SLICE

struct SliceSpec {
  std::vector<int32_t> begin, end, strides;
  int32_t begin_mask = 0, end_mask = 0, shrink_axis_mask = 0, ellipsis_mask = 0, new_axis_mask = 0;
  bool offset = false;
};

OneOp slice_model(DataType type, const Shape& in, const Shape& out, const SliceSpec& s, bool constant = true) {
  GraphBuilder b("shape_kernels_test");
  OneOp m;
  const int32_t input = b.add_tensor("input", type, in);
  const Shape index_shape = {static_cast<int32_t>(s.begin.size())};
  const int32_t begin = constant ? b.add_constant_values<int32_t>("begin", DataType::kInt32, index_shape, s.begin)
                                 : b.add_tensor("begin", DataType::kInt32, index_shape);
  const int32_t end = b.add_constant_values<int32_t>("end", DataType::kInt32, index_shape, s.end);
  const int32_t strides = b.add_constant_values<int32_t>("strides", DataType::kInt32, index_shape, s.strides);
  m.outputs = {b.add_tensor("output", type, out)};
  StridedSliceParams p;
  p.begin_mask = s.begin_mask;
  p.end_mask = s.end_mask;
  p.shrink_axis_mask = s.shrink_axis_mask;
  p.ellipsis_mask = s.ellipsis_mask;
  p.new_axis_mask = s.new_axis_mask;
  p.offset = s.offset;
  b.add_op(OpKind::kStridedSlice, {input, begin, end, strides}, m.outputs, p);
  m.inputs = constant ? std::vector<int32_t>{input} : std::vector<int32_t>{input, begin};
  b.set_inputs(m.inputs);
  b.set_outputs(m.outputs);
  m.graph = b.finish();
  return m;
}

const std::vector<float> kGrid = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // 3x4

std::vector<float> slice_floats(const Shape& out, const SliceSpec& s) {
  OneOp m = slice_model(DataType::kFloat32, {3, 4}, out, s);
  return values_from<float>(run_graph(m.graph, bytes_of(kGrid))[0]);
}

TEST(StridedSlice, RowsAndStridedColumns) {
  EXPECT_EQ(slice_floats({2, 2}, {{1, 0}, {3, 4}, {1, 2}}), (std::vector<float>{4, 6, 8, 10}));
}

TEST(StridedSlice, NegativeIndicesAndStrides) {
  // Rows 0 and 2, columns from the last backwards (end -5 clamps to -1).
  EXPECT_EQ(slice_floats({2, 4}, {{0, -1}, {3, -5}, {2, -1}}), (std::vector<float>{3, 2, 1, 0, 11, 10, 9, 8}));
  // Rows from -1 down to (not including) -3.
  EXPECT_EQ(slice_floats({2, 1}, {{-1, 1}, {-3, 2}, {-1, 1}}), (std::vector<float>{9, 5}));
}

TEST(StridedSlice, BeginAndEndMasksTakeEverything) {
  SliceSpec s{{7, 9}, {-9, 1}, {1, -1}};
  s.begin_mask = 0b11;  // begin ignored: row 0, last column
  s.end_mask = 0b01;    // rows to the end; columns stop before 1
  EXPECT_EQ(slice_floats({3, 2}, s), (std::vector<float>{3, 2, 7, 6, 11, 10}));
}

TEST(StridedSlice, ShrinkAxisDropsTheDimension) {
  SliceSpec row{{1, 0}, {0, 4}, {1, 1}};  // end of a shrunk axis is ignored
  row.shrink_axis_mask = 0b01;
  EXPECT_EQ(slice_floats({4}, row), (std::vector<float>{4, 5, 6, 7}));
  SliceSpec last{{-1, -1}, {0, 0}, {1, 1}};
  last.shrink_axis_mask = 0b11;
  EXPECT_EQ(slice_floats({}, last), (std::vector<float>{11}));
}

TEST(StridedSlice, OffsetIsIgnoredAsTflmIgnoresIt) {
  // TFLM's BuildStridedSliceParams leaves `offset` false: end stays absolute.
  SliceSpec s{{1, 1}, {2, 2}, {1, 1}};
  s.offset = true;
  EXPECT_EQ(slice_floats({1, 1}, s), (std::vector<float>{5}));
}

TEST(StridedSlice, FiveDimensionsAndEveryType) {
  for (DataType type : {DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kInt32,
                        DataType::kInt64, DataType::kBool}) {
    // 1x2x1x2x2, take [0, 1, 0, 0:2, 1]: elements 5 and 7.
    OneOp m = slice_model(type, {1, 2, 1, 2, 2}, {1, 1, 1, 2, 1}, {{0, 1, 0, 0, 1}, {1, 2, 1, 2, 2}, {1, 1, 1, 1, 1}});
    const size_t width = static_cast<size_t>(element_size(type).value());
    std::vector<uint8_t> in(8 * width);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i + 1);
    std::vector<uint8_t> expected(in.begin() + static_cast<long>(5 * width), in.begin() + static_cast<long>(6 * width));
    expected.insert(expected.end(), in.begin() + static_cast<long>(7 * width),
                    in.begin() + static_cast<long>(8 * width));
    EXPECT_EQ(run_graph(m.graph, in)[0], expected) << data_type_name(type);
  }
}

TEST(StridedSlice, RejectsWhatItCannotRun) {
  SliceSpec ellipsis{{0, 0}, {1, 1}, {1, 1}};
  ellipsis.ellipsis_mask = 1;
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {1, 1}, ellipsis).graph, bytes_of(kGrid),
                   "op 0 (STRIDED_SLICE): ellipsis_mask 1 is not supported");
  SliceSpec new_axis{{0, 0}, {1, 1}, {1, 1}};
  new_axis.new_axis_mask = 2;
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {1, 1}, new_axis).graph, bytes_of(kGrid),
                   "new_axis_mask 2 is not supported");
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {2, 2}, {{0, 0}, {1, 1}, {1, 1}}).graph, bytes_of(kGrid),
                   "output shape 2x2 differs from the slice's shape 1x1");
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {1, 1}, {{0, 0}, {1, 1}, {1, 0}}).graph, bytes_of(kGrid),
                   "stride of axis 1 is 0");
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {1, 1}, {{0}, {1}, {1}}).graph, bytes_of(kGrid),
                   "begin, end and strides have 1, 1 and 1 values for a 2-D input");
  std::vector<uint8_t> with_begin = concat_bytes({bytes_of(kGrid), bytes_of(std::vector<int32_t>{0, 0})});
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {1, 1}, {{0, 0}, {1, 1}, {1, 1}}, false).graph, with_begin,
                   "begin (input 1) must be constant");
  SliceSpec outside{{3, 0}, {4, 4}, {1, 1}};
  outside.shrink_axis_mask = 1;
  EXPECT_RUN_ERROR(slice_model(DataType::kFloat32, {3, 4}, {4}, outside).graph, bytes_of(kGrid),
                   "shrink_axis index 3 is outside axis 0 of size 3");
}

TEST(StridedSlice, SafeOverlapFollowsTheReadOrder) {
  // Inner stride 1: TFLM copies each row with memcpy, whose order is open,
  // so each row's destination must lie wholly below its source. Rows 1 and
  // 2 go to output rows 0 and 1, each 16 bytes below: the whole output.
  OneOp rows = slice_model(DataType::kFloat32, {3, 4}, {2, 4}, {{1, 0}, {3, 4}, {1, 1}});
  EXPECT_EQ(expect_tight_overlap(rows, 0, bytes_of(kGrid)), 32);
  // Rows 0 and 1: each row lands on its own source once the output overlaps
  // the input by more than 16 bytes.
  OneOp first_rows = slice_model(DataType::kFloat32, {3, 4}, {2, 4}, {{0, 0}, {2, 4}, {1, 1}});
  EXPECT_EQ(expect_tight_overlap(first_rows, 0, bytes_of(kGrid)), 16);
  // Inner stride 2: element by element, each read before anything at or
  // past it is written.
  OneOp strided = slice_model(DataType::kFloat32, {3, 4}, {2, 2}, {{1, 0}, {3, 4}, {1, 2}});
  EXPECT_EQ(overlap_of(strided.graph, 0, strided.outputs[0]), 16);
  // Reversed: in[0] (byte 0) is read after out[2] (to byte 11) is written.
  OneOp reversed = slice_model(DataType::kFloat32, {1, 4}, {1, 4}, {{0, -1}, {1, -5}, {1, -1}});
  EXPECT_EQ(overlap_of(reversed.graph, 0, reversed.outputs[0]), 4);
}

// ------------------------------------------------------------------- SVDF

struct SvdfModel {
  Graph graph;
  int32_t input = 0, state = 0, output = 0;
};

// input [1, input_size], weights_feature [filters, input_size], weights_time
// [filters, memory], bias [units] (none when empty), state [1, filters * memory].
template <typename Feature, typename Time, typename Bias>
SvdfModel svdf_model(DataType io_type, DataType time_type, DataType bias_type, int32_t input_size, int32_t filters,
                     int32_t memory, int32_t rank, const std::vector<Feature>& feature, const std::vector<Time>& time,
                     const std::vector<Bias>& bias, Activation activation, const std::vector<Quantization>& q = {},
                     bool variable_state = true) {
  auto quant = [&](size_t i) { return i < q.size() ? q[i] : Quantization{}; };
  GraphBuilder b("shape_kernels_test");
  SvdfModel m;
  m.input = b.add_tensor("input", io_type, {1, input_size}, quant(0));
  const int32_t wf =
      b.add_constant_values<Feature>("weights_feature", io_type, {filters, input_size}, feature, quant(1));
  const int32_t wt = b.add_constant_values<Time>("weights_time", time_type, {filters, memory}, time, quant(2));
  const int32_t bias_tensor =
      bias.empty() ? kNoTensor
                   : b.add_constant_values<Bias>("bias", bias_type, {filters / rank}, bias, quant(3));
  m.state = b.add_tensor("state", time_type, {1, filters * memory}, quant(4));
  m.output = b.add_tensor("output", io_type, {1, filters / rank}, quant(5));
  SvdfParams p;
  p.rank = rank;
  p.activation = activation;
  b.add_op(OpKind::kSvdf, {m.input, wf, wt, bias_tensor, m.state}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  m.graph.subgraphs[0].tensors[static_cast<size_t>(m.state)].is_variable = variable_state;
  return m;
}

TEST(Svdf, FloatShiftsTheStateAcrossInferences) {
  // Features [1 2; 3 4]; time weights [1 10; 100 1000]; bias [0.5, -1].
  SvdfModel m = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32, 2, 2, 2,
                                                1, {1, 2, 3, 4}, {1, 10, 100, 1000}, {0.5f, -1}, Activation::kRelu);
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<float>{1, 1}));
  EXPECT_FALSE(interpreter.run_checked().has_value());
  // Features 3 and 7 enter the newest step: state [0 3 0 7]; 10*3 + 0.5, 1000*7 - 1.
  EXPECT_EQ(values_from<float>(interpreter.tensor_bytes(m.state)), (std::vector<float>{0, 3, 0, 7}));
  EXPECT_EQ(values_from<float>(interpreter.tensor_bytes(m.output)), (std::vector<float>{30.5f, 6999}));
  interpreter.set_inputs(bytes_of(std::vector<float>{1, 0}));
  interpreter.run();
  // Shifted [3 0 7 7], features 1 and 3: state [3 1 7 3]; 3 + 10 + 0.5, 700 + 3000 - 1.
  EXPECT_EQ(values_from<float>(interpreter.tensor_bytes(m.state)), (std::vector<float>{3, 1, 7, 3}));
  EXPECT_EQ(values_from<float>(interpreter.tensor_bytes(m.output)), (std::vector<float>{13.5f, 3699}));
}

TEST(Svdf, FloatRankSumsFiltersAndAppliesActivation) {
  // Rank 2: one unit summing both filters, no bias: -(3 + 7) through RELU is 0, through NONE -10.
  for (Activation activation : {Activation::kRelu, Activation::kNone}) {
    SvdfModel m = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32, 2, 2, 1,
                                                  2, {1, 2, 3, 4}, {-1, -1}, {}, activation);
    auto out = values_from<float>(run_graph(m.graph, bytes_of(std::vector<float>{1, 1}))[0]);
    EXPECT_EQ(out, (std::vector<float>{activation == Activation::kRelu ? 0.0f : -10.0f}));
  }
}

TEST(Svdf, Int8WithInt16State) {
  // Scales give both effective multipliers exactly 1: input 0.5 (zp 1),
  // features 0.25, state 0.125, time 0.5, bias 0.0625, output 0.0625 (zp -10).
  const std::vector<Quantization> q = {per_tensor(0.5f, 1),     per_tensor(0.25f, 0),  per_tensor(0.5f, 0),
                                       per_tensor(0.0625f, 0), per_tensor(0.125f, 0), per_tensor(0.0625f, -10)};
  SvdfModel m = svdf_model<int8_t, int16_t, int32_t>(DataType::kInt8, DataType::kInt16, DataType::kInt32, 2, 2, 2, 1,
                                                     {1, 2, 3, -4}, {1, 10, 100, -1000}, {5, 7}, Activation::kNone, q);
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<int8_t>{3, 1}));  // offset input [2, 0]
  EXPECT_FALSE(interpreter.run_checked().has_value());
  // Features 2 and 6; time sums 20 and -6000; plus bias and zero point: 15 and -5993 - 10 saturated.
  EXPECT_EQ(values_from<int16_t>(interpreter.tensor_bytes(m.state)), (std::vector<int16_t>{0, 2, 0, 6}));
  EXPECT_EQ(values_from<int8_t>(interpreter.tensor_bytes(m.output)), (std::vector<int8_t>{15, -128}));
}

TEST(Svdf, Int8StateAddsItsZeroPointAfterSaturating) {
  // All scales 1, state zero point 3. Feature 200 saturates to 127, then the
  // zero point makes 130, which wraps to -126 as in TFLite Micro; -100 + 3 = -97.
  const std::vector<Quantization> q = {per_tensor(1, 0), per_tensor(1, 0), per_tensor(1, 0),
                                       per_tensor(1, 0), per_tensor(1, 3), per_tensor(1, 0)};
  SvdfModel m = svdf_model<int8_t, int8_t, int32_t>(DataType::kInt8, DataType::kInt8, DataType::kInt32, 1, 2, 1, 1,
                                                    {2, -1}, {1, 1}, {0, 0}, Activation::kNone, q);
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<int8_t>{100}));
  interpreter.run();
  EXPECT_EQ(values_from<int8_t>(interpreter.tensor_bytes(m.state)), (std::vector<int8_t>{-126, -97}));
  // Time: -126 - 3 = -129 saturates to -128; -97 - 3 = -100.
  EXPECT_EQ(values_from<int8_t>(interpreter.tensor_bytes(m.output)), (std::vector<int8_t>{-128, -100}));
}

TEST(Svdf, RejectsWhatItCannotRun) {
  const std::vector<Quantization> q(6, per_tensor(1, 0));
  SvdfModel not_variable = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32,
                                                           1, 1, 1, 1, {1}, {1}, {}, Activation::kNone, {}, false);
  EXPECT_RUN_ERROR(not_variable.graph, std::vector<uint8_t>(4),
                   "op 0 (SVDF): the activation state (input 4) must be a variable");
  SvdfModel time32 = svdf_model<int8_t, int32_t, int32_t>(DataType::kInt8, DataType::kInt32, DataType::kInt32, 1, 1, 1,
                                                          1, {1}, {1}, {}, Activation::kNone, q);
  EXPECT_RUN_ERROR(time32.graph, std::vector<uint8_t>(1),
                   "weights_time type INT32 is not supported; supported: INT8, INT16");
  SvdfModel int16 = svdf_model<int16_t, int16_t, int32_t>(DataType::kInt16, DataType::kInt16, DataType::kInt32, 1, 1,
                                                          1, 1, {1}, {1}, {}, Activation::kNone, q);
  EXPECT_RUN_ERROR(int16.graph, std::vector<uint8_t>(2), "input type INT16 is not supported; supported: FLOAT32, INT8");
  SvdfModel rank = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32, 1, 3, 1,
                                                   2, {1, 1, 1}, {1, 1, 1}, {}, Activation::kNone);
  EXPECT_RUN_ERROR(rank.graph, std::vector<uint8_t>(4), "3 filters do not divide into rank 2");
  std::vector<Quantization> bad_bias = q;
  bad_bias[3] = per_tensor(0.5f, 0);
  SvdfModel bias = svdf_model<int8_t, int8_t, int32_t>(DataType::kInt8, DataType::kInt8, DataType::kInt32, 1, 1, 1, 1,
                                                       {1}, {1}, {1}, Activation::kNone, bad_bias);
  EXPECT_RUN_ERROR(bias.graph, std::vector<uint8_t>(1), "bias scale must be state scale times weights_time scale");
}

TEST(Svdf, SafeOverlapIsTheWholeOutput) {
  // All input reads come before the first output write.
  SvdfModel m = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32, 2, 2, 2, 1,
                                                {1, 2, 3, 4}, {1, 10, 100, 1000}, {0.5f, -1}, Activation::kNone);
  EXPECT_EQ(overlap_of(m.graph, m.input, m.output), 8);
}

// ------------------------------------------------- golden ops, run alone

// The recorded tensors of a golden case, by tensor index, and their bytes.
struct GoldenRecord {
  std::map<int32_t, test::GoldenTensor> tensors;
  std::vector<uint8_t> bin;

  std::vector<uint8_t> bytes(int32_t t) const {
    const test::GoldenTensor& g = tensors.at(t);
    return {bin.begin() + g.offset, bin.begin() + g.offset + g.bytes};
  }
};

GoldenRecord read_golden(const std::string& stem) {
  GoldenRecord record;
  for (test::GoldenTensor& row : test::read_golden_tensors(stem + ".tsv")) record.tensors[row.tensor] = std::move(row);
  record.bin = test::read_file(stem + ".bin");
  return record;
}

// The model cut down to op `op`: its activation inputs become graph inputs.
Graph single_op_graph(const Graph& model, size_t op) {
  Graph g;
  g.source = model.source + " op " + std::to_string(op);
  g.version = model.version;
  Subgraph sub = model.main();
  sub.ops = {model.main().ops[op]};
  sub.inputs.clear();
  for (int32_t t : sub.ops[0].inputs) {
    if (t == kNoTensor) continue;
    const Tensor& tensor = sub.tensors[static_cast<size_t>(t)];
    if (tensor.is_constant || tensor.is_variable) continue;
    if (std::find(sub.inputs.begin(), sub.inputs.end(), t) == sub.inputs.end()) sub.inputs.push_back(t);
  }
  sub.outputs = sub.ops[0].outputs;
  g.subgraphs = {sub};
  return g;
}

TEST(ShapeKernelsOnGoldenInputs, EveryOpMatchesTflm) {
  DMO_REQUIRE_SHARED(shared);
  const std::vector<OpKind> kinds = {OpKind::kReshape, OpKind::kSqueeze, OpKind::kConcatenation, OpKind::kSplit,
                                     OpKind::kPad,     OpKind::kPadV2,   OpKind::kMean,          OpKind::kStridedSlice,
                                     OpKind::kSvdf};
  int checked_ops = 0;
  for (const test::GoldenCase& c : test::golden_cases()) {
    const std::string& model = c.model;
    const int seed = c.seed;
    const std::string stem = c.stem(shared);
    if (!c.has_bin) {  // the ops' recorded inputs are needed, not just checksums
      std::printf("[ skipped  ] %s seed %d: no .bin file with the recorded tensors\n", model.c_str(), seed);
      continue;
    }
    const Graph graph = read_tflite_file(shared + "/models/" + model + ".tflite");
    const GoldenRecord golden = read_golden(stem);
    for (size_t op = 0; op < graph.main().ops.size(); ++op) {
      const Op& o = graph.main().ops[op];
      if (std::none_of(kinds.begin(), kinds.end(), [&](OpKind k) { return o.is(k); })) continue;
      const Graph alone = single_op_graph(graph, op);
      Interpreter interpreter(alone, unshared_placement(alone.main()));
      std::vector<uint8_t> input;
      for (int32_t t : alone.main().inputs) {
        const auto bytes = golden.bytes(t);
        input.insert(input.end(), bytes.begin(), bytes.end());
      }
      interpreter.set_inputs(input);
      EXPECT_FALSE(interpreter.run_checked().has_value());
      std::vector<int32_t> written = o.outputs;  // and the variable state the op rewrites
      for (int32_t t : o.inputs) {
        if (t != kNoTensor && graph.main().tensors[static_cast<size_t>(t)].is_variable) written.push_back(t);
      }
      for (int32_t t : written) {
        auto got = interpreter.tensor_bytes(t);
        EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), golden.bytes(t))
            << model << " seed " << seed << " op " << op << " (" << o.name() << ") tensor " << t;
      }
      ++checked_ops;
    }
  }
  EXPECT_GE(checked_ops, 20);  // SVDF x7 per seed, SPLIT, CONCATENATION, RESHAPE, SQUEEZE
}

// -------------------------------------------- coral_split_concat (uint8)

TEST(CoralSplitConcat, SplitsOfTheConcatenationReassemble) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/coral_split_concat.tflite");
  const Subgraph& main = graph.main();
  // CONCATENATION(input1 [1,8,8,3], rnn1 [..,1], rnn2 [..,2]) -> [1,8,8,6];
  // SPLIT along the channels into six; outputs split0, split2, split4,
  // split1 (outputs/rnn1) and CONCATENATION(split3, split5) (outputs/rnn2).
  ASSERT_EQ(main.ops.size(), 3u);
  const Tensor& split_dim = main.tensors[static_cast<size_t>(main.ops[1].inputs[0])];
  ASSERT_EQ(values_from<int32_t>(split_dim.data), std::vector<int32_t>{3});
  ASSERT_EQ(main.inputs.size(), 3u);
  const int channels[3] = {3, 1, 2};
  std::vector<std::vector<uint8_t>> inputs(3);
  for (size_t i = 0; i < 3; ++i) {
    inputs[i].resize(static_cast<size_t>(64 * channels[i]));
    for (size_t e = 0; e < inputs[i].size(); ++e) inputs[i][e] = static_cast<uint8_t>(37 * e + 101 * i + 5);
  }
  // Channel c of the six-channel concatenation at pixel p, by hand.
  auto concat_channel = [&](int c, size_t p) -> uint8_t {
    if (c < 3) return inputs[0][p * 3 + static_cast<size_t>(c)];
    if (c == 3) return inputs[1][p];
    return inputs[2][p * 2 + static_cast<size_t>(c - 4)];
  };
  std::vector<std::vector<uint8_t>> expected(5);
  for (size_t p = 0; p < 64; ++p) {
    expected[0].push_back(concat_channel(0, p));
    expected[1].push_back(concat_channel(2, p));
    expected[2].push_back(concat_channel(4, p));
    expected[3].push_back(concat_channel(1, p));
    expected[4].push_back(concat_channel(3, p));
    expected[4].push_back(concat_channel(5, p));
  }
  const std::vector<uint8_t> input = concat_bytes(inputs);
  EXPECT_EQ(run_graph(graph, input), expected);

  // Also inside TFLM's greedy arena, where tensors share memory.
  MemoryProblem problem = build_memory_problem(main);
  Interpreter arena(graph, placement_from_plan(main, problem, plan_tflm_greedy(problem)));
  arena.set_inputs(input);
  EXPECT_FALSE(arena.run_checked().has_value());
  std::vector<std::vector<uint8_t>> outputs;
  for (int32_t t : main.outputs) {
    auto bytes = arena.tensor_bytes(t);
    outputs.emplace_back(bytes.begin(), bytes.end());
  }
  EXPECT_EQ(outputs, expected);
}

}  // namespace
}  // namespace dmo
