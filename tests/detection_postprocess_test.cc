// TFLite_Detection_PostProcess: detections computed by hand on a few
// anchors (overlaps suppressed, the score threshold, the max_detections
// cut, ties), both suppression paths; its safe overlaps on the checking
// policy, fixed and over random shapes; refusals of bad operands and
// options; and the scratch buffers a plan leaves room for.
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/plan/tflm_layout.h"
#include "dmo/plan/tflm_scratch_buffers.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

constexpr const char* kCode = "TFLite_Detection_PostProcess";

struct Options {
  int32_t max_detections = 3;
  int32_t max_classes_per_detection = 1;
  std::optional<int32_t> detections_per_class;
  std::optional<bool> use_regular_nms;
  float score_threshold = 0.25f;
  float iou_threshold = 0.5f;
  int32_t num_classes = 2;
  float y_scale = 1, x_scale = 1, h_scale = 1, w_scale = 1;
};

std::vector<uint8_t> flex_options(const Options& o) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", o.max_detections);
    fbb.Int("max_classes_per_detection", o.max_classes_per_detection);
    if (o.detections_per_class) fbb.Int("detections_per_class", *o.detections_per_class);
    if (o.use_regular_nms) fbb.Bool("use_regular_nms", *o.use_regular_nms);
    fbb.Float("nms_score_threshold", o.score_threshold);
    fbb.Float("nms_iou_threshold", o.iou_threshold);
    fbb.Int("num_classes", o.num_classes);
    fbb.Float("y_scale", o.y_scale);
    fbb.Float("x_scale", o.x_scale);
    fbb.Float("h_scale", o.h_scale);
    fbb.Float("w_scale", o.w_scale);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

struct Detection {
  Graph graph;
  int32_t encodings = -1, predictions = -1;
  std::array<int32_t, 4> outputs{};  // boxes, classes, scores, number of detections
};

struct Shapes {
  int32_t boxes = 4;
  int32_t classes_with_background = 3;
  int32_t entries = 3;  // detection entries per output
  DataType predictions_type = DataType::kFloat32;
};

// Box encodings [1, boxes, 4] and class predictions are the graph's inputs
// (in that order); the anchors, (y, x, h, w) per anchor, are constant.
Detection detection_model(const Shapes& s, const std::vector<float>& anchors, const Options& o) {
  GraphBuilder b("detection_postprocess_test");
  Detection m;
  m.encodings = b.add_tensor("box_encodings", DataType::kFloat32, {1, s.boxes, 4});
  m.predictions = b.add_tensor("class_predictions", s.predictions_type, {1, s.boxes, s.classes_with_background});
  const int32_t a = b.add_constant_values("anchors", DataType::kFloat32, {s.boxes, 4}, anchors);
  m.outputs[0] = b.add_tensor("detection_boxes", DataType::kFloat32, {1, s.entries, 4});
  m.outputs[1] = b.add_tensor("detection_classes", DataType::kFloat32, {1, s.entries});
  m.outputs[2] = b.add_tensor("detection_scores", DataType::kFloat32, {1, s.entries});
  m.outputs[3] = b.add_tensor("num_detections", DataType::kFloat32, {1});
  b.add_op(OpKind::kCustom, {m.encodings, m.predictions, a}, {m.outputs.begin(), m.outputs.end()});
  b.set_inputs({m.encodings, m.predictions});
  b.set_outputs({m.outputs.begin(), m.outputs.end()});
  m.graph = b.finish();
  Op& op = m.graph.subgraphs[0].ops[0];
  op.custom_code = kCode;
  op.custom_options = flex_options(o);
  return m;
}

// Four unit anchors: 0 at the origin, 1 shifted right by 0.25 (IoU with 0
// is 0.75 / 1.25 = 0.6), 2 and 3 apart from all others.
const std::vector<float> kAnchors = {0.5f, 0.5f, 1, 1, 0.5f, 0.75f, 1, 1, 2.5f, 2.5f, 1, 1, 4.5f, 4.5f, 1, 1};
// Background, class 0, class 1 per anchor.
const std::vector<float> kScores = {0, 0.9f, 0.1f, 0, 0.8f, 0.7f, 0, 0.3f, 0.6f, 0, 0.2f, 0.1f};

std::vector<uint8_t> inputs(const std::vector<float>& encodings, const std::vector<float>& scores) {
  std::vector<uint8_t> bytes = test::bytes_of(encodings);
  const std::vector<uint8_t> more = test::bytes_of(scores);
  bytes.insert(bytes.end(), more.begin(), more.end());
  return bytes;
}

std::vector<float> zeros(size_t n) { return std::vector<float>(n, 0.0f); }

struct Outputs {
  std::vector<float> boxes, classes, scores;
  float count = -1;
};

// Runs unshared, checked and direct (which must agree).
Outputs run(const Detection& m, const std::vector<uint8_t>& in) {
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(in);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(m.graph, unshared_placement(m.graph.main()));
  direct.set_inputs(in);
  direct.run();
  for (int32_t t : m.outputs) EXPECT_EQ(direct.tensor_contents(t), checked.tensor_contents(t)) << "tensor " << t;
  auto floats = [&](int32_t t) { return test::values_from<float>(direct.tensor_bytes(t)); };
  return {floats(m.outputs[0]), floats(m.outputs[1]), floats(m.outputs[2]), floats(m.outputs[3]).at(0)};
}

std::vector<float> first(const std::vector<float>& v, size_t n) { return {v.begin(), v.begin() + static_cast<long>(n)}; }

std::string run_error(const Graph& graph) {
  return test::error_of([&] {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  });
}

#define EXPECT_RUN_ERROR(graph, text)                                            \
  do {                                                                           \
    const std::string message = run_error(graph);                                \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

// ---------------------------------------------------------------- values

TEST(DetectionPostProcess, FastPathSuppressesOverlapsAndThresholdsBestClassScores) {
  // Best class per anchor: 0.9 (class 0), 0.8 (class 0), 0.6 (class 1),
  // 0.2 (under the threshold). Anchor 1 overlaps anchor 0 by IoU 0.6 > 0.5.
  const Detection m = detection_model({}, kAnchors, {});
  const Outputs out = run(m, inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 2.0f);
  EXPECT_EQ(first(out.boxes, 8), (std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(first(out.classes, 2), (std::vector<float>{0, 1}));
  EXPECT_EQ(first(out.scores, 2), (std::vector<float>{0.9f, 0.6f}));
}

TEST(DetectionPostProcess, FastPathStopsAtMaxDetectionsAndKeepsOverlapsUnderTheIouThreshold) {
  Options o;
  o.max_detections = 1;
  Shapes s;
  s.entries = 1;
  Outputs out = run(detection_model(s, kAnchors, o), inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 1.0f);
  EXPECT_EQ(out.scores, std::vector<float>{0.9f});
  // IoU 0.6 is not above 0.6: anchor 1 stays.
  o = {};
  o.iou_threshold = 0.6f;
  out = run(detection_model({}, kAnchors, o), inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 3.0f);
  EXPECT_EQ(out.scores, (std::vector<float>{0.9f, 0.8f, 0.6f}));
  EXPECT_EQ(out.classes, (std::vector<float>{0, 0, 1}));
}

TEST(DetectionPostProcess, RegularPathSuppressesPerClassAndKeepsTheBestAcrossClasses) {
  // Class 0: 0.9, 0.8, 0.3 kept; anchor 1 suppressed by anchor 0 -> (0, 0.9),
  // (2, 0.3). Class 1: 0.7, 0.6 -> (1, 0.7), (2, 0.6). Best three overall.
  Options o;
  o.use_regular_nms = true;
  o.detections_per_class = 2;
  Outputs out = run(detection_model({}, kAnchors, o), inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 3.0f);
  EXPECT_EQ(out.boxes, (std::vector<float>{0, 0, 1, 1, 0, 0.25f, 1, 1.25f, 2, 2, 3, 3}));
  EXPECT_EQ(out.classes, (std::vector<float>{0, 1, 1}));
  EXPECT_EQ(out.scores, (std::vector<float>{0.9f, 0.7f, 0.6f}));
  // Room for five: the fourth is (2, class 0, 0.3), the fifth zeros.
  o.max_detections = 5;
  Shapes s;
  s.entries = 5;
  out = run(detection_model(s, kAnchors, o), inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 4.0f);
  EXPECT_EQ(out.classes, (std::vector<float>{0, 1, 1, 0, 0}));
  EXPECT_EQ(out.scores, (std::vector<float>{0.9f, 0.7f, 0.6f, 0.3f, 0}));
  EXPECT_EQ(first(std::vector<float>(out.boxes.begin() + 12, out.boxes.end()), 8),
            (std::vector<float>{2, 2, 3, 3, 0, 0, 0, 0}));
  // One detection per class: anchor 2's class 0 never competes.
  o.detections_per_class = 1;
  out = run(detection_model(s, kAnchors, o), inputs(zeros(16), kScores));
  EXPECT_EQ(out.count, 2.0f);
  EXPECT_EQ(out.scores, (std::vector<float>{0.9f, 0.7f, 0, 0, 0}));
}

TEST(DetectionPostProcess, DecodesCenterSizeEncodingsAgainstTheAnchors) {
  // y/x move the centre by encoding / scale * anchor size; h/w scale the
  // half size by exp(encoding / scale), all in double.
  Options o;
  o.y_scale = 10;
  o.x_scale = 10;
  o.h_scale = 5;
  o.w_scale = 5;
  o.max_detections = 1;
  o.num_classes = 1;
  Shapes s;
  s.boxes = 1;
  s.classes_with_background = 1;
  s.entries = 1;
  const std::vector<float> anchor = {1.0f, 2.0f, 2.0f, 4.0f};
  const std::vector<float> encoding = {5.0f, -10.0f, 1.5f, -2.5f};
  const Outputs out = run(detection_model(s, anchor, o), inputs(encoding, {0.5f}));
  const auto yc = static_cast<float>(5.0 / 10.0 * 2.0 + 1.0);   // 2
  const auto xc = static_cast<float>(-10.0 / 10.0 * 4.0 + 2.0);  // -2
  const auto half_h = static_cast<float>(0.5 * std::exp(1.5 / 5.0) * 2.0);
  const auto half_w = static_cast<float>(0.5 * std::exp(-2.5 / 5.0) * 4.0);
  EXPECT_EQ(out.boxes, (std::vector<float>{yc - half_h, xc - half_w, yc + half_h, xc + half_w}));
  EXPECT_EQ(out.classes, std::vector<float>{0});  // no background: class 0 is column 0
  EXPECT_EQ(out.count, 1.0f);
}

TEST(DetectionPostProcess, TiesGoToTheLowerAnchorAndTheLowerClass) {
  // Anchors 2 and 3 tie at 0.5 in both classes; anchor 0 and 1 score under
  // the threshold. Two classes per detection: TFLM places entry e's class
  // c at 2 * e + c (e counting classes written), so slots 0 and 3, then 4
  // and 7, are written and the others keep what they held (zeros here).
  Options o;
  o.max_classes_per_detection = 2;
  o.max_detections = 2;
  Shapes s;
  s.entries = 8;
  const std::vector<float> scores = {0, 0.1f, 0.1f, 0, 0.2f, 0.1f, 0, 0.5f, 0.5f, 0, 0.5f, 0.5f};
  const Outputs out = run(detection_model(s, kAnchors, o), inputs(zeros(16), scores));
  EXPECT_EQ(out.count, 4.0f);
  EXPECT_EQ(out.classes, (std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(out.scores, (std::vector<float>{0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f}));
  EXPECT_EQ(first(out.boxes, 4), (std::vector<float>{2, 2, 3, 3}));                                  // anchor 2
  EXPECT_EQ(std::vector<float>(out.boxes.begin() + 16, out.boxes.begin() + 20), (std::vector<float>{4, 4, 5, 5}));
}

TEST(DetectionPostProcess, RegularPathSortsTwentyAndMoreTiedScoresStably) {
  // 24 disjoint anchors with the same score: the merge sort (past its
  // insertion-sort threshold of 20) keeps them in anchor order.
  constexpr int32_t n = 24;
  std::vector<float> anchors;
  for (int32_t a = 0; a < n; ++a) anchors.insert(anchors.end(), {2.0f * a + 0.5f, 0.5f, 1, 1});
  Options o;
  o.use_regular_nms = true;
  o.max_detections = 22;
  o.num_classes = 1;
  Shapes s;
  s.boxes = n;
  s.classes_with_background = 1;
  s.entries = 22;
  const Outputs out = run(detection_model(s, anchors, o), inputs(zeros(4 * n), std::vector<float>(n, 0.5f)));
  EXPECT_EQ(out.count, 22.0f);
  for (int32_t e = 0; e < 22; ++e) EXPECT_EQ(out.boxes[static_cast<size_t>(4 * e)], 2.0f * e) << "entry " << e;
}

TEST(DetectionPostProcess, AnEmptyDecodedBoxFailsTheOpAsTfliteMicroDoes) {
  std::vector<float> anchors = kAnchors;
  anchors[6] = 0;  // anchor 1 has height 0
  const Detection m = detection_model({}, anchors, {});
  const std::string message = test::error_of([&] {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
    interpreter.set_inputs(inputs(zeros(16), kScores));
    interpreter.run();
  });
  EXPECT_NE(message.find("op 0 (TFLite_Detection_PostProcess): decoded box 1 is empty or inverted"),
            std::string::npos)
      << message;
}

// ---------------------------------------------------------------- safe overlap

test::OneOp pair(const Detection& m, int32_t input, size_t output) { return {m.graph, input, m.outputs[output]}; }

// O_s is clean, and one float more (where the input reaches that far) clobbers.
void expect_overlap_facts(const test::OneOp& m, const std::vector<uint8_t>& in) {
  const int64_t os = test::addresses(m).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, in)) << "at O_s " << os;
  const int64_t whole = std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output));
  if (os + 4 <= whole) {
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + 4, in)) << "one float beyond O_s " << os;
  }
}

// Fast path scores where anchor 0 is selected last and its best class is
// class 0: the loads the address-only walk assumes are what TFLM makes.
const std::vector<float> kAnchorZeroLast = {0, 0.55f, 0.1f, 0, 0.8f, 0.7f, 0, 0.3f, 0.6f, 0, 0.2f, 0.1f};

TEST(DetectionPostProcess, FastPathOverlapsTheClassPredictionsByTheScoresItNeverReloads) {
  Options o;
  o.iou_threshold = 1.0f;  // keep anchors 0 and 1 both
  const Detection m = detection_model({}, kAnchors, o);
  const std::vector<uint8_t> in = inputs(zeros(16), kAnchorZeroLast);
  // Its last score load is anchor 0's class 0 (byte 4, past the
  // background), after every box and class and all scores but the last.
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 0)).safe_overlap(), 4);
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 1)).safe_overlap(), 4);
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 2)).safe_overlap(), 8);
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 3)).safe_overlap(), 4);
  for (size_t k = 0; k < 4; ++k) expect_overlap_facts(pair(m, m.predictions, k), in);
  // The box encodings are all read before the first write.
  EXPECT_EQ(test::addresses(pair(m, m.encodings, 0)).safe_overlap(), 48);
  expect_overlap_facts(pair(m, m.encodings, 0), in);
}

TEST(DetectionPostProcess, RegularPathReadsEverythingBeforeItsFirstWrite) {
  Options o;
  o.use_regular_nms = true;
  const Detection m = detection_model({}, kAnchors, o);
  const std::vector<uint8_t> in = inputs(zeros(16), kScores);
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 0)).safe_overlap(), 48);
  EXPECT_EQ(test::addresses(pair(m, m.predictions, 2)).safe_overlap(), 12);
  for (size_t k = 0; k < 4; ++k) {
    expect_overlap_facts(pair(m, m.predictions, k), in);
    expect_overlap_facts(pair(m, m.encodings, k), in);
  }
}

// Random anchors, classes and limits, with scores that make TFLM select
// min(boxes, max_detections) anchors, anchor 0 last with class 0 its best:
// the O_s folded by the address-only walk is clean and one float more
// clobbers, for every input and output pair.
TEST(DetectionPostProcess, OverlapFactsHoldOverRandomShapes) {
  std::mt19937 rng(20261201);
  auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    Shapes s;
    s.boxes = std::uniform_int_distribution<int32_t>(1, 12)(rng);
    Options o;
    o.num_classes = std::uniform_int_distribution<int32_t>(1, 4)(rng);
    const int32_t background = std::uniform_int_distribution<int32_t>(0, 1)(rng);
    s.classes_with_background = o.num_classes + background;
    const bool regular = trial % 2 == 1;
    o.use_regular_nms = regular;
    o.detections_per_class = std::uniform_int_distribution<int32_t>(1, 4)(rng);
    // Fast: every entry written (the unwritten ones would keep input bytes).
    o.max_detections = std::uniform_int_distribution<int32_t>(1, regular ? 14 : s.boxes)(rng);
    o.score_threshold = 0.3f;
    s.entries = o.max_detections;
    std::vector<float> anchors, encodings;
    for (int32_t a = 0; a < s.boxes; ++a) {
      anchors.insert(anchors.end(), {4.0f * a, uniform(-1, 1), uniform(0.5f, 1.5f), uniform(0.5f, 1.5f)});
      encodings.insert(encodings.end(), {uniform(-0.1f, 0.1f), uniform(-0.1f, 0.1f), uniform(-0.5f, 0.5f),
                                         uniform(-0.5f, 0.5f)});
    }
    const int32_t selected = std::min(s.boxes, o.max_detections);
    std::vector<float> scores;
    for (int32_t a = 0; a < s.boxes; ++a) {
      if (background) scores.push_back(uniform(0, 1));
      for (int32_t c = 0; c < o.num_classes; ++c) {
        if (a == 0) scores.push_back(c == 0 ? 0.5f : uniform(0, 0.45f));
        else if (a < selected) scores.push_back(c == 0 ? uniform(0.6f, 1) : uniform(0, 1));
        else scores.push_back(uniform(0, 0.25f));
      }
    }
    const Detection m = detection_model(s, anchors, o);
    const std::vector<uint8_t> in = inputs(encodings, scores);
    SCOPED_TRACE(fmt::format("trial {}: {} boxes, {}+{} classes, max_detections {}, {}", trial, s.boxes, o.num_classes,
                             background, o.max_detections, regular ? "regular" : "fast"));
    for (size_t k = 0; k < 4; ++k) {
      expect_overlap_facts(pair(m, m.predictions, k), in);
      expect_overlap_facts(pair(m, m.encodings, k), in);
    }
  }
}

// ---------------------------------------------------------------- refusals

Detection with_options(Detection m, const std::function<void(flexbuffers::Builder&)>& write) {
  flexbuffers::Builder fbb;
  fbb.Map([&] { write(fbb); });
  fbb.Finish();
  m.graph.subgraphs[0].ops[0].custom_options = fbb.GetBuffer();
  return m;
}

TEST(DetectionPostProcess, RefusesBadOperandCountsTypesAndShapes) {
  const std::string op = "op 0 (TFLite_Detection_PostProcess): ";
  Detection m = detection_model({}, kAnchors, {});
  m.graph.subgraphs[0].ops[0].inputs.pop_back();
  EXPECT_RUN_ERROR(m.graph, op + "expected 3 input(s), got 2");
  m = detection_model({}, kAnchors, {});
  m.graph.subgraphs[0].ops[0].outputs.pop_back();
  EXPECT_RUN_ERROR(m.graph, op + "expected 4 output(s), got 3");
  Shapes s;
  s.predictions_type = DataType::kUInt8;
  EXPECT_RUN_ERROR(detection_model(s, kAnchors, {}).graph,
                   op + "class predictions (input 1) type UINT8 is not supported; supported: FLOAT32");
  s = {};
  s.classes_with_background = 4;
  EXPECT_RUN_ERROR(detection_model(s, kAnchors, {}).graph,
                   op + "class predictions hold 4 classes for num_classes 2; expected num_classes or one more");
  s = {};
  s.entries = 2;
  EXPECT_RUN_ERROR(detection_model(s, kAnchors, {}).graph,
                   op + "output 0 (detection boxes) has 8 elements; the kernel writes up to 12");
  Options o;
  o.max_classes_per_detection = 2;
  EXPECT_RUN_ERROR(detection_model({}, kAnchors, o).graph,
                   op + "output 0 (detection boxes) has 12 elements; the kernel writes up to 48");
  m = detection_model({}, kAnchors, {});
  m.graph.subgraphs[0].tensors[static_cast<size_t>(m.graph.main().ops[0].inputs[2])].shape = {2, 8};
  EXPECT_RUN_ERROR(m.graph, op + "anchors (input 2) have shape 2x8; expected 4x4");
}

TEST(DetectionPostProcess, RefusesMissingAndBadOptions) {
  const std::string op = "op 0 (TFLite_Detection_PostProcess): ";
  const Detection m = detection_model({}, kAnchors, {});
  EXPECT_RUN_ERROR(with_options(m, [](auto& f) { f.Int("max_detections", 3); }).graph,
                   op + "custom option 'max_classes_per_detection' is missing");
  Options o;
  o.iou_threshold = 0;
  EXPECT_RUN_ERROR(detection_model({}, kAnchors, o).graph, op + "custom option 'nms_iou_threshold' is 0, outside (0, 1]");
  o = {};
  o.max_detections = -1;
  EXPECT_RUN_ERROR(detection_model({}, kAnchors, o).graph, op + "custom option 'max_detections' is -1, outside");
  o = {};
  o.use_regular_nms = true;
  o.detections_per_class = 0;
  EXPECT_RUN_ERROR(detection_model({}, kAnchors, o).graph,
                   op + "custom option 'detections_per_class' must be positive for regular NMS");
  Detection bad = m;
  bad.graph.subgraphs[0].ops[0].custom_options.clear();
  EXPECT_RUN_ERROR(bad.graph, op + "custom options are missing (a FlexBuffer map is expected)");
  EXPECT_RUN_ERROR(with_options(m,
                                [](auto& f) {
                                  f.Int("max_detections", 3);
                                  f.Int("max_classes_per_detection", 1);
                                  f.String("nms_score_threshold", "high");
                                })
                       .graph,
                   op + "custom option 'nms_score_threshold' is a string, not a number");
}

std::string write_temp(const Graph& graph, const std::string& name) {
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_detection_" + std::to_string(::getpid()) + "_" + name)).string();
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return file;
}

TEST(DetectionPostProcess, TheCliRunsAndVerifiesItAndRefusesABadOneInOneLine) {
  // `verify` compares whole outputs with the unshared run's: the fast path
  // here keeps every anchor of the pattern input (no threshold, no IoU
  // above 1), so it writes every entry instead of leaving some as the
  // arena held them; the regular path always writes every entry.
  Options every_anchor;
  every_anchor.score_threshold = -2;
  every_anchor.iou_threshold = 1;
  Options regular;
  regular.use_regular_nms = true;
  for (const Options& o : {every_anchor, regular}) {
    const std::string good = write_temp(detection_model({}, kAnchors, o).graph, "good.tflite");
    for (const char* command : {"run", "verify"}) {
      const test::CommandResult ok = test::run_dmo({command, good});
      EXPECT_EQ(ok.exit_status, 0) << command << ": " << ok.out << ok.err;
    }
    std::filesystem::remove(good);
  }
  Shapes s;
  s.predictions_type = DataType::kInt8;
  const std::string bad = write_temp(detection_model(s, kAnchors, {}).graph, "bad.tflite");
  const test::CommandResult r = test::run_dmo({"run", bad});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(bad + ": op 0 (TFLite_Detection_PostProcess): class predictions (input 1) type INT8 is not "
                             "supported; supported: FLOAT32"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(bad);
}

// ---------------------------------------------------------------- scratch buffers

TEST(DetectionPostProcess, PlanLeavesRoomForTheElevenScratchBuffersTflmRequests) {
  // 4 anchors, 3 class columns, max_detections 3, 2 classes.
  const Detection m = detection_model({}, kAnchors, {});
  const std::vector<ScratchBuffer> scratch = tflm_scratch_buffers(m.graph.main(), m.graph.source);
  std::vector<int64_t> bytes;
  for (const ScratchBuffer& b : scratch) bytes.push_back(b.bytes);
  EXPECT_EQ(bytes, (std::vector<int64_t>{4, 64, 48, 16, 16, 48, 48, 16, 48, 48, 48}));
  const PlanResult r = plan_model(m.graph);
  ASSERT_EQ(r.scratch_buffers.size(), 11u);
  const nlohmann::json j = plan_report_json(m.graph, r);
  ASSERT_EQ(j["scratch_buffers"].size(), 11u);
  // Every figure is TFLM's head for the plan, scratch buffers included: they
  // live while the op runs, beside its inputs and outputs.
  const int64_t dmo_bytes = j["dmo_bytes"].get<int64_t>();
  EXPECT_EQ(dmo_bytes, plan_tflm_with_offsets(r.problem, tensor_offsets(r.problem, r.dmo)).arena_size);
  int64_t scratch_rounded = 0;
  for (int64_t b : bytes) scratch_rounded += (b + 15) / 16 * 16;
  EXPECT_GE(dmo_bytes, scratch_rounded);
  // Options the sizes depend on must be there.
  Detection bad = m;
  bad.graph.subgraphs[0].ops[0].custom_options.clear();
  EXPECT_NE(test::error_of([&] { tflm_scratch_buffers(bad.graph.main(), "m.tflite"); })
                .find("m.tflite: op 0 (TFLite_Detection_PostProcess): its custom options are missing"),
            std::string::npos);
}

}  // namespace
}  // namespace dmo
