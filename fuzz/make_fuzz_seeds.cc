// Writes the seed corpora the fuzz targets start from, made by dmo's own
// code rather than kept in the repository: zoo models as .tflite files, plan
// files for the plan-file target's model, offline-plan words, and a small
// lackey log. scripts/run-fuzz.sh adds the shared models beside them.
//
//   dmo_fuzz_seeds OUT_DIR   (writes OUT_DIR/<target>/<seed>)
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/offline_plan.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"

namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

void write(const fs::path& file, const std::vector<uint8_t>& bytes) {
  write(file, std::string(bytes.begin(), bytes.end()));
}

// Every tensor of every subgraph one after another, 16-byte aligned.
std::vector<int64_t> stacked_offsets(const dmo::Graph& graph, int64_t& arena_bytes) {
  std::vector<int64_t> offsets;
  arena_bytes = 0;
  for (const dmo::Subgraph& subgraph : graph.subgraphs) {
    for (const dmo::Tensor& tensor : subgraph.tensors) {
      offsets.push_back(arena_bytes);
      arena_bytes += (tensor.byte_size + 15) / 16 * 16;
    }
  }
  return offsets;
}

void plan_file_seeds(const fs::path& dir) {
  // The model fuzz_plan_file.cc parses against.
  const dmo::Graph graph = dmo::build_zoo_model("mobilenet_v2_0.35_96_int8");
  int64_t arena = 0;
  const std::vector<int64_t> offsets = stacked_offsets(graph, arena);
  const nlohmann::json plain = {{"arena_bytes", arena}, {"offsets", offsets}};
  write(dir / "plain.json", plain.dump());
  nlohmann::json with = plain;
  with["descending_ops"] = {0, 1, 3};
  write(dir / "descending.json", with.dump());
  with = plain;
  with["split"] = {{{"ops", {0, 2}}, {"axis", "height"}, {"tiles", 2}, {"extra_macs", 0}}};
  write(dir / "split.json", with.dump());
  with["split"] = {{{"ops", {0, 3}}, {"axis", "height and width"}, {"tiles", 2}, {"column_tiles", 2}}};
  write(dir / "patches.json", with.dump());
  with = plain;
  std::vector<int32_t> order;
  for (size_t op = 0; op < graph.main().ops.size(); ++op) order.push_back(static_cast<int32_t>(op));
  with["order"] = order;
  with["concat_in_place"] = nlohmann::json::array();
  write(dir / "order.json", with.dump(2));
}

void offline_plan_seeds(const fs::path& dir) {
  for (const char* name : {"mobilenet_v1_0.25_32_int8", "synthetic_rnn_12"}) {
    const dmo::Graph graph = dmo::build_zoo_model(name);
    int64_t arena = 0;
    dmo::OfflinePlan plan;
    plan.subgraph_count = static_cast<int32_t>(graph.subgraphs.size());
    for (int64_t offset : stacked_offsets(graph, arena)) plan.offsets.push_back(static_cast<int32_t>(offset));
    if (!plan.offsets.empty()) plan.offsets.back() = -1;
    // Input layout: the model's tensor count (2 bytes, little-endian), then the words.
    const size_t count = plan.offsets.size();
    std::vector<uint8_t> input = {static_cast<uint8_t>(count), static_cast<uint8_t>(count >> 8)};
    const std::vector<uint8_t> words = dmo::encode_offline_plan(plan);
    input.insert(input.end(), words.begin(), words.end());
    write(dir / fmt::format("{}.bin", name), input);
  }
}

void lackey_seeds(const fs::path& dir) {
  // Input layout: one byte choosing the chunk size, then the log.
  std::string log = "\x07==1== Lackey, an example Valgrind tool\n==1== Command: ./program\n";
  log += "I  04001000,3\n**1** DMO_TRACE_BEGIN 1000 16 1008 16 conv\n";
  for (int i = 0; i < 4; ++i) {
    log += fmt::format("I  0400{:04x},4\n L {:08x},4\n S {:08x},4\n M {:08x},4\n", 0x2000 + 4 * i, 0x1000 + 4 * i,
                       0x1008 + 4 * i, 0x1000 + 4 * i);
  }
  log += "**1** DMO_TRACE_END conv\n**1** DMO_TRACE_BEGIN 3000 8 2ff8 8 down\n L 00003004,4\n S 00002ffc,4\n";
  log += "**1** DMO_TRACE_END down\n==1== \n==1== Counted 1 call to main()\n";
  write(dir / "two_layers.log", log);
}

// A small int8 conv chain (conv, depthwise conv, average pool, fully
// connected, softmax) with an offline plan: the zoo's models are hundreds of
// KiB of weights, which would only slow each execution down.
dmo::Graph small_conv_chain() {
  using namespace dmo;
  GraphBuilder b("conv_chain");
  const Quantization q{{0.05f}, {-3}, 0};
  auto weights = [](size_t n) {
    std::vector<int8_t> w(n);
    for (size_t i = 0; i < n; ++i) w[i] = static_cast<int8_t>(i * 37 % 19 - 9);
    return w;
  };
  const int32_t in = b.add_tensor("input", DataType::kInt8, {1, 6, 6, 2}, q);
  const Quantization weight_q{{0.02f}, {0}, 0};
  const int32_t filter = b.add_constant_values("filter", DataType::kInt8, {4, 3, 3, 2}, weights(72), weight_q);
  const int32_t bias = b.add_constant_values("bias", DataType::kInt32, {4}, std::vector<int32_t>{1, -2, 3, -4},
                                             {{0.001f}, {0}, 0});
  const int32_t conv = b.add_tensor("conv", DataType::kInt8, {1, 6, 6, 4}, q);
  b.add_op(OpKind::kConv2D, {in, filter, bias}, {conv}, Conv2DParams{});
  const int32_t dw_filter =
      b.add_constant_values("dw_filter", DataType::kInt8, {1, 3, 3, 4}, weights(36), {{0.02f}, {0}, 3});
  const int32_t dw = b.add_tensor("depthwise", DataType::kInt8, {1, 3, 3, 4}, q);
  DepthwiseConv2DParams depthwise;
  depthwise.stride_w = depthwise.stride_h = 2;
  b.add_op(OpKind::kDepthwiseConv2D, {conv, dw_filter, -1}, {dw}, depthwise);
  const int32_t pooled = b.add_tensor("pooled", DataType::kInt8, {1, 1, 1, 4}, q);
  Pool2DParams pool;
  pool.padding = Padding::kValid;
  pool.filter_w = pool.filter_h = 3;
  b.add_op(OpKind::kAveragePool2D, {dw}, {pooled}, pool);
  const int32_t fc_weights = b.add_constant_values("fc_weights", DataType::kInt8, {3, 4}, weights(12), weight_q);
  const int32_t logits = b.add_tensor("logits", DataType::kInt8, {1, 3}, q);
  b.add_op(OpKind::kFullyConnected, {pooled, fc_weights, -1}, {logits}, FullyConnectedParams{});
  const int32_t out = b.add_tensor("output", DataType::kInt8, {1, 3}, {{1.0f / 256}, {-128}, 0});
  b.add_op(OpKind::kSoftmax, {logits}, {out}, SoftmaxParams{});
  b.set_inputs({in});
  b.set_outputs({out});
  Graph graph = b.finish();
  int64_t arena = 0;
  OfflinePlan plan;
  plan.subgraph_count = 1;
  for (int64_t offset : stacked_offsets(graph, arena)) plan.offsets.push_back(static_cast<int32_t>(offset));
  graph.offline_plan = plan;
  return graph;
}

void model_seeds(const fs::path& dir) {
  write(dir / "conv_chain.tflite", dmo::write_tflite(small_conv_chain()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dmo_fuzz_seeds OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[1];
  plan_file_seeds(out / "plan_file");
  offline_plan_seeds(out / "offline_plan");
  lackey_seeds(out / "lackey_trace");
  model_seeds(out / "tflite_reader");
  model_seeds(out / "round_trip");
  return 0;
}
