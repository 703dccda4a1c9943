// The run, overlap and verify commands end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "dmo/runtime/input_pattern.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::run_dmo;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_cli_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(CliRun, WritesOutputsAndEveryTensor) {
  const std::string model = "mobilenet_v1_0.25_128_int8";
  const std::string out = temp_path("out.bin"), dir = temp_path("tensors");
  auto r = run_dmo({"run", model, "--output", out, "--dump-tensors", dir});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(std::filesystem::file_size(out), 1001u);
  Graph graph = build_zoo_model(model);
  size_t dumped = 0;
  for (size_t t = 0; t < graph.main().tensors.size(); ++t) {
    const Tensor& tensor = graph.main().tensors[t];
    if (tensor.is_constant) continue;
    auto file = dir + "/" + std::to_string(t) + ".bin";
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(file)), tensor.byte_size);
    ++dumped;
  }
  EXPECT_GT(dumped, 30u);
  // The same input given as a file gives the same outputs, shared or not.
  const std::string in = temp_path("in.bin"), out2 = temp_path("out2.bin");
  auto input = pattern_input(graph.main(), 1);
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(input.data()),
                                            static_cast<std::streamsize>(input.size()));
  ASSERT_EQ(run_dmo({"run", model, "--input", in, "--output", out2, "--unshared"}).exit_status, 0);
  EXPECT_EQ(test::read_file(out), test::read_file(out2));
  std::filesystem::remove_all(dir);
  for (const auto& f : {out, in, out2}) std::filesystem::remove(f);
}

TEST(CliRun, RepeatGivesTheMedianInferenceTimeAndTheFirstInferencesOutputs) {
  const std::string model = "mobilenet_v1_0.25_128_int8";
  const std::string once = temp_path("once.bin"), thrice = temp_path("thrice.bin");
  auto plain = run_dmo({"run", model, "--output", once});
  ASSERT_EQ(plain.exit_status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("inference:"), std::string::npos) << plain.out;
  auto r = run_dmo({"run", model, "--repeat", "3", "--output", thrice, "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["repeat"], 3);
  EXPECT_GT(j["inference_ms"].get<double>(), 0.0);
  EXPECT_EQ(j["output_bytes"], 1001);
  EXPECT_GT(j["arena_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(test::read_file(once), test::read_file(thrice));
  // Text: the usual line, then the median.
  auto text = run_dmo({"run", model, "--repeat", "2"});
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_EQ(text.out.rfind(plain.out, 0), 0u) << text.out;
  EXPECT_NE(text.out.find("\ninference: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" ms (median of 2)\n"), std::string::npos) << text.out;
  // Without --repeat, --json reports the one inference's time.
  auto one = run_dmo({"run", model, "--json"});
  ASSERT_EQ(one.exit_status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["repeat"], 1);
  for (const auto& f : {once, thrice}) std::filesystem::remove(f);
}

TEST(CliRun, WrongInputSizeIsExit2) {
  const std::string in = temp_path("short.bin");
  std::ofstream(in, std::ios::binary) << "abc";
  auto r = run_dmo({"run", "mobilenet_v1_0.25_128_int8", "--input", in});
  std::filesystem::remove(in);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("3 bytes"), std::string::npos) << r.err;
}

TEST(CliOverlap, JsonHasBothMethodsPerOp) {
  auto r = run_dmo({"overlap", "mobilenet_v1_0.25_128_int8", "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["ops"].size(), 31u);
  for (const auto& op : j["ops"]) {
    for (const char* key : {"index", "op", "input", "output", "algorithmic_bytes", "analytic_bytes"}) {
      EXPECT_TRUE(op.contains(key)) << key;
    }
  }
  // First pointwise conv (op 2): the 1x1 conv reads ahead of its writes.
  EXPECT_EQ(j["ops"][2]["op"], "CONV_2D");
  EXPECT_GT(j["ops"][2]["algorithmic_bytes"].get<int64_t>(), 0);
  EXPECT_LE(j["ops"][2]["analytic_bytes"].get<int64_t>(), j["ops"][2]["algorithmic_bytes"].get<int64_t>());
}

TEST(CliVerify, DefaultPlanPassesOnZooModels) {
  for (const char* model : {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_0.35_96_uint8"}) {
    auto r = run_dmo({"verify", model});
    EXPECT_EQ(r.exit_status, 0) << model << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("no clobber"), std::string::npos) << r.out;
  }
}

TEST(CliVerify, UnsupportedOpIsExit2NamingTheOp) {
  // A custom op no kernel of dmo's implements.
  GraphBuilder b("unsupported");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {4});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {4});
  b.add_op(OpKind::kCustom, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  Graph graph = b.finish();
  graph.subgraphs[0].ops[0].custom_code = "NO_SUCH_OP";
  const std::string path = temp_path("unsupported.tflite");
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  auto r = run_dmo({"verify", path});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("op 0 (NO_SUCH_OP)"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(CliPlan, ReportsDmoFiguresAndDrawsSvg) {
  const std::string svg = temp_path("plan.svg");
  auto r = run_dmo({"plan", "--json", "--svg", svg});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"dmo_bytes", "dmo_no_overlap_bytes", "lower_bound_overlap_bytes", "overlap_method"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_LE(j["dmo_bytes"].get<int64_t>(), 65800);
  std::vector<uint8_t> bytes = test::read_file(svg);
  std::string picture(bytes.begin(), bytes.end());
  EXPECT_NE(picture.find("<svg"), std::string::npos);
  EXPECT_NE(picture.find("TFLM greedy"), std::string::npos);
  // One rectangle per planned tensor in each of the two panels.
  size_t rectangles = 0;
  for (size_t at = picture.find("<title>tensor "); at != std::string::npos; at = picture.find("<title>tensor ", at + 1)) {
    ++rectangles;
  }
  size_t planned = 0;
  for (const auto& t : j["tensors"]) planned += t["planned"].get<bool>();
  EXPECT_EQ(rectangles, 2 * planned);
  std::filesystem::remove(svg);
}

TEST(CliPlan, WalksAscendingKeepsToTfliteOrder) {
  // With analytic O_s some of this model's convs save bytes walking descending.
  auto any = run_dmo({"plan", "mobilenet_v1_0.25_128_int8", "--overlap", "analytic", "--alignment", "4", "--split", "none", "--json"});
  ASSERT_EQ(any.exit_status, 0) << any.err;
  auto j = nlohmann::json::parse(any.out);
  EXPECT_FALSE(j["descending_ops"].empty());
  EXPECT_LT(j["dmo_bytes"].get<int64_t>(), j["dmo_ascending_bytes"].get<int64_t>());
  for (int32_t op : j["descending_ops"]) EXPECT_EQ(j["ops"][static_cast<size_t>(op)]["walk"], "descending");

  auto ascending = run_dmo({"plan", "mobilenet_v1_0.25_128_int8", "--overlap", "analytic", "--alignment", "4",
                            "--walks", "ascending", "--split", "none", "--json"});
  ASSERT_EQ(ascending.exit_status, 0) << ascending.err;
  auto k = nlohmann::json::parse(ascending.out);
  EXPECT_TRUE(k["descending_ops"].empty());
  EXPECT_EQ(k["dmo_bytes"], j["dmo_ascending_bytes"]);
  EXPECT_EQ(k["dmo_ascending_bytes"], k["dmo_bytes"]);
}

TEST(CliVerify, PlanFileWalkingAnOpDescendingThatCannotIsExit2) {
  // Zoo MobileNet v1: op 0 is a conv (may walk descending), op 29 a
  // reshape (may not).
  auto plan_json = nlohmann::json::parse(run_dmo({"plan", "mobilenet_v1_0.25_128_int8", "--json"}).out);
  ASSERT_EQ(plan_json["ops"][29]["op"], "RESHAPE");
  nlohmann::json placement = {{"arena_bytes", plan_json["naive_bytes"].get<int64_t>() * 2}};
  nlohmann::json offsets = nlohmann::json::array();
  int64_t next = 0;
  for (const auto& t : plan_json["tensors"]) {
    if (t["planned"].get<bool>()) {
      offsets.push_back(next);
      next += (t["bytes"].get<int64_t>() + 15) / 16 * 16;
    } else {
      offsets.push_back(-1);
    }
  }
  placement["offsets"] = offsets;
  const std::string file = temp_path("descending_plan.json");
  placement["descending_ops"] = {0};  // nothing shared: any walk is safe
  std::ofstream(file) << placement.dump();
  auto ok = run_dmo({"verify", "mobilenet_v1_0.25_128_int8", "--plan", file});
  EXPECT_EQ(ok.exit_status, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("1 op walking descending"), std::string::npos) << ok.out;

  placement["descending_ops"] = {0, 29};
  std::ofstream(file) << placement.dump();
  auto bad = run_dmo({"verify", "mobilenet_v1_0.25_128_int8", "--plan", file});
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("op 29 (RESHAPE)"), std::string::npos) << bad.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo
