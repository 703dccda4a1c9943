// Operation splitting: receptive fields by hand, stage checks, and chains
// of random windowed ops run tile by tile with their intermediates in band
// buffers: the outputs bit-identical to the unsplit run, the checked run
// clean inside dmo's plan, the MAC counts equal to an independent count,
// and the check value of uint8 MobileNet v1 0.25 128.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "dmo/error.h"
#include "dmo/ops/padding.h"
#include "dmo/overlap/stage_overlaps.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/plan/bounds.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/transform/receptive_field.h"
#include "dmo/transform/split_macs.h"
#include "dmo/transform/split_schedule.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

IndexRange rows(int32_t begin, int32_t end) { return {begin, end}; }

void expect_rows(IndexRange got, IndexRange want) {
  EXPECT_EQ(got.begin, want.begin);
  EXPECT_EQ(got.end, want.end);
}

// A window built from the op parameters the way TFLite pads.
AxisWindow window(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int32_t out = window_output_size(padding, in, filter, stride, dilation);
  return {in, out, filter, stride, dilation, window_padding_before(in, filter, stride, dilation, out)};
}

TEST(ReceptiveField, ThreeByThreeSameStrideOne) {
  // pad 1: output row y reads y-1 .. y+1.
  const AxisWindow w = window(Padding::kSame, 8, 3, 1, 1);
  EXPECT_EQ(w.pad_before, 1);
  expect_rows(input_range(w, rows(2, 4)), rows(1, 5));
  expect_rows(input_range(w, rows(0, 1)), rows(0, 2));  // row -1 is padding
  expect_rows(input_range(w, rows(7, 8)), rows(6, 8));  // row 8 is padding
}

TEST(ReceptiveField, ThreeByThreeSameStrideTwoPadsOnlyAfter) {
  // 64 -> 32: total padding (32-1)*2+3-64 = 1, none before.
  const AxisWindow w = window(Padding::kSame, 64, 3, 2, 1);
  EXPECT_EQ(w.output_extent, 32);
  EXPECT_EQ(w.pad_before, 0);
  expect_rows(input_range(w, rows(0, 8)), rows(0, 17));    // 7*2+2 = 16
  expect_rows(input_range(w, rows(8, 16)), rows(16, 33));  // 15*2+2 = 32
  expect_rows(input_range(w, rows(24, 32)), rows(48, 64)); // 31*2+2 = 64, clipped
}

TEST(ReceptiveField, DilatedValid) {
  // 5 taps 2 apart span 9 rows: 12 -> 4 rows, output row y reads y .. y+8.
  const AxisWindow w = window(Padding::kValid, 12, 5, 1, 2);
  EXPECT_EQ(w.output_extent, 4);
  expect_rows(input_range(w, rows(1, 3)), rows(1, 11));
}

TEST(ReceptiveField, PoolTwoByTwoStrideTwoValid) {
  const AxisWindow w = window(Padding::kValid, 9, 2, 2, 1);
  EXPECT_EQ(w.output_extent, 4);
  expect_rows(input_range(w, rows(3, 4)), rows(6, 8));  // row 8 is never read
}

TEST(ReceptiveField, FiveByFiveSameClipsAtTheTop) {
  const AxisWindow w = window(Padding::kSame, 10, 5, 1, 1);
  EXPECT_EQ(w.pad_before, 2);
  expect_rows(input_range(w, rows(0, 1)), rows(0, 3));
}

TEST(ReceptiveField, RowPreservingOpsReadTheirOwnRows) {
  expect_rows(input_range(element_wise_window(6), rows(3, 5)), rows(3, 5));
  GraphBuilder b("relu");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 6, 2, 3});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 6, 2, 3});
  b.add_op(OpKind::kRelu, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const Graph g = b.finish();
  const std::optional<AxisWindow> w = row_window(g.main(), 0);
  ASSERT_TRUE(w);
  expect_rows(input_range(*w, rows(1, 4)), rows(1, 4));
}

TEST(ReceptiveField, InputRangeIsTheSpanOfEveryTapInsideTheInput) {
  // Against every tap of every row, on random windows and bands.
  std::mt19937 rng(20261203);
  auto pick = [&](int32_t low, int32_t high) { return std::uniform_int_distribution<int32_t>(low, high)(rng); };
  for (int trial = 0; trial < 20000; ++trial) {
    AxisWindow w;
    w.input_extent = pick(1, 40);
    w.output_extent = pick(1, 40);
    w.filter_size = pick(1, 7);
    w.stride = pick(1, 4);
    w.dilation = pick(1, 4);
    w.pad_before = pick(0, 8);
    const int32_t begin = pick(0, w.output_extent), end = pick(begin, w.output_extent);
    SCOPED_TRACE(::testing::Message() << "extent " << w.input_extent << " filter " << w.filter_size << " stride "
                                      << w.stride << " dilation " << w.dilation << " pad " << w.pad_before
                                      << " rows " << begin << ".." << end);
    int64_t lowest = w.input_extent, highest = -1;
    for (int32_t y = begin; y < end; ++y) {
      for (int32_t k = 0; k < w.filter_size; ++k) {
        const int64_t row = int64_t{y} * w.stride - w.pad_before + int64_t{k} * w.dilation;
        if (row < 0 || row >= w.input_extent) continue;
        lowest = std::min(lowest, row);
        highest = std::max(highest, row);
      }
    }
    const IndexRange got = input_range(w, rows(begin, end));
    if (highest < lowest) {
      expect_rows(got, rows(0, 0));
    } else {
      expect_rows(got, rows(static_cast<int32_t>(lowest), static_cast<int32_t>(highest + 1)));
    }
    if (::testing::Test::HasFailure()) break;
  }
}

// ---------------------------------------------------------------- chains

enum class Kind { kConv, kDepthwise, kAveragePool, kMaxPool };

struct ChainOp {
  Kind kind = Kind::kConv;
  int32_t filter = 1, stride = 1, dilation = 1;
  Padding padding = Padding::kSame;
  int32_t out_channels = 1;
};

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

// input -> 1x1 conv (not split) -> the chain (ops 1..n) -> 2x2 max pool
// (not split) -> output, float32 with random weights, `batch` images.
Graph chain_graph(const std::vector<ChainOp>& chain, int32_t height, int32_t width, int32_t channels,
                  std::mt19937& rng, int32_t batch = 1) {
  GraphBuilder b("chain");
  auto activation = [&](const std::string& name, const Shape& shape) {
    return b.add_tensor(name, DataType::kFloat32, shape);
  };
  auto conv = [&](int32_t in, const Shape& in_shape, const ChainOp& op, const std::string& name) {
    const int32_t out_h = window_output_size(op.padding, in_shape[1], op.filter, op.stride, op.dilation);
    const int32_t out_w = window_output_size(op.padding, in_shape[2], op.filter, op.stride, op.dilation);
    Shape out_shape;
    if (op.kind == Kind::kConv) {
      out_shape = {batch, out_h, out_w, op.out_channels};
      const Shape filter = {op.out_channels, op.filter, op.filter, in_shape[3]};
      const int32_t weights = b.add_constant_values(
          name + "_w", DataType::kFloat32, filter,
          random_floats(static_cast<size_t>(op.out_channels * op.filter * op.filter * in_shape[3]), rng));
      const int32_t bias = b.add_constant_values(name + "_b", DataType::kFloat32, {op.out_channels},
                                                 random_floats(static_cast<size_t>(op.out_channels), rng));
      const int32_t out = activation(name, out_shape);
      b.add_op(OpKind::kConv2D, {in, weights, bias}, {out},
               Conv2DParams{op.padding, op.stride, op.stride, op.dilation, op.dilation, Activation::kNone});
      return std::make_pair(out, out_shape);
    }
    if (op.kind == Kind::kDepthwise) {
      out_shape = {batch, out_h, out_w, in_shape[3]};
      const int32_t weights = b.add_constant_values(
          name + "_w", DataType::kFloat32, {1, op.filter, op.filter, in_shape[3]},
          random_floats(static_cast<size_t>(op.filter * op.filter * in_shape[3]), rng));
      const int32_t bias = b.add_constant_values(name + "_b", DataType::kFloat32, {in_shape[3]},
                                                 random_floats(static_cast<size_t>(in_shape[3]), rng));
      const int32_t out = activation(name, out_shape);
      b.add_op(OpKind::kDepthwiseConv2D, {in, weights, bias}, {out},
               DepthwiseConv2DParams{op.padding, op.stride, op.stride, 1, op.dilation, op.dilation,
                                     Activation::kRelu6});
      return std::make_pair(out, out_shape);
    }
    out_shape = {batch, out_h, out_w, in_shape[3]};
    const int32_t out = activation(name, out_shape);
    b.add_op(op.kind == Kind::kAveragePool ? OpKind::kAveragePool2D : OpKind::kMaxPool2D, {in}, {out},
             Pool2DParams{op.padding, op.stride, op.stride, op.filter, op.filter, Activation::kNone});
    return std::make_pair(out, out_shape);
  };
  Shape shape = {batch, height, width, channels};
  int32_t tensor = activation("input", shape);
  b.set_inputs({tensor});
  std::tie(tensor, shape) = conv(tensor, shape, ChainOp{Kind::kConv, 1, 1, 1, Padding::kSame, channels}, "head");
  for (size_t i = 0; i < chain.size(); ++i) {
    std::tie(tensor, shape) = conv(tensor, shape, chain[i], fmt::format("t{}", i));
  }
  const Padding tail_padding = shape[1] >= 2 && shape[2] >= 2 ? Padding::kValid : Padding::kSame;
  std::tie(tensor, shape) = conv(tensor, shape, ChainOp{Kind::kMaxPool, 2, 2, 1, tail_padding, 0}, "tail");
  b.set_outputs({tensor});
  return b.finish();
}

// A random chain of 1..3 ops whose rows and columns never fall below 2.
std::vector<ChainOp> random_chain(int32_t height, int32_t width, std::mt19937& rng) {
  auto pick = [&](int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); };
  std::vector<ChainOp> chain;
  const int32_t length = pick(1, 3);
  int32_t rows = height, cols = width;
  for (int32_t i = 0; i < length; ++i) {
    ChainOp op;
    op.kind = static_cast<Kind>(pick(0, 3));
    const bool pool = op.kind == Kind::kAveragePool || op.kind == Kind::kMaxPool;
    op.filter = pool ? pick(1, 3) : pick(1, 5);
    op.stride = pick(1, 2);
    op.dilation = pool ? 1 : pick(1, 2);
    op.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
    op.out_channels = pick(1, 4);
    if (op.padding == Padding::kValid && dilated_filter_size(op.filter, op.dilation) > std::min(rows, cols)) {
      op.padding = Padding::kSame;
    }
    const int32_t next_rows = window_output_size(op.padding, rows, op.filter, op.stride, op.dilation);
    const int32_t next_cols = window_output_size(op.padding, cols, op.filter, op.stride, op.dilation);
    if (next_rows < 2 || next_cols < 2) break;
    rows = next_rows;
    cols = next_cols;
    chain.push_back(op);
  }
  if (chain.empty()) chain.push_back(ChainOp{Kind::kDepthwise, 3, 1, 1, Padding::kSame, 1});
  return chain;
}

// An independent count: the rows (dim 1) or columns (dim 2) each op of the
// stage computes per band of tiles along that axis, found by marking every
// input row (column) each window tap touches, last op first.
std::vector<std::vector<IndexRange>> marked_ranges(const Subgraph& sg, const SplitStage& stage, size_t dim) {
  const int32_t n = stage.last_op - stage.first_op + 1;
  const Shape& last = sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(stage.last_op)].outputs[0])].shape;
  const int32_t parts = dim == 1 ? stage.tiles : stage.column_tiles;
  const bool rows = dim == 1;
  std::vector<std::vector<IndexRange>> tiles;
  for (int32_t tile = 0; tile < parts; ++tile) {
    std::vector<IndexRange> per_op(static_cast<size_t>(n));
    // As even as possible: the first extent % parts parts one longer.
    const int32_t base = last[dim] / parts, longer = last[dim] % parts;
    const int32_t begin = tile * base + std::min(tile, longer);
    per_op.back() = {begin, begin + base + (tile < longer ? 1 : 0)};
    for (int32_t k = n - 1; k > 0; --k) {
      const Op& op = sg.ops[static_cast<size_t>(stage.first_op + k)];
      const Shape& in = sg.tensors[static_cast<size_t>(op.inputs[0])].shape;
      const Shape& out = sg.tensors[static_cast<size_t>(op.outputs[0])].shape;
      int32_t filter = 1, stride = 1, dilation = 1;
      if (const auto* c = std::get_if<Conv2DParams>(&op.params)) {
        filter = sg.tensors[static_cast<size_t>(op.inputs[1])].shape[dim];
        stride = rows ? c->stride_h : c->stride_w, dilation = rows ? c->dilation_h : c->dilation_w;
      } else if (const auto* d = std::get_if<DepthwiseConv2DParams>(&op.params)) {
        filter = sg.tensors[static_cast<size_t>(op.inputs[1])].shape[dim];
        stride = rows ? d->stride_h : d->stride_w, dilation = rows ? d->dilation_h : d->dilation_w;
      } else if (const auto* p = std::get_if<Pool2DParams>(&op.params)) {
        filter = rows ? p->filter_h : p->filter_w, stride = rows ? p->stride_h : p->stride_w;
      }
      // TFLite's before padding: half the total, rounded down.
      const int32_t total = std::max((out[dim] - 1) * stride + (filter - 1) * dilation + 1 - in[dim], 0);
      std::vector<char> read(static_cast<size_t>(in[dim]), 0);
      for (int32_t y = per_op[static_cast<size_t>(k)].begin; y < per_op[static_cast<size_t>(k)].end; ++y) {
        for (int32_t tap = 0; tap < filter; ++tap) {
          const int32_t at = y * stride - total / 2 + tap * dilation;
          if (at >= 0 && at < in[dim]) read[static_cast<size_t>(at)] = 1;
        }
      }
      const auto first = std::find(read.begin(), read.end(), 1) - read.begin();
      const auto last_read = read.rend() - std::find(read.rbegin(), read.rend(), 1);
      per_op[static_cast<size_t>(k - 1)] = {static_cast<int32_t>(first), static_cast<int32_t>(last_read)};
    }
    tiles.push_back(per_op);
  }
  return tiles;
}

// MACs of one output element, from the shapes: window taps x input depth (conv).
int64_t macs_per_element(const Subgraph& sg, int32_t op_index) {
  const Op& op = sg.ops[static_cast<size_t>(op_index)];
  if (op.is(OpKind::kConv2D) || op.is(OpKind::kDepthwiseConv2D)) {
    const Shape& f = sg.tensors[static_cast<size_t>(op.inputs[1])].shape;
    return int64_t{f[1]} * f[2] * (op.is(OpKind::kConv2D) ? f[3] : 1);
  }
  const auto& p = std::get<Pool2DParams>(op.params);
  return int64_t{p.filter_h} * p.filter_w;
}

// Output elements each op of the stage writes, over every step of the
// schedule, counted by the address-only policy.
std::vector<int64_t> written_elements(const Graph& graph, const Schedule& schedule, const SplitStage& stage) {
  const Subgraph& sg = graph.main();
  const Interpreter interpreter(graph, unshared_placement(sg), schedule);
  std::vector<int64_t> writes;
  for (int32_t op = stage.first_op; op <= stage.last_op; ++op) {
    const Op& o = sg.ops[static_cast<size_t>(op)];
    const Tensor& in = sg.tensors[static_cast<size_t>(o.inputs[0])];
    const Tensor& out = sg.tensors[static_cast<size_t>(o.outputs[0])];
    AddressMemory memory(o.inputs[0], o.outputs[0], in.byte_size, out.byte_size);
    interpreter.run_address_only(memory);
    writes.push_back(memory.writes());
  }
  return writes;
}

std::vector<uint8_t> unsplit_outputs(const Graph& graph, const std::vector<uint8_t>& input) {
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.outputs();
}

// A random chain_graph whose chain (ops 1..n) is one stage of a random
// number of tiles, every other round cut into a random number of column
// tiles too; every fifth round with two images, each image's band
// following the other's.
struct RandomStage {
  Graph graph;
  SplitStage stage;
  int32_t last_rows = 0;
  int32_t last_cols = 0;
};

RandomStage random_stage(std::mt19937& rng, int round) {
  auto pick = [&](int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); };
  const int32_t height = pick(6, 20), width = pick(3, 6), channels = pick(1, 3);
  const std::vector<ChainOp> chain = random_chain(height, width, rng);
  RandomStage r{chain_graph(chain, height, width, channels, rng, round % 5 == 0 ? 2 : 1),
                SplitStage{1, static_cast<int32_t>(chain.size()), SplitAxis::kHeight, 1}};
  const Subgraph& sg = r.graph.main();
  const Shape& last = sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(r.stage.last_op)].outputs[0])].shape;
  r.last_rows = last[1];
  r.last_cols = last[2];
  r.stage.tiles = pick(1, r.last_rows);
  if (round % 2 == 1) r.stage.column_tiles = pick(1, r.last_cols);
  return r;
}

TEST(SplitChains, RandomChainsTileBitIdenticallyInsideTheirPlan) {
  std::mt19937 rng(20261201);
  int32_t banded_stages = 0, patched_stages = 0;
  for (int round = 0; round < 200; ++round) {
    const RandomStage random = random_stage(rng, round);
    const Graph& graph = random.graph;
    const Subgraph& sg = graph.main();
    const SplitStage stage = random.stage;
    const int32_t last_rows = random.last_rows;
    SCOPED_TRACE(::testing::Message() << "round " << round << ": ops 1-" << stage.last_op << ", " << stage.tiles
                                      << " x " << stage.column_tiles << " tiles of " << last_rows << " x "
                                      << random.last_cols);
    banded_stages += stage.last_op > 1;
    patched_stages += stage.last_op > 1 && stage.column_tiles > 1;

    // The tiling follows the marked receptive fields: tiles run band of
    // rows after band of rows, left to right (whole rows without column tiles).
    const StageTiling tiling = tile_stage(graph, stage);
    ASSERT_EQ(tiling.rows.size(), static_cast<size_t>(stage.tiles * stage.column_tiles));
    const auto marked_rows = marked_ranges(sg, stage, 1);
    const auto marked_cols = marked_ranges(sg, stage, 2);
    for (int32_t tile = 0; tile < stage.tile_count(); ++tile) {
      for (int32_t k = 0; k < tiling.op_count(); ++k) {
        const IndexRange got = tiling.rows[static_cast<size_t>(tile)][static_cast<size_t>(k)];
        const IndexRange want = marked_rows[static_cast<size_t>(tile / stage.column_tiles)][static_cast<size_t>(k)];
        ASSERT_EQ(got.begin, want.begin) << "tile " << tile << " op " << stage.first_op + k;
        ASSERT_EQ(got.end, want.end) << "tile " << tile << " op " << stage.first_op + k;
        if (stage.column_tiles == 1) continue;
        const IndexRange got_cols = tiling.cols[static_cast<size_t>(tile)][static_cast<size_t>(k)];
        const IndexRange want_cols = marked_cols[static_cast<size_t>(tile % stage.column_tiles)][static_cast<size_t>(k)];
        ASSERT_EQ(got_cols.begin, want_cols.begin) << "tile " << tile << " op " << stage.first_op + k;
        ASSERT_EQ(got_cols.end, want_cols.end) << "tile " << tile << " op " << stage.first_op + k;
      }
    }

    // Unshared, then inside dmo's plan of the split schedule with every
    // arena byte checked: the unsplit run's output bytes.
    const std::vector<uint8_t> input = pattern_input(sg, static_cast<uint32_t>(round + 1));
    const std::vector<uint8_t> want = unsplit_outputs(graph, input);
    const Schedule schedule = split_schedule(graph, {stage});
    {
      Interpreter split(graph, unshared_placement(sg), schedule);
      split.set_inputs(input);
      split.run();
      ASSERT_EQ(split.outputs(), want);
    }
    PlanOptions options;
    options.split = {stage};
    const PlanResult plan = plan_model(graph, options);
    const VerifyResult verified = verify_placement(graph, dmo_placement(graph, plan), plan.schedule, input);
    ASSERT_TRUE(verified.clobbers.empty()) << describe_clobber(graph, verified.clobbers.front());
    ASSERT_TRUE(verified.outputs_identical());

    // MACs: rows the tiles write (counted by the address-only policy) times
    // each element's window, against the stage's count.
    const std::vector<int64_t> writes = written_elements(graph, schedule, stage);
    const StageMacs macs = stage_macs(graph, tiling);
    int64_t split_total = 0, unsplit_total = 0;
    for (int32_t k = 0; k < tiling.op_count(); ++k) {
      const int32_t op = stage.first_op + k;
      const int64_t elements = sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(op)].outputs[0])].element_count;
      EXPECT_EQ(macs.ops[static_cast<size_t>(k)].split, writes[static_cast<size_t>(k)] * macs_per_element(sg, op));
      EXPECT_EQ(macs.ops[static_cast<size_t>(k)].unsplit, elements * macs_per_element(sg, op));
      split_total += writes[static_cast<size_t>(k)] * macs_per_element(sg, op);
      unsplit_total += elements * macs_per_element(sg, op);
    }
    EXPECT_EQ(macs.extra(), split_total - unsplit_total);
    EXPECT_EQ(plan.extra_macs(), split_total - unsplit_total);
  }
  EXPECT_GT(banded_stages, 60);   // chains of two or three ops, with band buffers
  EXPECT_GT(patched_stages, 20);  // of them, cut along the width too
}

// The placement with every tensor apart, except the stage's output, whose
// end lies `overlap` bytes over the start of the stage's input.
TensorPlacement stage_overlapping(const Subgraph& sg, const StageOverlap& s, int64_t overlap) {
  TensorPlacement placement = unshared_placement(sg);
  const int64_t output_at = placement.arena_size;
  placement.offsets[static_cast<size_t>(s.output)] = output_at;
  placement.offsets[static_cast<size_t>(s.input)] = output_at + s.output_bytes - overlap;
  placement.arena_size = output_at + s.output_bytes - overlap + s.input_bytes;
  return placement;
}

// A whole stage's O_s, from the address-only policy over its steps, is the
// tightest clean overlap: the checking policy finds its run clean, and one
// byte more a clobber of the input by a later tile; the validator agrees.
// Its closed form never exceeds it.
TEST(SplitChains, StageOverlapIsTheTightestCleanOverlapOnRandomChains) {
  std::mt19937 rng(20261202);
  int32_t tight_checked = 0, tight_patches_checked = 0;
  for (int round = 0; round < 250; ++round) {
    const RandomStage random = random_stage(rng, round);
    if (random.stage.last_op < 2) continue;  // a stage of one op has no band
    const Graph& graph = random.graph;
    const Subgraph& sg = graph.main();
    const SplitStage stage = random.stage;
    SCOPED_TRACE(::testing::Message() << "round " << round << ": ops 1-" << stage.last_op << ", " << stage.tiles
                                      << " x " << stage.column_tiles << " tiles of " << random.last_rows << " x "
                                      << random.last_cols);
    const Schedule schedule = split_schedule(graph, {stage});
    SafeOverlapOptions options;
    options.alignment = 1;
    const std::vector<StageOverlap> found = compute_stage_overlaps(graph, schedule, options, StageOverlapDepth::kLoopNests);
    ASSERT_EQ(found.size(), 1u);
    const StageOverlap& s = found[0];
    ASSERT_TRUE(s.input_dies);
    ASSERT_TRUE(s.analytic && s.algorithmic);
    EXPECT_LE(*s.analytic, *s.algorithmic);
    EXPECT_EQ(s.used_bytes, *s.algorithmic);
    const int64_t overlap = std::min(*s.algorithmic, s.input_bytes);

    const std::vector<uint8_t> input = pattern_input(sg, static_cast<uint32_t>(round + 1));
    const TensorPlacement clean = stage_overlapping(sg, s, overlap);
    const VerifyResult run = verify_placement(graph, clean, schedule, input);
    ASSERT_TRUE(run.clobbers.empty()) << describe_clobber(graph, run.clobbers.front());
    ASSERT_TRUE(run.outputs_identical());
    EXPECT_EQ(validate_placement(graph, clean, {}, KernelFamily::kTflmReference, {stage}), std::vector<std::string>{});
    if (overlap <= 0 || overlap >= s.output_bytes || overlap >= s.input_bytes) continue;
    ++tight_checked;
    tight_patches_checked += stage.column_tiles > 1;
    const TensorPlacement over = stage_overlapping(sg, s, overlap + 1);
    const VerifyResult bad = verify_placement(graph, over, schedule, input);
    ASSERT_FALSE(bad.clobbers.empty());
    EXPECT_EQ(bad.clobbers.front().tensor, s.input);
    EXPECT_FALSE(validate_placement(graph, over, {}, KernelFamily::kTflmReference, {stage}).empty());
  }
  EXPECT_GT(tight_checked, 30);
  EXPECT_GT(tight_patches_checked, 10);
}

TEST(SplitChains, BandBufferOverALiveTensorIsAClobber) {
  std::mt19937 rng(7);
  const Graph graph = chain_graph({ChainOp{Kind::kConv, 3, 1, 1, Padding::kSame, 2},
                                   ChainOp{Kind::kDepthwise, 3, 2, 1, Padding::kSame, 2}},
                                  12, 4, 2, rng);
  const Subgraph& sg = graph.main();
  const SplitStage stage{1, 2, SplitAxis::kHeight, 3};
  const Schedule schedule = split_schedule(graph, {stage});
  ASSERT_EQ(schedule.band_buffers.size(), 1u);
  const int32_t band = schedule.band_buffers[0].tensor;
  const int32_t stage_input = sg.ops[1].inputs[0];
  const std::vector<uint8_t> input = pattern_input(sg, 3);

  TensorPlacement clean = unshared_placement(sg);
  EXPECT_TRUE(verify_placement(graph, clean, schedule, input).ok());

  // The band over the stage's input, which later tiles still read.
  TensorPlacement bad = clean;
  bad.offsets[static_cast<size_t>(band)] = bad.offsets[static_cast<size_t>(stage_input)];
  const VerifyResult result = verify_placement(graph, bad, schedule, input);
  ASSERT_FALSE(result.clobbers.empty());
  EXPECT_EQ(result.clobbers.front().tensor, stage_input);
}

TEST(SplitChains, ABandTensorHasNoWholeContents) {
  std::mt19937 rng(11);
  const Graph graph = chain_graph({ChainOp{Kind::kConv, 1, 1, 1, Padding::kSame, 2},
                                   ChainOp{Kind::kAveragePool, 2, 2, 1, Padding::kValid, 2}},
                                  8, 4, 2, rng);
  const Schedule schedule = split_schedule(graph, {SplitStage{1, 2, SplitAxis::kHeight, 2}});
  Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  const int32_t band = schedule.band_buffers[0].tensor;
  EXPECT_NE(test::error_of([&] { interpreter.tensor_contents(band); }).find("held as a band of"), std::string::npos);
  EXPECT_NE(test::error_of([&] { interpreter.run_op(2); }).find("held as a band of"), std::string::npos);
}

// ------------------------------------------------- the check value

// REFERENCE.md section 4: uint8 MobileNet v1 0.25 128, the first pointwise
// conv (op 2: 64x64x8 -> 64x64x16) and the stride-2 depthwise conv (op 3:
// -> 32x32x16) split in four. Tiles of 8 output rows read intermediate rows
// [0,17) [16,33) [32,49) [48,64): bands of at most 17 rows, 17 x 64 x 16 =
// 17,408 B; 67 rows computed instead of 64: 3 x 64 x 16 = 3,072 elements
// computed twice; during the stage the conv's input (32,768 B), the band
// and the depthwise output (16,384 B) are live: 66,560 B, against 32,768 +
// 65,536 = 98,304 B unsplit.
TEST(SplitCheckValue, MobileNetV1Uint8FirstPointwiseAndStrideTwoDepthwise) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_uint8");
  const Subgraph& sg = graph.main();
  ASSERT_TRUE(sg.ops[2].is(OpKind::kConv2D));
  ASSERT_TRUE(sg.ops[3].is(OpKind::kDepthwiseConv2D));
  const SplitStage stage{2, 3, SplitAxis::kHeight, 4};
  const Schedule schedule = split_schedule(graph, {stage});
  ASSERT_EQ(schedule.band_buffers.size(), 1u);
  const Tensor& intermediate = sg.tensors[static_cast<size_t>(schedule.band_buffers[0].tensor)];
  EXPECT_EQ(schedule.band_buffers[0].rows, 17);
  EXPECT_EQ(band_bytes(intermediate, schedule.band_buffers[0]), 17408);

  const std::vector<int64_t> writes = written_elements(graph, schedule, stage);
  EXPECT_EQ(writes[0] - intermediate.element_count, 3072);
  const StageMacs macs = stage_macs(graph, tile_stage(graph, stage));
  EXPECT_EQ(macs.extra(), 3072 * 8);  // each recomputed element: a 1x1 conv over 8 channels

  // Peak live bytes over the stage's steps, unsplit and split.
  auto stage_peak = [&](const PlanResult& plan, int32_t first_time, int32_t end_time) {
    int64_t peak = 0;
    for (int32_t t = first_time; t < end_time; ++t) peak = std::max(peak, plan.live_bytes[static_cast<size_t>(t)]);
    return peak;
  };
  PlanOptions unsplit_options;
  unsplit_options.method = OverlapMethod::kNone;
  const PlanResult unsplit = plan_model(graph, unsplit_options);
  EXPECT_EQ(stage_peak(unsplit, 2, 4), 98304);
  PlanOptions split_options = unsplit_options;
  split_options.split = {stage};
  const PlanResult split = plan_model(graph, split_options);
  EXPECT_EQ(stage_peak(split, 2, 2 + 8), 66560);  // 4 tiles of 2 steps from step 2

  const std::vector<uint8_t> input = pattern_input(sg, 1);
  const VerifyResult verified = verify_placement(graph, dmo_placement(graph, split), split.schedule, input);
  EXPECT_TRUE(verified.ok()) << verified.describe(graph);
}

TEST(SplitStages, TilingMemoGivesTileStagesTilingOnceAndTheSameSchedule) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_uint8");
  StageTilingMemo memo(graph);
  const SplitStage rows{2, 3, SplitAxis::kHeight, 4};
  SplitStage patches = rows;
  patches.column_tiles = 2;
  const StageTiling& first = memo.tiling(rows);
  const StageTiling direct = tile_stage(graph, rows);
  EXPECT_EQ(first.band_rows, direct.band_rows);
  EXPECT_EQ(first.band_cols, direct.band_cols);
  EXPECT_EQ(first.rows.size(), direct.rows.size());
  EXPECT_EQ(&memo.tiling(rows), &first);       // worked out once
  EXPECT_NE(&memo.tiling(patches), &first);    // column tiles are another stage
  EXPECT_EQ(memo.tiling(patches).cols.size(), 8u);
  const Schedule with_memo = split_schedule(graph, {patches}, {}, &memo);
  const Schedule without = split_schedule(graph, {patches});
  ASSERT_EQ(with_memo.steps.size(), without.steps.size());
  for (size_t i = 0; i < without.steps.size(); ++i) {
    EXPECT_EQ(with_memo.steps[i].op, without.steps[i].op);
    EXPECT_EQ(with_memo.steps[i].region.row_begin, without.steps[i].region.row_begin);
    EXPECT_EQ(with_memo.steps[i].region.col_begin, without.steps[i].region.col_begin);
  }
  // A stage that is not a chain is refused through the memo as well.
  EXPECT_THROW(memo.tiling(SplitStage{2, 3, SplitAxis::kHeight, 1000}), Error);
}

// ------------------------------------------------------ bad stages

Graph branchy_graph() {
  // in -> conv A -> t1 -> conv B -> t2 -> ADD(t2, t1) -> out; FC elsewhere.
  GraphBuilder b("branchy");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 6, 6, 2});
  const int32_t w = b.add_constant_values("w", DataType::kFloat32, {2, 1, 1, 2}, std::vector<float>(4, 0.5f));
  const int32_t t1 = b.add_tensor("t1", DataType::kFloat32, {1, 6, 6, 2});
  const int32_t t2 = b.add_tensor("t2", DataType::kFloat32, {1, 6, 6, 2});
  const int32_t sum = b.add_tensor("sum", DataType::kFloat32, {1, 6, 6, 2});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 6, 6, 2});
  b.add_op(OpKind::kConv2D, {in, w}, {t1}, Conv2DParams{});
  b.add_op(OpKind::kConv2D, {t1, w}, {t2}, Conv2DParams{});
  b.add_op(OpKind::kAdd, {t2, t1}, {sum});
  b.add_op(OpKind::kConv2D, {in, w}, {out}, Conv2DParams{});
  b.set_inputs({in});
  b.set_outputs({sum, out});
  return b.finish();
}

TEST(SplitStages, BadStagesNameTheOpAndTheProblem) {
  const Graph g = branchy_graph();
  auto error = [&](std::vector<SplitStage> stages) { return test::error_of([&] { split_schedule(g, stages); }); };
  EXPECT_NE(error({{0, 1, SplitAxis::kHeight, 2}}).find("op 0 (CONV_2D) and op 1 (CONV_2D): tensor 2 is also read by op 2 (ADD): a branch"),
            std::string::npos)
      << error({{0, 1, SplitAxis::kHeight, 2}});
  EXPECT_NE(error({{1, 2, SplitAxis::kHeight, 2}}).find("op 2 (ADD) cannot be split along its height"), std::string::npos)
      << error({{1, 2, SplitAxis::kHeight, 2}});
  EXPECT_NE(error({{2, 3, SplitAxis::kHeight, 2}}).find("op 2 (ADD)"), std::string::npos);
  // op 2's output is not op 3's input.
  const Graph m = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const std::string gap = test::error_of([&] { split_schedule(m, {{2, 3, SplitAxis::kHeight, 33}}); });
  EXPECT_NE(gap.find("op 3 (DEPTHWISE_CONV_2D): 33 tiles for an output of 32 rows"), std::string::npos) << gap;
  EXPECT_NE(error({{1, 3, SplitAxis::kHeight, 2}}).find("op 2 (ADD)"), std::string::npos);
  EXPECT_NE(error({{0, 9, SplitAxis::kHeight, 2}}).find("subgraph 0 has ops 0-3"), std::string::npos);
  EXPECT_NE(error({{1, 0, SplitAxis::kHeight, 2}}).find("the first op comes after the last"), std::string::npos);
  const std::string twice =
      test::error_of([&] { split_schedule(m, {{2, 3, SplitAxis::kHeight, 2}, {3, 4, SplitAxis::kHeight, 2}}); });
  EXPECT_NE(twice.find("op 3 (DEPTHWISE_CONV_2D) is in two stages"), std::string::npos) << twice;
}

TEST(SplitStages, OpsThatAreNotAdjacentAreRefused) {
  // in -> conv A -> t1; conv B reads the graph input, not t1.
  GraphBuilder b("apart");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 4, 4, 1});
  const int32_t w = b.add_constant_values("w", DataType::kFloat32, {1, 1, 1, 1}, std::vector<float>{1.f});
  const int32_t t1 = b.add_tensor("t1", DataType::kFloat32, {1, 4, 4, 1});
  const int32_t t2 = b.add_tensor("t2", DataType::kFloat32, {1, 4, 4, 1});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 4, 4, 1});
  b.add_op(OpKind::kConv2D, {in, w}, {t1}, Conv2DParams{});
  b.add_op(OpKind::kConv2D, {in, w}, {t2}, Conv2DParams{});
  b.add_op(OpKind::kAdd, {t1, t2}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const Graph g = b.finish();
  const std::string message = test::error_of([&] { split_schedule(g, {{0, 1, SplitAxis::kHeight, 2}}); });
  EXPECT_NE(message.find("op 1 does not read tensor 2 as its input 0: the ops are not adjacent in a chain"),
            std::string::npos)
      << message;
}

TEST(SplitStages, SpecsParseOrNameTheSpec) {
  const SplitStage s = parse_split_spec("2-3:4");
  EXPECT_EQ(s.first_op, 2);
  EXPECT_EQ(s.last_op, 3);
  EXPECT_EQ(s.tiles, 4);
  EXPECT_EQ(s.column_tiles, 1);
  EXPECT_EQ(split_spec(s), "2-3:4");
  const SplitStage patches = parse_split_spec("2-3:4x3");
  EXPECT_EQ(patches.tiles, 4);
  EXPECT_EQ(patches.column_tiles, 3);
  EXPECT_EQ(split_spec(patches), "2-3:4x3");
  for (const char* bad : {"2-3", "2:4", "a-3:4", "2-3:x", "2-3:4:5", "-2-3:4", "2-3:", "", "3:2-1", "2-3:4x",
                          "2-3:x4", "2-3:4x2x2", "2-3:4y2"}) {
    const std::string message = test::error_of([&] { parse_split_spec(bad); });
    EXPECT_NE(message.find(std::string("--split '") + bad + "': expected FIRST-LAST:TILES"), std::string::npos)
        << bad << ": " << message;
  }
  EXPECT_NE(test::error_of([&] { parse_split_spec("2-3:0"); }).find("at least one tile"), std::string::npos);
  EXPECT_NE(test::error_of([&] { parse_split_spec("2-3:2x0"); }).find("at least one tile"), std::string::npos);
}

TEST(SplitStages, CmsisKernelsCannotRunAStage) {
  const Graph m = build_zoo_model("mobilenet_v1_0.25_128_int8");
  PlanOptions options;
  options.split = {{2, 3, SplitAxis::kHeight, 4}};
  options.families = {KernelFamily::kCmsisNn};
  EXPECT_NE(test::error_of([&] { plan_model(m, options); }).find("split stages run dmo's reference kernels"),
            std::string::npos);
}

// ------------------------------------------------------------- CLI

TEST(SplitCli, PlanJsonReportsTheStageAndItsMacs) {
  const test::CommandResult r =
      test::run_dmo({"plan", "mobilenet_v1_0.25_128_uint8", "--split", "2-3:4", "--json", "--overlap", "none"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["split"].size(), 1u);
  EXPECT_EQ(j["split"][0]["ops"], nlohmann::json({2, 3}));
  EXPECT_EQ(j["split"][0]["axis"], "height");
  EXPECT_EQ(j["split"][0]["tiles"], 4);
  EXPECT_EQ(j["split"][0]["extra_macs"], 3072 * 8);
  EXPECT_EQ(j["extra_macs"], 3072 * 8);
  EXPECT_GT(j["macs"].get<int64_t>(), 3072 * 8);
  EXPECT_TRUE(j.contains("extra_macs_percent"));

  const test::CommandResult plain = test::run_dmo({"plan", "mobilenet_v1_0.25_128_uint8", "--split", "none", "--json", "--overlap", "none"});
  ASSERT_EQ(plain.exit_status, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("split"));
}

TEST(SplitCli, VerifyRunsTheSplitPlan) {
  const test::CommandResult r = test::run_dmo({"verify", "mobilenet_v1_0.25_128_uint8", "--split", "2-3:4"});
  EXPECT_EQ(r.exit_status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok: "), std::string::npos) << r.out;
}

TEST(SplitCli, BadSpecsAreOneLineUsageErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", "mobilenet_v1_0.25_128_uint8", "--split", "2-3"},
        std::vector<std::string>{"plan", "mobilenet_v1_0.25_128_uint8", "--split", "2-3:99"},
        std::vector<std::string>{"verify", "mobilenet_v1_0.25_128_uint8", "--split", "2-3:0"},
        std::vector<std::string>{"plan", "mobilenet_v1_0.25_128_uint8", "--split", "29-30:2"}}) {
    const test::CommandResult r = test::run_dmo(args);
    EXPECT_EQ(r.exit_status, 2) << args.back() << ": " << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("dmo: error: "), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace dmo
