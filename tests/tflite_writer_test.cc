// The two .tflite writers on models made here: with_offline_plan keeps every
// byte of the original and refuses what it cannot write safely; write_tflite
// turns zoo models into files that import back to the same Graph.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "dmo/error.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/offline_plan.h"
#include "dmo/tflite/reader.h"
#include "dmo/tflite/writer.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "graph_equality.h"
#include "plan_file_check.h"
#include "test_support.h"
#include "tflite_subset_generated.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

namespace fb = ::dmo::tfl;
using test::graph_difference;
using test::plan_file_difference;
using test::PlanFileFacts;

constexpr uint16_t kUnknownTensorField = 20;
constexpr uint32_t kUnknownFieldValue = 0xC0FFEE;

using test::error_of;

OfflinePlan plan_for(const Graph& graph, int32_t first_offset = 0) {
  OfflinePlan plan{0, static_cast<int32_t>(graph.subgraphs.size()), {}};
  int32_t next = first_offset;
  for (size_t t = 0; t < graph.total_tensor_count(); ++t) {
    plan.offsets.push_back(t % 2 == 0 ? next : -1);
    next += 64;
  }
  return plan;
}

// A 32-bit field of a table by id, read from its vtable (for fields dmo's
// schema does not name); 0 when absent.
uint32_t raw_field_u32(const void* table, uint16_t id) {
  const auto* t = static_cast<const uint8_t*>(table);
  int32_t soffset;
  std::memcpy(&soffset, t, 4);
  const uint8_t* vtable = t - soffset;
  uint16_t vtable_size, offset = 0;
  std::memcpy(&vtable_size, vtable, 2);
  if (4 + 2 * id + 2 <= vtable_size) std::memcpy(&offset, vtable + 4 + 2 * id, 2);
  if (offset == 0) return 0;
  uint32_t value;
  std::memcpy(&value, t + offset, 4);
  return value;
}

struct RichModel {
  bool external_constant = false;  // constant data stored by Buffer.offset after the flatbuffer
  int64_t external_offset_error = 0;  // added to the right offset
  bool unknown_root_field = false;
  std::vector<uint8_t> existing_plan;  // an OfflineMemoryAllocation entry's bytes, if not empty
};

// input -> ADD(constant) -> CUSTOM "MyCustom" (custom options) -> output; a
// signature def, a "min_runtime_version" metadata entry listed in
// metadata_buffer, and a tensor with a field from a newer schema.
std::vector<uint8_t> write_rich_model(const RichModel& options, uint64_t external_offset = 0xFFFF) {
  flatbuffers::FlatBufferBuilder b;
  const std::vector<float> constant = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  buffers.push_back(fb::CreateBuffer(b));
  if (options.external_constant) {
    buffers.push_back(fb::CreateBuffer(b, 0, external_offset, 16));
  } else {
    b.ForceVectorAlignment(16, 1, 16);
    buffers.push_back(fb::CreateBuffer(b, b.CreateVector(reinterpret_cast<const uint8_t*>(constant.data()), 16)));
  }
  buffers.push_back(fb::CreateBuffer(b));
  buffers.push_back(fb::CreateBuffer(b));
  const std::string version = "1.5.0";
  buffers.push_back(fb::CreateBuffer(b, b.CreateVector(reinterpret_cast<const uint8_t*>(version.data()), 5)));
  if (!options.existing_plan.empty()) buffers.push_back(fb::CreateBuffer(b, b.CreateVector(options.existing_plan)));

  auto shape = b.CreateVector(std::vector<int32_t>{1, 4});
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  tensors.push_back(fb::CreateTensor(b, shape, fb::TensorType_FLOAT32, 0, b.CreateString("x")));
  tensors.push_back(fb::CreateTensor(b, shape, fb::TensorType_FLOAT32, 1, b.CreateString("c")));
  tensors.push_back(fb::CreateTensor(b, shape, fb::TensorType_FLOAT32, 2, b.CreateString("sum")));
  auto name = b.CreateString("y");
  fb::TensorBuilder newer(b);
  newer.add_shape(shape);
  newer.add_buffer(3);
  newer.add_name(name);
  b.AddElement<uint32_t>(static_cast<flatbuffers::voffset_t>(4 + 2 * kUnknownTensorField), kUnknownFieldValue, 0);
  tensors.push_back(newer.Finish());

  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes = {
      fb::CreateOperatorCode(b, 0, 0, 1, 0), fb::CreateOperatorCode(b, 32, b.CreateString("MyCustom"), 1, 32)};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperator(b, 0, b.CreateVector(std::vector<int32_t>{0, 1}), b.CreateVector(std::vector<int32_t>{2}),
                         fb::BuiltinOptions_AddOptions, fb::CreateAddOptions(b).Union()),
      fb::CreateOperator(b, 1, b.CreateVector(std::vector<int32_t>{2}), b.CreateVector(std::vector<int32_t>{3}),
                         fb::BuiltinOptions_NONE, 0, b.CreateVector(std::vector<uint8_t>{1, 2, 3, 4}))};
  auto subgraph = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(std::vector<int32_t>{0}),
                                     b.CreateVector(std::vector<int32_t>{3}), b.CreateVector(ops),
                                     b.CreateString("main"));
  auto signature = fb::CreateSignatureDef(
      b, b.CreateVector(std::vector<flatbuffers::Offset<fb::TensorMap>>{fb::CreateTensorMap(b, b.CreateString("x"), 0)}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::TensorMap>>{fb::CreateTensorMap(b, b.CreateString("y"), 3)}),
      b.CreateString("serving_default"), 0);
  std::vector<flatbuffers::Offset<fb::Metadata>> metadata = {
      fb::CreateMetadata(b, b.CreateString("min_runtime_version"), 4)};
  if (!options.existing_plan.empty()) metadata.push_back(fb::CreateMetadata(b, b.CreateString(kOfflinePlanMetadataName), 5));

  auto codes_vector = b.CreateVector(codes);
  auto subgraphs = b.CreateVector(std::vector<flatbuffers::Offset<fb::SubGraph>>{subgraph});
  auto description = b.CreateString("rich");
  auto buffer_vector = b.CreateVector(buffers);
  auto metadata_buffer = b.CreateVector(std::vector<int32_t>{4});
  auto metadata_vector = b.CreateVector(metadata);
  auto signatures = b.CreateVector(std::vector<flatbuffers::Offset<fb::SignatureDef>>{signature});
  fb::ModelBuilder model(b);
  model.add_version(3);
  model.add_operator_codes(codes_vector);
  model.add_subgraphs(subgraphs);
  model.add_description(description);
  model.add_buffers(buffer_vector);
  model.add_metadata_buffer(metadata_buffer);
  model.add_metadata(metadata_vector);
  model.add_signature_defs(signatures);
  if (options.unknown_root_field) b.AddElement<uint32_t>(4 + 2 * 8, 7, 0);  // field id 8
  fb::FinishModelBuffer(b, model.Finish());
  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (!options.external_constant) return bytes;
  // The constant after the flatbuffer, at a multiple of 16, as converters
  // write models over 2 GB; the offset is the same size whatever its value.
  const uint64_t data_offset = (bytes.size() + 15) / 16 * 16;
  const auto wanted = static_cast<uint64_t>(static_cast<int64_t>(data_offset) + options.external_offset_error);
  if (external_offset != wanted) return write_rich_model(options, wanted);
  bytes.resize(data_offset, 0);
  const auto* raw = reinterpret_cast<const uint8_t*>(constant.data());
  bytes.insert(bytes.end(), raw, raw + 16);
  return bytes;
}

// with_offline_plan on `original`, checked structurally and by re-import.
std::vector<uint8_t> add_plan_and_check(const std::vector<uint8_t>& original, const OfflinePlan& plan,
                                        PlanFileFacts* facts = nullptr) {
  std::vector<uint8_t> out = with_offline_plan(original, plan, "model.tflite");
  EXPECT_EQ(plan_file_difference(original, out, facts), "");
  Graph before = read_tflite_bytes(original, "before");
  Graph after = read_tflite_bytes(out, "after");
  EXPECT_EQ(graph_difference(before, after), "");
  EXPECT_TRUE(after.offline_plan.has_value());
  if (after.offline_plan) {
    EXPECT_EQ(after.offline_plan->offsets, plan.offsets);
  }
  return out;
}

TEST(OfflinePlanWriter, AddsPlanToModelWithoutMetadata) {
  auto original = test::write_test_model(test::small_conv_model());
  Graph graph = read_tflite_bytes(original, "small");
  PlanFileFacts facts;
  auto out = add_plan_and_check(original, plan_for(graph), &facts);
  EXPECT_FALSE(facts.plan_replaced);
  Graph after = read_tflite_bytes(out, "after");
  ASSERT_EQ(after.metadata.size(), 1u);
  EXPECT_EQ(after.metadata[0].name, kOfflinePlanMetadataName);
  EXPECT_EQ(after.metadata[0].buffer_index, facts.plan_buffer);
  EXPECT_EQ(facts.plan_buffer, fb::GetModel(original.data())->buffers()->size());  // a new last buffer
  EXPECT_EQ(facts.aligned_data_buffers, facts.data_buffers);
  EXPECT_EQ(facts.data_buffers, 2u);
  // The front is small: a root, two vectors, two tables, a name and the words.
  EXPECT_LE(facts.front_bytes, 256u + 4 * graph.total_tensor_count());
}

// The structural check the export tests rely on does see changes.
TEST(OfflinePlanWriter, FileCheckNoticesChanges) {
  auto original = test::write_test_model(test::small_conv_model());
  auto out = with_offline_plan(original, plan_for(read_tflite_bytes(original, "small")), "small");
  ASSERT_EQ(plan_file_difference(original, out), "");
  auto changed = out;
  changed[changed.size() - original.size() + 20] ^= 1;
  EXPECT_NE(plan_file_difference(original, changed), "");
  EXPECT_NE(plan_file_difference(original, original), "");
  auto other = test::small_conv_model();
  other.tensors[0].name = "renamed";
  EXPECT_NE(plan_file_difference(test::write_test_model(other), out), "");
}

TEST(OfflinePlanWriter, KeepsFieldsDmoSchemaDoesNotName) {
  auto original = write_rich_model({});
  Graph graph = read_tflite_bytes(original, "rich");
  auto out = add_plan_and_check(original, plan_for(graph));
  const fb::Model* model = fb::GetModel(out.data());
  const fb::SubGraph* subgraph = model->subgraphs()->Get(0);
  EXPECT_EQ(raw_field_u32(subgraph->tensors()->Get(3), kUnknownTensorField), kUnknownFieldValue);
  const auto* custom = subgraph->operators()->Get(1)->custom_options();
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(std::vector<uint8_t>(custom->begin(), custom->end()), (std::vector<uint8_t>{1, 2, 3, 4}));
  ASSERT_NE(model->signature_defs(), nullptr);
  EXPECT_EQ(model->signature_defs()->Get(0)->signature_key()->str(), "serving_default");
  ASSERT_NE(model->metadata_buffer(), nullptr);
  EXPECT_EQ(model->metadata_buffer()->Get(0), 4);
  EXPECT_EQ(model->metadata()->Get(0)->name()->str(), "min_runtime_version");
  EXPECT_EQ(model->version(), 3u);
}

TEST(OfflinePlanWriter, ReplacesExistingPlanKeepingItsIndices) {
  RichModel options;
  options.existing_plan = encode_offline_plan(OfflinePlan{0, 1, {-1, -1, -1, -1}});
  auto original = write_rich_model(options);
  Graph graph = read_tflite_bytes(original, "rich");
  PlanFileFacts facts;
  auto out = add_plan_and_check(original, plan_for(graph, 16), &facts);
  EXPECT_TRUE(facts.plan_replaced);
  EXPECT_EQ(facts.plan_buffer, 5u);
  const fb::Model* model = fb::GetModel(out.data());
  EXPECT_EQ(model->buffers()->size(), 6u);
  EXPECT_EQ(model->metadata()->size(), 2u);
  Graph after = read_tflite_bytes(out, "after");
  EXPECT_EQ(after.metadata[1].name, kOfflinePlanMetadataName);
  EXPECT_EQ(after.metadata[1].buffer_index, 5u);
  // Replacing again gives the same file shape: nothing accumulates.
  auto again = with_offline_plan(out, plan_for(graph, 32), "again");
  EXPECT_EQ(fb::GetModel(again.data())->buffers()->size(), 6u);
  EXPECT_EQ(read_tflite_bytes(again, "again").offline_plan->offsets, plan_for(graph, 32).offsets);
}

TEST(OfflinePlanWriter, ExistingPlanSharingItsBufferGetsANewOne) {
  test::TestModel m = test::small_conv_model();
  // Tensor 5 reads buffer 6, which the plan entry (added after the tensors'
  // five buffers) also uses: replacing it in place would change the tensor.
  OfflinePlan old{0, 1, {-1, -1, -1, -1, -1, -1}};
  m.tensors.push_back({"shares_the_plan", 2, {9}, {}, false, 6});
  m.metadata.push_back({kOfflinePlanMetadataName, encode_offline_plan(old)});
  auto original = test::write_test_model(m);
  Graph graph = read_tflite_bytes(original, "shared");
  ASSERT_TRUE(graph.main().tensors[5].is_constant);
  auto out = with_offline_plan(original, plan_for(graph), "shared");
  EXPECT_EQ(plan_file_difference(original, out), "");
  Graph after = read_tflite_bytes(out, "after");
  EXPECT_EQ(after.main().tensors[5].data, graph.main().tensors[5].data);
  EXPECT_EQ(after.offline_plan->offsets, plan_for(graph).offsets);
  EXPECT_EQ(after.metadata[0].buffer_index, 7u);
}

TEST(OfflinePlanWriter, RebasesBuffersStoredByOffset) {
  RichModel options;
  options.external_constant = true;
  auto original = write_rich_model(options);
  Graph graph = read_tflite_bytes(original, "external");
  ASSERT_TRUE(graph.main().tensors[1].is_constant);
  PlanFileFacts facts;
  auto out = add_plan_and_check(original, plan_for(graph), &facts);
  const fb::Buffer* buffer = fb::GetModel(out.data())->buffers()->Get(1);
  EXPECT_EQ(buffer->offset(), fb::GetModel(original.data())->buffers()->Get(1)->offset() + facts.front_bytes);
  EXPECT_EQ(buffer->offset() % 16, 0u);
  EXPECT_EQ(read_tflite_bytes(out, "after").main().tensors[1].data, graph.main().tensors[1].data);
}

TEST(OfflinePlanWriter, ModelWithoutBuffersGetsAnEmptyBufferZero) {
  flatbuffers::FlatBufferBuilder b;
  auto shape = b.CreateVector(std::vector<int32_t>{1, 4});
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensor(b, shape, fb::TensorType_FLOAT32, 0, b.CreateString("x")),
      fb::CreateTensor(b, shape, fb::TensorType_FLOAT32, 0, b.CreateString("y"))};
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes = {fb::CreateOperatorCode(b, 19, 0, 1, 19)};
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {fb::CreateOperator(
      b, 0, b.CreateVector(std::vector<int32_t>{0}), b.CreateVector(std::vector<int32_t>{1}))};
  auto subgraph = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(std::vector<int32_t>{0}),
                                     b.CreateVector(std::vector<int32_t>{1}), b.CreateVector(ops));
  fb::FinishModelBuffer(b, fb::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(std::vector{subgraph})));
  std::vector<uint8_t> original(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  OfflinePlan plan{0, 1, {0, 16}};
  PlanFileFacts facts;
  auto out = add_plan_and_check(original, plan, &facts);
  EXPECT_EQ(facts.plan_buffer, 1u);
  const fb::Buffer* zero = fb::GetModel(out.data())->buffers()->Get(0);
  EXPECT_TRUE(!zero->data() || zero->data()->size() == 0);
  EXPECT_FALSE(read_tflite_bytes(out, "after").main().tensors[0].is_constant);
}

TEST(OfflinePlanWriter, RefusesPlansThatDoNotFit) {
  auto original = test::write_test_model(test::small_conv_model());
  Graph graph = read_tflite_bytes(original, "small");
  OfflinePlan plan = plan_for(graph);
  plan.offsets.pop_back();
  std::string e = error_of([&] { with_offline_plan(original, plan, "small.tflite"); });
  EXPECT_NE(e.find("4 tensor offsets, the model has 5 tensors"), std::string::npos) << e;
  EXPECT_NE(e.find("small.tflite"), std::string::npos) << e;

  plan = plan_for(graph);
  plan.offsets[1] = -2;
  e = error_of([&] { with_offline_plan(original, plan, "small.tflite"); });
  EXPECT_NE(e.find("tensor 1 offset -2"), std::string::npos) << e;

  plan = plan_for(graph);
  plan.version = 1;
  e = error_of([&] { with_offline_plan(original, plan, "small.tflite"); });
  EXPECT_NE(e.find("version 1"), std::string::npos) << e;

  plan = plan_for(graph);
  plan.subgraph_count = 2;
  e = error_of([&] { with_offline_plan(original, plan, "small.tflite"); });
  EXPECT_NE(e.find("2 subgraphs, the model has 1"), std::string::npos) << e;
}

TEST(OfflinePlanWriter, RefusesBrokenExistingPlans) {
  const OfflinePlan valid{0, 1, {0, -1, -1, 256, 0}};
  std::vector<std::pair<std::string, std::vector<uint8_t>>> cases;
  auto wrong_version = encode_offline_plan(valid);
  wrong_version[0] = 1;
  cases.emplace_back("version 1", wrong_version);
  cases.emplace_back("lists 3 tensor offsets", encode_offline_plan(OfflinePlan{0, 1, {0, -1, -1}}));
  auto truncated = encode_offline_plan(valid);
  truncated.resize(truncated.size() - 2);
  cases.emplace_back("whole number of int32 words", truncated);
  for (const auto& [expected, words] : cases) {
    SCOPED_TRACE(expected);
    test::TestModel m = test::small_conv_model();
    m.metadata.push_back({kOfflinePlanMetadataName, words});
    auto original = test::write_test_model(m);
    std::string e = error_of([&] { with_offline_plan(original, valid, "broken.tflite"); });
    EXPECT_NE(e.find("OfflineMemoryAllocation"), std::string::npos) << e;
    EXPECT_NE(e.find(expected), std::string::npos) << e;
    EXPECT_NE(e.find("broken.tflite"), std::string::npos) << e;
  }
}

TEST(OfflinePlanWriter, RefusesBufferOffsetsOutsideTheFile) {
  RichModel options;
  options.external_constant = true;
  options.external_offset_error = 64;
  auto original = write_rich_model(options);
  std::string e = error_of([&] { with_offline_plan(original, OfflinePlan{0, 1, {-1, -1, -1, -1}}, "far.tflite"); });
  EXPECT_NE(e.find("buffer 1 points at bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("outside the"), std::string::npos) << e;

  options.external_offset_error = int64_t{3} << 30;
  original = write_rich_model(options);
  e = error_of([&] { with_offline_plan(original, OfflinePlan{0, 1, {-1, -1, -1, -1}}, "far.tflite"); });
  EXPECT_NE(e.find("beyond 2 GB"), std::string::npos) << e;
}

TEST(OfflinePlanWriter, RefusesUnknownRootFields) {
  RichModel options;
  options.unknown_root_field = true;
  auto original = write_rich_model(options);
  ASSERT_NO_THROW(read_tflite_bytes(original, "newer"));
  std::string e = error_of([&] { with_offline_plan(original, OfflinePlan{0, 1, {-1, -1, -1, -1}}, "newer.tflite"); });
  EXPECT_NE(e.find("field id 8"), std::string::npos) << e;
  EXPECT_NE(e.find("root Model table"), std::string::npos) << e;
}

TEST(OfflinePlanWriter, RefusesFilesThatAreNotModels) {
  auto original = test::write_test_model(test::small_conv_model());
  OfflinePlan plan{0, 1, {-1, -1, -1, -1, -1}};
  auto cut = original;
  cut.resize(cut.size() / 2);
  EXPECT_NE(error_of([&] { with_offline_plan(cut, plan, "cut.tflite"); }).find("verifier"), std::string::npos);
  auto renamed = original;
  renamed[4] = 'X';
  EXPECT_NE(error_of([&] { with_offline_plan(renamed, plan, "x.tflite"); }).find("TFL3"), std::string::npos);
  EXPECT_NE(error_of([&] { with_offline_plan({}, plan, "empty.tflite"); }).find("too short"), std::string::npos);
}

// Damaged input gives a clean dmo::Error or a file that verifies, never a
// crash or a corrupt file.
TEST(OfflinePlanWriter, DamagedInputNeverGivesAnUnverifiedFile) {
  RichModel options;
  options.existing_plan = encode_offline_plan(OfflinePlan{0, 1, {-1, -1, -1, -1}});
  const auto original = write_rich_model(options);
  uint32_t state = 2463534242u;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  int written = 0;
  for (int trial = 0; trial < 400; ++trial) {
    auto damaged = original;
    for (int f = 0; f < 1 + trial % 4; ++f) damaged[next() % damaged.size()] = static_cast<uint8_t>(next());
    try {
      auto out = with_offline_plan(damaged, OfflinePlan{0, 1, {0, -1, 16, 32}}, "damaged");
      flatbuffers::Verifier verifier(out.data(), out.size());
      EXPECT_TRUE(fb::VerifyModelBuffer(verifier));
      ++written;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(written, 0);
}

// The command line refuses the same files and leaves nothing behind.
TEST(ExportCliBadInput, NoFileIsLeftBehind) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dmo_writer_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  RichModel outside;
  outside.external_constant = true;
  outside.external_offset_error = 64;
  RichModel newer;
  newer.unknown_root_field = true;
  const std::vector<std::pair<RichModel, std::string>> cases = {{outside, "outside the"}, {newer, "field id 8"}};
  for (const auto& [options, message] : cases) {
    SCOPED_TRACE(message);
    const std::string model = (dir / "model.tflite").string(), out = (dir / "out.tflite").string();
    auto bytes = write_rich_model(options);
    std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                 static_cast<std::streamsize>(bytes.size()));
    auto r = test::run_dmo({"export", model, "-o", out});
    EXPECT_EQ(r.exit_status, 2);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(model), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  }
  fs::remove_all(dir);
}

// ---- write_tflite: zoo models as files ----

Graph zoo_graph(const std::string& name) {
  Graph graph = build_zoo_model(name);
  graph.description = "dmo zoo " + name;
  return graph;
}

TEST(GraphWriter, ZooModelsImportBackIdentical) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_0.35_96_uint8", "mobilenet_v1_0.25_128_float32",
                           "mobilenet_v2_0.35_96_int8"}) {
    SCOPED_TRACE(name);
    Graph graph = zoo_graph(name);
    std::vector<uint8_t> bytes = write_tflite(graph);
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    ASSERT_TRUE(fb::VerifyModelBuffer(verifier));
    Graph back = read_tflite_bytes(bytes, "back");
    EXPECT_EQ(graph_difference(graph, back), "");
    EXPECT_EQ(back.description, std::string("dmo zoo ") + name);

    const fb::Model* model = fb::GetModel(bytes.data());
    const fb::Buffer* sentinel = model->buffers()->Get(0);
    EXPECT_TRUE(!sentinel->data() || sentinel->data()->size() == 0);
    for (const fb::OperatorCode* code : *model->operator_codes()) {
      EXPECT_EQ(code->deprecated_builtin_code(), std::min(code->builtin_code(), 127));
      EXPECT_EQ(code->version(), 1);
    }
    std::set<uint32_t> buffers_used;
    for (const fb::Tensor* tensor : *model->subgraphs()->Get(0)->tensors()) {
      EXPECT_TRUE(buffers_used.insert(tensor->buffer()).second) << "each tensor has a buffer of its own";
      const fb::Buffer* buffer = model->buffers()->Get(tensor->buffer());
      if (buffer->data() && buffer->data()->size() > 0) {
        EXPECT_EQ((buffer->data()->data() - bytes.data()) % 16, 0) << tensor->name()->str();
      }
    }
  }
}

TEST(GraphWriter, WritesEveryParamsKindAndOfflinePlans) {
  GraphBuilder builder("kinds");
  const int32_t x = builder.add_tensor("x", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t s1 = builder.add_tensor("s1", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t s2 = builder.add_tensor("s2", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t m = builder.add_tensor("m", DataType::kFloat32, {1, 1, 1, 2});
  const int32_t y = builder.add_tensor("y", DataType::kFloat32, {1, 2});
  const int32_t axes = builder.add_constant_values<int32_t>("axes", DataType::kInt32, {2}, {1, 2});
  builder.add_op(OpKind::kSub, {x, x}, {s1}, ElementwiseParams{Activation::kRelu6});
  builder.add_op(OpKind::kMaxPool2D, {s1}, {s2}, Pool2DParams{Padding::kSame, 1, 1, 2, 2, Activation::kNone});
  builder.add_op(OpKind::kMean, {s2, axes}, {m}, ReducerParams{true});
  builder.add_op(OpKind::kSqueeze, {m}, {y}, SqueezeParams{{1, 2}});
  builder.set_inputs({x});
  builder.set_outputs({y});
  Graph graph = builder.finish();
  graph.offline_plan = OfflinePlan{0, 1, {0, 128, 0, 256, 0, -1}};
  Graph back = read_tflite_bytes(write_tflite(graph), "back");
  EXPECT_EQ(graph_difference(graph, back), "");
  ASSERT_TRUE(back.offline_plan.has_value());
  EXPECT_EQ(back.offline_plan->offsets, graph.offline_plan->offsets);
  ASSERT_EQ(back.metadata.size(), 1u);
  EXPECT_EQ(back.metadata[0].buffer_index, 7u);  // after the sentinel and six tensor buffers
}

TEST(GraphWriter, KeepsMetadataWithItsBytes) {
  Graph graph = zoo_graph("mobilenet_v1_0.25_128_int8");
  int32_t buffers = 0;
  for (const Tensor& t : graph.main().tensors) buffers = std::max(buffers, t.buffer_index + 1);
  graph.metadata.push_back({"min_runtime_version", static_cast<uint32_t>(buffers), {'1', '.', '1', '4', 0}});
  const Graph back = read_tflite_bytes(write_tflite(graph), "back");
  ASSERT_EQ(back.metadata.size(), 1u);
  EXPECT_EQ(back.metadata[0].name, "min_runtime_version");
  EXPECT_EQ(back.metadata[0].data, graph.metadata[0].data);
}

TEST(GraphWriter, RefusesWhatAFileCannotSayTheSameWay) {
  Graph graph = zoo_graph("mobilenet_v1_0.25_128_int8");
  Graph undecoded = graph;
  undecoded.subgraphs[0].ops[0].has_undecoded_options = true;
  EXPECT_NE(error_of([&] { write_tflite(undecoded); }).find("did not decode"), std::string::npos);
  Graph wrong = graph;
  wrong.subgraphs[0].ops[0].params = SoftmaxParams{};
  EXPECT_NE(error_of([&] { write_tflite(wrong); }).find("op 0 (CONV_2D) carries parameters of another"),
            std::string::npos)
      << error_of([&] { write_tflite(wrong); });
  // Metadata sharing a constant's buffer with other bytes cannot be said.
  Graph metadata = graph;
  metadata.metadata.push_back({"min_runtime_version", 1, {'1', '.', '1', '4'}});
  EXPECT_NE(error_of([&] { write_tflite(metadata); }).find("min_runtime_version"), std::string::npos);
  Graph sentinel = graph;
  for (Tensor& t : sentinel.subgraphs[0].tensors) {
    if (t.is_constant) {
      t.buffer_index = 0;
      break;
    }
  }
  EXPECT_NE(error_of([&] { write_tflite(sentinel); }).find("buffer 0"), std::string::npos);
}

}  // namespace
}  // namespace dmo
