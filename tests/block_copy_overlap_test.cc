// Safe overlaps of the copying kernels (TFLM's memcpy and memmove, block
// copies here). C leaves the order of a copy's bytes unspecified, so the
// address-only policy folds each copy as all its stores, then all its loads:
// the output may overlap the input exactly as far as every copy's
// destination lies wholly below its source and no earlier write lands on a
// later read. The executing checking policy is the judge: it flags any
// partial overlap of one copy's two ranges and any value lost while still
// needed. For every copying kernel, on random shapes: clean with the output
// overlapping the input by O_s, a clobber one byte further (while the
// overlap stays below the whole input and output; for GATHER and GATHER_ND
// where the indices are the 0 the policy assumes).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "dmo/overlap/analytic_overlap.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::addresses;
using test::bytes_of_tensor;
using test::clobbers_at_overlap;
using test::OneOp;

int pick(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

DataType pick_type(std::mt19937& rng, const std::vector<DataType>& types) {
  return types[static_cast<size_t>(pick(rng, 0, static_cast<int>(types.size()) - 1))];
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

int64_t graph_input_bytes(const OneOp& m) {
  int64_t total = 0;
  for (int32_t t : m.graph.main().inputs) total += bytes_of_tensor(m, t);
  return total;
}

// One op whose graph inputs are `graph_inputs` (the pair's input first
// unless `pair_input` says otherwise) and whose output is the pair's.
OneOp one_op(GraphBuilder& b, OpKind kind, const std::vector<int32_t>& inputs,
             const std::vector<int32_t>& graph_inputs, int32_t output, OpParams params, int32_t pair_input = -1) {
  b.add_op(kind, inputs, {output}, std::move(params));
  b.set_inputs(graph_inputs);
  b.set_outputs({output});
  OneOp m;
  m.input = pair_input >= 0 ? pair_input : graph_inputs.at(0);
  m.output = output;
  m.graph = b.finish();
  return m;
}

struct Case {
  OneOp op;
  std::string description;
  // The address-only policy loads 0 for every index (data it cannot see):
  // the lowest row, the worst an index can do, so O_s holds for any
  // indices but is only tight for indices that are all 0.
  bool tight = true;
};

// Indices that are all 0 half of the time, else random within `extent`.
std::vector<int32_t> random_indices(std::mt19937& rng, size_t count, const std::function<int(size_t)>& extent) {
  const bool zeros = pick(rng, 0, 1) == 0;
  std::vector<int32_t> indices(count);
  for (size_t i = 0; i < count; ++i) indices[i] = zeros ? 0 : pick(rng, 0, extent(i) - 1);
  return indices;
}

bool all_zero(const std::vector<int32_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int32_t i) { return i == 0; });
}

// ------------------------------------------------------ random copying ops

Case resize_nearest_neighbor(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt16});
  const int n = pick(rng, 1, 2), h = pick(rng, 1, 5), w = pick(rng, 1, 5), c = pick(rng, 1, 4);
  const int oh = pick(rng, 1, 9), ow = pick(rng, 1, 9);
  const bool align = pick(rng, 0, 1) == 1, half = !align && pick(rng, 0, 1) == 1;
  GraphBuilder b("block_copy_overlap_test");
  const int32_t in = b.add_tensor("input", type, {n, h, w, c});
  const int32_t size = b.add_constant_values<int32_t>("size", DataType::kInt32, {2}, {oh, ow});
  const int32_t out = b.add_tensor("output", type, {n, oh, ow, c});
  return {one_op(b, OpKind::kResizeNearestNeighbor, {in, size}, {in}, out, ResizeNearestNeighborParams{align, half}),
          fmt::format("RESIZE_NEAREST_NEIGHBOR {} {}x{}x{}x{} -> {}x{} align {} half {}", data_type_name(type), n, h, w,
                      c, oh, ow, align, half)};
}

Case concatenation(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt16, DataType::kInt32});
  const int rank = pick(rng, 1, 3), count = pick(rng, 1, 3);
  const int axis = pick(rng, 0, rank - 1);
  Shape shape(static_cast<size_t>(rank));
  for (auto& d : shape) d = pick(rng, 1, 4);
  GraphBuilder b("block_copy_overlap_test");
  std::vector<int32_t> inputs;
  int32_t extent = 0;
  std::string extents;
  for (int i = 0; i < count; ++i) {
    Shape s = shape;
    s[static_cast<size_t>(axis)] = pick(rng, 1, 4);
    extent += s[static_cast<size_t>(axis)];
    extents += fmt::format(" {}", s[static_cast<size_t>(axis)]);
    inputs.push_back(b.add_tensor(fmt::format("input{}", i), type, s));
  }
  Shape out_shape = shape;
  out_shape[static_cast<size_t>(axis)] = extent;
  const int32_t out = b.add_tensor("output", type, out_shape);
  const int which = pick(rng, 0, count - 1);
  return {one_op(b, OpKind::kConcatenation, inputs, inputs, out, ConcatenationParams{axis, Activation::kNone},
                 inputs[static_cast<size_t>(which)]),
          fmt::format("CONCATENATION {} rank {} axis {} extents{} pair input {}", data_type_name(type), rank, axis,
                      extents, which)};
}

Case gather(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8});
  const Shape params = {pick(rng, 1, 4), pick(rng, 1, 4), pick(rng, 1, 4)};
  const int axis = pick(rng, 0, 2), positions = pick(rng, 1, 5);
  const std::vector<int32_t> indices = random_indices(rng, static_cast<size_t>(positions),
                                                      [&](size_t) { return params[static_cast<size_t>(axis)]; });
  Shape out = params;
  out[static_cast<size_t>(axis)] = positions;
  GraphBuilder b("block_copy_overlap_test");
  const int32_t in = b.add_tensor("params", type, params);
  const int32_t idx = b.add_constant_values<int32_t>("indices", DataType::kInt32, {positions}, indices);
  const int32_t o = b.add_tensor("output", type, out);
  return {one_op(b, OpKind::kGather, {in, idx}, {in}, o, GatherParams{axis, 0}),
          fmt::format("GATHER {} {}x{}x{} axis {} {} positions", data_type_name(type), params[0], params[1], params[2],
                      axis, positions),
          all_zero(indices)};
}

Case gather_nd(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8});
  const Shape params = {pick(rng, 1, 4), pick(rng, 1, 4), pick(rng, 1, 4)};
  const int depth = pick(rng, 1, 2), coordinates = pick(rng, 1, 5);
  const std::vector<int32_t> indices =
      random_indices(rng, static_cast<size_t>(coordinates * depth),
                     [&](size_t i) { return params[i % static_cast<size_t>(depth)]; });
  Shape out = {coordinates};
  for (size_t d = static_cast<size_t>(depth); d < params.size(); ++d) out.push_back(params[d]);
  GraphBuilder b("block_copy_overlap_test");
  const int32_t in = b.add_tensor("params", type, params);
  const int32_t idx = b.add_constant_values<int32_t>("indices", DataType::kInt32, {coordinates, depth}, indices);
  const int32_t o = b.add_tensor("output", type, out);
  return {one_op(b, OpKind::kGatherNd, {in, idx}, {in}, o, NoParams{}),
          fmt::format("GATHER_ND {} {}x{}x{} depth {} {} coordinates", data_type_name(type), params[0], params[1],
                      params[2], depth, coordinates),
          all_zero(indices)};
}

// Unit inner stride: TFLM copies each inner run with one memcpy.
Case strided_slice(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt16});
  const int rank = pick(rng, 2, 3);
  Shape in(static_cast<size_t>(rank)), out(static_cast<size_t>(rank));
  std::vector<int32_t> begin, end, strides;
  for (int d = 0; d < rank; ++d) {
    const int extent = pick(rng, 1, 6);
    const int stride = d == rank - 1 ? 1 : pick(rng, 1, 2);
    const int first = pick(rng, 0, extent - 1), last = pick(rng, first + 1, extent);
    in[static_cast<size_t>(d)] = extent;
    out[static_cast<size_t>(d)] = (last - first + stride - 1) / stride;
    begin.push_back(first);
    end.push_back(last);
    strides.push_back(stride);
  }
  GraphBuilder b("block_copy_overlap_test");
  const int32_t i = b.add_tensor("input", type, in);
  const int32_t b_t = b.add_constant_values<int32_t>("begin", DataType::kInt32, {rank}, begin);
  const int32_t e_t = b.add_constant_values<int32_t>("end", DataType::kInt32, {rank}, end);
  const int32_t s_t = b.add_constant_values<int32_t>("strides", DataType::kInt32, {rank}, strides);
  const int32_t o = b.add_tensor("output", type, out);
  std::string what = fmt::format("STRIDED_SLICE {}", data_type_name(type));
  for (int d = 0; d < rank; ++d) {
    what += fmt::format(" [{}:{}:{} of {}]", begin[static_cast<size_t>(d)], end[static_cast<size_t>(d)],
                        strides[static_cast<size_t>(d)], in[static_cast<size_t>(d)]);
  }
  return {one_op(b, OpKind::kStridedSlice, {i, b_t, e_t, s_t}, {i}, o, StridedSliceParams{}), what};
}

Case tile(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt32});
  const int rank = pick(rng, 1, 3);
  Shape in(static_cast<size_t>(rank)), out(static_cast<size_t>(rank));
  std::vector<int32_t> multipliers;
  for (int d = 0; d < rank; ++d) {
    in[static_cast<size_t>(d)] = pick(rng, 1, 4);
    multipliers.push_back(pick(rng, 1, 3));
    out[static_cast<size_t>(d)] = in[static_cast<size_t>(d)] * multipliers.back();
  }
  GraphBuilder b("block_copy_overlap_test");
  const int32_t i = b.add_tensor("input", type, in);
  const int32_t m = b.add_constant_values<int32_t>("multipliers", DataType::kInt32, {rank}, multipliers);
  const int32_t o = b.add_tensor("output", type, out);
  std::string what = fmt::format("TILE {}", data_type_name(type));
  for (int d = 0; d < rank; ++d) what += fmt::format(" {}x{}", in[static_cast<size_t>(d)], multipliers[static_cast<size_t>(d)]);
  return {one_op(b, OpKind::kTile, {i, m}, {i}, o, NoParams{}), what};
}

// A run of axes with axes after it: one memcpy per reversed run.
Case reverse(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt16});
  const int rank = pick(rng, 2, 4);
  Shape shape(static_cast<size_t>(rank));
  for (auto& d : shape) d = pick(rng, 1, 4);
  const int first = pick(rng, 0, rank - 2), last = pick(rng, first, rank - 2);
  std::vector<int32_t> axes;
  for (int a = first; a <= last; ++a) axes.push_back(a);
  GraphBuilder b("block_copy_overlap_test");
  const int32_t i = b.add_tensor("input", type, shape);
  const int32_t a = b.add_constant_values<int32_t>("axis", DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int32_t o = b.add_tensor("output", type, shape);
  std::string what = fmt::format("REVERSE_V2 {} axes {}..{} of", data_type_name(type), first, last);
  for (int32_t d : shape) what += fmt::format(" {}", d);
  return {one_op(b, OpKind::kReverseV2, {i, a}, {i}, o, NoParams{}), what};
}

Case space_to_batch(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8});
  const int bh = pick(rng, 1, 3), bw = pick(rng, 1, 3), n = pick(rng, 1, 2), c = pick(rng, 1, 3);
  const int top = pick(rng, 0, 2), left = pick(rng, 0, 2);
  const int oh = pick(rng, 1, 3), ow = pick(rng, 1, 3);
  // Padded extents that the blocks divide, the input at least one row and column.
  const int padded_h = std::max(oh * bh, top + 1), padded_w = std::max(ow * bw, left + 1);
  const int ph = (padded_h + bh - 1) / bh * bh, pw = (padded_w + bw - 1) / bw * bw;
  const int h = pick(rng, 1, ph - top), w = pick(rng, 1, pw - left);
  const int bottom = ph - top - h, right = pw - left - w;
  GraphBuilder b("block_copy_overlap_test");
  const Quantization q = type == DataType::kInt8 ? test::per_tensor(1.0f, 0) : Quantization{};
  const int32_t i = b.add_tensor("input", type, {n, h, w, c}, q);
  const int32_t block = b.add_constant_values<int32_t>("block", DataType::kInt32, {2}, {bh, bw});
  const int32_t pads = b.add_constant_values<int32_t>("paddings", DataType::kInt32, {2, 2}, {top, bottom, left, right});
  const int32_t o = b.add_tensor("output", type, {n * bh * bw, ph / bh, pw / bw, c}, q);
  return {one_op(b, OpKind::kSpaceToBatchNd, {i, block, pads}, {i}, o, NoParams{}),
          fmt::format("SPACE_TO_BATCH_ND {} {}x{}x{}x{} block {}x{} pads {} {} {} {}", data_type_name(type), n, h, w, c,
                      bh, bw, top, bottom, left, right)};
}

Case batch_to_space(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8});
  const int bh = pick(rng, 1, 3), bw = pick(rng, 1, 3), n = pick(rng, 1, 2), c = pick(rng, 1, 3);
  const int h = pick(rng, 1, 3), w = pick(rng, 1, 3);
  const int crop_top = pick(rng, 0, h * bh - 1), crop_bottom = pick(rng, 0, h * bh - 1 - crop_top);
  const int crop_left = pick(rng, 0, w * bw - 1), crop_right = pick(rng, 0, w * bw - 1 - crop_left);
  GraphBuilder b("block_copy_overlap_test");
  const Quantization q = type == DataType::kInt8 ? test::per_tensor(1.0f, 0) : Quantization{};
  const int32_t i = b.add_tensor("input", type, {n * bh * bw, h, w, c}, q);
  const int32_t block = b.add_constant_values<int32_t>("block", DataType::kInt32, {2}, {bh, bw});
  const int32_t crops =
      b.add_constant_values<int32_t>("crops", DataType::kInt32, {2, 2}, {crop_top, crop_bottom, crop_left, crop_right});
  const int32_t o = b.add_tensor("output", type,
                                 {n, h * bh - crop_top - crop_bottom, w * bw - crop_left - crop_right, c}, q);
  return {one_op(b, OpKind::kBatchToSpaceNd, {i, block, crops}, {i}, o, NoParams{}),
          fmt::format("BATCH_TO_SPACE_ND {} {}x{}x{}x{} block {}x{} crops {} {} {} {}", data_type_name(type),
                      n * bh * bw, h, w, c, bh, bw, crop_top, crop_bottom, crop_left, crop_right)};
}

Case reshape(std::mt19937& rng) {
  const DataType type = pick_type(rng, {DataType::kFloat32, DataType::kInt8, DataType::kInt16});
  const int a = pick(rng, 1, 5), c = pick(rng, 1, 5);
  GraphBuilder b("block_copy_overlap_test");
  const int32_t i = b.add_tensor("input", type, {a, c});
  const int32_t o = b.add_tensor("output", type, {a * c});
  return {one_op(b, OpKind::kReshape, {i}, {i}, o, ReshapeParams{}),
          fmt::format("RESHAPE {} {}x{}", data_type_name(type), a, c)};
}

struct Kernel {
  const char* name;
  std::function<Case(std::mt19937&)> make;
};

const std::vector<Kernel> kCopyingKernels = {
    {"RESIZE_NEAREST_NEIGHBOR", resize_nearest_neighbor},
    {"CONCATENATION", concatenation},
    {"GATHER", gather},
    {"GATHER_ND", gather_nd},
    {"STRIDED_SLICE", strided_slice},
    {"TILE", tile},
    {"REVERSE_V2", reverse},
    {"SPACE_TO_BATCH_ND", space_to_batch},
    {"BATCH_TO_SPACE_ND", batch_to_space},
    {"RESHAPE", reshape},
};

// The two facts O_s stands for, with the checking policy as the judge.
// Returns whether the clobber one byte further could be placed.
bool expect_exact(const Case& c, std::mt19937& rng) {
  SCOPED_TRACE(c.description);
  const OneOp& m = c.op;
  const int64_t os = addresses(m).safe_overlap();
  const std::vector<uint8_t> input = random_bytes(rng, graph_input_bytes(m));
  EXPECT_FALSE(clobbers_at_overlap(m, os, input)) << "O_s " << os;
  if (!c.tight || os + 1 > std::min(bytes_of_tensor(m, m.output), bytes_of_tensor(m, m.input))) return false;
  EXPECT_TRUE(clobbers_at_overlap(m, os + 1, input)) << "O_s " << os << " + 1 byte";
  return true;
}

TEST(BlockCopyOverlap, EveryCopyingKernelIsExactAtItsSafeOverlapOnRandomShapes) {
  std::mt19937 rng(20261201);
  for (const Kernel& kernel : kCopyingKernels) {
    int beyond = 0, positive = 0;
    for (int trial = 0; trial < 40; ++trial) {
      const Case c = kernel.make(rng);
      positive += addresses(c.op).safe_overlap() > 0;
      beyond += expect_exact(c, rng);
      if (::testing::Test::HasFailure()) return;
    }
    std::printf("[ copies   ] %-24s 40 shapes: O_s > 0 in %d, a clobber one byte beyond checked in %d\n", kernel.name,
                positive, beyond);
    // Every kernel but the whole-tensor copy gets overlaps on some shapes.
    if (std::string(kernel.name) != "RESHAPE") {
      EXPECT_GT(positive, 0) << kernel.name;
    }
    EXPECT_GT(beyond, 0) << kernel.name;
  }
}

// CONCATENATION's closed form is its kernel's exact value.
TEST(BlockCopyOverlap, ConcatenationClosedFormEqualsTheKernel) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const Case c = concatenation(rng);
    SCOPED_TRACE(c.description);
    const AnalyticOverlap analytic = analytic_safe_overlap(c.op.graph.main(), 0, c.op.input, c.op.output);
    ASSERT_TRUE(analytic.bytes.has_value()) << analytic.rule;
    EXPECT_EQ(*analytic.bytes, addresses(c.op).safe_overlap());
  }
}

// RESIZE_NEAREST_NEIGHBOR upsampling 2x2 -> 4x4, float, depth 3: output
// pixel p = (y, x) copies 12 bytes from input pixel q = (y/2, x/2). Copy p
// may write up to output byte 12p + 12 before reading input byte 12q; the
// worst is the last, p = 15 from q = 3: 192 - 36 = 156 bytes, so the 192-byte
// output may overlap the input by 192 - 156 = 36 bytes (0 before copies
// were folded in their worst order).
TEST(BlockCopyOverlap, UpsamplingReadsAheadOfItsWrites) {
  GraphBuilder b("block_copy_overlap_test");
  const int32_t in = b.add_tensor("input", DataType::kFloat32, {1, 2, 2, 3});
  const int32_t size = b.add_constant_values<int32_t>("size", DataType::kInt32, {2}, {4, 4});
  const int32_t out = b.add_tensor("output", DataType::kFloat32, {1, 4, 4, 3});
  const OneOp m = one_op(b, OpKind::kResizeNearestNeighbor, {in, size}, {in}, out, ResizeNearestNeighborParams{});
  const int64_t os = addresses(m).safe_overlap();
  EXPECT_EQ(os, 36);
  std::mt19937 rng(3);
  const std::vector<uint8_t> input = random_bytes(rng, 48);
  EXPECT_FALSE(clobbers_at_overlap(m, 36, input));
  EXPECT_TRUE(clobbers_at_overlap(m, 37, input));
  EXPECT_TRUE(clobbers_at_overlap(m, 40, input));
}

}  // namespace
}  // namespace dmo
