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

// A parameter's model, its pattern input, and the overlap pairs of its ops of
// the parameter's kind whose input dies there.
struct ModelLayers {
  Graph graph;
  std::vector<uint8_t> input;
  std::vector<OverlapCandidate> pairs;
};

ModelLayers model_layers(const std::string& shared, const Layer& layer) {
  ModelLayers m{read_tflite_file(shared + "/models/" + layer.model + ".tflite"), {}, {}};
  const Subgraph& sg = m.graph.main();
  m.input = pattern_input(sg, 1);
  for (const OverlapCandidate& pair : overlap_candidates(sg, false)) {
    if (pair.input_dies && sg.ops[static_cast<size_t>(pair.op)].is(layer.kind)) m.pairs.push_back(pair);
  }
  return m;
}

// The mirror image, the op walking descending: output `displacement` bytes
// above the input's start.
TensorPlacement overlapping_above(const Subgraph& sg, const OverlapCandidate& pair, int64_t displacement) {
  TensorPlacement p = overlapping(sg, pair, -displacement);
  p.descending_ops = {pair.op};
  return p;
}

// Walking ascending the input sits |O| - O_s above the output, walking
// descending the output |I| - O_s above the input: both run clean, and one
// element more overlap is a clobber at that op on that input.
void check_one_element_past_safe_overlap(const std::string& shared, const Layer& layer, bool descending) {
  const ModelLayers m = model_layers(shared, layer);
  const Graph& graph = m.graph;
  const Subgraph& sg = graph.main();
  int checked = 0;
  for (const OverlapCandidate& pair : m.pairs) {
    const int64_t os = algorithmic_safe_overlap(graph, pair.op, pair.input, pair.output, descending);
    const int64_t element = pair.output_bytes / sg.tensors[static_cast<size_t>(pair.output)].element_count;
    const int64_t gap = (descending ? pair.input_bytes : pair.output_bytes) - os;
    auto placed = [&](int64_t at) { return descending ? overlapping_above(sg, pair, at) : overlapping(sg, pair, at); };
    SCOPED_TRACE(fmt::format("op {} ({}) {}, O_s {} of {}", pair.op, sg.ops[static_cast<size_t>(pair.op)].name(),
                             descending ? "descending" : "ascending", os, pair.output_bytes));

    VerifyResult safe = verify_placement(graph, placed(gap), m.input);
    EXPECT_TRUE(safe.ok()) << safe.describe(graph);
    // Descending, all of a smaller output may fit over the input's end
    // (pooling): O_s is clamped to |O| and there is no "one element more".
    // Ascending in place (gap 0), one element closer puts the input below.
    if (!(descending && os == pair.output_bytes)) {
      VerifyResult unsafe = verify_placement(graph, placed(gap - element), m.input);
      ASSERT_TRUE(unsafe.clobber.has_value()) << unsafe.describe(graph);
      EXPECT_EQ(unsafe.clobber->op, pair.op);
      EXPECT_EQ(unsafe.clobber->tensor, pair.input);
    }
    if (++checked == 3) break;  // a few layers per model keep the suite fast
  }
  EXPECT_GT(checked, 0) << "no " << builtin_op_name(static_cast<int32_t>(layer.kind)) << " layer checked";
}

TEST_P(ClobberDetection, OneElementPastSafeOverlapIsAClobber) {
  DMO_REQUIRE_SHARED(shared);
  check_one_element_past_safe_overlap(shared, GetParam(), /*descending=*/false);
}

TEST_P(ClobberDetection, OneElementPastDescendingSafeOverlapIsAClobber) {
  DMO_REQUIRE_SHARED(shared);
  check_one_element_past_safe_overlap(shared, GetParam(), /*descending=*/true);
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
