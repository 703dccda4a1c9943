// Shape and gather kernels: TRANSPOSE, EXPAND_DIMS, SHAPE, SLICE, TILE,
// PACK, UNPACK, REVERSE_V2, GATHER, GATHER_ND, SPACE_TO_BATCH_ND and
// BATCH_TO_SPACE_ND. Hand-computed results for every type each runs, the
// safe overlap their TFLM loop order gives (the address-only O_s is
// clobber-free when run overlapped, one element more clobbers), random
// shapes for the same two facts, and the errors for what they refuse,
// through the interpreter and the command line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "dmo/error.h"
#include "dmo/ops/kernels.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::addresses;
using test::bytes_of;
using test::bytes_of_tensor;
using test::clobbers_at_overlap;
using test::OneOp;
using test::per_tensor;
using test::values_from;

// Every graph output after an unshared run; the checking policy must find
// no clobber and compute the same bytes.
std::vector<std::vector<uint8_t>> run_outputs(const Graph& graph, const std::vector<uint8_t>& input) {
  Interpreter checked(graph, unshared_placement(graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(graph, unshared_placement(graph.main()));
  direct.set_inputs(input);
  direct.run();
  std::vector<std::vector<uint8_t>> outputs;
  for (int32_t t : graph.main().outputs) {
    outputs.push_back(direct.tensor_contents(t));
    EXPECT_EQ(outputs.back(), checked.tensor_contents(t)) << "the checking policy computes differently";
  }
  return outputs;
}

std::vector<uint8_t> run_output(const OneOp& m, const std::vector<uint8_t>& input) {
  return run_outputs(m.graph, input).at(0);
}

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

// A graph of one op: the activation inputs are graph inputs, in order.
OneOp one_op(GraphBuilder& b, OpKind kind, const std::vector<int32_t>& inputs, const std::vector<int32_t>& graph_inputs,
             const std::vector<int32_t>& outputs, OpParams params = NoParams{}) {
  b.add_op(kind, inputs, outputs, std::move(params));
  b.set_inputs(graph_inputs);
  b.set_outputs(outputs);
  OneOp m;
  m.input = graph_inputs.at(0);
  m.output = outputs.at(0);
  m.graph = b.finish();
  return m;
}

int64_t element_bytes(DataType type) { return element_size(type).value(); }

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// The two facts O_s stands for: no clobber with the output laid over the
// input by O_s bytes, a clobber one element further (when there is room).
void expect_overlap_is_tight(const OneOp& m, const std::vector<uint8_t>& input, int64_t element) {
  const int64_t os = addresses(m).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, input)) << "O_s " << os;
  if (os + element <= bytes_of_tensor(m, m.output)) {
    EXPECT_TRUE(clobbers_at_overlap(m, os + element, input)) << "O_s " << os << " + " << element;
  }
}

// -------------------------------------------------------------- TRANSPOSE

OneOp transpose_model(DataType type, const Shape& in, const std::vector<int32_t>& perm, Shape out = {}) {
  if (out.empty()) {
    for (int32_t p : perm) out.push_back(in[static_cast<size_t>(p)]);
  }
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in);
  const int32_t perm_t =
      b.add_constant_values<int32_t>("perm", DataType::kInt32, {static_cast<int32_t>(perm.size())}, perm);
  const int32_t output = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kTranspose, {input, perm_t}, {input}, {output});
}

TEST(Transpose, SwapsTheAxesOfFloats) {
  OneOp m = transpose_model(DataType::kFloat32, {2, 3}, {1, 0});
  const std::vector<float> in = {1.5f, -2, 3, 4, -0.0f, 6};
  EXPECT_EQ(values_from<float>(run_output(m, bytes_of(in))), (std::vector<float>{1.5f, 4, -2, -0.0f, 3, 6}));
}

TEST(Transpose, PermutesInt8AndInt16) {
  // [2,2,3] with perm [0,2,1]: each batch's 2x3 matrix transposed.
  OneOp m8 = transpose_model(DataType::kInt8, {2, 2, 3}, {0, 2, 1});
  const std::vector<int8_t> in8 = {0, 1, 2, 3, 4, 5, -6, -7, -8, -9, -10, -11};
  EXPECT_EQ(values_from<int8_t>(run_output(m8, bytes_of(in8))),
            (std::vector<int8_t>{0, 3, 1, 4, 2, 5, -6, -9, -7, -10, -8, -11}));
  // NHWC [1,2,2,2] to NCHW: perm [0,3,1,2].
  OneOp m16 = transpose_model(DataType::kInt16, {1, 2, 2, 2}, {0, 3, 1, 2});
  const std::vector<int16_t> in16 = {100, -1, 200, -2, 300, -3, 400, -4};
  EXPECT_EQ(values_from<int16_t>(run_output(m16, bytes_of(in16))),
            (std::vector<int16_t>{100, 200, 300, 400, -1, -2, -3, -4}));
}

TEST(Transpose, FiveAxesReverseOrder) {
  OneOp m = transpose_model(DataType::kInt8, {2, 1, 1, 1, 3}, {4, 3, 2, 1, 0});
  const std::vector<int8_t> in = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(values_from<int8_t>(run_output(m, bytes_of(in))), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(Transpose, SafeOverlapFollowsTheReadOrder) {
  // 2x3 int8 transposed reads in[0], in[3], in[1], in[4], in[2], in[5] for
  // out[0..5]: with 5 bytes of overlap out[3] would overwrite in[2], read
  // later; 4 bytes are safe.
  const auto input = bytes_of(std::vector<int8_t>{1, 2, 3, 4, 5, 6});
  OneOp plain = transpose_model(DataType::kInt8, {2, 3}, {1, 0});
  EXPECT_EQ(addresses(plain).safe_overlap(), 4);
  EXPECT_FALSE(clobbers_at_overlap(plain, 4, input));
  EXPECT_TRUE(clobbers_at_overlap(plain, 5, input));
  // Keeping the leading axis, the second batch is read only after the first
  // is written: the output may overlap 10 of the input's 12 bytes.
  OneOp prefix = transpose_model(DataType::kInt8, {2, 2, 3}, {0, 2, 1});
  const auto input12 = bytes_of(std::vector<int8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_EQ(addresses(prefix).safe_overlap(), 10);
  EXPECT_FALSE(clobbers_at_overlap(prefix, 10, input12));
  EXPECT_TRUE(clobbers_at_overlap(prefix, 11, input12));
  // The identity permutation copies in order: the output may lie on the input.
  OneOp identity = transpose_model(DataType::kInt16, {2, 3}, {0, 1});
  EXPECT_EQ(addresses(identity).safe_overlap(), 12);
}

TEST(Transpose, RandomShapesMatchTheDefinitionAndTheirSafeOverlap) {
  std::mt19937 rng(20260101);
  const std::vector<DataType> types = {DataType::kFloat32, DataType::kInt8, DataType::kInt16};
  for (int iteration = 0; iteration < 200; ++iteration) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    Shape in;
    for (int d = 0; d < rank; ++d) in.push_back(1 + static_cast<int32_t>(rng() % 4));
    std::vector<int32_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const DataType type = types[rng() % types.size()];
    SCOPED_TRACE(shape_to_string(in) + " perm " + shape_to_string(Shape(perm.begin(), perm.end())));
    const OneOp m = transpose_model(type, in, perm);
    const int64_t e = element_bytes(type);
    const auto input = random_bytes(rng, bytes_of_tensor(m, m.input));
    // The definition: output coordinate c holds input coordinate c permuted back.
    const auto output = run_output(m, input);
    const Shape& out = m.graph.main().tensors[static_cast<size_t>(m.output)].shape;
    std::vector<int64_t> in_strides(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) in_strides[static_cast<size_t>(d)] = in_strides[d + 1] * in[d + 1];
    const int64_t n = static_cast<int64_t>(output.size()) / e;
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, from = 0;
      for (int d = rank - 1; d >= 0; --d) {
        from += (rest % out[static_cast<size_t>(d)]) * in_strides[static_cast<size_t>(perm[static_cast<size_t>(d)])];
        rest /= out[static_cast<size_t>(d)];
      }
      ASSERT_EQ(std::memcmp(output.data() + i * e, input.data() + from * e, static_cast<size_t>(e)), 0) << i;
    }
    expect_overlap_is_tight(m, input, e);
  }
}

TEST(Transpose, RefusesWhatTflmRefusesAndBadPermutations) {
  const auto input = bytes_of(std::vector<int8_t>{1, 2, 3, 4, 5, 6});
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt8, {2, 3}, {1, 1}, {3, 3}).graph, input,
                   "op 0 (TRANSPOSE): perm names axis 1 twice");
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt8, {2, 3}, {2, 0}, {3, 2}).graph, input,
                   "op 0 (TRANSPOSE): perm value 2 is outside 0..1");
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt8, {2, 3}, {1, 0}, {2, 3}).graph, input,
                   "op 0 (TRANSPOSE): output shape 2x3 is not the input's 2x3 permuted by perm: 3x2");
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt8, {2, 3}, {0}, {2}).graph, input,
                   "op 0 (TRANSPOSE): perm has 1 values for a 2-D input");
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt32, {2, 3}, {1, 0}).graph, bytes_of(std::vector<int32_t>(6)),
                   "op 0 (TRANSPOSE): input type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(transpose_model(DataType::kInt8, {1, 1, 1, 1, 2, 3}, {0, 1, 2, 3, 5, 4}).graph, input,
                   "op 0 (TRANSPOSE): input is 6-D; supported: 1-D to 5-D");
  // A permutation computed at run time, and a missing one.
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t in = b.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t perm = b.add_tensor("perm", DataType::kInt32, {2});
  const int32_t out = b.add_tensor("output", DataType::kInt8, {3, 2});
  const Graph dynamic = one_op(b, OpKind::kTranspose, {in, perm}, {in, perm}, {out}).graph;
  std::vector<uint8_t> with_perm = input;
  const auto perm_bytes = bytes_of(std::vector<int32_t>{1, 0});
  with_perm.insert(with_perm.end(), perm_bytes.begin(), perm_bytes.end());
  EXPECT_RUN_ERROR(dynamic, with_perm, "op 0 (TRANSPOSE): perm (input 1) must be constant");
  GraphBuilder c("shape_gather_kernels_test");
  const int32_t in1 = c.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t out1 = c.add_tensor("output", DataType::kInt8, {3, 2});
  EXPECT_RUN_ERROR(one_op(c, OpKind::kTranspose, {in1}, {in1}, {out1}).graph, input,
                   "op 0 (TRANSPOSE): expected 2 input(s), got 1");
}

// ------------------------------------------------------------ EXPAND_DIMS

OneOp expand_dims_model(DataType type, const Shape& in, int32_t axis, const Shape& out, Shape axis_shape = {}) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in);
  const int32_t axis_t = b.add_constant_values<int32_t>("axis", DataType::kInt32, axis_shape, {axis});
  const int32_t output = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kExpandDims, {input, axis_t}, {input}, {output});
}

TEST(ExpandDims, CopiesEveryTypeInFlatOrder) {
  const std::vector<float> f = {1, -2, 3.5f, 4, 5, -6};
  EXPECT_EQ(values_from<float>(run_output(expand_dims_model(DataType::kFloat32, {2, 3}, -1, {2, 3, 1}), bytes_of(f))),
            f);
  const std::vector<int8_t> i8 = {-128, 0, 127};
  EXPECT_EQ(values_from<int8_t>(run_output(expand_dims_model(DataType::kInt8, {3}, 0, {1, 3}, {1}), bytes_of(i8))),
            i8);
  const std::vector<int16_t> i16 = {-32768, 1, 32767, 4};
  EXPECT_EQ(values_from<int16_t>(
                run_output(expand_dims_model(DataType::kInt16, {2, 2}, 1, {2, 1, 2}), bytes_of(i16))),
            i16);
}

TEST(ExpandDims, TheOutputMayLieOnTheInput) {
  // TFLM copies element by element, each load before its store.
  OneOp m = expand_dims_model(DataType::kFloat32, {2, 3}, 2, {2, 3, 1});
  EXPECT_EQ(addresses(m).safe_overlap(), 24);
  const auto input = bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6});
  for (int64_t overlap : {4, 20, 24}) EXPECT_FALSE(clobbers_at_overlap(m, overlap, input)) << overlap;
}

TEST(ExpandDims, RefusesBadAxesShapesAndTypes) {
  const auto input = bytes_of(std::vector<int8_t>{1, 2, 3, 4, 5, 6});
  EXPECT_RUN_ERROR(expand_dims_model(DataType::kInt8, {2, 3}, 3, {2, 3, 1}).graph, input,
                   "op 0 (EXPAND_DIMS): axis 3 is outside -3..2 for a 2-D input");
  EXPECT_RUN_ERROR(expand_dims_model(DataType::kInt8, {2, 3}, 0, {2, 1, 3}).graph, input,
                   "op 0 (EXPAND_DIMS): output shape 2x1x3 is not the input's 2x3 with a 1 inserted at axis 0: "
                   "1x2x3");
  EXPECT_RUN_ERROR(expand_dims_model(DataType::kInt32, {2, 3}, 0, {1, 2, 3}).graph, bytes_of(std::vector<int32_t>(6)),
                   "op 0 (EXPAND_DIMS): input type INT32 is not supported; supported: FLOAT32, INT16, INT8");
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t in = b.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t axes = b.add_constant_values<int32_t>("axis", DataType::kInt32, {2}, {0, 1});
  const int32_t out = b.add_tensor("output", DataType::kInt8, {1, 2, 3});
  EXPECT_RUN_ERROR(one_op(b, OpKind::kExpandDims, {in, axes}, {in}, {out}).graph, input,
                   "op 0 (EXPAND_DIMS): axis holds 2 values, expected 1");
}

// ------------------------------------------------------------------ SHAPE

TEST(Shape, StoresTheInputDimensionsWithoutReadingIt) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t in = b.add_tensor("input", DataType::kFloat32, {2, 3, 4});
  const int32_t out = b.add_tensor("output", DataType::kInt32, {3});
  OneOp m = one_op(b, OpKind::kShape, {in}, {in}, {out});
  EXPECT_EQ(values_from<int32_t>(run_output(m, std::vector<uint8_t>(96, 7))), (std::vector<int32_t>{2, 3, 4}));
  // No load of the input: the output may lie anywhere on it.
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.safe_overlap(), 12);
  EXPECT_EQ(a.writes(), 3);
  EXPECT_FALSE(clobbers_at_overlap(m, 12, std::vector<uint8_t>(96, 7)));
}

TEST(Shape, RefusesOutputsTflmCannotWrite) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t in = b.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t out = b.add_tensor("output", DataType::kInt64, {2});
  EXPECT_RUN_ERROR(one_op(b, OpKind::kShape, {in}, {in}, {out}).graph, std::vector<uint8_t>(6),
                   "op 0 (SHAPE): output type INT64 is not supported; supported: INT32");
  GraphBuilder c("shape_gather_kernels_test");
  const int32_t in2 = c.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t out2 = c.add_tensor("output", DataType::kInt32, {3});
  EXPECT_RUN_ERROR(one_op(c, OpKind::kShape, {in2}, {in2}, {out2}).graph, std::vector<uint8_t>(6),
                   "op 0 (SHAPE): output 3 holds 3 values for a 2-D input");
}

// ------------------------------------------------------------------ SLICE

template <typename I>
OneOp slice_model(DataType type, const Shape& in, const std::vector<I>& begin, const std::vector<I>& size,
                  const Shape& out) {
  const DataType index_type = sizeof(I) == 8 ? DataType::kInt64 : DataType::kInt32;
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in);
  const Shape index_shape = {static_cast<int32_t>(begin.size())};
  const int32_t begin_t = b.add_constant_values<I>("begin", index_type, index_shape, begin);
  const int32_t size_t_ = b.add_constant_values<I>("size", index_type, index_shape, size);
  const int32_t output = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kSlice, {input, begin_t, size_t_}, {input}, {output});
}

TEST(Slice, CutsEveryType) {
  // 3x4 floats, rows 1..2, columns 1..3 (size -1: to the end).
  const std::vector<float> f = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  OneOp m = slice_model<int32_t>(DataType::kFloat32, {3, 4}, {1, 1}, {2, -1}, {2, 3});
  EXPECT_EQ(values_from<float>(run_output(m, bytes_of(f))), (std::vector<float>{5, 6, 7, 9, 10, 11}));
  // INT64 begin and size, INT32 values.
  OneOp m32 = slice_model<int64_t>(DataType::kInt32, {2, 2, 2}, {1, 0, 1}, {1, 2, 1}, {1, 2, 1});
  EXPECT_EQ(values_from<int32_t>(run_output(m32, bytes_of(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}))),
            (std::vector<int32_t>{5, 7}));
  OneOp m8 = slice_model<int32_t>(DataType::kInt8, {5}, {2}, {3}, {3});
  EXPECT_EQ(values_from<int8_t>(run_output(m8, bytes_of(std::vector<int8_t>{-1, -2, -3, -4, -5}))),
            (std::vector<int8_t>{-3, -4, -5}));
  OneOp m16 = slice_model<int32_t>(DataType::kInt16, {1, 1, 1, 1, 4}, {0, 0, 0, 0, 1}, {1, 1, 1, 1, 2},
                                   {1, 1, 1, 1, 2});
  EXPECT_EQ(values_from<int16_t>(run_output(m16, bytes_of(std::vector<int16_t>{10, 20, 30, 40}))),
            (std::vector<int16_t>{20, 30}));
  OneOp mb = slice_model<int32_t>(DataType::kBool, {4}, {0}, {2}, {2});
  EXPECT_EQ(run_output(mb, {1, 0, 1, 1}), (std::vector<uint8_t>{1, 0}));
}

TEST(Slice, RandomSlicesAndTheirSafeOverlap) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    Shape in, out;
    std::vector<int32_t> begin, size;
    for (int d = 0; d < rank; ++d) {
      const int32_t extent = 1 + static_cast<int32_t>(rng() % 4);
      const int32_t b = static_cast<int32_t>(rng() % static_cast<uint32_t>(extent));
      const int32_t s = 1 + static_cast<int32_t>(rng() % static_cast<uint32_t>(extent - b));
      in.push_back(extent);
      begin.push_back(b);
      const bool to_end = rng() % 4 == 0;
      size.push_back(to_end ? -1 : s);
      out.push_back(to_end ? extent - b : s);
    }
    SCOPED_TRACE(shape_to_string(in) + " begin " + shape_to_string(Shape(begin.begin(), begin.end())));
    const OneOp m = slice_model<int32_t>(DataType::kInt16, in, begin, size, out);
    const auto input = random_bytes(rng, bytes_of_tensor(m, m.input));
    // The definition, element by element.
    const auto output = values_from<int16_t>(run_output(m, input));
    const auto values = values_from<int16_t>(input);
    for (size_t i = 0; i < output.size(); ++i) {
      int64_t rest = static_cast<int64_t>(i), from = 0, stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        from += (rest % out[static_cast<size_t>(d)] + begin[static_cast<size_t>(d)]) * stride;
        rest /= out[static_cast<size_t>(d)];
        stride *= in[static_cast<size_t>(d)];
      }
      ASSERT_EQ(output[i], values[static_cast<size_t>(from)]) << i;
    }
    expect_overlap_is_tight(m, input, 2);
  }
}

TEST(Slice, RefusesSlicesOutsideTheInput) {
  const std::vector<uint8_t> input(12);
  EXPECT_RUN_ERROR(slice_model<int32_t>(DataType::kInt8, {3, 4}, {4, 0}, {1, 1}, {1, 1}).graph, input,
                   "op 0 (SLICE): begin 4 of axis 0 is outside 0..3");
  EXPECT_RUN_ERROR(slice_model<int32_t>(DataType::kInt8, {3, 4}, {1, 2}, {1, 3}, {1, 3}).graph, input,
                   "op 0 (SLICE): size 3 of axis 1 does not fit from begin 2 in 4");
  EXPECT_RUN_ERROR(slice_model<int32_t>(DataType::kInt8, {3, 4}, {0, 0}, {1, 2}, {3}).graph, input,
                   "op 0 (SLICE): the slice has 2 elements but output 3 has 3");
  EXPECT_RUN_ERROR(slice_model<int32_t>(DataType::kUInt8, {3, 4}, {0, 0}, {1, 2}, {1, 2}).graph, input,
                   "op 0 (SLICE): input type UINT8 is not supported; supported: FLOAT32, INT32, INT8, INT16, BOOL");
}

// ------------------------------------------------------------------- TILE

OneOp tile_model(DataType type, const Shape& in, const std::vector<int32_t>& multipliers, const Shape& out) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in);
  const int32_t m_t = b.add_constant_values<int32_t>("multipliers", DataType::kInt32,
                                                     {static_cast<int32_t>(multipliers.size())}, multipliers);
  const int32_t output = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kTile, {input, m_t}, {input}, {output});
}

TEST(Tile, RepeatsRowsThenBlocks) {
  // [2,3] tiled [2,2]: each row twice, then the whole block twice.
  OneOp m = tile_model(DataType::kFloat32, {2, 3}, {2, 2}, {4, 6});
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(values_from<float>(run_output(m, bytes_of(in))),
            (std::vector<float>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  for (DataType type : {DataType::kInt8, DataType::kUInt8, DataType::kBool}) {
    OneOp t = tile_model(type, {1, 2}, {3, 1}, {3, 2});
    EXPECT_EQ(run_output(t, {1, 0}), (std::vector<uint8_t>{1, 0, 1, 0, 1, 0})) << data_type_name(type);
  }
  OneOp i32 = tile_model(DataType::kInt32, {2}, {2}, {4});
  EXPECT_EQ(values_from<int32_t>(run_output(i32, bytes_of(std::vector<int32_t>{-7, 9}))),
            (std::vector<int32_t>{-7, 9, -7, 9}));
  OneOp i64 = tile_model(DataType::kInt64, {1, 1}, {1, 2}, {1, 2});
  EXPECT_EQ(values_from<int64_t>(run_output(i64, bytes_of(std::vector<int64_t>{int64_t{1} << 40}))),
            (std::vector<int64_t>{int64_t{1} << 40, int64_t{1} << 40}));
  // A zero multiplier leaves an empty output.
  OneOp empty = tile_model(DataType::kInt8, {2}, {0}, {0});
  EXPECT_TRUE(run_output(empty, {1, 2}).empty());
}

TEST(Tile, CopiesOverlapOnlyWhollyBelowTheirSource) {
  // TFLite's std::copy is a memmove: each row copied from the input is a
  // block copy, which may write all of its destination before reading its
  // source. Row 1 (input bytes 2..3) goes to output bytes 4..5 after row 0
  // and its repeat: the output may overlap the input by 8 - (5 - 2 + 1) = 4.
  OneOp m = tile_model(DataType::kInt8, {2, 2}, {1, 2}, {2, 4});
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.safe_overlap(), 4);
  EXPECT_TRUE(a.copied_input_to_output());
  EXPECT_EQ(a.writes(), 8);
  const std::vector<uint8_t> input = {1, 2, 3, 4};
  EXPECT_FALSE(clobbers_at_overlap(m, 4, input));
  // Input at output byte 3: row 1 (input bytes 2..3, at output bytes 5..6)
  // is copied to output bytes 4..5, partly onto itself.
  EXPECT_TRUE(clobbers_at_overlap(m, 5, input));
}

TEST(Tile, RefusesBadMultipliers) {
  const std::vector<uint8_t> input(4);
  EXPECT_RUN_ERROR(tile_model(DataType::kInt8, {2, 2}, {2}, {4, 2}).graph, input,
                   "op 0 (TILE): multipliers has 1 values for a 2-D input");
  EXPECT_RUN_ERROR(tile_model(DataType::kInt8, {2, 2}, {2, 1}, {4, 4}).graph, input,
                   "op 0 (TILE): output shape 4x4 differs from the tiled shape 4x2");
  EXPECT_RUN_ERROR(tile_model(DataType::kInt16, {2, 2}, {1, 1}, {2, 2}).graph, std::vector<uint8_t>(8),
                   "op 0 (TILE): input type INT16 is not supported");
}

// ------------------------------------------------------------ PACK/UNPACK

OneOp pack_model(DataType type, int count, const Shape& in, int32_t axis, const Shape& out) {
  GraphBuilder b("shape_gather_kernels_test");
  std::vector<int32_t> inputs;
  for (int i = 0; i < count; ++i) inputs.push_back(b.add_tensor("input" + std::to_string(i), type, in));
  const int32_t output = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kPack, inputs, inputs, {output}, PackParams{count, axis});
}

TEST(Pack, StacksInputsAlongTheNewAxis) {
  // Two [2,2] inputs at axis 0, 1 and -1.
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<uint8_t> both = bytes_of(a);
  const auto b_bytes = bytes_of(b);
  both.insert(both.end(), b_bytes.begin(), b_bytes.end());
  EXPECT_EQ(values_from<float>(run_output(pack_model(DataType::kFloat32, 2, {2, 2}, 0, {2, 2, 2}), both)),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(values_from<float>(run_output(pack_model(DataType::kFloat32, 2, {2, 2}, 1, {2, 2, 2}), both)),
            (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
  EXPECT_EQ(values_from<float>(run_output(pack_model(DataType::kFloat32, 2, {2, 2}, -1, {2, 2, 2}), both)),
            (std::vector<float>{1, 5, 2, 6, 3, 7, 4, 8}));
  for (DataType type : {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64}) {
    const int64_t e = element_bytes(type);
    std::vector<uint8_t> in(static_cast<size_t>(3 * 2 * e));
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i + 1);
    // Three [2] inputs at axis 1: element j of input i goes to j * 3 + i.
    const auto out = run_output(pack_model(type, 3, {2}, 1, {2, 3}), in);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 2; ++j) {
        EXPECT_EQ(std::memcmp(out.data() + (j * 3 + i) * e, in.data() + (i * 2 + j) * e, static_cast<size_t>(e)), 0)
            << data_type_name(type);
      }
    }
  }
}

TEST(Pack, EachInputsOverlapFollowsItsCopyOrder) {
  // Input 0 of two [3] int8 inputs packed at axis 1 goes to output 0, 2, 4,
  // its element k read right before output 2k is written; input 1 follows.
  // With all 6 output bytes over it, output 2 would overwrite input 0's
  // element 2 before it is read; with 5 it lands on element 1, just read.
  OneOp m = pack_model(DataType::kInt8, 2, {3}, 1, {3, 2});
  const std::vector<uint8_t> input = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(addresses(m).safe_overlap(), 5);
  EXPECT_FALSE(clobbers_at_overlap(m, 5, input));
  EXPECT_TRUE(clobbers_at_overlap(m, 6, input));
  std::mt19937 rng(11);
  for (int iteration = 0; iteration < 150; ++iteration) {
    const int count = 1 + static_cast<int>(rng() % 3);
    Shape in;
    const int rank = static_cast<int>(rng() % 3);
    for (int d = 0; d < rank; ++d) in.push_back(1 + static_cast<int32_t>(rng() % 3));
    const int32_t axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(rank + 1));
    Shape out = in;
    out.insert(out.begin() + axis, count);
    const OneOp p = pack_model(DataType::kInt16, count, in, axis, out);
    SCOPED_TRACE(shape_to_string(in) + " x" + std::to_string(count) + " axis " + std::to_string(axis));
    int64_t all = 0;
    for (int32_t t : p.graph.main().inputs) all += bytes_of_tensor(p, t);
    expect_overlap_is_tight(p, random_bytes(rng, all), 2);
  }
}

TEST(Pack, RefusesMismatchedInputs) {
  EXPECT_RUN_ERROR(pack_model(DataType::kFloat32, 2, {2}, 0, {2, 3}).graph, std::vector<uint8_t>(16),
                   "op 0 (PACK): output shape 2x3 is not 2 inputs of shape 2 stacked at axis 0: 2x2");
  EXPECT_RUN_ERROR(pack_model(DataType::kFloat32, 2, {2}, 2, {2, 2}).graph, std::vector<uint8_t>(16),
                   "op 0 (PACK): axis 2 is outside the 2-D output");
  EXPECT_RUN_ERROR(pack_model(DataType::kUInt8, 2, {2}, 0, {2, 2}).graph, std::vector<uint8_t>(4),
                   "op 0 (PACK): output type UINT8 is not supported");
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t x = b.add_tensor("x", DataType::kInt8, {2});
  const int32_t y = b.add_tensor("y", DataType::kInt8, {3});
  const int32_t out = b.add_tensor("output", DataType::kInt8, {2, 2});
  EXPECT_RUN_ERROR(one_op(b, OpKind::kPack, {x, y}, {x, y}, {out}, PackParams{2, 0}).graph, std::vector<uint8_t>(5),
                   "op 0 (PACK): input 1 has shape 3 but input 0 has 2");
  GraphBuilder c("shape_gather_kernels_test");
  const int32_t x1 = c.add_tensor("x", DataType::kInt8, {2});
  const int32_t out1 = c.add_tensor("output", DataType::kInt8, {2, 2});
  EXPECT_RUN_ERROR(one_op(c, OpKind::kPack, {x1}, {x1}, {out1}, PackParams{2, 0}).graph, std::vector<uint8_t>(2),
                   "op 0 (PACK): values_count is 2 but the op has 1 input(s)");
}

OneOp unpack_model(DataType type, const Shape& in, int32_t num, int32_t axis, const Shape& out) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in);
  std::vector<int32_t> outputs;
  for (int i = 0; i < num; ++i) outputs.push_back(b.add_tensor("output" + std::to_string(i), type, out));
  return one_op(b, OpKind::kUnpack, {input}, {input}, outputs, UnpackParams{num, axis});
}

TEST(Unpack, SplitsAlongTheAxis) {
  const std::vector<int16_t> in = {1, 2, 3, 4, 5, 6};
  auto outs = run_outputs(unpack_model(DataType::kInt16, {2, 3}, 3, 1, {2}).graph, bytes_of(in));
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(values_from<int16_t>(outs[0]), (std::vector<int16_t>{1, 4}));
  EXPECT_EQ(values_from<int16_t>(outs[1]), (std::vector<int16_t>{2, 5}));
  EXPECT_EQ(values_from<int16_t>(outs[2]), (std::vector<int16_t>{3, 6}));
  const std::vector<float> f = {1, 2, 3, 4};
  outs = run_outputs(unpack_model(DataType::kFloat32, {2, 2}, 2, -2, {2}).graph, bytes_of(f));
  EXPECT_EQ(values_from<float>(outs[1]), (std::vector<float>{3, 4}));
  for (DataType type : {DataType::kInt8, DataType::kInt32}) {
    const int64_t e = element_bytes(type);
    std::vector<uint8_t> bytes(static_cast<size_t>(4 * e));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(200 + i);
    outs = run_outputs(unpack_model(type, {4}, 4, 0, {}).graph, bytes);
    ASSERT_EQ(outs.size(), 4u);
    EXPECT_EQ(outs[3], std::vector<uint8_t>(bytes.end() - e, bytes.end())) << data_type_name(type);
  }
}

TEST(Unpack, OutputZerosOverlapAndRefusals) {
  // Output 0 of [3,2] int8 along axis 1 takes input 0, 2, 4; output 1
  // then reads input 1, 3, 5. With 2 bytes of overlap output 0's last
  // store lands on input 1 before output 1 reads it; with 1 on input 0.
  OneOp m = unpack_model(DataType::kInt8, {3, 2}, 2, 1, {3});
  EXPECT_EQ(addresses(m).safe_overlap(), 1);
  const std::vector<uint8_t> input = {1, 2, 3, 4, 5, 6};
  EXPECT_FALSE(clobbers_at_overlap(m, 1, input));
  EXPECT_TRUE(clobbers_at_overlap(m, 2, input));
  EXPECT_RUN_ERROR(unpack_model(DataType::kInt8, {3, 2}, 3, 1, {3}).graph, input,
                   "op 0 (UNPACK): num is 3 and the op has 3 output(s), but axis 1 of the input has 2");
  EXPECT_RUN_ERROR(unpack_model(DataType::kInt8, {3, 2}, 2, 1, {2}).graph, input,
                   "op 0 (UNPACK): output 0 has shape 2; the input without axis 1 is 3");
  EXPECT_RUN_ERROR(unpack_model(DataType::kBool, {3, 2}, 2, 1, {3}).graph, input,
                   "op 0 (UNPACK): input type BOOL is not supported; supported: FLOAT32, INT32, INT16, INT8");
}

// ------------------------------------------------------------- REVERSE_V2

OneOp reverse_model(DataType type, const Shape& shape, const std::vector<int32_t>& axes) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, shape);
  const int32_t axis_t =
      b.add_constant_values<int32_t>("axis", DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int32_t output = b.add_tensor("output", type, shape);
  return one_op(b, OpKind::kReverseV2, {input, axis_t}, {input}, {output});
}

TEST(ReverseV2, ReversesWholeTensorsRowsAndBlocks) {
  const std::vector<int8_t> in = {1, 2, 3, 4, 5, 6};
  // Every axis: one reverse_copy.
  EXPECT_EQ(values_from<int8_t>(run_output(reverse_model(DataType::kInt8, {2, 3}, {1, 0}), bytes_of(in))),
            (std::vector<int8_t>{6, 5, 4, 3, 2, 1}));
  // The last axis: a reverse_copy per row.
  EXPECT_EQ(values_from<int8_t>(run_output(reverse_model(DataType::kInt8, {2, 3}, {-1}), bytes_of(in))),
            (std::vector<int8_t>{3, 2, 1, 6, 5, 4}));
  // The first axis with rows after it: a memcpy per row.
  const std::vector<float> f = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(values_from<float>(run_output(reverse_model(DataType::kFloat32, {3, 2}, {0}), bytes_of(f))),
            (std::vector<float>{5, 6, 3, 4, 1, 2}));
  // A middle axis of [2,2,2].
  const std::vector<int32_t> i = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(values_from<int32_t>(run_output(reverse_model(DataType::kInt32, {2, 2, 2}, {1}), bytes_of(i))),
            (std::vector<int32_t>{2, 3, 0, 1, 6, 7, 4, 5}));
  for (DataType type : {DataType::kUInt8, DataType::kInt16, DataType::kInt64, DataType::kBool}) {
    const int64_t e = element_bytes(type);
    std::vector<uint8_t> bytes(static_cast<size_t>(2 * e), 0);
    bytes[0] = 1;
    std::vector<uint8_t> reversed(static_cast<size_t>(2 * e), 0);
    reversed[static_cast<size_t>(e)] = 1;
    EXPECT_EQ(run_output(reverse_model(type, {2}, {0}), bytes), reversed) << data_type_name(type);
  }
}

TEST(ReverseV2, ElementPathsOverlapByTheirReadOrder) {
  // Rows of 3 reversed: out[0..2] = in[2], in[1], in[0], then row 1.
  const std::vector<uint8_t> input = {1, 2, 3, 4, 5, 6};
  OneOp rows = reverse_model(DataType::kInt8, {2, 3}, {1});
  expect_overlap_is_tight(rows, input, 1);
  // Reversing everything reads in[0] last, right before the last store:
  // only that one byte may be shared.
  OneOp whole = reverse_model(DataType::kInt8, {2, 3}, {0, 1});
  EXPECT_EQ(addresses(whole).safe_overlap(), 1);
  EXPECT_FALSE(clobbers_at_overlap(whole, 1, input));
  EXPECT_TRUE(clobbers_at_overlap(whole, 2, input));
  // Rows moved with memcpy, each copy taken in its worst order (all its
  // stores, then its loads): the last row copied (output bytes 4..5) comes
  // from input bytes 0..1, so the whole output must lie below the input.
  const std::vector<uint8_t> rows_of_two = {1, 2, 3, 4, 5, 6};
  OneOp blocks = reverse_model(DataType::kInt8, {3, 2}, {0});
  EXPECT_EQ(addresses(blocks).safe_overlap(), 0);
  EXPECT_TRUE(addresses(blocks).copied_input_to_output());
  EXPECT_FALSE(clobbers_at_overlap(blocks, 0, rows_of_two));
  EXPECT_TRUE(clobbers_at_overlap(blocks, 1, rows_of_two));
}

TEST(ReverseV2, RefusesAxesTflmRefuses) {
  const std::vector<uint8_t> input(8);
  EXPECT_RUN_ERROR(reverse_model(DataType::kInt8, {2, 2, 2}, {0, 2}).graph, input,
                   "op 0 (REVERSE_V2): the axes are not contiguous");
  EXPECT_RUN_ERROR(reverse_model(DataType::kInt8, {2, 2, 2}, {3}).graph, input,
                   "op 0 (REVERSE_V2): axis 3 is outside the 3-D input");
  EXPECT_RUN_ERROR(reverse_model(DataType::kInt8, {2, 2, 2}, {}).graph, input,
                   "op 0 (REVERSE_V2): axis holds no values");
  EXPECT_RUN_ERROR(reverse_model(DataType::kFloat16, {2, 2}, {0}).graph, input,
                   "op 0 (REVERSE_V2): input type FLOAT16 is not supported");
}

// ----------------------------------------------------------------- GATHER

// Params as a graph input (or constant), indices as a graph input (or constant).
struct GatherSpec {
  DataType type = DataType::kFloat32;
  Shape params, indices, output;
  GatherParams options;
  std::vector<int32_t> constant_indices;  // non-empty: the indices are constant
};

OneOp gather_model(const GatherSpec& s) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t params = b.add_tensor("params", s.type, s.params);
  const int32_t indices = s.constant_indices.empty()
                              ? b.add_tensor("indices", DataType::kInt32, s.indices)
                              : b.add_constant_values<int32_t>("indices", DataType::kInt32, s.indices,
                                                               s.constant_indices);
  const int32_t output = b.add_tensor("output", s.type, s.output);
  std::vector<int32_t> graph_inputs = {params};
  if (s.constant_indices.empty()) graph_inputs.push_back(indices);
  return one_op(b, OpKind::kGather, {params, indices}, graph_inputs, {output}, s.options);
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Gather, PicksRowsColumnsAndBatches) {
  const std::vector<float> table = {0, 1, 2, 3, 4, 5, 6, 7};  // [4, 2]
  OneOp rows = gather_model({DataType::kFloat32, {4, 2}, {3}, {3, 2}, {}, {}});
  EXPECT_EQ(values_from<float>(run_output(rows, concat(bytes_of(table), bytes_of(std::vector<int32_t>{3, 0, 3})))),
            (std::vector<float>{6, 7, 0, 1, 6, 7}));
  // Axis 1 of [2, 4] int8 with [2, 1] indices: output [2, 2, 1].
  const std::vector<int8_t> m = {10, 11, 12, 13, -20, -21, -22, -23};
  OneOp columns = gather_model({DataType::kInt8, {2, 4}, {2, 1}, {2, 2, 1}, {1, 0}, {}});
  EXPECT_EQ(values_from<int8_t>(run_output(columns, concat(bytes_of(m), bytes_of(std::vector<int32_t>{3, 1})))),
            (std::vector<int8_t>{13, 11, -23, -21}));
  // batch_dims 1: each batch gathers from its own row.
  OneOp batched = gather_model({DataType::kInt8, {2, 4}, {2, 2}, {2, 2}, {1, 1}, {}});
  EXPECT_EQ(values_from<int8_t>(run_output(batched, concat(bytes_of(m), bytes_of(std::vector<int32_t>{0, 2, 3, 1})))),
            (std::vector<int8_t>{10, 12, -23, -21}));
  // Negative axis and constant indices.
  OneOp constant = gather_model({DataType::kFloat32, {4, 2}, {2}, {4, 2}, {-1, 0}, {1, 1}});
  EXPECT_EQ(values_from<float>(run_output(constant, bytes_of(table))), (std::vector<float>{1, 1, 3, 3, 5, 5, 7, 7}));
}

TEST(Gather, AnIndexOutsideTheAxisStopsTheOp) {
  OneOp m = gather_model({DataType::kFloat32, {4, 2}, {2}, {2, 2}, {}, {}});
  const auto params = bytes_of(std::vector<float>(8, 1.0f));
  EXPECT_RUN_ERROR(m.graph, concat(params, bytes_of(std::vector<int32_t>{1, 4})),
                   "op 0 (GATHER): index 4 (element 1 of input 1) is outside the gathered axis of size 4");
  EXPECT_RUN_ERROR(m.graph, concat(params, bytes_of(std::vector<int32_t>{-1, 0})),
                   "op 0 (GATHER): index -1 (element 0 of input 1)");
}

TEST(Gather, OverlapsTheIndicesButNotThePositions) {
  // Indices [4] int32 (16 bytes), rows of 3 floats (48 bytes of output):
  // row p is written after index p is read, so the output may cover the
  // indices up to where row 2 would reach index 3: 24 bytes.
  GatherSpec spec{DataType::kFloat32, {10, 3}, {4}, {4, 3}, {}, {}};
  GraphBuilder b("shape_gather_kernels_test");
  std::vector<float> table(30);
  std::iota(table.begin(), table.end(), 0.0f);
  const int32_t params = b.add_constant_values<float>("params", DataType::kFloat32, spec.params, table);
  const int32_t indices = b.add_tensor("indices", DataType::kInt32, spec.indices);
  const int32_t output = b.add_tensor("output", DataType::kFloat32, spec.output);
  OneOp m = one_op(b, OpKind::kGather, {params, indices}, {indices}, {output});
  const auto idx = bytes_of(std::vector<int32_t>{9, 0, 4, 2});
  EXPECT_EQ(addresses(m).safe_overlap(), 24);
  EXPECT_FALSE(clobbers_at_overlap(m, 24, idx));
  EXPECT_TRUE(clobbers_at_overlap(m, 28, idx));
  // Over the params: each row is a memcpy, so no overlap is safe; the
  // last row copied onto itself shifted is a clobber.
  OneOp p = gather_model({DataType::kInt8, {4, 2}, {2}, {2, 2}, {}, {1, 0}});
  EXPECT_EQ(addresses(p).safe_overlap(), 0);
  EXPECT_TRUE(addresses(p).copied_input_to_output());
  EXPECT_FALSE(clobbers_at_overlap(p, 0, {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(clobbers_at_overlap(p, 1, {1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Gather, RandomIndicesOverlapTightly) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 200; ++iteration) {
    const int32_t rows = 1 + static_cast<int32_t>(rng() % 6);
    const int32_t width = 1 + static_cast<int32_t>(rng() % 4);
    const int32_t count = 1 + static_cast<int32_t>(rng() % 6);
    const DataType type = rng() % 2 ? DataType::kFloat32 : DataType::kInt8;
    GraphBuilder b("shape_gather_kernels_test");
    std::vector<uint8_t> table_bytes = random_bytes(rng, rows * width * element_bytes(type));
    const int32_t params = b.add_constant("params", type, {rows, width}, table_bytes);
    const int32_t indices = b.add_tensor("indices", DataType::kInt32, {count});
    const int32_t output = b.add_tensor("output", type, {count, width});
    OneOp m = one_op(b, OpKind::kGather, {params, indices}, {indices}, {output});
    std::vector<int32_t> idx(static_cast<size_t>(count));
    for (auto& i : idx) i = static_cast<int32_t>(rng() % static_cast<uint32_t>(rows));
    SCOPED_TRACE(fmt::format("{} rows of {} {}, {} indices", rows, width, data_type_name(type), count));
    const auto out = run_output(m, bytes_of(idx));
    const int64_t row_bytes = width * element_bytes(type);
    for (int32_t k = 0; k < count; ++k) {
      ASSERT_EQ(std::memcmp(out.data() + k * row_bytes, table_bytes.data() + idx[static_cast<size_t>(k)] * row_bytes,
                            static_cast<size_t>(row_bytes)),
                0);
    }
    expect_overlap_is_tight(m, bytes_of(idx), 4);
  }
}

TEST(Gather, RefusesWhatTflmRefuses) {
  // Constant indices: the params are the one graph input.
  auto error_of_spec = [](GatherSpec s) {
    s.constant_indices = {0};
    const OneOp m = gather_model(s);
    return run_error(m.graph, std::vector<uint8_t>(static_cast<size_t>(bytes_of_tensor(m, m.input))));
  };
  EXPECT_NE(error_of_spec({DataType::kInt16, {4}, {1}, {1}, {}, {}}).find(
                "op 0 (GATHER): input type INT16 is not supported; supported: FLOAT32, INT8"),
            std::string::npos);
  EXPECT_NE(error_of_spec({DataType::kInt8, {4, 2}, {1}, {1, 1}, {}, {}}).find(
                "op 0 (GATHER): output shape 1x1 differs from the gathered shape 1x2"),
            std::string::npos);
  EXPECT_NE(error_of_spec({DataType::kInt8, {4, 2}, {1}, {1, 2}, {0, 1}, {}}).find(
                "op 0 (GATHER): batch_dims 1 is beyond axis 0"),
            std::string::npos);
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t params = b.add_tensor("params", DataType::kInt8, {4});
  const int32_t indices = b.add_constant_values<int64_t>("indices", DataType::kInt64, {1}, {0});
  const int32_t output = b.add_tensor("output", DataType::kInt8, {1});
  EXPECT_RUN_ERROR(one_op(b, OpKind::kGather, {params, indices}, {params}, {output}).graph, std::vector<uint8_t>(4),
                   "op 0 (GATHER): indices (input 1) type INT64 is not supported; supported: INT32");
}

// -------------------------------------------------------------- GATHER_ND

OneOp gather_nd_model(DataType type, const Shape& params, const Shape& indices, const Shape& out) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t p = b.add_tensor("params", type, params);
  const int32_t i = b.add_tensor("indices", DataType::kInt32, indices);
  const int32_t o = b.add_tensor("output", type, out);
  return one_op(b, OpKind::kGatherNd, {p, i}, {p, i}, {o});
}

TEST(GatherNd, GathersElementsAndSlices) {
  const std::vector<float> m = {0, 1, 2, 3, 4, 5};  // [2, 3]
  // Full coordinates: single elements.
  OneOp elements = gather_nd_model(DataType::kFloat32, {2, 3}, {2, 2}, {2});
  EXPECT_EQ(values_from<float>(run_output(elements, concat(bytes_of(m), bytes_of(std::vector<int32_t>{1, 2, 0, 1})))),
            (std::vector<float>{5, 1}));
  // One coordinate: rows.
  const std::vector<int8_t> m8 = {0, 1, 2, 3, 4, 5};
  OneOp rows = gather_nd_model(DataType::kInt8, {2, 3}, {3, 1}, {3, 3});
  EXPECT_EQ(values_from<int8_t>(run_output(rows, concat(bytes_of(m8), bytes_of(std::vector<int32_t>{1, 0, 1})))),
            (std::vector<int8_t>{3, 4, 5, 0, 1, 2, 3, 4, 5}));
}

TEST(GatherNd, ACoordinateOutsideTheParamsStopsTheOp) {
  OneOp m = gather_nd_model(DataType::kInt8, {2, 3}, {1, 2}, {1});
  EXPECT_RUN_ERROR(m.graph, concat(std::vector<uint8_t>(6), bytes_of(std::vector<int32_t>{2, 0})),
                   "op 0 (GATHER_ND): coordinate 0 of input 1 addresses element 6, outside the 6 elements of input 0");
  // Over the indices the output may run ahead; over the params, copies.
  OneOp rows = gather_nd_model(DataType::kInt8, {2, 3}, {3, 1}, {3, 3});
  EXPECT_EQ(addresses(rows).safe_overlap(), 0);
  EXPECT_TRUE(addresses(rows).copied_input_to_output());
  EXPECT_RUN_ERROR(gather_nd_model(DataType::kInt8, {2, 3}, {1, 3}, {1}).graph, std::vector<uint8_t>(18),
                   "op 0 (GATHER_ND): the indices' last axis is 3, more than the params' rank 2");
  EXPECT_RUN_ERROR(gather_nd_model(DataType::kInt32, {2, 3}, {1, 2}, {1}).graph, std::vector<uint8_t>(32),
                   "op 0 (GATHER_ND): params (input 0) type INT32 is not supported; supported: FLOAT32, INT8");
}

// ------------------------------------------- SPACE_TO_BATCH / BATCH_TO_SPACE

OneOp space_batch_model(OpKind kind, DataType type, const Shape& in, const std::vector<int32_t>& block,
                        const std::vector<int32_t>& edges, const Shape& out, Quantization in_q = {},
                        Quantization out_q = {}) {
  GraphBuilder b("shape_gather_kernels_test");
  const int32_t input = b.add_tensor("input", type, in, in_q);
  const int32_t block_t =
      b.add_constant_values<int32_t>("block", DataType::kInt32, {static_cast<int32_t>(block.size())}, block);
  const int32_t edges_t = b.add_constant_values<int32_t>(
      "edges", DataType::kInt32, {static_cast<int32_t>(edges.size() / 2), 2}, edges);
  const int32_t output = b.add_tensor("output", type, out, out_q);
  return one_op(b, kind, {input, block_t, edges_t}, {input}, {output});
}

TEST(SpaceToBatchNd, MovesBlocksToTheBatchAndPadsWithTheZeroPoint) {
  // [1, 2, 2, 1] with 2x2 blocks: each pixel its own batch.
  const std::vector<float> f = {1, 2, 3, 4};
  OneOp m = space_batch_model(OpKind::kSpaceToBatchNd, DataType::kFloat32, {1, 2, 2, 1}, {2, 2}, {0, 0, 0, 0},
                              {4, 1, 1, 1});
  EXPECT_EQ(values_from<float>(run_output(m, bytes_of(f))), (std::vector<float>{1, 2, 3, 4}));
  // int8 [1, 1, 2, 1] padded left by 1 to width 3+1=4, blocks 1x2: padding is the zero point -5.
  const Quantization q = per_tensor(0.5f, -5);
  OneOp p = space_batch_model(OpKind::kSpaceToBatchNd, DataType::kInt8, {1, 1, 2, 1}, {1, 2}, {0, 0, 1, 1},
                              {2, 1, 2, 1}, q, q);
  EXPECT_EQ(values_from<int8_t>(run_output(p, bytes_of(std::vector<int8_t>{7, 8}))),
            (std::vector<int8_t>{-5, 8, 7, -5}));
  // 3-D N, H, C: blocks of 2 rows.
  OneOp three = space_batch_model(OpKind::kSpaceToBatchNd, DataType::kInt8, {1, 4, 1}, {2}, {0, 0}, {2, 2, 1},
                                  per_tensor(1, 0), per_tensor(1, 0));
  EXPECT_EQ(values_from<int8_t>(run_output(three, bytes_of(std::vector<int8_t>{1, 2, 3, 4}))),
            (std::vector<int8_t>{1, 3, 2, 4}));
  // Each pixel's 4-byte copy lands where it was read: the output may overlap
  // the input by all but one pixel, each copy then wholly below its source.
  EXPECT_EQ(addresses(m).safe_overlap(), 12);
  EXPECT_TRUE(addresses(m).copied_input_to_output());
  EXPECT_FALSE(clobbers_at_overlap(m, 12, bytes_of(f)));
  EXPECT_TRUE(clobbers_at_overlap(m, 13, bytes_of(f)));
}

TEST(SpaceToBatchNd, Refusals) {
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kSpaceToBatchNd, DataType::kInt8, {1, 3, 2, 1}, {2, 2}, {0, 0, 0, 0},
                                     {4, 1, 1, 1}, per_tensor(1, 0), per_tensor(1, 0))
                       .graph,
                   std::vector<uint8_t>(6), "op 0 (SPACE_TO_BATCH_ND): spatial axis 0 padded to 3 is not a multiple of its block 2");
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kSpaceToBatchNd, DataType::kInt8, {1, 2, 2, 1}, {2, 2}, {0, 0, 0, 0},
                                     {4, 1, 1, 1}, per_tensor(1, 0), per_tensor(1, 3))
                       .graph,
                   std::vector<uint8_t>(4), "op 0 (SPACE_TO_BATCH_ND): input quantization (scale 1, zero point 0) differs");
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kSpaceToBatchNd, DataType::kInt16, {1, 2, 2, 1}, {2, 2}, {0, 0, 0, 0},
                                     {4, 1, 1, 1})
                       .graph,
                   std::vector<uint8_t>(8), "op 0 (SPACE_TO_BATCH_ND): input type INT16 is not supported");
}

TEST(BatchToSpaceNd, MovesTheBatchBackAndCrops) {
  const std::vector<float> f = {1, 2, 3, 4};
  OneOp m = space_batch_model(OpKind::kBatchToSpaceNd, DataType::kFloat32, {4, 1, 1, 1}, {2, 2}, {0, 0, 0, 0},
                              {1, 2, 2, 1});
  EXPECT_EQ(values_from<float>(run_output(m, bytes_of(f))), (std::vector<float>{1, 2, 3, 4}));
  // Two batches of [1, 2, 1] int8 with 1x2 blocks into width 4, cropped by 1 left and right.
  OneOp c = space_batch_model(OpKind::kBatchToSpaceNd, DataType::kInt8, {2, 1, 2, 1}, {1, 2}, {0, 0, 1, 1},
                              {1, 1, 2, 1});
  EXPECT_EQ(values_from<int8_t>(run_output(c, bytes_of(std::vector<int8_t>{10, 11, 20, 21}))),
            (std::vector<int8_t>{20, 11}));
  EXPECT_EQ(addresses(m).safe_overlap(), 12);  // as SPACE_TO_BATCH_ND's: pixel k to pixel k
  EXPECT_FALSE(clobbers_at_overlap(m, 12, bytes_of(f)));
  EXPECT_TRUE(clobbers_at_overlap(m, 13, bytes_of(f)));
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kBatchToSpaceNd, DataType::kInt8, {3, 1, 1, 1}, {2, 2}, {0, 0, 0, 0},
                                     {1, 2, 2, 1})
                       .graph,
                   std::vector<uint8_t>(3), "op 0 (BATCH_TO_SPACE_ND): input batch 3 is not a multiple of the 4 blocks");
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kBatchToSpaceNd, DataType::kInt8, {4, 1, 1, 1}, {2, 2}, {0, 0, 0, 0},
                                     {1, 2, 3, 1})
                       .graph,
                   std::vector<uint8_t>(4),
                   "op 0 (BATCH_TO_SPACE_ND): output shape 1x2x3x1 differs from the computed shape 1x2x2x1");
  EXPECT_RUN_ERROR(space_batch_model(OpKind::kBatchToSpaceNd, DataType::kInt8, {4, 1, 1}, {2, 2}, {0, 0, 0, 0},
                                     {1, 2, 1})
                       .graph,
                   std::vector<uint8_t>(4), "op 0 (BATCH_TO_SPACE_ND): block_shape (input 1) has shape 2, expected 1");
}

// ---------------------------------------------------------- command line

std::string write_model(const Graph& graph, const std::string& name) {
  const std::vector<uint8_t> bytes = write_tflite(graph);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_shape_gather_" + std::to_string(::getpid()) + "_" + name))
          .string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return file;
}

void expect_cli_refusal(const test::CommandResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "wanted: " << message << "\ngot: " << r.err;
}

TEST(ShapeGatherCli, BadOperandsAndIndicesAreOneLineAndExitTwo) {
  const std::string transpose = write_model(transpose_model(DataType::kInt8, {2, 3}, {1, 1}, {3, 3}).graph,
                                            "transpose.tflite");
  expect_cli_refusal(test::run_dmo({"run", transpose}), transpose + ": op 0 (TRANSPOSE): perm names axis 1 twice");
  std::filesystem::remove(transpose);
  // An index the model's input puts outside the table, found at eval.
  const std::string gather = write_model(gather_model({DataType::kFloat32, {4, 2}, {2}, {2, 2}, {}, {}}).graph,
                                         "gather.tflite");
  const std::string input = gather + ".in";
  const auto bytes = concat(bytes_of(std::vector<float>(8, 0.5f)), bytes_of(std::vector<int32_t>{0, 9}));
  std::ofstream(input, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  expect_cli_refusal(test::run_dmo({"run", gather, "--input", input}),
                     gather + ": op 0 (GATHER): index 9 (element 1 of input 1) is outside the gathered axis of size 4");
  const auto ok = concat(bytes_of(std::vector<float>(8, 0.5f)), bytes_of(std::vector<int32_t>{3, 1}));
  std::ofstream(input, std::ios::binary)
      .write(reinterpret_cast<const char*>(ok.data()), static_cast<std::streamsize>(ok.size()));
  EXPECT_EQ(test::run_dmo({"verify", gather, "--input", input}).exit_status, 0);
  std::filesystem::remove(gather);
  std::filesystem::remove(input);
}

}  // namespace
}  // namespace dmo
