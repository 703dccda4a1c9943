// The checker can fail: placing an op's dying input one element closer to
// its output than the algorithmic safe overlap allows is reported as a
// clobber at that op, while the placement at exactly O_s runs clean and
// bit-exact. Checked on conv, depthwise and pooling layers of real models,
// walking ascending and descending.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/model/lifetime.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

// Unshared placement, except that `pair`'s output and input move to a fresh
// region at the top: the input `displacement` bytes above the output's start
// (below it when negative).
TensorPlacement overlapping(const Subgraph& sg, const OverlapCandidate& pair, int64_t displacement) {
  TensorPlacement p = unshared_placement(sg);
  int64_t base = p.arena_size + std::max<int64_t>(0, -displacement);
  p.offsets[static_cast<size_t>(pair.output)] = base;
  p.offsets[static_cast<size_t>(pair.input)] = base + displacement;
  p.arena_size = base + std::max(pair.output_bytes, displacement + pair.input_bytes);
  return p;
}

struct Layer {
  const char* model;
  OpKind kind;
};

class ClobberDetection : public ::testing::TestWithParam<Layer> {};

TEST_P(ClobberDetection, OneElementPastSafeOverlapIsAClobber) {
  DMO_REQUIRE_SHARED(shared);
  Graph graph = read_tflite_file(shared + "/models/" + GetParam().model + ".tflite");
  const Subgraph& sg = graph.main();
  std::vector<uint8_t> input = pattern_input(sg, 1);
  int checked = 0;
  for (const OverlapCandidate& pair : overlap_candidates(sg, false)) {
    if (!pair.input_dies || !sg.ops[static_cast<size_t>(pair.op)].is(GetParam().kind)) continue;
    const int64_t os = algorithmic_safe_overlap(graph, pair.op, pair.input, pair.output);
    const int64_t element = pair.output_bytes / sg.tensors[static_cast<size_t>(pair.output)].element_count;
    const int64_t delta = pair.output_bytes - os;
    // In place (delta 0): one element closer puts the input below the output.
    SCOPED_TRACE(fmt::format("op {} ({}), O_s {} of {}", pair.op, sg.ops[static_cast<size_t>(pair.op)].name(), os,
                             pair.output_bytes));

    VerifyResult safe = verify_placement(graph, overlapping(sg, pair, delta), input);
    EXPECT_TRUE(safe.ok()) << safe.describe(graph);

    VerifyResult unsafe = verify_placement(graph, overlapping(sg, pair, delta - element), input);
    ASSERT_TRUE(unsafe.clobber.has_value()) << unsafe.describe(graph);
    EXPECT_EQ(unsafe.clobber->op, pair.op);
    EXPECT_EQ(unsafe.clobber->tensor, pair.input);
    if (++checked == 3) break;  // a few layers per model keep the suite fast
  }
  EXPECT_GT(checked, 0) << "no " << builtin_op_name(static_cast<int32_t>(GetParam().kind)) << " layer checked";
}

// The mirror image, the op walking descending: output `displacement` bytes
// above the input's start.
TensorPlacement overlapping_above(const Subgraph& sg, const OverlapCandidate& pair, int64_t displacement) {
  TensorPlacement p = overlapping(sg, pair, -displacement);
  p.descending_ops = {pair.op};
  return p;
}

TEST_P(ClobberDetection, OneElementPastDescendingSafeOverlapIsAClobber) {
  DMO_REQUIRE_SHARED(shared);
  Graph graph = read_tflite_file(shared + "/models/" + GetParam().model + ".tflite");
  const Subgraph& sg = graph.main();
  std::vector<uint8_t> input = pattern_input(sg, 1);
  int checked = 0;
  for (const OverlapCandidate& pair : overlap_candidates(sg, false)) {
    if (!pair.input_dies || !sg.ops[static_cast<size_t>(pair.op)].is(GetParam().kind)) continue;
    const int64_t os = algorithmic_safe_overlap(graph, pair.op, pair.input, pair.output, /*descending=*/true);
    const int64_t element = pair.output_bytes / sg.tensors[static_cast<size_t>(pair.output)].element_count;
    const int64_t displacement = pair.input_bytes - os;
    SCOPED_TRACE(fmt::format("op {} ({}) descending, O_s {} of {}", pair.op, sg.ops[static_cast<size_t>(pair.op)].name(),
                             os, pair.output_bytes));
    VerifyResult safe = verify_placement(graph, overlapping_above(sg, pair, displacement), input);
    EXPECT_TRUE(safe.ok()) << safe.describe(graph);
    if (os == pair.output_bytes) {  // all of the output fits over the input's end (pooling)
      ++checked;
      continue;
    }

    VerifyResult unsafe = verify_placement(graph, overlapping_above(sg, pair, displacement - element), input);
    ASSERT_TRUE(unsafe.clobber.has_value()) << unsafe.describe(graph);
    EXPECT_EQ(unsafe.clobber->op, pair.op);
    EXPECT_EQ(unsafe.clobber->tensor, pair.input);
    if (++checked == 3) break;
  }
  EXPECT_GT(checked, 0) << "no " << builtin_op_name(static_cast<int32_t>(GetParam().kind)) << " layer checked";
}

INSTANTIATE_TEST_SUITE_P(RealModels, ClobberDetection,
                         ::testing::Values(Layer{"tiny_vww_96_int8", OpKind::kConv2D},
                                           Layer{"tiny_vww_96_int8", OpKind::kDepthwiseConv2D},
                                           Layer{"tflm_person_detect_int8", OpKind::kDepthwiseConv2D},
                                           Layer{"tiny_resnet8_float", OpKind::kConv2D},
                                           Layer{"litert_mobilenet_like_model", OpKind::kMaxPool2D},
                                           Layer{"tiny_kws_ref_model_int8", OpKind::kAveragePool2D}),
                         [](const auto& info) {
                           return std::string(info.param.model) + "_" +
                                  builtin_op_name(static_cast<int32_t>(info.param.kind));
                         });

TEST(ClobberDetectionCli, VerifyReportsClobberForUnsafePlanFile) {
  DMO_REQUIRE_SHARED(shared);
  std::string model = shared + "/models/tiny_vww_96_int8.tflite";
  Graph graph = read_tflite_file(model);
  const Subgraph& sg = graph.main();
  for (const OverlapCandidate& pair : overlap_candidates(sg, false)) {
    if (!pair.input_dies || !sg.ops[static_cast<size_t>(pair.op)].is(OpKind::kDepthwiseConv2D)) continue;
    const int64_t delta = pair.output_bytes - algorithmic_safe_overlap(graph, pair.op, pair.input, pair.output);
    TensorPlacement p = overlapping(sg, pair, delta - 1);
    nlohmann::json plan = {{"arena_bytes", p.arena_size}, {"offsets", p.offsets}};
    auto path = (std::filesystem::temp_directory_path() / "dmo_unsafe_plan.json").string();
    std::ofstream(path) << plan.dump();
    auto r = test::run_dmo({"verify", model, "--plan", path});
    std::filesystem::remove(path);
    EXPECT_EQ(r.exit_status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find(fmt::format("clobber: op {} (DEPTHWISE_CONV_2D)", pair.op)), std::string::npos) << r.out;
    return;
  }
  FAIL() << "no depthwise layer found";
}

}  // namespace
}  // namespace dmo
