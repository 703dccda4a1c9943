// dmo exports its plans to TFLM, so its kernels must load and store their
// inputs and outputs in the order TFLM's reference kernels do, including
// passes that reset or rewrite the output and copies done with memcpy.
// These tests pin that order through what it decides: the algorithmic O_s,
// how many output stores the address-only policy counts, and whether the
// checking policy finds a clobber at a given overlap.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "dmo/ops/kernels.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

using test::addresses;
using test::bytes_of_tensor;
using test::clobbers_at_overlap;
using test::OneOp;

// ------------------------------------------------------------------- MEAN

OneOp mean_model(DataType type, const Shape& in, const Shape& out, const std::vector<int32_t>& axes, bool keep_dims,
                 Quantization in_quant = {}, Quantization out_quant = {}) {
  GraphBuilder b("tflm_access_order_test");
  OneOp m;
  m.input = b.add_tensor("input", type, in, in_quant);
  const int32_t axis =
      b.add_constant_values<int32_t>("axis", DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  m.output = b.add_tensor("output", type, out, out_quant);
  b.add_op(OpKind::kMean, {m.input, axis}, {m.output}, ReducerParams{keep_dims});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(TflmMeanOrder, FloatResetsTheOutputBeforeReadingTheInput) {
  // reference_ops::Mean<float, float> sums in the output: 2 outputs zeroed
  // twice (as output and as sum), 6 in-place additions, 2 in-place divisions.
  OneOp m = mean_model(DataType::kFloat32, {2, 3}, {2}, {1}, false);
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.safe_overlap(), 0);
  EXPECT_EQ(a.writes(), 2 * 2 + 6 + 2);
  const auto input = bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(clobbers_at_overlap(m, 0, input));
  EXPECT_TRUE(clobbers_at_overlap(m, 4, input));
}

TEST(TflmMeanOrder, IntegerPathsResetTheOutputBeforeReadingTheInput) {
  // Same quantization (Mean<int8_t, int32_t>) and requantized
  // (QuantizedMeanOrSum): each zeroes its 2 outputs, sums in a scratch
  // buffer, then stores each output once more.
  const std::vector<int8_t> values = {1, 2, 3, 4, -1, -2, -3, -4};
  for (const Quantization& out_quant : {per_tensor(0.5f, 0), per_tensor(0.25f, 3)}) {
    OneOp m = mean_model(DataType::kInt8, {2, 4}, {2}, {1}, false, per_tensor(0.5f, 0), out_quant);
    const AddressMemory a = addresses(m);
    EXPECT_EQ(a.safe_overlap(), 0);
    EXPECT_EQ(a.writes(), 2 + 2);
    EXPECT_FALSE(clobbers_at_overlap(m, 0, bytes_of(values)));
    EXPECT_TRUE(clobbers_at_overlap(m, 1, bytes_of(values)));
  }
}

TEST(TflmMeanOrder, FourDMeanOverHeightAndWidthStoresEachOutputOnce) {
  // TFLM's 4-D float path stores each channel's mean after reading its
  // column; later channels lie beyond it, so the output may sit on the input.
  OneOp m = mean_model(DataType::kFloat32, {1, 2, 2, 3}, {1, 1, 1, 3}, {2, 1}, true);
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.safe_overlap(), 12);
  EXPECT_EQ(a.writes(), 3);
  EXPECT_FALSE(clobbers_at_overlap(m, 12, bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})));
  // Without keep_dims TFLM takes the general path, which resets first.
  OneOp flat = mean_model(DataType::kFloat32, {1, 2, 2, 3}, {1, 3}, {2, 1}, false);
  EXPECT_EQ(addresses(flat).safe_overlap(), 0);
}

// ------------------------------------------------------------------ COPIES

OneOp copy_model(OpKind kind, const Shape& in, const Shape& out) {
  GraphBuilder b("tflm_access_order_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, in);
  m.output = b.add_tensor("output", DataType::kInt8, out);
  b.add_op(kind, {m.input}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(TflmCopyOrder, ReshapeAndSqueezeAllowNoPartialOverlap) {
  const auto input = bytes_of(std::vector<int8_t>{1, -2, 3, -4, 5, -6});
  for (OpKind kind : {OpKind::kReshape, OpKind::kSqueeze}) {
    OneOp m = copy_model(kind, {1, 6}, {6});
    EXPECT_EQ(addresses(m).safe_overlap(), 0);
    EXPECT_FALSE(clobbers_at_overlap(m, 0, input));
    // memcpy may copy in any order: a partial overlap is a clobber even
    // though a forward element loop would survive it.
    EXPECT_TRUE(clobbers_at_overlap(m, 1, input));
    EXPECT_TRUE(clobbers_at_overlap(m, 5, input));
    // The same bytes: TFLM's reshape then copies nothing.
    EXPECT_FALSE(clobbers_at_overlap(m, 6, input));
  }
}

OneOp slice_model(const Shape& in, const Shape& out, const std::vector<int32_t>& begin,
                  const std::vector<int32_t>& end, const std::vector<int32_t>& strides) {
  GraphBuilder b("tflm_access_order_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kFloat32, in);
  const Shape index_shape = {static_cast<int32_t>(begin.size())};
  const int32_t b_t = b.add_constant_values<int32_t>("begin", DataType::kInt32, index_shape, begin);
  const int32_t e_t = b.add_constant_values<int32_t>("end", DataType::kInt32, index_shape, end);
  const int32_t s_t = b.add_constant_values<int32_t>("strides", DataType::kInt32, index_shape, strides);
  m.output = b.add_tensor("output", DataType::kFloat32, out);
  b.add_op(OpKind::kStridedSlice, {m.input, b_t, e_t, s_t}, {m.output}, StridedSliceParams{});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(TflmCopyOrder, StridedSliceCopiesRowsWithMemcpyOnlyForAUnitInnerStride) {
  const auto input = bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // Rows 0 and 1 of a 3x4 input: two memcpy of 16 bytes each.
  // Each may write its 16 bytes before reading its source, the same bytes
  // of the input: the output may overlap the input by 32 - 16 bytes.
  OneOp rows = slice_model({3, 4}, {2, 4}, {0, 0}, {2, 4}, {1, 1});
  const AddressMemory a = addresses(rows);
  EXPECT_EQ(a.safe_overlap(), 16);
  EXPECT_EQ(a.writes(), 8);
  EXPECT_FALSE(clobbers_at_overlap(rows, 16, input));
  EXPECT_TRUE(clobbers_at_overlap(rows, 17, input));
  // Overlapped by 20 bytes, the first row's destination (bytes 0..15)
  // covers its own source (bytes 12..27) in part.
  EXPECT_TRUE(clobbers_at_overlap(rows, 20, input));
  // Columns 0 and 2: element by element, each load right before its store,
  // so the output may lie wholly over the input's first bytes.
  OneOp columns = slice_model({3, 4}, {3, 2}, {0, 0}, {3, 4}, {1, 2});
  EXPECT_EQ(addresses(columns).safe_overlap(), 24);
  EXPECT_FALSE(clobbers_at_overlap(columns, 24, input));
}

// One float tensor of `elements` at byte `offset` of an arena.
TensorRef arena_tensor(const Tensor& t, std::vector<uint8_t>& arena, int64_t offset, int32_t index, bool is_output,
                       const int64_t* strides = nullptr) {
  TensorRef r;
  r.tensor = &t;
  r.data = arena.data() + offset;
  r.index = index;
  r.is_output = is_output;
  r.in_arena = true;
  r.strides = strides;
  return r;
}

Tensor float_tensor(int32_t elements) {
  Tensor t;
  t.type = DataType::kFloat32;
  t.shape = {elements};
  t.element_count = elements;
  t.byte_size = int64_t{elements} * 4;
  return t;
}

TEST(CheckingMemoryCopy, FlagsASourceAndDestinationThatOverlapWithoutCoinciding) {
  std::vector<uint8_t> arena(64, 0);
  const Tensor four = float_tensor(4);
  auto checked_copy = [&](int64_t to_offset, int64_t from_offset) {
    CheckingMemory memory(arena.data(), static_cast<int64_t>(arena.size()));
    memory.begin_op(7);
    const TensorRef from = arena_tensor(four, arena, from_offset, 1, false);
    const TensorRef to = arena_tensor(four, arena, to_offset, 2, true);
    memory.copy<float>(to, 0, from, 0, 4);
    return memory.clobber();
  };
  // The destination's first bytes cover the source's bytes 4 onwards.
  const std::optional<Clobber> ahead = checked_copy(20, 16);
  ASSERT_TRUE(ahead.has_value());
  EXPECT_EQ(ahead->op, 7);
  EXPECT_EQ(ahead->tensor, 1);
  EXPECT_EQ(ahead->byte_offset, 4);
  // The destination below the source: a forward copy would survive, memcpy need not.
  const std::optional<Clobber> behind = checked_copy(12, 16);
  ASSERT_TRUE(behind.has_value());
  EXPECT_EQ(behind->byte_offset, 0);
  EXPECT_FALSE(checked_copy(16, 16).has_value());  // the same bytes
  EXPECT_FALSE(checked_copy(0, 16).has_value());   // disjoint, touching
  EXPECT_FALSE(checked_copy(32, 16).has_value());
}

TEST(CheckingMemoryCopy, ComparesAViewElementByElement) {
  std::vector<uint8_t> arena(64, 0);
  const Tensor four = float_tensor(4), two = float_tensor(2);
  const int64_t every_other[] = {2};
  auto checked_copy = [&](int64_t to_offset) {
    CheckingMemory memory(arena.data(), static_cast<int64_t>(arena.size()));
    memory.begin_op(0);
    const TensorRef from = arena_tensor(four, arena, 0, 1, false);
    const TensorRef to = arena_tensor(two, arena, to_offset, 2, true, every_other);
    memory.copy<float>(to, 0, from, 1, 2);  // source elements 1 and 2: bytes 4..11
    return memory.clobber();
  };
  // View elements at bytes 16 and 24: past the source.
  EXPECT_FALSE(checked_copy(16).has_value());
  // View elements at bytes 0 and 8: the second lands on source bytes 8..11.
  const std::optional<Clobber> second = checked_copy(0);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->byte_offset, 8);
}

TEST(AddressMemoryCopy, ACopyFromTheInputToTheOutputAllowsNoOverlap) {
  const Tensor four = float_tensor(4);
  std::vector<uint8_t> unused(16);
  const TensorRef in = arena_tensor(four, unused, 0, 0, false), out = arena_tensor(four, unused, 0, 1, true);
  const TensorRef other = arena_tensor(four, unused, 0, 5, false);
  AddressMemory copied(0, 1, 16, 16);
  copied.copy<float>(out, 0, in, 0, 4);
  EXPECT_EQ(copied.safe_overlap(), 0);
  EXPECT_EQ(copied.writes(), 4);
  // Two copies of half the input each: each half's destination must lie
  // below its own source, the same 8 bytes on: 16 - 8.
  AddressMemory halves(0, 1, 16, 16);
  halves.copy<float>(out, 0, in, 0, 2);
  halves.copy<float>(out, 2, in, 2, 2);
  EXPECT_EQ(halves.safe_overlap(), 8);
  // A copy from another tensor only writes; the element loop after it keeps the whole output.
  AddressMemory elsewhere(0, 1, 16, 16);
  elsewhere.copy<float>(out, 0, other, 0, 2);
  for (int64_t i = 2; i < 4; ++i) elsewhere.store<float>(out, i, elsewhere.load<float>(in, i));
  EXPECT_EQ(elsewhere.safe_overlap(), 16);
}

// ---------------------------------------------------------------- SOFTMAX

TEST(TflmSoftmaxOrder, FloatStoresExponentialsThenDividesInPlace) {
  GraphBuilder b("tflm_access_order_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kFloat32, {1, 5});
  m.output = b.add_tensor("output", DataType::kFloat32, {1, 5});
  b.add_op(OpKind::kSoftmax, {m.input}, {m.output}, SoftmaxParams{});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  // One row: the max pass, then each exponential stored right after its
  // input element is read, then 5 divisions that read only the output.
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.writes(), 10);
  EXPECT_EQ(a.safe_overlap(), 20);
  EXPECT_FALSE(clobbers_at_overlap(m, 20, bytes_of(std::vector<float>{0.5f, -1, 2, 0, 1})));
}

// ------------------------------------------------------------------- SVDF

// One batch, input size 2, 4 filters of rank 2 (2 units), memory 2.
template <typename T, typename Time, typename Bias>
OneOp svdf_model(DataType type, DataType time_type, DataType bias_type, const std::vector<Quantization>& q) {
  auto quant = [&](size_t i) { return i < q.size() ? q[i] : Quantization{}; };
  GraphBuilder b("tflm_access_order_test");
  OneOp m;
  m.input = b.add_tensor("input", type, {1, 2}, quant(0));
  const int32_t feature = b.add_constant_values<T>("weights_feature", type, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, quant(1));
  const int32_t time = b.add_constant_values<Time>("weights_time", time_type, {4, 2}, {1, 2, 1, 2, 1, 2, 1, 2}, quant(2));
  const int32_t bias = b.add_constant_values<Bias>("bias", bias_type, {2}, {1, 2}, quant(3));
  const int32_t state = b.add_tensor("state", time_type, {1, 8}, quant(4));
  m.output = b.add_tensor("output", type, {1, 2}, quant(5));
  SvdfParams p;
  p.rank = 2;
  p.activation = Activation::kRelu;
  b.add_op(OpKind::kSvdf, {m.input, feature, time, bias, state}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  m.graph.subgraphs[0].tensors[static_cast<size_t>(state)].is_variable = true;
  return m;
}

TEST(TflmSvdfOrder, FloatWritesTheOutputThreeTimes) {
  // ApplyTimeWeightsBiasAndActivation: the bias into 2 outputs, 2 filter
  // sums added onto each in place, then the activation in place.
  OneOp m = svdf_model<float, float, float>(DataType::kFloat32, DataType::kFloat32, DataType::kFloat32, {});
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.writes(), 2 + 2 * 2 + 2);
  // The input is read only by the feature products, before any output store.
  EXPECT_EQ(a.safe_overlap(), 8);
  EXPECT_FALSE(clobbers_at_overlap(m, 8, bytes_of(std::vector<float>{0.25f, -1})));
}

TEST(TflmSvdfOrder, IntegerStoresEachOutputOnceAfterItsScratchSums) {
  const std::vector<Quantization> q = {per_tensor(0.5f, 1),    per_tensor(0.25f, 0),  per_tensor(0.5f, 0),
                                       per_tensor(0.0625f, 0), per_tensor(0.125f, 0), per_tensor(0.0625f, -10)};
  OneOp m = svdf_model<int8_t, int16_t, int32_t>(DataType::kInt8, DataType::kInt16, DataType::kInt32, q);
  const AddressMemory a = addresses(m);
  EXPECT_EQ(a.writes(), 2);
  EXPECT_EQ(a.safe_overlap(), 2);
}

}  // namespace
}  // namespace dmo
