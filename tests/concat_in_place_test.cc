// In-place concatenation: producers writing into their slice of a
// CONCATENATION's output, the copy gone, the plans checked by running them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/tflite/reader.h"
#include "dmo/transform/concat_in_place.h"
#include "dmo/zoo/graph_builder.h"
#include "int8_conv_graph.h"
#include "test_support.h"

namespace dmo {
namespace {

const Quantization kQuant{{0.1f}, {-2}, 0};

// A 3x3 convolution of `input` (`in_depth` channels) to `shape`.
int32_t add_conv(GraphBuilder& b, const std::string& name, int32_t input, int32_t in_depth, const Shape& shape,
                 Padding padding, int8_t seed, const Quantization& quant = kQuant) {
  return test::add_int8_conv3x3(b, name, input, in_depth, shape, padding, seed, quant);
}

void add_concat(GraphBuilder& b, const std::vector<int32_t>& inputs, int32_t output, int32_t axis) {
  ConcatenationParams params;
  params.axis = axis;
  b.add_op(OpKind::kConcatenation, inputs, {output}, params);
}

// Input 1x4x4x1 (16 bytes) -> two convs of 1x4x4x4 (64 bytes each) ->
// their concatenation along channels (128 bytes), the graph's output.
// With the copy, both convs' outputs and the concatenation are live at
// once (256 bytes), less the 64 bytes the copy's output may cover of an
// input it has read: 192. In place, the input and the concatenation: 144.
Graph channel_concatenation() {
  GraphBuilder b("channel_concat");
  const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 1}, Quantization{{0.05f}, {3}, 0});
  const int32_t first = add_conv(b, "first", input, 1, {1, 4, 4, 4}, Padding::kSame, 1);
  const int32_t second = add_conv(b, "second", input, 1, {1, 4, 4, 4}, Padding::kSame, 2);
  const int32_t concat = b.add_tensor("concat", DataType::kInt8, {1, 4, 4, 8}, kQuant);
  add_concat(b, {first, second}, concat, 3);
  b.set_inputs({input});
  b.set_outputs({concat});
  return b.finish();
}

// Two VALID convs of 1x2x2x4 concatenated along the height (each slice one
// contiguous block), then a conv reading the concatenation, and an outer
// concatenation of that concatenation (its inputs go straight into the
// outer output) with another conv.
Graph height_and_nested_concatenation() {
  GraphBuilder b("height_concat");
  const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 2}, Quantization{{0.05f}, {3}, 0});
  const int32_t top = add_conv(b, "top", input, 2, {1, 2, 2, 4}, Padding::kValid, 3);
  const int32_t bottom = add_conv(b, "bottom", input, 2, {1, 2, 2, 4}, Padding::kValid, 4);
  const int32_t inner = b.add_tensor("inner", DataType::kInt8, {1, 4, 2, 4}, kQuant);
  add_concat(b, {top, bottom}, inner, 1);
  const int32_t side = add_conv(b, "side", inner, 4, {1, 4, 2, 4}, Padding::kSame, 5);
  const int32_t outer = b.add_tensor("outer", DataType::kInt8, {1, 4, 2, 8}, kQuant);
  add_concat(b, {inner, side}, outer, 3);
  const int32_t last = add_conv(b, "last", outer, 8, {1, 4, 2, 2}, Padding::kSame, 6);
  b.set_inputs({input});
  b.set_outputs({last});
  return b.finish();
}

// The plan runs bit-identical to an unshared run, clobber-free, and the validator accepts it.
void expect_verified(const Graph& graph, const PlanResult& planned) {
  const VerifyResult result = verify_plan(graph, dmo_placement(graph, planned), pattern_input(graph.main(), 7), nullptr,
                                          KernelFamily::kTflmReference, {}, planned.concat_in_place);
  EXPECT_TRUE(result.ok()) << result.describe(graph);
  EXPECT_TRUE(result.outputs_identical());
}

PlanResult plan(const Graph& graph, bool in_place) {
  PlanOptions options;
  options.concat_in_place = in_place;
  return plan_model(graph, options);
}

TEST(ConcatInPlace, AChannelConcatenationLosesItsCopy) {
  const Graph graph = channel_concatenation();
  const PlanResult plain = plan(graph, false);
  const PlanResult in_place = plan(graph, true);
  EXPECT_EQ(plain.dmo.arena_size, 192);
  EXPECT_EQ(in_place.dmo.arena_size, 144);
  EXPECT_EQ(in_place.concat_in_place, (std::vector<int32_t>{2}));
  EXPECT_FALSE(schedule_runs_op(in_place.schedule, 2));
  ASSERT_EQ(in_place.schedule.views.size(), 2u);
  EXPECT_EQ(in_place.schedule.views[1].offset, 4);  // the second conv's channels follow the first's
  expect_verified(graph, plain);
  expect_verified(graph, in_place);
}

TEST(ConcatInPlace, HeightAndNestedConcatenationsRunBitIdentical) {
  const Graph graph = height_and_nested_concatenation();
  const PlanResult plain = plan(graph, false);
  PlanOptions every;
  every.concat_in_place_ops = {2, 4};
  const PlanResult both = plan_model(graph, every);
  // The inner inputs go straight into the outer output: row 2 of `bottom`
  // starts 2 rows of 2x8 channels in.
  const std::vector<TensorView> views = concat_in_place_views(graph, {2, 4});
  ASSERT_EQ(views.size(), 4u);
  EXPECT_EQ(views[1].base, graph.main().ops[4].outputs[0]);
  EXPECT_EQ(views[1].offset, 2 * 2 * 8);
  EXPECT_EQ(views[1].strides, (std::vector<int64_t>{0, 16, 8, 1}));
  expect_verified(graph, both);
  const PlanResult chosen = plan(graph, true);
  EXPECT_LE(chosen.dmo.arena_size, plain.dmo.arena_size);
  expect_verified(graph, chosen);
}

std::string reason_of(const Graph& graph, int32_t op) {
  for (const ConcatInPlace& c : concat_in_place_candidates(graph)) {
    if (c.op == op) return c.possible ? "possible" : c.reason;
  }
  return "not a candidate";
}

TEST(ConcatInPlace, RefusalsSayWhy) {
  {
    GraphBuilder b("input_concat");
    const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 1}, kQuant);
    const int32_t conv = add_conv(b, "conv", input, 1, {1, 4, 4, 1}, Padding::kSame, 1);
    const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 4, 4, 2}, kQuant);
    add_concat(b, {conv, input}, out, 3);
    b.set_inputs({input});
    b.set_outputs({out});
    EXPECT_EQ(reason_of(b.finish(), 1), "input 1 is a graph input (the caller writes it, whole)");
  }
  {
    GraphBuilder b("twice");
    const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 1}, kQuant);
    const int32_t conv = add_conv(b, "conv", input, 1, {1, 4, 4, 1}, Padding::kSame, 1);
    const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 4, 4, 2}, kQuant);
    add_concat(b, {conv, conv}, out, 3);
    b.set_inputs({input});
    b.set_outputs({out});
    EXPECT_NE(reason_of(b.finish(), 1).find("concatenated twice"), std::string::npos);
  }
  {
    GraphBuilder b("requantized");
    const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 1}, kQuant);
    const int32_t a = add_conv(b, "a", input, 1, {1, 4, 4, 1}, Padding::kSame, 1);
    const int32_t c = add_conv(b, "c", input, 1, {1, 4, 4, 1}, Padding::kSame, 2, Quantization{{0.2f}, {0}, 0});
    const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 4, 4, 2}, kQuant);
    add_concat(b, {a, c}, out, 3);
    b.set_inputs({input});
    b.set_outputs({out});
    const Graph graph = b.finish();
    EXPECT_NE(reason_of(graph, 2).find("quantized differently"), std::string::npos);
    try {
      concat_in_place_views(graph, {2});
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("op 2 (CONCATENATION) cannot concatenate in place"), std::string::npos);
    }
  }
  EXPECT_THROW(concat_in_place_views(channel_concatenation(), {0}), Error);  // a CONV_2D
}

TEST(ConcatInPlace, CannotBeCombinedWithSplit) {
  PlanOptions options;
  options.concat_in_place = true;
  options.split = {SplitStage{0, 0, SplitAxis::kHeight, 2}};
  EXPECT_THROW(plan_model(channel_concatenation(), options), Error);
}

TEST(ConcatInPlace, PlanFilesNamingOpsThatCannotGoInPlaceAreRefusedOnOneLine) {
  const std::string model = "mobilenet_v1_0.25_96_int8";
  auto planned = nlohmann::json::parse(test::run_dmo({"plan", model, "--json"}).out);
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& t : planned["tensors"]) offsets.push_back(t.contains("dmo_offset") ? t["dmo_offset"] : nlohmann::json(-1));
  nlohmann::json file_plan = {{"arena_bytes", planned["dmo_bytes"]}, {"offsets", offsets},
                              {"descending_ops", planned["descending_ops"]}};
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_concat_" + std::to_string(::getpid()) + ".json")).string();
  auto expect_refused = [&](const nlohmann::json& value, const std::string& problem) {
    nlohmann::json p = file_plan;
    p["concat_in_place"] = value;
    std::ofstream(file) << p.dump();
    for (const char* command : {"verify", "run"}) {
      const test::CommandResult r = test::run_dmo({command, model, "--plan", file});
      EXPECT_EQ(r.exit_status, 2) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
    }
  };
  expect_refused(nlohmann::json::array({0}), "op 0 is not a CONCATENATION or PACK");
  expect_refused("all", "concat_in_place must be a list of op indices");
  std::filesystem::remove(file);
}

// Every shared model with a concatenation: the plan with in-place
// concatenation is never above the plain one and passes the checked run.
TEST(ConcatInPlace, SharedModelsNeverAboveThePlainPlanAndVerify) {
  DMO_REQUIRE_SHARED(shared);
  int32_t with_concatenations = 0;
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    const Graph graph = read_tflite_file(file);
    if (concat_in_place_candidates(graph).empty()) continue;
    SCOPED_TRACE(file);
    ++with_concatenations;
    const PlanResult plain = plan(graph, false);
    const PlanResult in_place = plan(graph, true);
    EXPECT_LE(in_place.dmo.arena_size, plain.dmo.arena_size);
    if (!in_place.concat_in_place.empty()) expect_verified(graph, in_place);
  }
  EXPECT_GE(with_concatenations, 6);
}

}  // namespace
}  // namespace dmo
