// The address-only policy's shortcuts in CONV_2D and DEPTHWISE_CONV_2D
// (a pixel's identical or affinely growing channel reads folded to the ones
// that can bound O_s) keep O_s exact: on random layers with many channels,
// depth multipliers, strides, dilations and padding, the executing kernel
// (which runs every load) is clobber-free with the output's end that many
// bytes over the input's start, and clobbers one byte further.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dmo/ops/padding.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"

namespace dmo {
namespace {

std::vector<float> random_values(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

struct Layer {
  test::OneOp op;
  std::string description;
};

std::optional<Layer> random_layer(std::mt19937& rng, OpKind kind) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int h = pick(1, 9), w = pick(1, 9), c = pick(1, 9);
  const int kh = pick(1, 3), kw = pick(1, 3), sh = pick(1, 2), sw = pick(1, 2), dh = pick(1, 2), dw = pick(1, 2);
  const Padding padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
  const int oh = window_output_size(padding, h, kh, sh, dh), ow = window_output_size(padding, w, kw, sw, dw);
  if (oh < 1 || ow < 1) return std::nullopt;
  GraphBuilder b("random layer");
  Layer l;
  l.op.input = b.add_tensor("in", DataType::kFloat32, {1, h, w, c});
  const bool with_bias = pick(0, 3) != 0;
  if (kind == OpKind::kConv2D) {
    const int oc = pick(1, 9);
    const int32_t filter = b.add_constant_values("filter", DataType::kFloat32, {oc, kh, kw, c},
                                                 random_values(rng, int64_t{oc} * kh * kw * c));
    const int32_t bias =
        with_bias ? b.add_constant_values("bias", DataType::kFloat32, {oc}, random_values(rng, oc)) : kNoTensor;
    l.op.output = b.add_tensor("out", DataType::kFloat32, {1, oh, ow, oc});
    b.add_op(kind, {l.op.input, filter, bias}, {l.op.output},
             Conv2DParams{padding, sw, sh, dw, dh, Activation::kNone});
    l.description = fmt::format("conv {}x{}x{} k{}x{} s{}x{} d{}x{} oc{}", h, w, c, kh, kw, sh, sw, dh, dw, oc);
  } else {
    const int m = pick(1, 3);
    const int32_t filter = b.add_constant_values("filter", DataType::kFloat32, {1, kh, kw, c * m},
                                                 random_values(rng, int64_t{kh} * kw * c * m));
    const int32_t bias =
        with_bias ? b.add_constant_values("bias", DataType::kFloat32, {c * m}, random_values(rng, c * m)) : kNoTensor;
    l.op.output = b.add_tensor("out", DataType::kFloat32, {1, oh, ow, c * m});
    b.add_op(kind, {l.op.input, filter, bias}, {l.op.output},
             DepthwiseConv2DParams{padding, sw, sh, m, dw, dh, Activation::kNone});
    l.description = fmt::format("depthwise {}x{}x{} k{}x{} s{}x{} d{}x{} m{}", h, w, c, kh, kw, sh, sw, dh, dw, m);
  }
  l.description += padding == Padding::kSame ? " SAME" : " VALID";
  b.set_inputs({l.op.input});
  b.set_outputs({l.op.output});
  l.op.graph = b.finish();
  return l;
}

TEST(AddressOnlyShortcut, ConvAndDepthwiseOverlapsStayExactToTheByte) {
  std::mt19937 rng(20261202);
  int checked = 0, exact_limits = 0;
  for (OpKind kind : {OpKind::kConv2D, OpKind::kDepthwiseConv2D}) {
    for (int trial = 0; trial < 400; ++trial) {
      const std::optional<Layer> l = random_layer(rng, kind);
      if (!l) continue;
      SCOPED_TRACE(l->description);
      const int64_t overlap = test::addresses(l->op).safe_overlap();
      const std::vector<uint8_t> input = pattern_input(l->op.graph.main(), 5);
      EXPECT_FALSE(test::clobbers_at_overlap(l->op, overlap, input));
      const int64_t limit =
          std::min(test::bytes_of_tensor(l->op, l->op.output), test::bytes_of_tensor(l->op, l->op.input));
      if (overlap < limit) {
        EXPECT_TRUE(test::clobbers_at_overlap(l->op, overlap + 1, input)) << "O_s " << overlap << " is not exact";
        ++exact_limits;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 600);
  EXPECT_GT(exact_limits, 300);
}

}  // namespace
}  // namespace dmo
