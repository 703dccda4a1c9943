// The execution schedule: ops run region by region (random bands of rows and
// columns, either walk) give the bytes of whole-output runs; producers
// writing into views of one tensor give a concatenation's bytes; malformed
// schedules are refused naming the step or view.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "dmo/error.h"
#include "dmo/ops/walk_order.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/schedule/schedule.h"
#include "dmo/schedule/schedule_lifetimes.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "int8_conv_graph.h"

namespace dmo {
namespace {

// Every non-constant tensor's bytes, taken right after the op that writes it.
std::map<int32_t, std::vector<uint8_t>> run_and_collect(const Graph& graph, Schedule schedule, uint32_t seed) {
  Interpreter interpreter(graph, unshared_placement(graph.main()), std::move(schedule));
  interpreter.set_inputs(pattern_input(graph.main(), seed));
  std::map<int32_t, std::vector<uint8_t>> tensors;
  interpreter.run([&](int32_t op) {
    for (int32_t t : graph.main().ops[static_cast<size_t>(op)].outputs) tensors[t] = interpreter.tensor_contents(t);
  });
  return tensors;
}

// Cuts [0, extent) into 1..4 random bands.
std::vector<IndexRange> random_bands(int32_t extent, std::mt19937& rng) {
  std::vector<int32_t> cuts = {0, extent};
  const int32_t extra = std::uniform_int_distribution<int32_t>(0, std::min(3, extent - 1))(rng);
  while (static_cast<int32_t>(cuts.size()) < extra + 2) {
    const int32_t c = std::uniform_int_distribution<int32_t>(1, extent - 1)(rng);
    if (std::find(cuts.begin(), cuts.end(), c) == cuts.end()) cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<IndexRange> bands;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) bands.push_back({cuts[i], cuts[i + 1]});
  return bands;
}

// Each windowed op split into random row bands (and column bands for some),
// the regions in random order, each op walking a random way.
Schedule random_region_schedule(const Graph& graph, std::mt19937& rng, int32_t* split_ops) {
  Schedule schedule;
  const Subgraph& sg = graph.main();
  for (int32_t op = 0; op < static_cast<int32_t>(sg.ops.size()); ++op) {
    const Op& o = sg.ops[static_cast<size_t>(op)];
    ScheduleStep whole;
    whole.op = op;
    if (!kernel_walks_descending(static_cast<OpKind>(o.builtin_code))) {
      schedule.steps.push_back(whole);
      continue;
    }
    ++*split_ops;
    const Shape& out = sg.tensors[static_cast<size_t>(o.outputs[0])].shape;
    const bool descending = std::bernoulli_distribution(0.5)(rng);
    std::vector<IndexRange> rows = random_bands(out[1], rng);
    std::vector<IndexRange> cols =
        std::bernoulli_distribution(0.5)(rng) ? random_bands(out[2], rng) : std::vector<IndexRange>{{0, out[2]}};
    std::vector<ScheduleStep> steps;
    for (const IndexRange& r : rows) {
      for (const IndexRange& c : cols) {
        ScheduleStep step = whole;
        step.descending = descending;
        step.region = {r.begin, r.end, c.begin, c.end};
        steps.push_back(step);
      }
    }
    std::shuffle(steps.begin(), steps.end(), rng);
    schedule.steps.insert(schedule.steps.end(), steps.begin(), steps.end());
  }
  return schedule;
}

class RegionsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RegionsTest, RegionByRegionGivesTheWholeOutputBytes) {
  const Graph graph = build_zoo_model(GetParam());
  const auto whole = run_and_collect(graph, default_schedule(graph), 1);
  std::mt19937 rng(20261201);
  for (int round = 0; round < 3; ++round) {
    int32_t split_ops = 0;
    const Schedule schedule = random_region_schedule(graph, rng, &split_ops);
    ASSERT_GT(split_ops, 0);
    ASSERT_GT(schedule.steps.size(), graph.main().ops.size());
    const auto regions = run_and_collect(graph, schedule, 1);
    ASSERT_EQ(regions.size(), whole.size());
    for (const auto& [tensor, bytes] : whole) {
      EXPECT_EQ(regions.at(tensor), bytes) << "tensor " << tensor << ", round " << round;
    }
  }
}

// Conv, depthwise conv and average pooling in float and int8 (MobileNet v1),
// and uint8 with residual adds (MobileNet v2).
INSTANTIATE_TEST_SUITE_P(Zoo, RegionsTest,
                         ::testing::Values("mobilenet_v1_0.25_96_float32", "mobilenet_v1_0.25_96_int8",
                                           "mobilenet_v2_0.35_96_uint8"));

TEST(Regions, OneRegionComputesOnlyItsBand) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_96_int8");
  const Op& conv = graph.main().ops[0];
  ASSERT_TRUE(conv.is(OpKind::kConv2D));
  const int32_t output = conv.outputs[0];
  const Shape& shape = graph.main().tensors[static_cast<size_t>(output)].shape;
  Schedule schedule;
  schedule.steps.push_back({0, 0, false, {2, 5, 1, 3}});
  Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  interpreter.set_inputs(pattern_input(graph.main(), 1));
  interpreter.set_tensor(output, std::vector<uint8_t>(static_cast<size_t>(shape[1] * shape[2] * shape[3]), 0x5a));
  interpreter.run();
  const auto bytes = interpreter.tensor_bytes(output);
  int64_t changed_outside = 0, changed_inside = 0;
  for (int32_t y = 0; y < shape[1]; ++y) {
    for (int32_t x = 0; x < shape[2]; ++x) {
      const bool inside = y >= 2 && y < 5 && x >= 1 && x < 3;
      for (int32_t c = 0; c < shape[3]; ++c) {
        const bool changed = bytes[static_cast<size_t>((y * shape[2] + x) * shape[3] + c)] != 0x5a;
        (inside ? changed_inside : changed_outside) += changed;
      }
    }
  }
  EXPECT_EQ(changed_outside, 0);
  EXPECT_GT(changed_inside, 3 * 2 * shape[3] / 2);
}

// Two convolutions feeding a CONCATENATION along channels.
Graph two_producers_and_a_concatenation() {
  GraphBuilder b("two_convs_concat");
  const Quantization q = Quantization{{0.05f}, {3}, 0};
  const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 6, 5, 4}, q);
  auto conv = [&](const std::string& name, int32_t depth, int8_t seed) {
    return test::add_int8_conv3x3(b, name, input, 4, {1, 6, 5, depth}, Padding::kSame, seed,
                                  Quantization{{0.1f}, {-2}, 0});
  };
  const int32_t first = conv("first", 3, 1);
  const int32_t second = conv("second", 5, 2);
  const int32_t concat = b.add_tensor("concat", DataType::kInt8, {1, 6, 5, 8}, Quantization{{0.1f}, {-2}, 0});
  ConcatenationParams params;
  params.axis = 3;
  b.add_op(OpKind::kConcatenation, {first, second}, {concat}, params);
  b.set_inputs({input});
  b.set_outputs({concat});
  return b.finish();
}

TEST(Views, ProducersWritingIntoViewsGiveTheConcatenationsBytes) {
  const Graph graph = two_producers_and_a_concatenation();
  const Subgraph& sg = graph.main();
  const int32_t concat_tensor = sg.ops[2].outputs[0];

  Interpreter reference(graph, unshared_placement(sg));
  reference.set_inputs(pattern_input(sg, 1));
  reference.run();
  const auto want = reference.tensor_contents(concat_tensor);

  // The producers write straight into their slices; the copy is gone.
  Schedule schedule;
  schedule.steps = {{0, 0, false, {}}, {0, 1, true, {}}};
  schedule.views = concatenation_views(sg, 2);
  ASSERT_EQ(schedule.views.size(), 2u);
  EXPECT_EQ(schedule.views[1].offset, 3);
  Interpreter in_place(graph, unshared_placement(sg), schedule);
  in_place.set_inputs(pattern_input(sg, 1));
  EXPECT_FALSE(in_place.run_checked().has_value());
  EXPECT_EQ(in_place.tensor_contents(concat_tensor), want);
  // Each producer's view reads back as its own tensor.
  EXPECT_EQ(in_place.tensor_contents(sg.ops[0].outputs[0]), reference.tensor_contents(sg.ops[0].outputs[0]));
  EXPECT_EQ(in_place.tensor_contents(sg.ops[1].outputs[0]), reference.tensor_contents(sg.ops[1].outputs[0]));
  EXPECT_THROW(in_place.tensor_bytes(sg.ops[1].outputs[0]), Error);
}

TEST(Views, ProducersWritingRegionsIntoViewsGiveTheConcatenationsBytes) {
  const Graph graph = two_producers_and_a_concatenation();
  const Subgraph& sg = graph.main();
  Interpreter reference(graph, unshared_placement(sg));
  reference.set_inputs(pattern_input(sg, 2));
  reference.run();
  Schedule schedule;
  schedule.steps = {{0, 1, false, {3, 6, 0, OutputRegion::kToEnd}}, {0, 0, true, {0, 6, 0, 2}},
                    {0, 1, true, {0, 3, 0, OutputRegion::kToEnd}}, {0, 0, false, {0, 6, 2, 5}}};
  schedule.views = concatenation_views(sg, 2);
  Interpreter in_place(graph, unshared_placement(sg), schedule);
  in_place.set_inputs(pattern_input(sg, 2));
  in_place.run();
  EXPECT_EQ(in_place.tensor_contents(sg.ops[2].outputs[0]), reference.tensor_contents(sg.ops[2].outputs[0]));
}

TEST(Schedule, DefaultIsOneWholeStepPerOpInFileOrder) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_96_int8");
  const Schedule schedule = default_schedule(graph, {3, 1});
  ASSERT_EQ(schedule.steps.size(), graph.main().ops.size());
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    EXPECT_EQ(schedule.steps[i].op, static_cast<int32_t>(i));
    EXPECT_TRUE(schedule.steps[i].region.is_whole());
    EXPECT_EQ(schedule.steps[i].descending, i == 1 || i == 3);
  }
  EXPECT_EQ(descending_ops(schedule), (std::vector<int32_t>{1, 3}));
  EXPECT_TRUE(schedule.views.empty());
}

void expect_refused(const Graph& graph, const Schedule& schedule, const std::string& fragment) {
  try {
    check_schedule(graph, schedule);
    ADD_FAILURE() << "accepted; expected an error containing '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Schedule, MalformedSchedulesAreRefusedNamingTheStepOrView) {
  const Graph graph = two_producers_and_a_concatenation();
  const Subgraph& sg = graph.main();
  Schedule s;
  s.steps = {{0, 7, false, {}}};
  expect_refused(graph, s, "step 0 (op 7): subgraph 0 has 3 ops");
  s.steps = {{1, 0, false, {}}};
  expect_refused(graph, s, "only subgraph 0 runs");
  s.steps = {{0, 0, false, {4, 9, 0, 2}}};
  expect_refused(graph, s, "outside the 1x6x5x3 output");
  s.steps = {{0, 0, false, {3, 3, 0, 2}}};
  expect_refused(graph, s, "is empty");
  s.steps = {};
  s.views = concatenation_views(sg, 2);
  s.views[1].offset = 4;  // the last channel would fall past the base
  expect_refused(graph, s, "view 1 (tensor");
  s.views = concatenation_views(sg, 2);
  s.views.push_back(s.views[0]);
  expect_refused(graph, s, "already has a view");
  s.views = {{sg.ops[0].outputs[0], sg.ops[0].outputs[0], 0, {0, 0, 0, 1}}};
  expect_refused(graph, s, "into itself");
  s.views = {{sg.ops[0].outputs[0], sg.ops[0].inputs[1], 0, {1, 1, 1, 1}}};
  expect_refused(graph, s, "activation tensors only");
}

TEST(Schedule, InterpreterRefusesRegionsAndDescendingWalksItsKernelsCannotDo) {
  const Graph graph = two_producers_and_a_concatenation();
  Schedule s = default_schedule(graph);
  s.steps[2].descending = true;
  EXPECT_THROW(Interpreter(graph, unshared_placement(graph.main()), s), Error);
  s = default_schedule(graph);
  s.steps[2].region = {0, 1, 0, 1};
  EXPECT_THROW(Interpreter(graph, unshared_placement(graph.main()), s), Error);
}

bool same_lifetimes(const std::vector<Lifetime>& a, const std::vector<Lifetime>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || a[i].last != b[i].last) return false;
  }
  return true;
}

TEST(ScheduleLifetimes, TheDefaultScheduleGivesTflmsLifetimes) {
  for (const char* name : {"mobilenet_v1_0.25_96_int8", "mobilenet_v2_0.35_96_uint8"}) {
    const Graph graph = build_zoo_model(name);
    EXPECT_TRUE(same_lifetimes(schedule_lifetimes(graph, default_schedule(graph)), compute_lifetimes(graph.main())))
        << name;
  }
  const Graph graph = two_producers_and_a_concatenation();
  EXPECT_TRUE(same_lifetimes(schedule_lifetimes(graph, default_schedule(graph)), compute_lifetimes(graph.main())));
}

TEST(ScheduleLifetimes, TimeIsTheStepAndViewsLiveWithTheirBase) {
  const Graph graph = two_producers_and_a_concatenation();
  const Subgraph& sg = graph.main();
  const int32_t first = sg.ops[0].outputs[0], second = sg.ops[1].outputs[0], concat = sg.ops[2].outputs[0];
  Schedule s;
  // The second conv in two row bands, then the first conv; no copy.
  s.steps = {{0, 1, false, {0, 3, 0, OutputRegion::kToEnd}}, {0, 1, false, {3, 6, 0, OutputRegion::kToEnd}},
             {0, 0, false, {}}};
  s.views = concatenation_views(sg, 2);
  Schedule no_views = s;
  no_views.views.clear();
  const std::vector<Lifetime> steps_only = schedule_lifetimes(graph, no_views);
  EXPECT_EQ(steps_only[static_cast<size_t>(second)].first, 0);  // its first band
  EXPECT_EQ(steps_only[static_cast<size_t>(second)].last, 1);   // its last band
  EXPECT_EQ(steps_only[static_cast<size_t>(first)].first, 2);
  EXPECT_EQ(steps_only[static_cast<size_t>(first)].last, 2);
  const std::vector<Lifetime> life = schedule_lifetimes(graph, s);
  const int32_t input = sg.inputs[0];
  EXPECT_EQ(life[static_cast<size_t>(input)].first, kBeforeFirstOp);
  EXPECT_EQ(life[static_cast<size_t>(input)].last, 2);
  // The concatenation is a graph output (created before the first step,
  // used to the last), so both views live as long.
  for (int32_t t : {first, second, concat}) {
    EXPECT_EQ(life[static_cast<size_t>(t)].first, kBeforeFirstOp) << t;
    EXPECT_EQ(life[static_cast<size_t>(t)].last, 2) << t;
  }
}

}  // namespace
}  // namespace dmo
