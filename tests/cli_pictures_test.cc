// The pictures: `dmo plan --svg` carries what a reader needs and agrees
// with the plan the JSON report gives; the trace picture of a layer walked
// descending headlines the descending O_s.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "dmo/trace/access_svg.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::run_dmo;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_svg_" + std::to_string(::getpid()) + "_" + name)).string();
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string grouped(int64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

struct Drawn {
  nlohmann::json report, problem;
  std::string svg;
};

Drawn draw(const std::string& model, const std::vector<std::string>& flags = {}) {
  const std::string svg = temp_path("plan.svg"), problem = temp_path("problem.json");
  std::vector<std::string> args = {"plan", model, "--json", "--svg", svg, "--dump-problem", problem};
  args.insert(args.end(), flags.begin(), flags.end());
  auto r = run_dmo(args);
  EXPECT_EQ(r.exit_status, 0) << r.err;
  Drawn d;
  d.report = nlohmann::json::parse(r.out);
  const auto problem_bytes = test::read_file(problem), svg_bytes = test::read_file(svg);
  d.problem = nlohmann::json::parse(std::string(problem_bytes.begin(), problem_bytes.end()));
  d.svg.assign(svg_bytes.begin(), svg_bytes.end());
  std::filesystem::remove(svg);
  std::filesystem::remove(problem);
  return d;
}

// Every overlap pair whose output and dying input share bytes in dmo's plan,
// as the line the picture's hatched band carries.
std::multiset<std::string> shared_bands(const Drawn& d) {
  std::multiset<std::string> bands;
  const auto& buffers = d.problem["buffers"];
  for (const auto& pair : d.problem.value("overlaps", nlohmann::json::array())) {
    const auto& in = buffers[pair["input_buffer"].get<size_t>()];
    const auto& out = buffers[pair["output_buffer"].get<size_t>()];
    const int64_t in_at = d.report["tensors"][in["tensor"].get<size_t>()]["dmo_offset"];
    const int64_t out_at = d.report["tensors"][out["tensor"].get<size_t>()]["dmo_offset"];
    const int64_t low = std::max(in_at, out_at);
    const int64_t high = std::min(in_at + in["size"].get<int64_t>(), out_at + out["size"].get<int64_t>());
    if (low >= high) continue;
    const int32_t op = pair["op"];
    bool descending = false;
    for (const auto& o : d.report["descending_ops"]) descending = descending || o == op;
    // A split stage's pair is keyed to its first op; the stage walks ascending.
    std::string who = "op " + std::to_string(op);
    for (const auto& stage : d.report.value("split", nlohmann::json::array())) {
      if (stage["ops"][0] == op) who = "split stage ops " + std::to_string(op) + "-" + std::to_string(stage["ops"][1].get<int>());
    }
    bands.insert(who + ": output tensor " + std::to_string(out["tensor"].get<int>()) +
                 " shares " + grouped(high - low) + " bytes with the dying input tensor " +
                 std::to_string(in["tensor"].get<int>()) + ", walking " + (descending ? "descending" : "ascending"));
  }
  return bands;
}

std::multiset<std::string> drawn_bands(const std::string& svg) {
  std::multiset<std::string> bands;
  const std::string open = "<title>";
  for (size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    const size_t start = at + open.size(), end = svg.find("</title>", start);
    const std::string title = svg.substr(start, end - start);
    if (title.find(" shares ") != std::string::npos) bands.insert(title);
  }
  return bands;
}

TEST(CliPlanSvg, HasAxesLegendPeakAndTheSharedBytesOfDmosPlan) {
  const Drawn d = draw("mobilenet_v1_0.25_128_int8", {"--split", "none"});
  for (const char* text : {"op index (time)", "arena address (bytes)", "peak op: most bytes live",
                           "bytes output and dying input share at that op", "op walks its output descending"}) {
    EXPECT_NE(d.svg.find(text), std::string::npos) << text;
  }
  const int32_t peak = d.report["peak_op"];
  const int64_t live = d.report["ops"][static_cast<size_t>(peak)]["live_bytes"];
  EXPECT_EQ(count_of(d.svg, "peak op " + std::to_string(peak) + ": " + grouped(live) + " bytes live"), 2u);
  EXPECT_EQ(count_of(d.svg, "arena " + grouped(d.report["dmo_bytes"]) + " bytes"), 1u);
  EXPECT_EQ(count_of(d.svg, "arena " + grouped(d.report["tflm_greedy_bytes"]) + " bytes"), 1u);
  // Byte ticks start at 0 on both panels; op ticks label op 0.
  EXPECT_EQ(count_of(d.svg, "text-anchor=\"end\">0</text>"), 2u);
  EXPECT_EQ(count_of(d.svg, "text-anchor=\"middle\">0</text>"), 2u);
  const auto expected = shared_bands(d);
  EXPECT_GT(expected.size(), 10u);
  EXPECT_EQ(drawn_bands(d.svg), expected);
  EXPECT_EQ(count_of(d.svg, "walks its output descending</title>"), 0u);
  EXPECT_EQ(count_of(d.svg, "dmo (algorithmic overlap)"), 1u);
}

// With split stages dmo's plan runs on the schedule's steps (a stage's ops
// once per tile), TFLM's on the model's ops: each panel gets its own axis.
TEST(CliPlanSvg, SplitStagesDrawDmosPlanOverScheduleStepsAndTflmsOverOps) {
  const Drawn d = draw("mobilenet_v1_0.25_128_int8", {"--split", "2-3:4"});
  const auto ops = d.report["ops"].size();
  int32_t last_step = 0;
  for (const auto& buffer : d.problem["buffers"]) last_step = std::max(last_step, buffer["last_use"].get<int32_t>());
  // Ops 2-3 in four tiles: six more steps than ops.
  EXPECT_EQ(static_cast<size_t>(last_step) + 1, ops + 6);
  EXPECT_EQ(count_of(d.svg, "op index (time)"), 1u);
  EXPECT_EQ(count_of(d.svg, "schedule step (time)"), 1u);
  // Each axis has a tick per time of its own: the ops, then the steps.
  EXPECT_EQ(count_of(d.svg, "stroke=\"#666\"/>"), ops + static_cast<size_t>(last_step) + 1);
  const int32_t peak = d.report["peak_op"];
  // The legend's entry and dmo's panel; TFLM's times are not the steps.
  EXPECT_EQ(count_of(d.svg, "bytes live</text>"), 2u);
  EXPECT_EQ(count_of(d.svg, "peak step " + std::to_string(peak) + ": "), 1u);
  const auto expected = shared_bands(d);
  EXPECT_EQ(drawn_bands(d.svg), expected);
  // The stage writes its output over its dying input: one band over its steps.
  EXPECT_EQ(count_of(d.svg, "split stage ops 2-3: output tensor "), 1u);
  // dmo's panel names the stages it runs.
  EXPECT_EQ(count_of(d.svg, "dmo (algorithmic overlap, split 2-3:4)"), 1u);
}

TEST(CliPlanSvg, TheTimeAxisOfAModelOfSeveralSubgraphsSpansItsWholeTimeline) {
  DMO_REQUIRE_SHARED(shared);
  // litert_nested_while: subgraph 0 has one op (WHILE), but the subgraphs it
  // calls run at times of their own; every buffer must fall inside the frame.
  const Drawn d = draw(shared + "/models/litert_nested_while.tflite");
  int32_t last_time = 0;
  for (const auto& buffer : d.problem["buffers"]) last_time = std::max(last_time, buffer["last_use"].get<int32_t>());
  EXPECT_GT(last_time, 1);
  EXPECT_EQ(count_of(d.svg, "text-anchor=\"middle\">" + std::to_string(last_time) + "</text>"), 2u);
}

TEST(CliPlanSvg, MarksTheOpsWalkingDescending) {
  DMO_REQUIRE_SHARED(shared);
  const Drawn d = draw(shared + "/models/tiny_kws_ref_model_int8.tflite");
  ASSERT_FALSE(d.report["descending_ops"].empty());
  for (const auto& op : d.report["descending_ops"]) {
    EXPECT_EQ(count_of(d.svg, "<title>op " + std::to_string(op.get<int>()) + " walks its output descending</title>"),
              1u)
        << op;
  }
  const auto expected = shared_bands(d);
  EXPECT_EQ(drawn_bands(d.svg), expected);
  EXPECT_NE(d.svg.find("walking descending</title>"), std::string::npos);
}

// A layer copying 8 bytes from the top down, one byte per instruction.
AccessPicture descending_copy() {
  AccessPicture p;
  p.name = "copy down";
  p.input_bytes = p.output_bytes = 8;
  p.instructions = 16;
  p.reads = p.writes = 8;
  for (int64_t i = 0; i < 8; ++i) {
    p.read_points.push_back({2 * i, 7 - i});
    p.write_points.push_back({2 * i + 1, 7 - i});
  }
  p.bin_width = 1;
  p.bins.resize(16);
  return p;
}

TEST(TracePicture, ADescendingWalkHeadlinesTheDescendingOverlap) {
  AccessPictureOptions options;
  options.descending_safe_overlap = 5;
  const std::string svg = access_picture_svg(descending_copy(), options);
  EXPECT_NE(svg.find("walking descending: O_s desc. = 5 of 8 input bytes; the output may start 3 bytes above the input"),
            std::string::npos);
  EXPECT_NE(svg.find("write + 3 (output placed for O_s desc.)"), std::string::npos);
  // The ascending frontiers do not decide a descending walk.
  EXPECT_EQ(svg.find("minR"), std::string::npos);
  const std::string ascending = access_picture_svg(descending_copy());
  EXPECT_NE(ascending.find("O_s = 0 of 8 output bytes"), std::string::npos);
  EXPECT_NE(ascending.find("minR"), std::string::npos);
  EXPECT_EQ(ascending.find("walking descending"), std::string::npos);
}

}  // namespace
}  // namespace dmo
