// Property tests of the three-way agreement on random layers: for thousands
// of conv, depthwise and pooling configurations (strides, SAME/VALID,
// dilation, depth multipliers, odd and non-square shapes), the analytic
// O_s never exceeds the algorithmic one, and running the layer with its
// input placed at the analytic displacement gives no clobber and the same
// bytes as running it unshared. How tight the closed form is, per op kind,
// is measured over those layers and every op of the shared and zoo models,
// and held to the minima measured here.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dmo/model/model_timeline.h"
#include "dmo/overlap/analytic_overlap.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/ops/padding.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

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

// How close the closed form comes to the kernel's exact value: the ratio
// analytic / algorithmic per op kind and walk, over every case a test sweeps.
// Element-wise ops and copies write element k right after reading it, so
// their closed form must be exact; the windowed ops' lines bound the read
// frontier from below and lose a little at the rows' ends. Each kind's worst
// ratio and its overall ratio (sum of analytic over sum of algorithmic bytes)
// must reach measured minima, so a closed form returning 0, or far less than
// the kernel allows, fails.
struct TightnessMinimum {
  double worst = 0;    // the smallest ratio of any one case
  double median = 0;
  double overall = 0;  // sum(analytic) / sum(algorithmic)
};

class Tightness {
 public:
  void add(const std::string& kind, int64_t analytic, int64_t algorithmic, const std::string& where) {
    ASSERT_LE(analytic, algorithmic) << kind << " at " << where;
    if (closed_form_is_exact(kind)) {
      EXPECT_EQ(analytic, algorithmic) << kind << " at " << where;
    }
    Measured& m = measured_[kind];
    if (algorithmic == 0) {
      ++m.both_zero;
      return;
    }
    const double ratio = static_cast<double>(analytic) / static_cast<double>(algorithmic);
    if (m.ratios.empty() || ratio < m.worst) {
      m.worst = ratio;
      m.worst_at = where;
    }
    m.ratios.push_back(ratio);
    m.analytic_sum += analytic;
    m.algorithmic_sum += algorithmic;
  }

  // Prints min, median, max, the overall ratio and the number of cases per kind.
  void print(const char* title) {
    for (auto& [kind, m] : measured_) {
      if (m.ratios.empty()) continue;
      std::sort(m.ratios.begin(), m.ratios.end());
      std::printf("[ tight    ] %-6s %-28s min %.4f median %.4f max %.4f overall %.4f over %4zu cases (+%d with O_s 0)"
                  "; worst: %s\n",
                  title, kind.c_str(), m.ratios.front(), median(m), m.ratios.back(), overall(m), m.ratios.size(),
                  m.both_zero, m.worst_at.c_str());
    }
  }

  // Prints, then checks every measured kind against `minimum` (each needs one).
  void expect_at_least(const std::map<std::string, TightnessMinimum>& minimum, const char* title) {
    print(title);
    for (auto& [kind, m] : measured_) {
      if (m.ratios.empty()) continue;
      auto it = minimum.find(kind);
      if (it == minimum.end()) {
        ADD_FAILURE() << title << ": no tightness minimum for " << kind << " (worst ratio " << m.worst << ")";
        continue;
      }
      EXPECT_GE(m.worst, it->second.worst) << title << ": " << kind << " at " << m.worst_at;
      EXPECT_GE(median(m), it->second.median) << title << ": " << kind << " median";
      EXPECT_GE(overall(m), it->second.overall) << title << ": " << kind << " overall";
    }
  }

  static bool closed_form_is_exact(const std::string& kind) {
    for (const char* exact : {"ADD", "SUB", "MUL", "RELU", "RELU6", "RELU_N1_TO_1", "LOGISTIC", "TANH", "HARD_SWISH",
                              "QUANTIZE", "DEQUANTIZE", "RESHAPE", "SQUEEZE", "CAST", "DIV", "MAXIMUM", "MINIMUM",
                              "LEAKY_RELU", "FULLY_CONNECTED", "BATCH_MATMUL", "EQUAL", "NOT_EQUAL", "LESS",
                              "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EXPAND_DIMS"}) {
      if (kind == exact) return true;
    }
    return false;
  }

 private:
  struct Measured {
    std::vector<double> ratios;
    double worst = 0;
    std::string worst_at;
    int64_t analytic_sum = 0, algorithmic_sum = 0;
    int both_zero = 0;
  };
  static double median(const Measured& m) { return m.ratios[m.ratios.size() / 2]; }  // sorted by print()
  static double overall(const Measured& m) {
    return static_cast<double>(m.analytic_sum) / static_cast<double>(m.algorithmic_sum);
  }
  std::map<std::string, Measured> measured_;
};

// The ratios measured per kind (printed by the tests as "[ tight ]"), each
// rounded down a little: min, median, overall.
//
// Random layers: on some small SAME-padded layers one or two rows high the
// padding before the first window pulls the line to 0, so the worst case is
// 0 for every kind; the median and overall ratios carry the check.
const std::map<std::string, TightnessMinimum> kRandomLayerMinimum = {
    {"CONV_2D", {0, 0.83, 0.88}},
    {"CONV_2D descending", {0, 0.83, 0.89}},
    {"DEPTHWISE_CONV_2D", {0, 0.84, 0.91}},
    {"DEPTHWISE_CONV_2D descending", {0, 0.87, 0.90}},
    {"AVERAGE_POOL_2D", {0, 0.75, 0.85}},
    {"AVERAGE_POOL_2D descending", {0, 0.80, 0.86}},
    {"MAX_POOL_2D", {0, 0.76, 0.84}},
    {"MAX_POOL_2D descending", {0, 0.80, 0.86}},
};

// Shared and zoo models. Conv and depthwise are exact on most layers (the
// worst conv is a 1x1 classifier conv after the global pool: 0 of 1 byte). The
// pooling line gives 0 on the global average pools (one output row, where
// the kernel allows the whole output), so pools only keep the overall ratio
// of the few local pools; the one real MAX_POOL_2D is such a case (0 of 12
// bytes) and random layers check that kind. FULLY_CONNECTED's closed form
// is exact (fully_connected_closed_form_test.cc): one output element at
// batch 1, far more batched (litert_ff: 32,260 bytes). An ADD whose int8
// input is read as its float output's type gets the converting ops' rule,
// which is safe but loose there.
const std::map<std::string, TightnessMinimum> kRealModelMinimum = {
    {"CONV_2D", {0, 0.99, 0.99}},
    {"CONV_2D descending", {0, 0.99, 0.99}},
    {"DEPTHWISE_CONV_2D", {0.80, 0.99, 0.99}},
    {"DEPTHWISE_CONV_2D descending", {0.61, 0.99, 0.99}},
    {"AVERAGE_POOL_2D", {0, 0, 0.08}},
    {"AVERAGE_POOL_2D descending", {0, 0, 0.08}},
    {"MAX_POOL_2D", {0, 0, 0}},
    {"MAX_POOL_2D descending", {0, 0, 0}},
    {"FULLY_CONNECTED", {1, 1, 1}},
    {"BATCH_MATMUL", {1, 1, 1}},
    {"EQUAL", {1, 1, 1}},
    {"LESS", {1, 1, 1}},
    {"EXPAND_DIMS", {1, 1, 1}},
    {"ADD (input read as output type)", {0.25, 0.99, 0.40}},
    {"ADD", {1, 1, 1}},
    {"MUL", {1, 1, 1}},
    {"RELU", {1, 1, 1}},
    {"TANH", {1, 1, 1}},
    {"QUANTIZE", {1, 1, 1}},
    {"DEQUANTIZE", {1, 1, 1}},
    {"RESHAPE", {1, 1, 1}},
    {"SQUEEZE", {1, 1, 1}},
    {"CAST", {1, 1, 1}},
    {"DIV", {1, 1, 1}},
    {"LEAKY_RELU", {1, 1, 1}},
    {"MAXIMUM", {1, 1, 1}},
    {"MINIMUM", {1, 1, 1}},
    {"SUB", {1, 1, 1}},
    {"SQRT", {1, 1, 1}},
    {"RSQRT", {1, 1, 1}},
    {"SQUARED_DIFFERENCE", {1, 1, 1}},
    {"EXP", {1, 1, 1}},
    {"LOG", {1, 1, 1}},
    {"LOGISTIC", {1, 1, 1}},
    {"POW", {1, 1, 1}},
    {"PRELU", {1, 1, 1}},
    // Block copies in their worst order: CONCATENATION's closed form is its
    // kernel's exact value; STRIDED_SLICE's rows are only bounded by 0.
    {"CONCATENATION", {1, 1, 1}},
    {"STRIDED_SLICE", {0, 0, 0}},
};

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
  Tightness tightness;
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
      tightness.add(name, *analytic.bytes, algorithmic, layer->description);
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
  tightness.expect_at_least(kRandomLayerMinimum, "random");
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
  Tightness tightness;
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
      tightness.add(name + " descending", *analytic.bytes, algorithmic, layer->description);
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
  tightness.expect_at_least(kRandomLayerMinimum, "random");
}

// Every op of the shared and zoo models that has both values, either walk.
// Comparisons read their inputs as their own type and store BOOL.
bool is_comparison(const Op& op) {
  return op.is(OpKind::kEqual) || op.is(OpKind::kNotEqual) || op.is(OpKind::kLess) || op.is(OpKind::kLessEqual) ||
         op.is(OpKind::kGreater) || op.is(OpKind::kGreaterEqual);
}

TEST(OverlapProperty, AnalyticIsTightOnRealModels) {
  std::vector<std::pair<std::string, Graph>> models;
  for (const char* zoo : {"mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_96_float32", "mobilenet_v2_0.35_96_int8",
                          "mobilenet_v2_1.0_224_float32"}) {
    models.emplace_back(zoo, build_zoo_model(zoo));
  }
  auto shared = test::shared_dir();
  if (shared) {
    for (const std::string& file : test::tflite_files_in(*shared + "/models")) {
      models.emplace_back(test::file_stem(file), read_tflite_file(file));
    }
  }
  Tightness tightness;
  for (const auto& [model, graph] : models) {
    for (const OpOverlap& o : compute_safe_overlaps(graph, {})) {
      // Op and tensor indices are flat over the subgraphs (called subgraphs' ops follow subgraph 0's).
      const Op& op = flat_op(graph, o.pair.op);
      std::string kind = op.name();
      // A binary op whose input type differs from its output's reads the
      // input as the output type (as TFLite Micro does), so its element-wise
      // closed form, made for converting ops, is not exact there.
      auto type = [&](int32_t flat) { return flat_tensor(graph, flat).type; };
      if (Tightness::closed_form_is_exact(kind) && !op.is(OpKind::kQuantize) && !op.is(OpKind::kDequantize) &&
          !op.is(OpKind::kCast) && !is_comparison(op) && o.pair.input != kNoTensor &&
          type(o.pair.input) != type(o.pair.output)) {
        kind += " (input read as output type)";
      }
      const std::string where = model + " op " + std::to_string(o.pair.op);
      if (o.analytic && o.algorithmic) tightness.add(kind, *o.analytic, *o.algorithmic, where);
      if (o.analytic_descending && o.algorithmic_descending) {
        tightness.add(kind + " descending", *o.analytic_descending, *o.algorithmic_descending, where);
      }
    }
  }
  if (!shared) {
    // The minima were measured over both sets; the zoo alone has other ratios.
    tightness.print("zoo");
    GTEST_SKIP() << "../shared not found: only the zoo models were measured, their ratios not checked";
  }
  tightness.expect_at_least(kRealModelMinimum, "models");
}

}  // namespace
}  // namespace dmo
