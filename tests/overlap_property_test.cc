// Property tests of the three-way agreement on random layers: for thousands
// of conv, depthwise and pooling configurations (strides, SAME/VALID,
// dilation, depth multipliers, odd and non-square shapes), the analytic
// O_s never exceeds the algorithmic one, and running the layer with its
// input placed at the analytic displacement gives no clobber and the same
// bytes as running it unshared.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <random>

#include "dmo/overlap/analytic_overlap.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/ops/padding.h"

namespace dmo {
namespace {

struct Layer {
  Graph graph;
  std::string description;
};

std::vector<float> random_values(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// One random windowed layer with a float input of its own; nullopt when the
// drawn window does not fit the input.
std::optional<Layer> random_layer(std::mt19937& rng, OpKind kind) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int h = pick(1, 13), w = pick(1, 13), c = pick(1, 6);
  const int kh = pick(1, 4), kw = pick(1, 4), sh = pick(1, 3), sw = pick(1, 3);
  const int dh = kind == OpKind::kAveragePool2D || kind == OpKind::kMaxPool2D ? 1 : pick(1, 2);
  const int dw = kind == OpKind::kAveragePool2D || kind == OpKind::kMaxPool2D ? 1 : pick(1, 2);
  const Padding padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
  const int oh = window_output_size(padding, h, kh, sh, dh), ow = window_output_size(padding, w, kw, sw, dw);
  if (oh < 1 || ow < 1) return std::nullopt;
  GraphBuilder b("random layer");
  int32_t in = b.add_tensor("in", DataType::kFloat32, {1, h, w, c});
  int32_t out = -1;
  std::string what;
  if (kind == OpKind::kConv2D) {
    const int oc = pick(1, 6);
    int32_t filter = b.add_constant_values("filter", DataType::kFloat32, {oc, kh, kw, c},
                                           random_values(rng, int64_t{oc} * kh * kw * c));
    int32_t bias = b.add_constant_values("bias", DataType::kFloat32, {oc}, random_values(rng, oc));
    out = b.add_tensor("out", DataType::kFloat32, {1, oh, ow, oc});
    b.add_op(kind, {in, filter, bias}, {out}, Conv2DParams{padding, sw, sh, dw, dh, Activation::kNone});
    what = fmt::format("conv {}x{}x{} k{}x{} s{}x{} d{}x{} oc{}", h, w, c, kh, kw, sh, sw, dh, dw, oc);
  } else if (kind == OpKind::kDepthwiseConv2D) {
    const int m = pick(1, 3);
    int32_t filter = b.add_constant_values("filter", DataType::kFloat32, {1, kh, kw, c * m},
                                           random_values(rng, int64_t{kh} * kw * c * m));
    int32_t bias = b.add_constant_values("bias", DataType::kFloat32, {c * m}, random_values(rng, c * m));
    out = b.add_tensor("out", DataType::kFloat32, {1, oh, ow, c * m});
    b.add_op(kind, {in, filter, bias}, {out}, DepthwiseConv2DParams{padding, sw, sh, m, dw, dh, Activation::kNone});
    what = fmt::format("depthwise {}x{}x{} k{}x{} s{}x{} d{}x{} m{}", h, w, c, kh, kw, sh, sw, dh, dw, m);
  } else {
    out = b.add_tensor("out", DataType::kFloat32, {1, oh, ow, c});
    b.add_op(kind, {in}, {out}, Pool2DParams{padding, sw, sh, kw, kh, Activation::kNone});
    what = fmt::format("{} {}x{}x{} k{}x{} s{}x{}", builtin_op_name(static_cast<int32_t>(kind)), h, w, c, kh, kw, sh,
                       sw);
  }
  what += padding == Padding::kSame ? " SAME" : " VALID";
  b.set_inputs({in});
  b.set_outputs({out});
  return Layer{b.finish(), what};
}

// Input `displacement` bytes above the output's start.
TensorPlacement displaced(const Subgraph& sg, int64_t displacement) {
  const Tensor& in = sg.tensors[0];
  const Tensor& out = sg.tensors[sg.outputs[0]];
  TensorPlacement p;
  p.offsets.assign(sg.tensors.size(), -1);
  p.offsets[static_cast<size_t>(sg.outputs[0])] = 0;
  p.offsets[0] = displacement;
  p.arena_size = std::max(out.byte_size, displacement + in.byte_size);
  return p;
}

TEST(OverlapProperty, AnalyticNeverExceedsAlgorithmicAndIsSafe) {
  std::mt19937 rng(20201203);
  std::map<std::string, std::pair<int, int>> equal_of;  // kind -> (equal, total)
  std::map<std::string, int64_t> largest_gap;
  int checked = 0;
  for (OpKind kind : {OpKind::kConv2D, OpKind::kDepthwiseConv2D, OpKind::kAveragePool2D, OpKind::kMaxPool2D}) {
    const std::string name = builtin_op_name(static_cast<int32_t>(kind));
    for (int trial = 0; trial < 700; ++trial) {
      std::optional<Layer> layer = random_layer(rng, kind);
      if (!layer) continue;
      const Subgraph& sg = layer->graph.main();
      const int32_t out = sg.outputs[0];
      AnalyticOverlap analytic = analytic_safe_overlap(sg, 0, 0, out);
      const int64_t algorithmic = algorithmic_safe_overlap(layer->graph, 0, 0, out);
      SCOPED_TRACE(layer->description);
      if (!analytic.bytes) continue;  // no valid line: the algorithmic value is used instead
      ASSERT_LE(*analytic.bytes, algorithmic) << analytic.rule;
      ++checked;
      auto& [equal, total] = equal_of[name];
      equal += *analytic.bytes == algorithmic;
      ++total;
      largest_gap[name] = std::max(largest_gap[name], algorithmic - *analytic.bytes);
      const int64_t out_bytes = sg.tensors[static_cast<size_t>(out)].byte_size;
      VerifyResult at_analytic =
          verify_placement(layer->graph, displaced(sg, out_bytes - *analytic.bytes), pattern_input(sg, 7));
      ASSERT_TRUE(at_analytic.ok()) << at_analytic.describe(layer->graph);
      VerifyResult at_algorithmic =
          verify_placement(layer->graph, displaced(sg, out_bytes - algorithmic), pattern_input(sg, 7));
      ASSERT_TRUE(at_algorithmic.ok()) << at_algorithmic.describe(layer->graph);
    }
  }
  EXPECT_GT(checked, 2000);
  for (const auto& [name, counts] : equal_of) {
    std::printf("%-18s analytic == algorithmic in %d of %d layers; largest gap %ld bytes\n", name.c_str(),
                counts.first, counts.second, static_cast<long>(largest_gap[name]));
  }
}

// Output `displacement` bytes above the input's start (below when
// negative: a larger output may cover all of its input), its op walking
// descending.
TensorPlacement displaced_above(const Subgraph& sg, int64_t displacement) {
  const Tensor& in = sg.tensors[0];
  const Tensor& out = sg.tensors[sg.outputs[0]];
  TensorPlacement p;
  p.offsets.assign(sg.tensors.size(), -1);
  const int64_t in_at = std::max<int64_t>(0, -displacement);
  p.offsets[0] = in_at;
  p.offsets[static_cast<size_t>(sg.outputs[0])] = in_at + displacement;
  p.arena_size = std::max(in_at + in.byte_size, in_at + displacement + out.byte_size);
  p.descending_ops = {0};
  return p;
}

// The mirror image: the kernels walking descending with the output placed
// above the input. The analytic line on the mirrored tensors never exceeds
// the algorithmic value; both run clean and bit-identical to the ascending
// unshared run; one element closer than the algorithmic value is a clobber.
TEST(OverlapProperty, DescendingWalkAgreesAndIsExact) {
  std::mt19937 rng(20261130);
  std::map<std::string, std::pair<int, int>> equal_of;
  int checked = 0, clobbers_found = 0;
  for (OpKind kind : {OpKind::kConv2D, OpKind::kDepthwiseConv2D, OpKind::kAveragePool2D, OpKind::kMaxPool2D}) {
    const std::string name = builtin_op_name(static_cast<int32_t>(kind));
    for (int trial = 0; trial < 600; ++trial) {
      std::optional<Layer> layer = random_layer(rng, kind);
      if (!layer) continue;
      const Subgraph& sg = layer->graph.main();
      const int32_t out = sg.outputs[0];
      SCOPED_TRACE(layer->description);
      const int64_t algorithmic = algorithmic_safe_overlap(layer->graph, 0, 0, out, /*descending=*/true);
      const int64_t in_bytes = sg.tensors[0].byte_size;
      VerifyResult at_algorithmic =
          verify_placement(layer->graph, displaced_above(sg, in_bytes - algorithmic), pattern_input(sg, 3));
      ASSERT_TRUE(at_algorithmic.ok()) << at_algorithmic.describe(layer->graph);
      const int64_t out_bytes = sg.tensors[static_cast<size_t>(out)].byte_size;
      if (algorithmic > 0 && algorithmic < std::min(in_bytes, out_bytes)) {  // O_s is clamped to |O|
        // 4 bytes (one float) more overlap than the kernel allows.
        VerifyResult closer =
            verify_placement(layer->graph, displaced_above(sg, in_bytes - algorithmic - 4), pattern_input(sg, 3));
        // A clobbered byte may happen to hold the value read anyway; the
        // checker sees the read of an overwritten byte regardless.
        ASSERT_TRUE(closer.clobber.has_value()) << "no clobber one element beyond O_s = " << algorithmic;
        ++clobbers_found;
      }
      AnalyticOverlap analytic = analytic_safe_overlap(sg, 0, 0, out, /*descending=*/true);
      if (!analytic.bytes) continue;
      ASSERT_LE(*analytic.bytes, algorithmic) << analytic.rule;
      VerifyResult at_analytic =
          verify_placement(layer->graph, displaced_above(sg, in_bytes - *analytic.bytes), pattern_input(sg, 3));
      ASSERT_TRUE(at_analytic.ok()) << at_analytic.describe(layer->graph);
      ++checked;
      auto& [equal, total] = equal_of[name];
      equal += *analytic.bytes == algorithmic;
      ++total;
    }
  }
  EXPECT_GT(checked, 1500);
  EXPECT_GT(clobbers_found, 600);
  std::printf("descending: %d layers checked, %d one-element-closer clobbers found\n", checked, clobbers_found);
  for (const auto& [name, counts] : equal_of) {
    std::printf("%-18s descending: analytic == algorithmic in %d of %d layers\n", name.c_str(), counts.first,
                counts.second);
  }
}

}  // namespace
}  // namespace dmo
