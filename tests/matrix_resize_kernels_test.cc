// Matrix and resampling kernels: BATCH_MATMUL, RESIZE_BILINEAR,
// RESIZE_NEAREST_NEIGHBOR and TRANSPOSE_CONV. Hand-computed results per
// supported type (adj_x/adj_y, broadcast batches, align_corners,
// half_pixel_centers, rounding and saturation), the algorithmic O_s their
// TFLM access order gives and that it is tight (no clobber at O_s, one one
// element beyond), the same pair over random shapes, and the errors for
// operands they cannot run, through the interpreter and the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "dmo/error.h"
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

// Runs the graph unshared, checked (no clobber) and direct; both must agree.
std::vector<uint8_t> run(const OneOp& m, const std::vector<uint8_t>& input) {
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(m.graph, unshared_placement(m.graph.main()));
  direct.set_inputs(input);
  direct.run();
  const auto bytes = direct.tensor_bytes(m.output);
  const auto again = checked.tensor_bytes(m.output);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), again.begin(), again.end())) << "checking policy differs";
  return {bytes.begin(), bytes.end()};
}

template <typename T>
std::vector<T> run_as(const OneOp& m, const std::vector<uint8_t>& input) {
  return values_from<T>(run(m, input));
}

std::string run_error(const OneOp& m) {
  try {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(bytes_of_tensor(m, m.input))));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(m, text)                                                  \
  do {                                                                             \
    const std::string message = run_error(m);                                     \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message;   \
  } while (0)

// Random bytes for the op's graph input.
std::vector<uint8_t> random_input(const OneOp& m, std::mt19937& rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(bytes_of_tensor(m, m.input)));
  for (auto& b : bytes) b = static_cast<uint8_t>(rng() >> 24);
  return bytes;
}

// Small floats in [-4, 4): random bytes would be NaNs and infinities.
std::vector<uint8_t> random_floats(const OneOp& m, std::mt19937& rng) {
  std::vector<float> values(static_cast<size_t>(bytes_of_tensor(m, m.input) / 4));
  for (auto& v : values) v = static_cast<float>(static_cast<int>(rng() % 64) - 32) / 8.0f;
  return bytes_of(values);
}

// The algorithmic O_s is safe, and one output element more is not.
void expect_tight_overlap(const OneOp& m, const std::vector<uint8_t>& input, int64_t element) {
  const int64_t os = addresses(m).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, input)) << "O_s " << os;
  if (os + element <= std::min(bytes_of_tensor(m, m.output), bytes_of_tensor(m, m.input))) {
    EXPECT_TRUE(clobbers_at_overlap(m, os + element, input)) << "O_s " << os;
  }
}

// ------------------------------------------------------------ BATCH_MATMUL

struct Operand {
  DataType type;
  Shape shape;
  Quantization quant = {};
};

OneOp batch_matmul(const Operand& lhs, const Operand& rhs, std::vector<uint8_t> rhs_data, const Operand& out,
                   bool adj_x = false, bool adj_y = false) {
  GraphBuilder b("matrix_resize_kernels_test");
  OneOp m;
  m.input = b.add_tensor("lhs", lhs.type, lhs.shape, lhs.quant);
  const int32_t r = b.add_constant("rhs", rhs.type, rhs.shape, std::move(rhs_data), rhs.quant);
  m.output = b.add_tensor("out", out.type, out.shape, out.quant);
  b.add_op(OpKind::kBatchMatMul, {m.input, r}, {m.output}, BatchMatMulParams{adj_x, adj_y, false});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

const std::vector<float> kLhs23 = {1, 2, 3, 4, 5, 6};          // [[1,2,3],[4,5,6]]
const std::vector<float> kRhs32 = {1, -1, 0.5f, 2, -2, 0.25f};  // [[1,-1],[0.5,2],[-2,0.25]]
// [[1+1-6, -1+4+0.75], [4+2.5-12, -4+10+1.5]]
const std::vector<float> kProduct22 = {-4.0f, 3.75f, -5.5f, 7.5f};

std::vector<float> transposed(const std::vector<float>& v, int rows, int cols) {
  std::vector<float> t(v.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = v[static_cast<size_t>(r * cols + c)];
  }
  return t;
}

TEST(BatchMatMul, FloatMatchesTheMatrixProductForEveryAdjoint) {
  const Operand out{DataType::kFloat32, {2, 2}};
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      const auto lhs = adj_x ? transposed(kLhs23, 2, 3) : kLhs23;
      const auto rhs = adj_y ? transposed(kRhs32, 3, 2) : kRhs32;
      const Shape lhs_shape = adj_x ? Shape{3, 2} : Shape{2, 3};
      const Shape rhs_shape = adj_y ? Shape{2, 3} : Shape{3, 2};
      OneOp m = batch_matmul({DataType::kFloat32, lhs_shape}, {DataType::kFloat32, rhs_shape}, bytes_of(rhs), out,
                             adj_x, adj_y);
      EXPECT_EQ(run_as<float>(m, bytes_of(lhs)), kProduct22) << "adj_x " << adj_x << " adj_y " << adj_y;
    }
  }
}

TEST(BatchMatMul, BroadcastsBatchesAndFoldsASingleRightBatch) {
  // lhs [2,2,3] against rhs [1,3,2]: TFLM folds the lhs batches into rows.
  std::vector<float> lhs = kLhs23;
  for (float v : kLhs23) lhs.push_back(-v);
  OneOp folded = batch_matmul({DataType::kFloat32, {2, 2, 3}}, {DataType::kFloat32, {1, 3, 2}}, bytes_of(kRhs32),
                              {DataType::kFloat32, {2, 2, 2}});
  std::vector<float> expected = kProduct22;
  for (float v : kProduct22) expected.push_back(-v);
  EXPECT_EQ(run_as<float>(folded, bytes_of(lhs)), expected);
  // lhs [1,2,3] against rhs [2,3,2]: the left operand serves both batches.
  std::vector<float> rhs = kRhs32;
  for (float v : kRhs32) rhs.push_back(2 * v);
  OneOp broadcast = batch_matmul({DataType::kFloat32, {1, 2, 3}}, {DataType::kFloat32, {2, 3, 2}}, bytes_of(rhs),
                                 {DataType::kFloat32, {2, 2, 2}});
  expected = kProduct22;
  for (float v : kProduct22) expected.push_back(2 * v);
  EXPECT_EQ(run_as<float>(broadcast, bytes_of(kLhs23)), expected);
}

TEST(BatchMatMul, Int8OffsetsRoundsAndSaturates) {
  // lhs zero point 1, rhs zero point -2, output scale 2 and zero point 3:
  // out = round(sum((l - 1) * (r + 2)) / 2) + 3, clamped.
  const std::vector<int8_t> lhs = {3, 1, 127, -128};  // [[3,1],[127,-128]]
  const std::vector<int8_t> rhs = {-1, 0, -2, 1};     // [[-1,0],[-2,1]]: r + 2 = [[1,2],[0,3]]
  OneOp m = batch_matmul({DataType::kInt8, {2, 2}, per_tensor(1.0f, 1)},
                         {DataType::kInt8, {2, 2}, per_tensor(1.0f, -2)}, bytes_of(rhs),
                         {DataType::kInt8, {2, 2}, per_tensor(2.0f, 3)});
  // Row 0: (2*1 + 0*0) = 2 -> 1 + 3 = 4; (2*2 + 0*3) = 4 -> 2 + 3 = 5.
  // Row 1: 126*1 + (-129)*0 = 126 -> 63 + 3 = 66; 126*2 + (-129)*3 = -135 -> -67.5, a tie TFLite's
  // doubling high multiply rounds up to -67, + 3 = -64.
  EXPECT_EQ(run_as<int8_t>(m, bytes_of(lhs)), (std::vector<int8_t>{4, 5, 66, -64}));
  OneOp saturating = batch_matmul({DataType::kInt8, {1, 2}, per_tensor(1.0f, 0)},
                                  {DataType::kInt8, {2, 1}, per_tensor(1.0f, 0)}, bytes_of(std::vector<int8_t>{127, 127}),
                                  {DataType::kInt8, {1, 1}, per_tensor(1.0f, 0)});
  EXPECT_EQ(run_as<int8_t>(saturating, bytes_of(std::vector<int8_t>{100, -1})), (std::vector<int8_t>{127}));
}

TEST(BatchMatMul, Int16SumsIn64BitsWithTfliteRounding) {
  // 3 * 32767 * 32767 = 3221028867 overflows int32; scaled by 2^-17 it is
  // 24574.50002, rounded to 24575.
  OneOp m = batch_matmul({DataType::kInt16, {1, 3}, per_tensor(1.0f, 0)}, {DataType::kInt16, {3, 1}, per_tensor(1.0f, 0)},
                         bytes_of(std::vector<int16_t>{32767, 32767, 32767}),
                         {DataType::kInt16, {1, 1}, per_tensor(131072.0f, 0)});
  EXPECT_EQ(run_as<int16_t>(m, bytes_of(std::vector<int16_t>{32767, 32767, 32767})), (std::vector<int16_t>{24575}));
  // Half rounds up (the 64-bit multiply adds half and shifts): 3 / 2 -> 2, -3 / 2 -> -1.
  OneOp half = batch_matmul({DataType::kInt16, {2, 1}, per_tensor(1.0f, 0)}, {DataType::kInt16, {1, 1}, per_tensor(1.0f, 0)},
                            bytes_of(std::vector<int16_t>{1}), {DataType::kInt16, {2, 1}, per_tensor(2.0f, 0)});
  EXPECT_EQ(run_as<int16_t>(half, bytes_of(std::vector<int16_t>{3, -3})), (std::vector<int16_t>{2, -1}));
}

TEST(BatchMatMul, OutputRowsFollowTheirLeftRows) {
  // Each output row is written after its left row is read; a row twice as
  // wide as the left row can only cover the left operand's start.
  OneOp m = batch_matmul({DataType::kFloat32, {4, 2}}, {DataType::kFloat32, {2, 4}},
                         bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}), {DataType::kFloat32, {4, 4}});
  const auto input = bytes_of(std::vector<float>{1, -1, 2, -2, 3, -3, 4, -4});
  EXPECT_GT(addresses(m).safe_overlap(), 0);
  expect_tight_overlap(m, input, 4);
  // adj_x reads the whole left operand into its transposed buffer first.
  OneOp adj = batch_matmul({DataType::kFloat32, {2, 4}}, {DataType::kFloat32, {2, 4}},
                           bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}), {DataType::kFloat32, {4, 4}}, true);
  EXPECT_GE(addresses(adj).safe_overlap(), bytes_of_tensor(adj, adj.input));
  expect_tight_overlap(adj, input, 4);
}

TEST(BatchMatMul, SafeOverlapHoldsOverRandomShapes) {
  std::mt19937 rng(126);
  for (int trial = 0; trial < 200; ++trial) {
    const int batches = 1 + static_cast<int>(rng() % 3), rows = 1 + static_cast<int>(rng() % 4);
    const int depth = 1 + static_cast<int>(rng() % 4), cols = 1 + static_cast<int>(rng() % 5);
    const bool adj_x = rng() % 2 == 1, adj_y = rng() % 2 == 1, rhs_batched = rng() % 2 == 1;
    const DataType type = std::array{DataType::kFloat32, DataType::kInt8, DataType::kInt16}[rng() % 3];
    const Quantization q = type == DataType::kFloat32 ? Quantization{} : per_tensor(0.5f, 0);
    const Shape lhs = adj_x ? Shape{batches, depth, rows} : Shape{batches, rows, depth};
    const int rhs_batches = rhs_batched ? batches : 1;
    const Shape rhs = adj_y ? Shape{rhs_batches, cols, depth} : Shape{rhs_batches, depth, cols};
    const int64_t element = element_size(type).value();
    std::vector<uint8_t> rhs_data(static_cast<size_t>(rhs_batches * depth * cols * element), 1);
    OneOp m = batch_matmul({type, lhs, q}, {type, rhs, q}, rhs_data, {type, {batches, rows, cols}, q}, adj_x, adj_y);
    expect_tight_overlap(m, type == DataType::kFloat32 ? random_floats(m, rng) : random_input(m, rng), element);
    if (HasFailure()) {
      ADD_FAILURE() << "trial " << trial << " lhs " << shape_to_string(lhs) << " rhs " << shape_to_string(rhs);
      return;
    }
  }
}

TEST(BatchMatMul, RejectsWhatTflmRejects) {
  const Operand f23{DataType::kFloat32, {2, 3}};
  EXPECT_RUN_ERROR(batch_matmul(f23, {DataType::kFloat32, {2, 2}}, std::vector<uint8_t>(16), {DataType::kFloat32, {2, 2}}),
                   "op 0 (BATCH_MATMUL): left operand 2x3 (adj_x false) and right operand 2x2 (adj_y false) differ "
                   "in depth, 3 vs 2");
  EXPECT_RUN_ERROR(batch_matmul(f23, {DataType::kFloat32, {3, 2}}, std::vector<uint8_t>(24), {DataType::kFloat32, {2, 3}}),
                   "op 0 (BATCH_MATMUL): output 2x3 should be 2x2");
  EXPECT_RUN_ERROR(batch_matmul({DataType::kFloat32, {3}}, {DataType::kFloat32, {3, 2}}, std::vector<uint8_t>(24),
                                {DataType::kFloat32, {2}}),
                   "op 0 (BATCH_MATMUL): left operand 3 must have 2 to 5 dimensions");
  EXPECT_RUN_ERROR(batch_matmul({DataType::kFloat32, {2, 2, 3}}, {DataType::kFloat32, {3, 3, 2}},
                                std::vector<uint8_t>(72), {DataType::kFloat32, {3, 2, 2}}),
                   "op 0 (BATCH_MATMUL): batch dimensions of 2x2x3 and 3x3x2 do not broadcast");
  EXPECT_RUN_ERROR(batch_matmul({DataType::kInt32, {2, 3}}, {DataType::kInt32, {3, 2}}, std::vector<uint8_t>(24),
                                {DataType::kInt32, {2, 2}}),
                   "op 0 (BATCH_MATMUL): left operand type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(batch_matmul(f23, {DataType::kInt8, {3, 2}, per_tensor(1, 0)}, std::vector<uint8_t>(6),
                                {DataType::kFloat32, {2, 2}}),
                   "op 0 (BATCH_MATMUL): right operand type INT8 differs from left operand type FLOAT32");
  EXPECT_RUN_ERROR(batch_matmul({DataType::kInt16, {1, 1}, per_tensor(1, 1)}, {DataType::kInt16, {1, 1}, per_tensor(1, 0)},
                                std::vector<uint8_t>(2), {DataType::kInt16, {1, 1}, per_tensor(1, 0)}),
                   "op 0 (BATCH_MATMUL): INT16 operands and output must have zero point 0");
  EXPECT_RUN_ERROR(batch_matmul({DataType::kInt8, {1, 1}}, {DataType::kInt8, {1, 1}, per_tensor(1, 0)},
                                std::vector<uint8_t>(1), {DataType::kInt8, {1, 1}, per_tensor(1, 0)}),
                   "op 0 (BATCH_MATMUL): left operand (INT8) needs one quantization scale");
  // A third input.
  GraphBuilder b("matrix_resize_kernels_test");
  OneOp three;
  three.input = b.add_tensor("lhs", DataType::kFloat32, {1, 1});
  three.output = b.add_tensor("out", DataType::kFloat32, {1, 1});
  b.add_op(OpKind::kBatchMatMul, {three.input, three.input, three.input}, {three.output}, BatchMatMulParams{});
  b.set_inputs({three.input});
  b.set_outputs({three.output});
  three.graph = b.finish();
  EXPECT_RUN_ERROR(three, "op 0 (BATCH_MATMUL): expected 2 input(s), got 3");
}

TEST(BatchMatMul, CliRunRejectsABadModelWithOneLineAndExit2) {
  OneOp m = batch_matmul({DataType::kFloat32, {2, 3}}, {DataType::kFloat32, {2, 2}}, std::vector<uint8_t>(16),
                         {DataType::kFloat32, {2, 2}});
  const std::string path =
      (std::filesystem::temp_directory_path() / ("dmo_matrix_" + std::to_string(::getpid()) + ".tflite")).string();
  {
    const std::vector<uint8_t> bytes = write_tflite(m.graph);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
  }
  const auto r = test::run_dmo({"run", path});
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_NE(r.err.find("op 0 (BATCH_MATMUL): left operand 2x3 (adj_x false) and right operand 2x2"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// ------------------------------------------------------------------ RESIZE

OneOp resize(OpKind kind, DataType type, const Shape& in, int32_t height, int32_t width, bool align_corners,
             bool half_pixel_centers, Quantization q = {}, Shape out = {}) {
  GraphBuilder b("matrix_resize_kernels_test");
  OneOp m;
  m.input = b.add_tensor("input", type, in, q);
  const int32_t size = b.add_constant_values<int32_t>("size", DataType::kInt32, {2}, {height, width});
  if (out.empty()) out = {in[0], height, width, in[3]};
  m.output = b.add_tensor("output", type, out, q);
  const OpParams params = kind == OpKind::kResizeBilinear
                              ? OpParams{ResizeBilinearParams{align_corners, half_pixel_centers}}
                              : OpParams{ResizeNearestNeighborParams{align_corners, half_pixel_centers}};
  b.add_op(kind, {m.input, size}, {m.output}, params);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(ResizeBilinear, FloatInterpolatesWithEachCoordinateMode) {
  const auto in = bytes_of(std::vector<float>{2, 4});
  auto widen = [&](bool align, bool half) {
    return run_as<float>(resize(OpKind::kResizeBilinear, DataType::kFloat32, {1, 1, 2, 1}, 1, 4, align, half), in);
  };
  // Source x = out * 0.5: 0, 0.5, 1, 1.5 (the last clamped to the edge).
  EXPECT_EQ(widen(false, false), (std::vector<float>{2, 3, 4, 4}));
  // Half-pixel centres: (x + 0.5) * 0.5 - 0.5 = -0.25, 0.25, 0.75, 1.25;
  // the first keeps its negative fraction as TFLite does: 2 * 1.25 + 2 * -0.25.
  EXPECT_EQ(widen(false, true), (std::vector<float>{2, 2.5f, 3.5f, 4}));
  // Corners aligned: x / 3.
  const std::vector<float> aligned = widen(true, false);
  ASSERT_EQ(aligned.size(), 4u);
  EXPECT_FLOAT_EQ(aligned[1], 2.0f + 2.0f / 3.0f);
  EXPECT_FLOAT_EQ(aligned[2], 2.0f + 4.0f / 3.0f);
  EXPECT_EQ(aligned[3], 4.0f);
}

TEST(ResizeBilinear, FloatNegativeZeroBecomesPositiveAsTfliteAddsItsRoundingOffset) {
  const auto out = run(resize(OpKind::kResizeBilinear, DataType::kFloat32, {1, 1, 1, 1}, 1, 1, false, false),
                       bytes_of(std::vector<float>{-0.0f}));
  EXPECT_EQ(out, bytes_of(std::vector<float>{0.0f}));
}

TEST(ResizeBilinear, Int8InterpolatesInFixedPointRoundingHalfAwayFromZero) {
  auto widen = [](std::vector<int8_t> in) {
    return run_as<int8_t>(resize(OpKind::kResizeBilinear, DataType::kInt8, {1, 1, 2, 1}, 1, 4, false, false,
                                 per_tensor(0.5f, 0)),
                          bytes_of(in));
  };
  // The midpoint of -128 and 127 is -0.5: rounds to -1; of 0 and 1, 0.5: 1.
  EXPECT_EQ(widen({-128, 127}), (std::vector<int8_t>{-128, -1, 127, 127}));
  EXPECT_EQ(widen({0, 1}), (std::vector<int8_t>{0, 1, 1, 1}));
  // 2x2 -> 3x3 with corners aligned: the centre averages all four.
  const auto grid = run_as<int8_t>(resize(OpKind::kResizeBilinear, DataType::kInt8, {1, 2, 2, 1}, 3, 3, true, false,
                                          per_tensor(0.5f, 0)),
                                   bytes_of(std::vector<int8_t>{0, 10, 20, 40}));
  EXPECT_EQ(grid, (std::vector<int8_t>{0, 5, 10, 10, 18, 25, 20, 30, 40}));
}

TEST(ResizeBilinear, UpsamplingReadsAheadOfItsWrites) {
  OneOp m = resize(OpKind::kResizeBilinear, DataType::kFloat32, {1, 4, 4, 2}, 8, 8, false, false);
  std::mt19937 rng(23);
  const auto input = random_floats(m, rng);
  EXPECT_GT(addresses(m).safe_overlap(), 0);
  expect_tight_overlap(m, input, 4);
}

TEST(ResizeNearestNeighbor, CopiesTheNearestPixelForEachCoordinateMode) {
  const auto in = bytes_of(std::vector<int8_t>{10, 20, 30});
  auto widen = [&](bool align, bool half) {
    return run_as<int8_t>(resize(OpKind::kResizeNearestNeighbor, DataType::kInt8, {1, 1, 3, 1}, 1, 5, align, half,
                                 per_tensor(1.0f, 0)),
                          in);
  };
  EXPECT_EQ(widen(false, false), (std::vector<int8_t>{10, 10, 20, 20, 30}));  // floor(x * 0.6)
  EXPECT_EQ(widen(true, false), (std::vector<int8_t>{10, 20, 20, 30, 30}));   // round(x * 0.5), half away
  EXPECT_EQ(widen(false, true), (std::vector<int8_t>{10, 10, 20, 30, 30}));   // floor((x + 0.5) * 0.6)
}

TEST(ResizeNearestNeighbor, CopiesWholePixelsOfEveryType) {
  const std::vector<float> f = {1.5f, -2.0f, 3.0f, -4.0f};  // two pixels of depth 2
  EXPECT_EQ(run_as<float>(resize(OpKind::kResizeNearestNeighbor, DataType::kFloat32, {1, 1, 2, 2}, 2, 4, false, false),
                          bytes_of(f)),
            (std::vector<float>{1.5f, -2, 1.5f, -2, 3, -4, 3, -4, 1.5f, -2, 1.5f, -2, 3, -4, 3, -4}));
  const std::vector<int16_t> s = {-32768, 32767};
  EXPECT_EQ(run_as<int16_t>(resize(OpKind::kResizeNearestNeighbor, DataType::kInt16, {1, 2, 1, 1}, 4, 1, false, false,
                                   per_tensor(1.0f, 0)),
                            bytes_of(s)),
            (std::vector<int16_t>{-32768, -32768, 32767, 32767}));
  const std::vector<uint8_t> u = {200, 7};
  EXPECT_EQ(run(resize(OpKind::kResizeNearestNeighbor, DataType::kUInt8, {1, 1, 2, 1}, 1, 1, false, false,
                       per_tensor(1.0f, 128)),
                u),
            (std::vector<uint8_t>{200}));
}

TEST(ResizeNearestNeighbor, MemcpyPerPixelReadsAheadOfItsWrites) {
  // Each pixel is one memcpy, taken in its worst order (all its stores, then
  // its loads): upsampling copies every input pixel before the writes reach
  // it, so the output may overlap the input's start, up to the point where
  // one copy's destination would meet its own source.
  OneOp m = resize(OpKind::kResizeNearestNeighbor, DataType::kInt8, {1, 3, 3, 4}, 6, 6, false, true,
                   per_tensor(1.0f, 0));
  std::mt19937 rng(97);
  const auto input = random_input(m, rng);
  const int64_t os = addresses(m).safe_overlap();
  EXPECT_GT(os, 0);
  EXPECT_LT(os, bytes_of_tensor(m, m.input));
  expect_tight_overlap(m, input, 1);
}

TEST(Resize, SafeOverlapHoldsOverRandomShapes) {
  std::mt19937 rng(2397);
  for (int trial = 0; trial < 300; ++trial) {
    const bool bilinear = rng() % 2 == 1;
    const OpKind kind = bilinear ? OpKind::kResizeBilinear : OpKind::kResizeNearestNeighbor;
    const DataType type = bilinear ? std::array{DataType::kFloat32, DataType::kInt8}[rng() % 2]
                                   : std::array{DataType::kFloat32, DataType::kInt8, DataType::kInt16}[rng() % 3];
    const int32_t batches = 1 + static_cast<int32_t>(rng() % 2), depth = 1 + static_cast<int32_t>(rng() % 3);
    const int32_t in_h = 1 + static_cast<int32_t>(rng() % 4), in_w = 1 + static_cast<int32_t>(rng() % 4);
    const int32_t out_h = 1 + static_cast<int32_t>(rng() % 8), out_w = 1 + static_cast<int32_t>(rng() % 8);
    const int mode = static_cast<int>(rng() % 3);  // plain, align_corners, half_pixel_centers
    const Quantization q = type == DataType::kFloat32 ? Quantization{} : per_tensor(1.0f, 0);
    OneOp m = resize(kind, type, {batches, in_h, in_w, depth}, out_h, out_w, mode == 1, mode == 2, q);
    const int64_t element = element_size(type).value();
    const auto input = type == DataType::kFloat32 ? random_floats(m, rng) : random_input(m, rng);
    if (bilinear) {
      expect_tight_overlap(m, input, element);
    } else {
      // Block copies in their worst order (see above): tight to the byte.
      expect_tight_overlap(m, input, 1);
    }
    if (HasFailure()) {
      ADD_FAILURE() << "trial " << trial << " " << builtin_op_name(static_cast<int32_t>(kind)) << " " << in_h << "x"
                    << in_w << " -> " << out_h << "x" << out_w << " mode " << mode;
      return;
    }
  }
}

TEST(Resize, RejectsWhatTflmRejects) {
  for (OpKind kind : {OpKind::kResizeBilinear, OpKind::kResizeNearestNeighbor}) {
    const std::string op = "op 0 (" + builtin_op_name(static_cast<int32_t>(kind)) + "): ";
    EXPECT_RUN_ERROR(resize(kind, DataType::kFloat32, {1, 2, 2, 1}, 4, 4, true, true),
                     op + "align_corners and half_pixel_centers cannot both be set");
    EXPECT_RUN_ERROR(resize(kind, DataType::kFloat32, {1, 2, 2, 1}, 4, 4, false, false, {}, {1, 4, 3, 1}),
                     op + "output 1x4x3x1 should be 1x4x4x1 (input 1x2x2x1, size 4x4)");
    EXPECT_RUN_ERROR(resize(kind, DataType::kFloat32, {1, 2, 2, 1}, 0, 4, false, false, {}, {1, 0, 4, 1}),
                     op + "size 0x4 must be positive");
    EXPECT_RUN_ERROR(resize(kind, DataType::kInt32, {1, 2, 2, 1}, 4, 4, false, false),
                     op + "input type INT32 is not supported");
    GraphBuilder b("matrix_resize_kernels_test");
    OneOp bad;
    bad.input = b.add_tensor("input", DataType::kFloat32, {2, 2, 1});
    const int32_t size = b.add_constant_values<int32_t>("size", DataType::kInt32, {2}, {4, 4});
    bad.output = b.add_tensor("output", DataType::kFloat32, {4, 4, 1});
    b.add_op(kind, {bad.input, size}, {bad.output});
    b.set_inputs({bad.input});
    b.set_outputs({bad.output});
    bad.graph = b.finish();
    EXPECT_RUN_ERROR(bad, op + "input 2x2x1 must have 4 dimensions");
  }
  EXPECT_RUN_ERROR(resize(OpKind::kResizeBilinear, DataType::kInt16, {1, 2, 2, 1}, 4, 4, false, false,
                          per_tensor(1.0f, 0)),
                   "op 0 (RESIZE_BILINEAR): input type INT16 is not supported; supported: FLOAT32, INT8");
}

// ---------------------------------------------------------- TRANSPOSE_CONV

struct TransposeConvCase {
  DataType type = DataType::kFloat32;
  DataType filter_type = DataType::kFloat32;
  Shape input, filter, output;
  std::vector<uint8_t> filter_data;
  DataType bias_type = DataType::kFloat32;
  std::vector<uint8_t> bias_data;  // empty: no bias
  TransposeConvParams params{Padding::kValid, 1, 1, Activation::kNone};
  Quantization input_quant, filter_quant, output_quant;
};

OneOp transpose_conv(const TransposeConvCase& c) {
  GraphBuilder b("matrix_resize_kernels_test");
  OneOp m;
  const std::vector<int32_t> dims(c.output.begin(), c.output.end());
  const int32_t shape = b.add_constant_values<int32_t>("output_shape", DataType::kInt32, {4}, dims);
  const int32_t filter = b.add_constant("filter", c.filter_type, c.filter, c.filter_data, c.filter_quant);
  m.input = b.add_tensor("input", c.type, c.input, c.input_quant);
  std::vector<int32_t> inputs = {shape, filter, m.input};
  if (!c.bias_data.empty()) {
    const int64_t count = static_cast<int64_t>(c.bias_data.size()) / element_size(c.bias_type).value();
    inputs.push_back(b.add_constant("bias", c.bias_type, {static_cast<int32_t>(count)}, c.bias_data));
  }
  m.output = b.add_tensor("output", c.type, c.output, c.output_quant);
  b.add_op(OpKind::kTransposeConv, inputs, {m.output}, c.params);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// 2x2 input, 2x2 filter [1, 2; 3, 4], stride 2, VALID: each input pixel
// paints its own 2x2 block of the 4x4 output.
TransposeConvCase float_blocks() {
  TransposeConvCase c;
  c.input = {1, 2, 2, 1};
  c.filter = {1, 2, 2, 1};
  c.output = {1, 4, 4, 1};
  c.filter_data = bytes_of(std::vector<float>{1, 2, 3, 4});
  c.params = {Padding::kValid, 2, 2, Activation::kNone};
  return c;
}

TEST(TransposeConv, FloatScattersEachInputOverItsWindow) {
  TransposeConvCase c = float_blocks();
  const auto input = bytes_of(std::vector<float>{1, 2, 3, 4});
  EXPECT_EQ(run_as<float>(transpose_conv(c), input),
            (std::vector<float>{1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16}));
  c.bias_data = bytes_of(std::vector<float>{0.5f});
  c.params.activation = Activation::kRelu6;
  EXPECT_EQ(run_as<float>(transpose_conv(c), input),
            (std::vector<float>{1.5f, 2.5f, 2.5f, 4.5f, 3.5f, 4.5f, 6, 6, 3.5f, 6, 4.5f, 6, 6, 6, 6, 6}));
}

TEST(TransposeConv, FloatSumsOverlappingWindowsWithSamePadding) {
  // 1-D: input [1, 2, 3], filter [1, 10, 100], stride 1, SAME (pad 1):
  // out[x] = sum over in[i] * f[x - i + 1].
  TransposeConvCase c;
  c.input = {1, 1, 3, 1};
  c.filter = {1, 1, 3, 1};
  c.output = {1, 1, 3, 1};
  c.filter_data = bytes_of(std::vector<float>{1, 10, 100});
  c.params = {Padding::kSame, 1, 1, Activation::kNone};
  EXPECT_EQ(run_as<float>(transpose_conv(c), bytes_of(std::vector<float>{1, 2, 3})),
            (std::vector<float>{1 * 10 + 2 * 1, 1 * 100 + 2 * 10 + 3 * 1, 2 * 100 + 3 * 10}));
}

TEST(TransposeConv, Int8RequantizesPerChannel) {
  // Input zero point 2; filter channels with scales 1 and 0.25; output scale
  // 1, zero point -1; bias 1 and 0: channel 0: (10 - 2) * 3 + 1 = 25 -> 12.5
  // rounds to 13, - 1 = 12; channel 1: 8 * -100 = -800 * 0.25 = -200 -> -128.
  TransposeConvCase c;
  c.type = DataType::kInt8;
  c.filter_type = DataType::kInt8;
  c.input = {1, 1, 1, 1};
  c.filter = {2, 1, 1, 1};
  c.output = {1, 1, 1, 2};
  c.filter_data = bytes_of(std::vector<int8_t>{3, -100});
  c.bias_type = DataType::kInt32;
  c.bias_data = bytes_of(std::vector<int32_t>{1, 0});
  c.input_quant = per_tensor(0.5f, 2);
  c.filter_quant = Quantization{{1.0f, 0.5f}, {0, 0}, 0};
  c.output_quant = per_tensor(1.0f, -1);
  EXPECT_EQ(run_as<int8_t>(transpose_conv(c), bytes_of(std::vector<int8_t>{10})), (std::vector<int8_t>{12, -128}));
}

TEST(TransposeConv, Int16UsesInt64SumsAndWidensAnInt16Bias) {
  TransposeConvCase c;
  c.type = DataType::kInt16;
  c.filter_type = DataType::kInt8;
  c.input = {1, 1, 1, 1};
  c.filter = {2, 1, 1, 1};
  c.output = {1, 1, 1, 2};
  c.filter_data = bytes_of(std::vector<int8_t>{3, 127});
  c.bias_type = DataType::kInt64;
  c.bias_data = bytes_of(std::vector<int64_t>{7, 0});
  c.input_quant = per_tensor(1.0f, 0);
  c.filter_quant = Quantization{{1.0f, 1.0f}, {0, 0}, 0};
  c.output_quant = per_tensor(2.0f, 0);
  // 1000 * 3 + 7 = 3007 / 2 = 1503.5 -> 1504; 1000 * 127 / 2 = 63500 -> 32767.
  EXPECT_EQ(run_as<int16_t>(transpose_conv(c), bytes_of(std::vector<int16_t>{1000})),
            (std::vector<int16_t>{1504, 32767}));
  c.bias_type = DataType::kInt16;
  c.bias_data = bytes_of(std::vector<int16_t>{7, 0});
  EXPECT_EQ(run_as<int16_t>(transpose_conv(c), bytes_of(std::vector<int16_t>{1000})),
            (std::vector<int16_t>{1504, 32767}));
}

TEST(TransposeConv, FloatZeroesItsOutputFirstAndQuantizedWritesItLast) {
  TransposeConvCase f = float_blocks();
  OneOp float_op = transpose_conv(f);
  EXPECT_EQ(addresses(float_op).safe_overlap(), 0);
  expect_tight_overlap(float_op, bytes_of(std::vector<float>{1, 2, 3, 4}), 4);
  TransposeConvCase q = f;
  q.type = DataType::kInt8;
  q.filter_type = DataType::kInt8;
  q.filter_data = bytes_of(std::vector<int8_t>{1, 2, 3, 4});
  q.input_quant = per_tensor(1.0f, 0);
  q.filter_quant = per_tensor(1.0f, 0);
  q.output_quant = per_tensor(1.0f, 0);
  OneOp int8_op = transpose_conv(q);
  // Every input byte is read before the first output byte is written.
  EXPECT_GE(addresses(int8_op).safe_overlap(), bytes_of_tensor(int8_op, int8_op.input));
  expect_tight_overlap(int8_op, bytes_of(std::vector<int8_t>{1, 2, 3, 4}), 1);
}

TEST(TransposeConv, SafeOverlapHoldsOverRandomShapes) {
  std::mt19937 rng(67);
  for (int trial = 0; trial < 200; ++trial) {
    TransposeConvCase c;
    const int kind = static_cast<int>(rng() % 3);
    c.type = std::array{DataType::kFloat32, DataType::kInt8, DataType::kInt16}[kind];
    c.filter_type = kind == 0 ? DataType::kFloat32 : DataType::kInt8;
    const int32_t in_h = 1 + static_cast<int32_t>(rng() % 3), in_w = 1 + static_cast<int32_t>(rng() % 3);
    const int32_t in_d = 1 + static_cast<int32_t>(rng() % 2), out_d = 1 + static_cast<int32_t>(rng() % 3);
    const int32_t k = 1 + static_cast<int32_t>(rng() % 3), stride = 1 + static_cast<int32_t>(rng() % 2);
    const Padding padding = rng() % 2 == 1 ? Padding::kSame : Padding::kValid;
    const int32_t out_h = padding == Padding::kSame ? in_h * stride : (in_h - 1) * stride + k;
    const int32_t out_w = padding == Padding::kSame ? in_w * stride : (in_w - 1) * stride + k;
    c.input = {1, in_h, in_w, in_d};
    c.filter = {out_d, k, k, in_d};
    c.output = {1, out_h, out_w, out_d};
    const int64_t filter_elements = int64_t{out_d} * k * k * in_d;
    c.filter_data = kind == 0 ? bytes_of(std::vector<float>(static_cast<size_t>(filter_elements), 0.5f))
                              : std::vector<uint8_t>(static_cast<size_t>(filter_elements), 3);
    c.params = {padding, stride, stride, Activation::kNone};
    if (kind != 0) {
      c.input_quant = per_tensor(1.0f, 0);
      c.filter_quant = per_tensor(1.0f, 0);
      c.output_quant = per_tensor(1.0f, 0);
    }
    OneOp m = transpose_conv(c);
    const int64_t element = element_size(c.type).value();
    expect_tight_overlap(m, kind == 0 ? random_floats(m, rng) : random_input(m, rng), element);
    if (HasFailure()) {
      ADD_FAILURE() << "trial " << trial << " input " << shape_to_string(c.input) << " filter "
                    << shape_to_string(c.filter) << " stride " << stride;
      return;
    }
  }
}

TEST(TransposeConv, RejectsWhatTflmRejects) {
  const std::string op = "op 0 (TRANSPOSE_CONV): ";
  TransposeConvCase c = float_blocks();
  c.output = {1, 4, 4, 2};
  EXPECT_RUN_ERROR(transpose_conv(c), op + "output 1x4x4x2 has depth 2 but filter 1x2x2x1 gives 1");
  c = float_blocks();
  c.input = {1, 2, 2, 3};
  EXPECT_RUN_ERROR(transpose_conv(c), op + "input 1x2x2x3 has depth 3 but filter 1x2x2x1 takes 1");
  c = float_blocks();
  c.bias_data = bytes_of(std::vector<float>{1, 2});
  EXPECT_RUN_ERROR(transpose_conv(c), op + "bias has 2 elements for 1 output channels");
  c = float_blocks();
  c.bias_type = DataType::kInt32;
  c.bias_data = bytes_of(std::vector<int32_t>{1});
  EXPECT_RUN_ERROR(transpose_conv(c), op + "bias with FLOAT32 input type INT32 is not supported; supported: FLOAT32");
  c = float_blocks();
  c.type = DataType::kInt16;
  c.filter_type = DataType::kInt16;
  c.filter_data = std::vector<uint8_t>(8);
  c.input_quant = c.filter_quant = c.output_quant = per_tensor(1.0f, 0);
  EXPECT_RUN_ERROR(transpose_conv(c), op + "filter type INT16 with INT16 input is not supported; it must be INT8");
  c.type = DataType::kInt32;
  EXPECT_RUN_ERROR(transpose_conv(c), op + "input type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  c = float_blocks();
  c.type = DataType::kInt8;
  c.filter_type = DataType::kInt8;
  c.filter_data = std::vector<uint8_t>(4);
  c.input_quant = per_tensor(1.0f, 0);
  c.output_quant = per_tensor(1.0f, 0);
  c.filter_quant = Quantization{{1.0f, 1.0f, 1.0f}, {0, 0, 0}, 0};
  EXPECT_RUN_ERROR(transpose_conv(c), op + "filter has 3 scales for 1 output channels");
  GraphBuilder b("matrix_resize_kernels_test");
  OneOp two;
  two.input = b.add_tensor("input", DataType::kFloat32, {1, 1, 1, 1});
  two.output = b.add_tensor("output", DataType::kFloat32, {1, 1, 1, 1});
  b.add_op(OpKind::kTransposeConv, {two.input, two.input}, {two.output}, TransposeConvParams{});
  b.set_inputs({two.input});
  b.set_outputs({two.output});
  two.graph = b.finish();
  EXPECT_RUN_ERROR(two, op + "expected 3 or 4 inputs (output_shape, filter, input[, bias]), got 2");
}

}  // namespace
}  // namespace dmo
