// Element-wise, activation, pooling and softmax kernels (ADD, SUB, MUL, RELU,
// RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, AVERAGE_POOL_2D,
// MAX_POOL_2D, SOFTMAX, QUANTIZE, DEQUANTIZE): hand-computed results for
// every supported type, with the rounding and saturation edges of TFLite's
// integer arithmetic, broadcasting order, the errors for what they do not
// run, and the algorithmic safe overlap their loop order gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/zoo/graph_builder.h"

#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Operand {
  DataType type = DataType::kFloat32;
  Shape shape;
  Quantization quant = {};
};

// A one-op graph whose inputs are all graph inputs.
struct OneOp {
  Graph graph;
  std::vector<int32_t> inputs;
  int32_t output = 0;
};

OneOp one_op(OpKind kind, const std::vector<Operand>& inputs, const Operand& output, OpParams params = NoParams{}) {
  GraphBuilder b("elementwise_kernels_test");
  OneOp m;
  for (size_t i = 0; i < inputs.size(); ++i) {
    m.inputs.push_back(b.add_tensor(fmt::format("input{}", i), inputs[i].type, inputs[i].shape, inputs[i].quant));
  }
  m.output = b.add_tensor("output", output.type, output.shape, output.quant);
  b.add_op(kind, m.inputs, {m.output}, std::move(params));
  b.set_inputs(m.inputs);
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

OneOp unary(OpKind kind, const Operand& input, const Operand& output, OpParams params = NoParams{}) {
  return one_op(kind, {input}, output, std::move(params));
}

// Runs the model on an unshared placement, directly and with the checking
// policy (which must find no clobber and compute the same bytes); returns
// the output values.
template <typename Out>
std::vector<Out> run(const OneOp& m, const std::vector<uint8_t>& input) {
  Interpreter direct(m.graph, unshared_placement(m.graph.main()));
  direct.set_inputs(input);
  direct.run();
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  const auto bytes = direct.tensor_bytes(m.output);
  const auto checked_bytes = checked.tensor_bytes(m.output);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), checked_bytes.begin(), checked_bytes.end()))
      << "the checking policy computes differently";
  return values_from<Out>(bytes);
}

// The message of the dmo::Error running the model throws ("" if none).
std::string run_error(const OneOp& m) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  try {
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

int64_t bytes_of_tensor(const OneOp& m, int32_t t) { return m.graph.main().tensors[static_cast<size_t>(t)].byte_size; }

// A placement where the output starts at 0 and `input` starts |O| - overlap
// bytes later, so the output's last `overlap` bytes cover the input's first;
// every other tensor gets bytes of its own after them.
TensorPlacement overlapped_placement(const OneOp& m, int32_t input, int64_t overlap) {
  TensorPlacement p;
  const auto& tensors = m.graph.main().tensors;
  p.offsets.assign(tensors.size(), -1);
  p.offsets[static_cast<size_t>(m.output)] = 0;
  p.offsets[static_cast<size_t>(input)] = bytes_of_tensor(m, m.output) - overlap;
  int64_t end = std::max(bytes_of_tensor(m, m.output), p.offsets[static_cast<size_t>(input)] + bytes_of_tensor(m, input));
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (p.offsets[t] >= 0 || tensors[t].is_constant) continue;
    p.offsets[t] = end;
    end += tensors[t].byte_size;
  }
  p.arena_size = end;
  return p;
}

// Runs the model with `input` overlapping the output by `overlap` bytes and
// returns whether the checking policy found a clobber; when it found none,
// the output must equal the unshared run's.
bool clobbers_at_overlap(const OneOp& m, int32_t input, int64_t overlap, const std::vector<uint8_t>& input_bytes) {
  Interpreter overlapped(m.graph, overlapped_placement(m, input, overlap));
  overlapped.set_inputs(input_bytes);
  const bool clobbered = overlapped.run_checked().has_value();
  if (!clobbered) {
    Interpreter reference(m.graph, unshared_placement(m.graph.main()));
    reference.set_inputs(input_bytes);
    reference.run();
    const auto a = overlapped.tensor_bytes(m.output);
    const auto b = reference.tensor_bytes(m.output);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "overlapped run computes differently";
  }
  return clobbered;
}

ElementwiseParams with_activation(Activation a) {
  ElementwiseParams p;
  p.activation = a;
  return p;
}

Pool2DParams pool_params(Padding padding, int32_t filter_h, int32_t filter_w, int32_t stride,
                         Activation activation = Activation::kNone) {
  Pool2DParams p;
  p.padding = padding;
  p.filter_h = filter_h;
  p.filter_w = filter_w;
  p.stride_h = p.stride_w = stride;
  p.activation = activation;
  return p;
}

SoftmaxParams softmax_params(float beta) {
  SoftmaxParams p;
  p.beta = beta;
  return p;
}

// -------------------------------------------------------------------- ADD

TEST(AddKernel, FloatSameShapeWithRelu6) {
  const Operand f{DataType::kFloat32, {2, 2}};
  OneOp m = one_op(OpKind::kAdd, {f, f}, f, with_activation(Activation::kRelu6));
  auto out = run<float>(m, concat(bytes_of<float>({1, -2, 3.5f, 7}), bytes_of<float>({0.5f, 1, 3, -8})));
  EXPECT_EQ(out, (std::vector<float>{1.5f, 0, 6, 0}));
}

TEST(AddKernel, FloatBroadcastVisitsOutputInRowMajorOrder) {
  // [2,1,3] + [2,1] -> [2,2,3]: out[i][j][k] = a[i][0][k] + b[j][0].
  OneOp m = one_op(OpKind::kAdd, {{DataType::kFloat32, {2, 1, 3}}, {DataType::kFloat32, {2, 1}}},
                   {DataType::kFloat32, {2, 2, 3}});
  auto out = run<float>(m, concat(bytes_of<float>({0, 1, 2, 10, 11, 12}), bytes_of<float>({100, 200})));
  EXPECT_EQ(out, (std::vector<float>{100, 101, 102, 200, 201, 202, 110, 111, 112, 210, 211, 212}));
}

TEST(AddKernel, FloatBroadcastsFiveDimensionsAndScalars) {
  const Shape a_shape = {2, 1, 3, 1, 2}, b_shape = {3, 1, 4, 1}, out_shape = {2, 3, 3, 4, 2};
  std::vector<float> a(12), b(12);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(100 * i);
  OneOp m = one_op(OpKind::kAdd, {{DataType::kFloat32, a_shape}, {DataType::kFloat32, b_shape}},
                   {DataType::kFloat32, out_shape});
  auto out = run<float>(m, concat(bytes_of(a), bytes_of(b)));
  ASSERT_EQ(out.size(), 144u);
  // NumPy: index each input with its own dims, 0 where it has extent 1.
  size_t k = 0;
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 3; ++i1)
      for (int i2 = 0; i2 < 3; ++i2)
        for (int i3 = 0; i3 < 4; ++i3)
          for (int i4 = 0; i4 < 2; ++i4, ++k) {
            const float av = a[static_cast<size_t>((i0 * 3 + i2) * 2 + i4)];
            const float bv = b[static_cast<size_t>(i1 * 4 + i3)];
            ASSERT_EQ(out[k], av + bv) << "output element " << k;
          }

  OneOp scalar = one_op(OpKind::kAdd, {{DataType::kFloat32, {3}}, {DataType::kFloat32, {}}}, {DataType::kFloat32, {3}});
  EXPECT_EQ(run<float>(scalar, concat(bytes_of<float>({1, 2, 3}), bytes_of<float>({0.5f}))),
            (std::vector<float>{1.5f, 2.5f, 3.5f}));
}

TEST(AddKernel, Int8RoundsHalfAwayFromZeroAndSaturates) {
  // Inputs at scale 0.5, output at scale 1: x + y halves, .5 rounds away from 0.
  const Operand in{DataType::kInt8, {6}, per_tensor(0.5f, 0)};
  OneOp m = one_op(OpKind::kAdd, {in, in}, {DataType::kInt8, {6}, per_tensor(1.0f, 0)});
  auto out = run<int8_t>(m, concat(bytes_of<int8_t>({1, -1, 3, -3, 127, -128}), bytes_of<int8_t>({0, 0, 0, 0, 127, -128})));
  EXPECT_EQ(out, (std::vector<int8_t>{1, -1, 2, -2, 127, -128}));

  const Operand in3{DataType::kInt8, {3}, per_tensor(0.5f, 0)};
  OneOp same = one_op(OpKind::kAdd, {in3, in3}, in3);
  EXPECT_EQ(run<int8_t>(same, concat(bytes_of<int8_t>({100, -100, 5}), bytes_of<int8_t>({100, -100, -7}))),
            (std::vector<int8_t>{127, -128, -2}));
}

TEST(AddKernel, Int8ZeroPointsScalesAndRelu) {
  // a: 0.1 * (q - 10), b: 0.2 * (q + 5), out: 0.3 * (q - 3), relu clamps at q = 3.
  OneOp m = one_op(OpKind::kAdd,
                   {{DataType::kInt8, {4}, per_tensor(0.1f, 10)}, {DataType::kInt8, {4}, per_tensor(0.2f, -5)}},
                   {DataType::kInt8, {4}, per_tensor(0.3f, 3)}, with_activation(Activation::kRelu));
  // 1.0 + 2.0 = 3.0 -> 13; 0 + 0.6 = 0.6 -> 5; -1.0 + 0 -> 0 (clamped); 3 + 3 = 6 -> 23
  auto out = run<int8_t>(m, concat(bytes_of<int8_t>({20, 10, 0, 40}), bytes_of<int8_t>({5, -2, -5, 10})));
  EXPECT_EQ(out, (std::vector<int8_t>{13, 5, 3, 23}));
}

TEST(AddKernel, UInt8Broadcast) {
  // a: 0.5 * (q - 128), b: 0.5 * (q - 128), out: 1.0 * (q - 128).
  OneOp m = one_op(OpKind::kAdd,
                   {{DataType::kUInt8, {2, 2}, per_tensor(0.5f, 128)}, {DataType::kUInt8, {2}, per_tensor(0.5f, 128)}},
                   {DataType::kUInt8, {2, 2}, per_tensor(1.0f, 128)});
  // a = {2, 4, 63, -64}, b = {4, -2}: sums {6, 2, 67, -66}.
  auto out = run<uint8_t>(m, concat(bytes_of<uint8_t>({132, 136, 254, 0}), bytes_of<uint8_t>({136, 124})));
  EXPECT_EQ(out, (std::vector<uint8_t>{134, 130, 195, 62}));
}

TEST(AddKernel, Int16UsesAFifteenBitShift) {
  const Operand in{DataType::kInt16, {6}, per_tensor(0.5f, 0)};
  OneOp m = one_op(OpKind::kAdd, {in, in}, {DataType::kInt16, {6}, per_tensor(1.0f, 0)});
  auto out = run<int16_t>(m, concat(bytes_of<int16_t>({1, -1, 3, -3, 32767, -32768}),
                                    bytes_of<int16_t>({0, 0, 0, 0, 32767, -32768})));
  EXPECT_EQ(out, (std::vector<int16_t>{1, -1, 2, -2, 32767, -32768}));
  const Operand in2{DataType::kInt16, {2}, per_tensor(0.5f, 0)};
  OneOp sub = one_op(OpKind::kSub, {in2, in2}, in2);
  EXPECT_EQ(run<int16_t>(sub, concat(bytes_of<int16_t>({100, 32767}), bytes_of<int16_t>({-100, -32768}))),
            (std::vector<int16_t>{200, 32767}));
}

TEST(AddKernel, Int32Wraps) {
  const Operand i{DataType::kInt32, {3}};
  OneOp m = one_op(OpKind::kAdd, {i, i}, i);
  auto out = run<int32_t>(m, concat(bytes_of<int32_t>({std::numeric_limits<int32_t>::max(), -5, 7}),
                                    bytes_of<int32_t>({1, 3, -7})));
  EXPECT_EQ(out, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -2, 0}));
}

TEST(AddKernel, ReadsAnInputOfAnotherTypeAsTheOutputType) {
  // TFLite Micro picks the arithmetic from the output type: 4 INT8 bytes are
  // one FLOAT32 (1.0f), and elements past the input's bytes read as 0.
  const Operand bytes{DataType::kInt8, {4}};
  OneOp m = one_op(OpKind::kAdd, {bytes, bytes}, {DataType::kFloat32, {4}});
  const std::vector<uint8_t> one_float = {0x00, 0x00, 0x80, 0x3f};
  auto out = run<float>(m, concat(one_float, one_float));
  EXPECT_EQ(out, (std::vector<float>{2.0f, 0, 0, 0}));
}

TEST(AddKernel, RejectsUnsupportedTypesAndShapes) {
  const Operand i64{DataType::kInt64, {2}};
  EXPECT_NE(run_error(one_op(OpKind::kAdd, {i64, i64}, i64)).find("op 0 (ADD): output type INT64 is not supported"),
            std::string::npos);
  const std::string shapes = run_error(one_op(OpKind::kAdd, {{DataType::kFloat32, {2, 3}}, {DataType::kFloat32, {2}}},
                                              {DataType::kFloat32, {2, 3}}));
  EXPECT_NE(shapes.find("do not broadcast"), std::string::npos) << shapes;
  const std::string wrong_output = run_error(
      one_op(OpKind::kAdd, {{DataType::kFloat32, {2, 1}}, {DataType::kFloat32, {3}}}, {DataType::kFloat32, {2, 2}}));
  EXPECT_NE(wrong_output.find("do not broadcast"), std::string::npos) << wrong_output;
  const Operand unquantized{DataType::kInt8, {2}};
  EXPECT_NE(run_error(one_op(OpKind::kAdd, {unquantized, unquantized}, unquantized)).find("no quantization"),
            std::string::npos);
}

TEST(AddKernel, SameShapeOverlapsCompletelyAndBroadcastInputLess) {
  const Operand f{DataType::kFloat32, {2, 3}};
  OneOp m = one_op(OpKind::kAdd, {f, f}, f);
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.inputs[0], m.output), 24);
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.inputs[1], m.output), 24);
  const auto input = concat(bytes_of<float>({1, 2, 3, 4, 5, 6}), bytes_of<float>({1, 1, 1, 1, 1, 1}));
  EXPECT_FALSE(clobbers_at_overlap(m, m.inputs[0], 24, input));

  // Every output row reads all of b: only the last row may cover it.
  OneOp b = one_op(OpKind::kAdd, {f, {DataType::kFloat32, {3}}}, f);
  EXPECT_EQ(algorithmic_safe_overlap(b.graph, 0, b.inputs[0], b.output), 24);
  EXPECT_EQ(algorithmic_safe_overlap(b.graph, 0, b.inputs[1], b.output), 12);
  const auto b_input = concat(bytes_of<float>({1, 2, 3, 4, 5, 6}), bytes_of<float>({10, 20, 30}));
  EXPECT_FALSE(clobbers_at_overlap(b, b.inputs[1], 12, b_input));
  EXPECT_TRUE(clobbers_at_overlap(b, b.inputs[1], 13, b_input));
}

// -------------------------------------------------------------------- SUB

TEST(SubKernel, FloatBroadcastWithRelu) {
  OneOp m = one_op(OpKind::kSub, {{DataType::kFloat32, {2, 2}}, {DataType::kFloat32, {2}}}, {DataType::kFloat32, {2, 2}},
                   with_activation(Activation::kRelu));
  auto out = run<float>(m, concat(bytes_of<float>({5, 1, 7, 8}), bytes_of<float>({1, 2})));
  EXPECT_EQ(out, (std::vector<float>{4, 0, 6, 6}));
}

TEST(SubKernel, Int8ExactAndSaturating) {
  const Operand q{DataType::kInt8, {4}, per_tensor(0.5f, 0)};
  OneOp m = one_op(OpKind::kSub, {q, q}, q);
  auto out = run<int8_t>(m, concat(bytes_of<int8_t>({10, -10, 127, -128}), bytes_of<int8_t>({3, 5, -128, 127})));
  EXPECT_EQ(out, (std::vector<int8_t>{7, -15, 127, -128}));
}

TEST(SubKernel, UInt8AndInt32WithActivation) {
  const Operand u{DataType::kUInt8, {3}, per_tensor(0.25f, 100)};
  OneOp m = one_op(OpKind::kSub, {u, u}, u);
  EXPECT_EQ(run<uint8_t>(m, concat(bytes_of<uint8_t>({140, 100, 0}), bytes_of<uint8_t>({120, 200, 255}))),
            (std::vector<uint8_t>{120, 0, 0}));
  const Operand i{DataType::kInt32, {4}};
  OneOp r6 = one_op(OpKind::kSub, {i, i}, i, with_activation(Activation::kRelu6));
  EXPECT_EQ(run<int32_t>(r6, concat(bytes_of<int32_t>({10, 3, -4, 100}), bytes_of<int32_t>({1, 1, 0, 97}))),
            (std::vector<int32_t>{6, 2, 0, 3}));
}

TEST(SubKernel, RejectsUnsupportedOutputType) {
  const Operand b{DataType::kBool, {2}};
  EXPECT_NE(run_error(one_op(OpKind::kSub, {b, b}, b)).find("op 0 (SUB): output type BOOL is not supported"),
            std::string::npos);
}

// -------------------------------------------------------------------- MUL

TEST(MulKernel, FloatWithRelu) {
  const Operand f{DataType::kFloat32, {3}};
  OneOp m = one_op(OpKind::kMul, {f, f}, f, with_activation(Activation::kRelu));
  EXPECT_EQ(run<float>(m, concat(bytes_of<float>({1.5f, -2, 3}), bytes_of<float>({2, 4, -1}))),
            (std::vector<float>{3, 0, 0}));
}

TEST(MulKernel, Int8ZeroPointsAndSaturation) {
  // 0.5 * 0.25 / 0.125 = 1: out = (a - 1) * (b + 2), saturated.
  OneOp m = one_op(OpKind::kMul,
                   {{DataType::kInt8, {4}, per_tensor(0.5f, 1)}, {DataType::kInt8, {4}, per_tensor(0.25f, -2)}},
                   {DataType::kInt8, {4}, per_tensor(0.125f, 0)});
  auto out = run<int8_t>(m, concat(bytes_of<int8_t>({3, -5, 100, -100}), bytes_of<int8_t>({2, 1, 100, 100})));
  EXPECT_EQ(out, (std::vector<int8_t>{8, -18, 127, -128}));
}

TEST(MulKernel, Int8RoundsLikeTflite) {
  // Multiplier 0.5: the doubling high multiply rounds 1.5 up to 2 and -1.5 up to -1.
  const Operand q{DataType::kInt8, {4}, per_tensor(0.5f, 0)};
  OneOp m = one_op(OpKind::kMul, {q, q}, {DataType::kInt8, {4}, per_tensor(0.5f, 0)});
  auto out = run<int8_t>(m, concat(bytes_of<int8_t>({3, -3, 1, -1}), bytes_of<int8_t>({1, 1, 1, 1})));
  EXPECT_EQ(out, (std::vector<int8_t>{2, -1, 1, 0}));
}

TEST(MulKernel, UInt8AndInt32) {
  const Operand u{DataType::kUInt8, {3}, per_tensor(0.5f, 10)};
  OneOp m = one_op(OpKind::kMul, {u, u}, {DataType::kUInt8, {3}, per_tensor(0.25f, 0)});
  // ((a - 10) * (b - 10)) * 0.25 / 0.25
  EXPECT_EQ(run<uint8_t>(m, concat(bytes_of<uint8_t>({12, 20, 0}), bytes_of<uint8_t>({13, 40, 20}))),
            (std::vector<uint8_t>{6, 255, 0}));
  const Operand i{DataType::kInt32, {3}};
  OneOp mi = one_op(OpKind::kMul, {i, {DataType::kInt32, {1}}}, i, with_activation(Activation::kReluN1To1));
  EXPECT_EQ(run<int32_t>(mi, concat(bytes_of<int32_t>({0, 5, -5}), bytes_of<int32_t>({1}))),
            (std::vector<int32_t>{0, 1, -1}));
}

TEST(MulKernel, Int16WithZeroPointsZero) {
  const Operand q{DataType::kInt16, {3}, per_tensor(1.0f / 256, 0)};
  OneOp m = one_op(OpKind::kMul, {q, q}, q);
  EXPECT_EQ(run<int16_t>(m, concat(bytes_of<int16_t>({512, 300, 32767}), bytes_of<int16_t>({512, -3, 32767}))),
            (std::vector<int16_t>{1024, -4, 32767}));
  const Operand offset{DataType::kInt16, {3}, per_tensor(1.0f / 256, 1)};
  EXPECT_NE(run_error(one_op(OpKind::kMul, {offset, q}, q)).find("zero point 0"), std::string::npos);
}

TEST(MulKernel, RejectsMixedTypes) {
  const std::string e =
      run_error(one_op(OpKind::kMul, {{DataType::kFloat32, {2}}, {DataType::kInt32, {2}}}, {DataType::kFloat32, {2}}));
  EXPECT_NE(e.find("op 0 (MUL): input 1 type INT32 differs from input 0 type FLOAT32"), std::string::npos) << e;
  const Operand b{DataType::kBool, {2}};
  EXPECT_NE(run_error(one_op(OpKind::kMul, {b, b}, b)).find("input type BOOL is not supported"), std::string::npos);
}

// -------------------------------------------------- RELU, RELU6, RELU_N1_TO_1

TEST(ReluKernels, Float) {
  const Operand f{DataType::kFloat32, {4}};
  const auto input = bytes_of<float>({-2, 0.5f, 3, 7});
  EXPECT_EQ(run<float>(unary(OpKind::kRelu, f, f), input), (std::vector<float>{0, 0.5f, 3, 7}));
  EXPECT_EQ(run<float>(unary(OpKind::kRelu6, f, f), input), (std::vector<float>{0, 0.5f, 3, 6}));
  EXPECT_EQ(run<float>(unary(OpKind::kReluN1To1, f, f), input), (std::vector<float>{-1, 0.5f, 1, 1}));
}

TEST(ReluKernels, ReluInt8Requantizes) {
  // in 0.5 * (q + 10), out 0.25 * (q - 5): out = 5 + 2 * (q + 10), at least 5.
  OneOp m = unary(OpKind::kRelu, {DataType::kInt8, {5}, per_tensor(0.5f, -10)}, {DataType::kInt8, {5}, per_tensor(0.25f, 5)});
  EXPECT_EQ(run<int8_t>(m, bytes_of<int8_t>({-20, -10, 0, 50, 60})), (std::vector<int8_t>{5, 5, 25, 125, 127}));
}

TEST(ReluKernels, ReluInt8MultiplierFromTheScalesDividedInFloat) {
  // CalculateReluOpData divides the scales in float: x = -35 gives -33
  // with that quotient's multiplier, -32 with the quotient in double.
  OneOp m = unary(OpKind::kRelu, {DataType::kInt8, {1}, per_tensor(0.00628012512f, -128)},
                  {DataType::kInt8, {1}, per_tensor(0.00611572387f, -128)});
  EXPECT_EQ(run<int8_t>(m, bytes_of<int8_t>({-35})), (std::vector<int8_t>{-33}));
}

TEST(ReluKernels, ReluUInt8AndInt16) {
  OneOp u = unary(OpKind::kRelu, {DataType::kUInt8, {3}, per_tensor(1.0f, 100)}, {DataType::kUInt8, {3}, per_tensor(0.5f, 0)});
  EXPECT_EQ(run<uint8_t>(u, bytes_of<uint8_t>({90, 101, 255})), (std::vector<uint8_t>{0, 2, 255}));
  const Operand i16{DataType::kInt16, {3}, per_tensor(0.5f, 0)};
  EXPECT_EQ(run<int16_t>(unary(OpKind::kRelu, i16, i16), bytes_of<int16_t>({-300, 0, 300})),
            (std::vector<int16_t>{0, 0, 300}));
}

TEST(ReluKernels, Relu6QuantizedClampsInTheInputScale) {
  // Quantized 6 = round(6 / 0.1) - 3 = 57, quantized 0 = -3.
  const Operand q{DataType::kInt8, {5}, per_tensor(0.1f, -3)};
  EXPECT_EQ(run<int8_t>(unary(OpKind::kRelu6, q, q), bytes_of<int8_t>({-50, -3, 10, 57, 100})),
            (std::vector<int8_t>{-3, -3, 10, 57, 57}));
  const Operand u{DataType::kUInt8, {4}, per_tensor(0.05f, 100)};
  EXPECT_EQ(run<uint8_t>(unary(OpKind::kRelu6, u, u), bytes_of<uint8_t>({0, 100, 150, 230})),
            (std::vector<uint8_t>{100, 100, 150, 220}));
}

TEST(ReluKernels, ReluN1To1Int8) {
  // Same scales: the quantized -1 and 1 are -4 and 4.
  const Operand q{DataType::kInt8, {4}, per_tensor(0.25f, 0)};
  EXPECT_EQ(run<int8_t>(unary(OpKind::kReluN1To1, q, q), bytes_of<int8_t>({-10, -4, 2, 9})),
            (std::vector<int8_t>{-4, -4, 2, 4}));
}

TEST(ReluKernels, RejectUnsupportedTypes) {
  const Operand i32{DataType::kInt32, {2}};
  EXPECT_NE(run_error(unary(OpKind::kRelu, i32, i32)).find("op 0 (RELU): input type INT32 is not supported"),
            std::string::npos);
  const Operand i16{DataType::kInt16, {2}, per_tensor(1.0f, 0)};
  EXPECT_NE(run_error(unary(OpKind::kReluN1To1, i16, i16)).find("input type INT16 is not supported"), std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kRelu6, {DataType::kFloat32, {2}}, {DataType::kInt8, {2}, per_tensor(1.0f, 0)}))
                .find("output type INT8 with FLOAT32 input is not supported"),
            std::string::npos);
}

TEST(ReluKernels, OverlapCompletely) {
  const Operand q{DataType::kInt8, {16}, per_tensor(0.5f, 0)};
  OneOp m = unary(OpKind::kRelu, q, q);
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.inputs[0], m.output), 16);
  std::vector<int8_t> input(16);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(static_cast<int>(i) * 9 - 70);
  EXPECT_FALSE(clobbers_at_overlap(m, m.inputs[0], 16, bytes_of(input)));
}

// --------------------------------------------------------------- LOGISTIC

float reference_logistic(float x) {
  if (x > 16.619047164916992188f) return 1.0f;
  if (x < -9.f) return std::exp(x);
  return 1.f / (1.f + std::exp(-x));
}

TEST(LogisticKernel, FloatUsesTfliteCutoffs) {
  const Operand f{DataType::kFloat32, {5}};
  const std::vector<float> input = {0, 1, -1, 20, -10};
  auto out = run<float>(unary(OpKind::kLogistic, f, f), bytes_of(input));
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], std::exp(-10.0f));  // below -9: exp(x) alone
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(out[i], reference_logistic(input[i]));
}

TEST(LogisticKernel, Int8FixedPoint) {
  // Input scale 0.1: the radius is 120 (15 * 2^27 / 2^24); output 1/256 - 128.
  OneOp m = unary(OpKind::kLogistic, {DataType::kInt8, {8}, per_tensor(0.1f, 0)},
                  {DataType::kInt8, {8}, per_tensor(1.0f / 256, -128)});
  auto out = run<int8_t>(m, bytes_of<int8_t>({0, 10, -10, 119, 120, -120, 127, -128}));
  // logistic(1) * 256 = 187.15 -> 59; logistic(-1) * 256 = 68.85 -> -59.
  EXPECT_EQ(out, (std::vector<int8_t>{0, 59, -59, 127, 127, -128, 127, -128}));
}

TEST(LogisticKernel, Int8AndUInt8WithinOneStepOfFloat) {
  std::vector<int8_t> all8(256);
  std::vector<uint8_t> allu8(256);
  for (int i = 0; i < 256; ++i) {
    all8[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
    allu8[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  }
  OneOp m = unary(OpKind::kLogistic, {DataType::kInt8, {256}, per_tensor(0.05f, 3)},
                  {DataType::kInt8, {256}, per_tensor(1.0f / 256, -128)});
  auto out = run<int8_t>(m, bytes_of(all8));
  OneOp mu = unary(OpKind::kLogistic, {DataType::kUInt8, {256}, per_tensor(0.07f, 128)},
                   {DataType::kUInt8, {256}, per_tensor(1.0f / 256, 0)});
  auto outu = run<uint8_t>(mu, bytes_of(allu8));
  for (int i = 0; i < 256; ++i) {
    const double expected = std::min(255.0, std::round(256.0 / (1.0 + std::exp(-0.05 * (i - 128 - 3)))));
    EXPECT_LE(std::abs(out[static_cast<size_t>(i)] + 128 - expected), 1.0) << "int8 input " << i - 128;
    const double expected_u = std::min(255.0, std::round(256.0 / (1.0 + std::exp(-0.07 * (i - 128)))));
    EXPECT_LE(std::abs(outu[static_cast<size_t>(i)] - expected_u), 1.0) << "uint8 input " << i;
  }
  EXPECT_EQ(outu[128], 128);
}

TEST(LogisticKernel, RejectsWrongOutputQuantizationAndTypes) {
  OneOp m = unary(OpKind::kLogistic, {DataType::kInt8, {2}, per_tensor(0.1f, 0)},
                  {DataType::kInt8, {2}, per_tensor(1.0f / 256, 0)});
  EXPECT_NE(run_error(m).find("zero point must be -128"), std::string::npos);
  const Operand i16{DataType::kInt16, {2}, per_tensor(1.0f / 4096, 0)};
  EXPECT_NE(run_error(unary(OpKind::kLogistic, i16, i16)).find("op 0 (LOGISTIC): input type INT16 is not supported"),
            std::string::npos);
}

// ------------------------------------------------------------------- TANH

TEST(TanhKernel, Float) {
  const Operand f{DataType::kFloat32, {4}};
  const std::vector<float> input = {0, 0.5f, -2, 30};
  auto out = run<float>(unary(OpKind::kTanh, f, f), bytes_of(input));
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(out[i], std::tanh(input[i]));
}

TEST(TanhKernel, Int8AndUInt8FixedPoint) {
  // tanh(1) * 128 = 97.48 -> 97; beyond the radius (120) it saturates.
  OneOp m = unary(OpKind::kTanh, {DataType::kInt8, {6}, per_tensor(0.1f, 0)},
                  {DataType::kInt8, {6}, per_tensor(1.0f / 128, 0)});
  EXPECT_EQ(run<int8_t>(m, bytes_of<int8_t>({0, 10, -10, 120, -120, 127})),
            (std::vector<int8_t>{0, 97, -97, 127, -128, 127}));
  OneOp u = unary(OpKind::kTanh, {DataType::kUInt8, {4}, per_tensor(0.1f, 128)},
                  {DataType::kUInt8, {4}, per_tensor(1.0f / 128, 128)});
  EXPECT_EQ(run<uint8_t>(u, bytes_of<uint8_t>({128, 138, 118, 255})), (std::vector<uint8_t>{128, 225, 31, 255}));
}

TEST(TanhKernel, Int8WithinOneStepOfFloat) {
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  OneOp m = unary(OpKind::kTanh, {DataType::kInt8, {256}, per_tensor(0.02f, -7)},
                  {DataType::kInt8, {256}, per_tensor(1.0f / 128, 0)});
  auto out = run<int8_t>(m, bytes_of(all));
  for (int i = 0; i < 256; ++i) {
    const double expected = std::clamp(std::round(128.0 * std::tanh(0.02 * (i - 128 + 7))), -128.0, 127.0);
    EXPECT_LE(std::abs(out[static_cast<size_t>(i)] - expected), 1.0) << "input " << i - 128;
  }
}

// ------------------------------------------------------------- HARD_SWISH

float reference_hard_swish(float in) { return in * std::min(6.0f, std::max(0.0f, in + 3)) / 6; }

TEST(HardSwishKernel, Float) {
  const Operand f{DataType::kFloat32, {7}};
  const std::vector<float> input = {-4, -3, -1, 0, 1, 3, 4};
  auto out = run<float>(unary(OpKind::kHardSwish, f, f), bytes_of(input));
  for (size_t i = 0; i < input.size(); ++i) EXPECT_EQ(out[i], reference_hard_swish(input[i])) << input[i];
  EXPECT_EQ(out[6], 4.0f);
  EXPECT_EQ(out[1], 0.0f);
}

TEST(HardSwishKernel, Int8AndUInt8CloseToFloat) {
  std::vector<int8_t> all(256);
  std::vector<uint8_t> allu(256);
  for (int i = 0; i < 256; ++i) {
    all[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
    allu[static_cast<size_t>(i)] = static_cast<uint8_t>(i);
  }
  OneOp m = unary(OpKind::kHardSwish, {DataType::kInt8, {256}, per_tensor(0.05f, -10)},
                  {DataType::kInt8, {256}, per_tensor(0.03f, -100)});
  auto out = run<int8_t>(m, bytes_of(all));
  OneOp mu = unary(OpKind::kHardSwish, {DataType::kUInt8, {256}, per_tensor(0.04f, 120)},
                   {DataType::kUInt8, {256}, per_tensor(0.025f, 20)});
  auto outu = run<uint8_t>(mu, bytes_of(allu));
  for (int i = 0; i < 256; ++i) {
    const float x = 0.05f * static_cast<float>(i - 128 + 10);
    const double expected = std::clamp(std::round(reference_hard_swish(x) / 0.03) - 100, -128.0, 127.0);
    EXPECT_LE(std::abs(out[static_cast<size_t>(i)] - expected), 1.0) << "int8 input " << i - 128;
    const float xu = 0.04f * static_cast<float>(i - 120);
    const double expected_u = std::clamp(std::round(reference_hard_swish(xu) / 0.025) + 20, 0.0, 255.0);
    EXPECT_LE(std::abs(outu[static_cast<size_t>(i)] - expected_u), 1.0) << "uint8 input " << i;
  }
  // The zero point maps to the output zero point exactly.
  EXPECT_EQ(out[128 - 10], -100);
  EXPECT_EQ(outu[120], 20);
}

TEST(HardSwishKernel, RejectsUnsupportedType) {
  const Operand i16{DataType::kInt16, {2}, per_tensor(1.0f, 0)};
  EXPECT_NE(run_error(unary(OpKind::kHardSwish, i16, i16)).find("op 0 (HARD_SWISH): input type INT16"),
            std::string::npos);
}

// ---------------------------------------------------------------- POOLING

TEST(PoolKernels, AverageFloatValidAndClippedSameWindows) {
  const std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  OneOp valid = unary(OpKind::kAveragePool2D, {DataType::kFloat32, {1, 3, 3, 1}}, {DataType::kFloat32, {1, 2, 2, 1}},
                      pool_params(Padding::kValid, 2, 2, 1));
  EXPECT_EQ(run<float>(valid, bytes_of(input)), (std::vector<float>{3, 4, 6, 7}));
  // SAME, stride 2: windows at the edge keep only their taps inside the input.
  OneOp same = unary(OpKind::kAveragePool2D, {DataType::kFloat32, {1, 3, 3, 1}}, {DataType::kFloat32, {1, 2, 2, 1}},
                     pool_params(Padding::kSame, 2, 2, 2));
  EXPECT_EQ(run<float>(same, bytes_of(input)), (std::vector<float>{3, 4.5f, 7.5f, 9}));
  // Padding before: 3x3 window, stride 1, SAME on 3x3 -> centre 5, corner (1+2+4+5)/4.
  OneOp padded = unary(OpKind::kAveragePool2D, {DataType::kFloat32, {1, 3, 3, 1}}, {DataType::kFloat32, {1, 3, 3, 1}},
                       pool_params(Padding::kSame, 3, 3, 1, Activation::kRelu6));
  auto out = run<float>(padded, bytes_of(input));
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[4], 5.0f);
  EXPECT_EQ(out[8], 6.0f);  // (5+6+8+9)/4 = 7, clamped by relu6
}

TEST(PoolKernels, AverageIntegerRounding) {
  // Windows of two: int8 rounds half away from zero, uint8 half up.
  const Pool2DParams p = pool_params(Padding::kValid, 1, 2, 2);
  OneOp m = unary(OpKind::kAveragePool2D, {DataType::kInt8, {1, 1, 8, 1}, per_tensor(1.0f, 0)},
                  {DataType::kInt8, {1, 1, 4, 1}, per_tensor(1.0f, 0)}, p);
  EXPECT_EQ(run<int8_t>(m, bytes_of<int8_t>({1, 2, -1, -2, -1, 0, 127, 127})), (std::vector<int8_t>{2, -2, -1, 127}));
  OneOp u = unary(OpKind::kAveragePool2D, {DataType::kUInt8, {1, 1, 6, 1}, per_tensor(1.0f, 0)},
                  {DataType::kUInt8, {1, 1, 3, 1}, per_tensor(1.0f, 0)}, p);
  EXPECT_EQ(run<uint8_t>(u, bytes_of<uint8_t>({1, 2, 1, 0, 255, 254})), (std::vector<uint8_t>{2, 1, 255}));
  OneOp s = unary(OpKind::kAveragePool2D, {DataType::kInt16, {1, 1, 4, 1}, per_tensor(1.0f, 0)},
                  {DataType::kInt16, {1, 1, 2, 1}, per_tensor(1.0f, 0)}, p);
  EXPECT_EQ(run<int16_t>(s, bytes_of<int16_t>({-1001, -1002, 1001, 1002})), (std::vector<int16_t>{-1002, 1002}));
  // Relu6 at output scale 0.5: the quantized 6 is 12.
  OneOp r = unary(OpKind::kAveragePool2D, {DataType::kInt8, {1, 1, 4, 1}, per_tensor(0.5f, 0)},
                  {DataType::kInt8, {1, 1, 2, 1}, per_tensor(0.5f, 0)}, pool_params(Padding::kValid, 1, 2, 2, Activation::kRelu6));
  EXPECT_EQ(run<int8_t>(r, bytes_of<int8_t>({-10, -20, 30, 40})), (std::vector<int8_t>{0, 12}));
}

TEST(PoolKernels, MaxOverBatchesAndChannels) {
  // 2 batches, 2x2, 2 channels: max over the whole 2x2 window per channel.
  OneOp m = unary(OpKind::kMaxPool2D, {DataType::kFloat32, {2, 2, 2, 2}}, {DataType::kFloat32, {2, 1, 1, 2}},
                  pool_params(Padding::kValid, 2, 2, 2));
  auto out = run<float>(m, bytes_of<float>({1, -1, 5, -5, 3, -3, 2, -2, -7, 0.5f, -8, 0.25f, -9, 0, -6, 0.75f}));
  EXPECT_EQ(out, (std::vector<float>{5, -1, -6, 0.75f}));
  // int8 with relu at zero point -5: values below the quantized 0 clamp.
  OneOp q = unary(OpKind::kMaxPool2D, {DataType::kInt8, {1, 1, 4, 1}, per_tensor(1.0f, -5)},
                  {DataType::kInt8, {1, 1, 2, 1}, per_tensor(1.0f, -5)}, pool_params(Padding::kValid, 1, 2, 2, Activation::kRelu));
  EXPECT_EQ(run<int8_t>(q, bytes_of<int8_t>({-128, -100, -7, 3})), (std::vector<int8_t>{-5, 3}));
  OneOp u = unary(OpKind::kMaxPool2D, {DataType::kUInt8, {1, 1, 4, 1}, per_tensor(1.0f, 0)},
                  {DataType::kUInt8, {1, 1, 2, 1}, per_tensor(1.0f, 0)}, pool_params(Padding::kValid, 1, 2, 2));
  EXPECT_EQ(run<uint8_t>(u, bytes_of<uint8_t>({0, 0, 200, 3})), (std::vector<uint8_t>{0, 200}));
  OneOp s = unary(OpKind::kMaxPool2D, {DataType::kInt16, {1, 1, 2, 1}, per_tensor(1.0f, 0)},
                  {DataType::kInt16, {1, 1, 1, 1}, per_tensor(1.0f, 0)}, pool_params(Padding::kValid, 1, 2, 2));
  EXPECT_EQ(run<int16_t>(s, bytes_of<int16_t>({-30000, -29999})), (std::vector<int16_t>{-29999}));
}

TEST(PoolKernels, RejectBadShapesAndTypes) {
  const Pool2DParams p = pool_params(Padding::kValid, 2, 2, 2);
  EXPECT_NE(run_error(unary(OpKind::kMaxPool2D, {DataType::kFloat32, {2, 2, 2}}, {DataType::kFloat32, {1, 1, 2}}, p))
                .find("input must have 4 dimensions"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kAveragePool2D, {DataType::kFloat32, {1, 4, 4, 1}}, {DataType::kFloat32, {1, 3, 3, 1}}, p))
                .find("does not match"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kAveragePool2D, {DataType::kInt32, {1, 2, 2, 1}}, {DataType::kInt32, {1, 1, 1, 1}}, p))
                .find("op 0 (AVERAGE_POOL_2D): input type INT32 is not supported"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kMaxPool2D, {DataType::kFloat32, {1, 2, 2, 1}}, {DataType::kFloat32, {1, 1, 1, 1}}))
                .find("pooling options are missing"),
            std::string::npos);
}

TEST(PoolKernels, SafeOverlapIsSafe) {
  // 2x2 windows with stride 2 over 4x4x2: output (y, x) reads input rows 2y, 2y+1.
  OneOp m = unary(OpKind::kAveragePool2D, {DataType::kFloat32, {1, 4, 4, 2}}, {DataType::kFloat32, {1, 2, 2, 2}},
                  pool_params(Padding::kValid, 2, 2, 2));
  const int64_t overlap = algorithmic_safe_overlap(m.graph, 0, m.inputs[0], m.output);
  // After output row 0 (16 bytes) is written, input row 2 (from byte 64) is still to be read:
  // the output may cover the input's start completely.
  EXPECT_EQ(overlap, 32);
  std::vector<float> input(32);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i) * 0.5f - 3;
  EXPECT_FALSE(clobbers_at_overlap(m, m.inputs[0], overlap, bytes_of(input)));
}

// ---------------------------------------------------------------- SOFTMAX

TEST(SoftmaxKernel, FloatRowsOverTheLastDimension) {
  OneOp m = unary(OpKind::kSoftmax, {DataType::kFloat32, {2, 3}}, {DataType::kFloat32, {2, 3}}, softmax_params(0.5f));
  const std::vector<float> input = {1, 2, 3, -1, -1, -1};
  auto out = run<float>(m, bytes_of(input));
  // Row 0 as TFLite computes it: exp((x - max) * beta) summed in order, then divided.
  const float e0 = std::exp((1.0f - 3.0f) * 0.5f), e1 = std::exp((2.0f - 3.0f) * 0.5f), e2 = std::exp(0.0f);
  const float sum = e0 + e1 + e2;
  EXPECT_EQ(out[0], e0 / sum);
  EXPECT_EQ(out[1], e1 / sum);
  EXPECT_EQ(out[2], e2 / sum);
  EXPECT_EQ(out[3], 1.0f / 3.0f);
  EXPECT_EQ(out[5], 1.0f / 3.0f);
}

TEST(SoftmaxKernel, Int8ToInt8) {
  // Scale 0.1, beta 1: diff_min is -248 (31 * 2^26 / 2^23); equal values get 1/4.
  OneOp m = unary(OpKind::kSoftmax, {DataType::kInt8, {3, 4}, per_tensor(0.1f, 0)},
                  {DataType::kInt8, {3, 4}, per_tensor(1.0f / 256, -128)}, softmax_params(1.0f));
  auto out = run<int8_t>(m, bytes_of<int8_t>({5, 5, 5, 5, 127, -128, -128, -128, 0, 0, 0, -128}));
  EXPECT_EQ(out, (std::vector<int8_t>{-64, -64, -64, -64, 127, -128, -128, -128, -43, -43, -43, -128}));
}

TEST(SoftmaxKernel, Int8ToInt16AndUInt8) {
  OneOp m = unary(OpKind::kSoftmax, {DataType::kInt8, {4}, per_tensor(0.1f, 0)},
                  {DataType::kInt16, {4}, per_tensor(1.0f / 65536, -32768)}, softmax_params(1.0f));
  EXPECT_EQ(run<int16_t>(m, bytes_of<int8_t>({7, 7, 7, 7})), (std::vector<int16_t>{-16384, -16384, -16384, -16384}));
  OneOp u = unary(OpKind::kSoftmax, {DataType::kUInt8, {4}, per_tensor(0.1f, 128)},
                  {DataType::kUInt8, {4}, per_tensor(1.0f / 256, 0)}, softmax_params(1.0f));
  EXPECT_EQ(run<uint8_t>(u, bytes_of<uint8_t>({3, 3, 3, 3})), (std::vector<uint8_t>{64, 64, 64, 64}));
}

TEST(SoftmaxKernel, Int8WithinOneStepOfFloat) {
  std::vector<int8_t> input(64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>((static_cast<int>(i) * 37) % 256 - 128);
  OneOp m = unary(OpKind::kSoftmax, {DataType::kInt8, {4, 16}, per_tensor(0.05f, 2)},
                  {DataType::kInt8, {4, 16}, per_tensor(1.0f / 256, -128)}, softmax_params(1.0f));
  auto out = run<int8_t>(m, bytes_of(input));
  for (size_t r = 0; r < 4; ++r) {
    double max = -1e9, sum = 0;
    for (size_t c = 0; c < 16; ++c) max = std::max(max, 0.05 * input[r * 16 + c]);
    for (size_t c = 0; c < 16; ++c) sum += std::exp(0.05 * input[r * 16 + c] - max);
    for (size_t c = 0; c < 16; ++c) {
      const double expected = std::min(127.0, std::round(256.0 * std::exp(0.05 * input[r * 16 + c] - max) / sum) - 128);
      EXPECT_LE(std::abs(out[r * 16 + c] - expected), 1.0) << "row " << r << " column " << c;
    }
  }
}

TEST(SoftmaxKernel, RejectsUnsupportedTypesAndQuantization) {
  EXPECT_NE(run_error(unary(OpKind::kSoftmax, {DataType::kInt8, {4}, per_tensor(0.1f, 0)},
                            {DataType::kInt8, {4}, per_tensor(1.0f / 256, 0)}))
                .find("zero point -128"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kSoftmax, {DataType::kFloat32, {4}}, {DataType::kInt8, {4}, per_tensor(1.0f / 256, -128)}))
                .find("output type INT8 with FLOAT32 input is not supported"),
            std::string::npos);
  const Operand i32{DataType::kInt32, {4}, per_tensor(1.0f / 32768, 0)};
  EXPECT_NE(run_error(unary(OpKind::kSoftmax, i32, i32)).find("op 0 (SOFTMAX): input type INT32 is not supported"),
            std::string::npos);
}

TEST(SoftmaxKernel, RowsOverlapCompletely) {
  // Each row is read three times and written in the last pass, rows in order.
  OneOp f = unary(OpKind::kSoftmax, {DataType::kFloat32, {3, 5}}, {DataType::kFloat32, {3, 5}});
  EXPECT_EQ(algorithmic_safe_overlap(f.graph, 0, f.inputs[0], f.output), 60);
  OneOp q = unary(OpKind::kSoftmax, {DataType::kInt8, {3, 5}, per_tensor(0.1f, 0)},
                  {DataType::kInt8, {3, 5}, per_tensor(1.0f / 256, -128)});
  EXPECT_EQ(algorithmic_safe_overlap(q.graph, 0, q.inputs[0], q.output), 15);
  std::vector<int8_t> input(15);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int8_t>(static_cast<int>(i) * 13 - 90);
  EXPECT_FALSE(clobbers_at_overlap(q, q.inputs[0], 15, bytes_of(input)));
}

// --------------------------------------------------------------- QUANTIZE

TEST(QuantizeKernel, FloatToInt8RoundsHalfAwayAndSaturates) {
  OneOp m = unary(OpKind::kQuantize, {DataType::kFloat32, {6}}, {DataType::kInt8, {6}, per_tensor(0.5f, -1)});
  EXPECT_EQ(run<int8_t>(m, bytes_of<float>({0.25f, -0.25f, 1.0f, 0.74f, 100, -100})),
            (std::vector<int8_t>{0, -2, 1, 0, 127, -128}));
}

TEST(QuantizeKernel, FloatToUInt8AndInt16) {
  OneOp u = unary(OpKind::kQuantize, {DataType::kFloat32, {4}}, {DataType::kUInt8, {4}, per_tensor(0.5f, 128)});
  EXPECT_EQ(run<uint8_t>(u, bytes_of<float>({0.25f, -0.25f, 1000, -1000})), (std::vector<uint8_t>{129, 127, 255, 0}));
  OneOp s = unary(OpKind::kQuantize, {DataType::kFloat32, {3}}, {DataType::kInt16, {3}, per_tensor(1.0f / 1024, 0)});
  EXPECT_EQ(run<int16_t>(s, bytes_of<float>({0.5f, 40, -40})), (std::vector<int16_t>{512, 32767, -32768}));
}

TEST(QuantizeKernel, Requantizes) {
  // Multiplier 0.25: the two roundings of TFLite's MultiplyByQuantizedMultiplier.
  OneOp m = unary(OpKind::kQuantize, {DataType::kInt16, {5}, per_tensor(0.25f, 0)},
                  {DataType::kInt8, {5}, per_tensor(1.0f, 10)});
  EXPECT_EQ(run<int8_t>(m, bytes_of<int16_t>({4, 2, 6, -2, 30000})), (std::vector<int8_t>{11, 11, 12, 9, 127}));
  // Same scale, zero points 128 apart: uint8 <-> int8 flips the top bit.
  OneOp u = unary(OpKind::kQuantize, {DataType::kUInt8, {3}, per_tensor(0.1f, 128)},
                  {DataType::kInt8, {3}, per_tensor(0.1f, 0)});
  EXPECT_EQ(run<int8_t>(u, bytes_of<uint8_t>({0, 128, 255})), (std::vector<int8_t>{-128, 0, 127}));
  OneOp i = unary(OpKind::kQuantize, {DataType::kInt8, {3}, per_tensor(0.5f, -3)},
                  {DataType::kInt8, {3}, per_tensor(0.25f, 5)});
  EXPECT_EQ(run<int8_t>(i, bytes_of<int8_t>({-3, 7, 100})), (std::vector<int8_t>{5, 25, 127}));
  OneOp w = unary(OpKind::kQuantize, {DataType::kInt16, {2}, per_tensor(1.0f / 65536, -32768)},
                  {DataType::kInt32, {2}, per_tensor(1.0f / 32768, 0)});
  EXPECT_EQ(run<int32_t>(w, bytes_of<int16_t>({-32768, 32767})), (std::vector<int32_t>{0, 32768}));
  OneOp i8to16 = unary(OpKind::kQuantize, {DataType::kInt8, {2}, per_tensor(1.0f, 0)},
                       {DataType::kInt16, {2}, per_tensor(1.0f / 256, 0)});
  EXPECT_EQ(run<int16_t>(i8to16, bytes_of<int8_t>({-128, 127})), (std::vector<int16_t>{-32768, 32512}));
  OneOp i32 = unary(OpKind::kQuantize, {DataType::kInt32, {2}, per_tensor(1.0f, 0)},
                    {DataType::kInt8, {2}, per_tensor(2.0f, 0)});
  EXPECT_EQ(run<int8_t>(i32, bytes_of<int32_t>({5, -1000})), (std::vector<int8_t>{3, -128}));
}

TEST(QuantizeKernel, RejectsUnsupportedPairs) {
  EXPECT_NE(run_error(unary(OpKind::kQuantize, {DataType::kFloat32, {2}}, {DataType::kInt32, {2}, per_tensor(1.0f, 0)}))
                .find("op 0 (QUANTIZE): output type INT32 with FLOAT32 input is not supported"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kQuantize, {DataType::kUInt8, {2}, per_tensor(1.0f, 0)},
                            {DataType::kInt16, {2}, per_tensor(1.0f, 0)}))
                .find("output type INT16 with UINT8 input"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kQuantize, {DataType::kFloat32, {2}}, {DataType::kInt8, {2}}))
                .find("quantized per tensor"),
            std::string::npos);
  Quantization per_channel{{0.5f, 0.25f}, {0, 0}, 0};
  EXPECT_NE(run_error(unary(OpKind::kQuantize, {DataType::kFloat32, {2}}, {DataType::kInt8, {2}, per_channel}))
                .find("quantized per tensor"),
            std::string::npos);
}

TEST(QuantizeKernel, FloatToInt8OverlapsItsWholeOutput) {
  // Output byte i is written after input bytes 4i..4i+3 are read, and later
  // reads start at 4(i+1) > i: the output may start where the input starts.
  OneOp m = unary(OpKind::kQuantize, {DataType::kFloat32, {16}}, {DataType::kInt8, {16}, per_tensor(0.1f, 0)});
  const int64_t overlap = algorithmic_safe_overlap(m.graph, 0, m.inputs[0], m.output);
  EXPECT_EQ(overlap, 16);
  std::vector<float> input(16);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i) * 0.7f - 5;
  EXPECT_FALSE(clobbers_at_overlap(m, m.inputs[0], overlap, bytes_of(input)));
}

// ------------------------------------------------------------- DEQUANTIZE

TEST(DequantizeKernel, AllInputTypes) {
  OneOp m = unary(OpKind::kDequantize, {DataType::kInt8, {4}, per_tensor(0.5f, -3)}, {DataType::kFloat32, {4}});
  EXPECT_EQ(run<float>(m, bytes_of<int8_t>({-3, 0, 127, -128})), (std::vector<float>{0, 1.5f, 65, -62.5f}));
  OneOp u = unary(OpKind::kDequantize, {DataType::kUInt8, {2}, per_tensor(0.25f, 128)}, {DataType::kFloat32, {2}});
  EXPECT_EQ(run<float>(u, bytes_of<uint8_t>({0, 255})), (std::vector<float>{-32, 31.75f}));
  OneOp s = unary(OpKind::kDequantize, {DataType::kInt16, {2}, per_tensor(1.0f / 1024, 0)}, {DataType::kFloat32, {2}});
  EXPECT_EQ(run<float>(s, bytes_of<int16_t>({-32768, 512})), (std::vector<float>{-32, 0.5f}));
  // 0.1f * 3 in float, as TFLite computes it.
  OneOp t = unary(OpKind::kDequantize, {DataType::kInt8, {1}, per_tensor(0.1f, 0)}, {DataType::kFloat32, {1}});
  EXPECT_EQ(run<float>(t, bytes_of<int8_t>({3})), (std::vector<float>{0.1f * 3.0f}));
}

TEST(DequantizeKernel, RejectsUnsupportedTypes) {
  EXPECT_NE(run_error(unary(OpKind::kDequantize, {DataType::kInt32, {2}, per_tensor(1.0f, 0)}, {DataType::kFloat32, {2}}))
                .find("op 0 (DEQUANTIZE): input type INT32 is not supported"),
            std::string::npos);
  EXPECT_NE(run_error(unary(OpKind::kDequantize, {DataType::kInt8, {2}, per_tensor(1.0f, 0)}, {DataType::kInt8, {2}}))
                .find("output type INT8 is not supported"),
            std::string::npos);
}

TEST(DequantizeKernel, WideningOutputOverlapIsTight) {
  // Output element k (bytes 4k..4k+3) is written after input byte k is read:
  // with n = 8 the overlap may be n + 3 = 11 bytes, and one more clobbers.
  OneOp m = unary(OpKind::kDequantize, {DataType::kInt8, {8}, per_tensor(0.5f, 0)}, {DataType::kFloat32, {8}});
  const int64_t overlap = algorithmic_safe_overlap(m.graph, 0, m.inputs[0], m.output);
  EXPECT_EQ(overlap, 11);
  const auto input = bytes_of<int8_t>({1, -2, 3, -4, 5, -6, 7, -8});
  EXPECT_FALSE(clobbers_at_overlap(m, m.inputs[0], overlap, input));
  EXPECT_TRUE(clobbers_at_overlap(m, m.inputs[0], overlap + 1, input));
}

}  // namespace
}  // namespace dmo
