// dmo codegen end to end: the generated project builds and runs (natively,
// or under QEMU for a Cortex-M4) and prints the same outputs hash as `dmo
// run`, with the arena symbol at the plan's size; and its refusals of bad
// input (one line, exit 2, nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>

#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "codegen_support.h"
#include "test_support.h"

namespace dmo {
namespace {

namespace fs = std::filesystem;
using namespace codegen_test;

// The host project of `model` prints `dmo run`'s hash and the planned arena.
void expect_host_project_prints_the_interpreters_hash(const std::string& model) {
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", "host"});
  ASSERT_EQ(generated.exit_status, 0) << generated.err;
  const Shell run = shell("make -s -C " + dir + " run");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(model)) << run.out;
  EXPECT_EQ(std::stoll(field(run.out, "arena_bytes")), codegen_arena(generated.out)) << run.out;
}

TEST(Codegen, HostProjectPrintsTheInterpretersHash) {
  expect_host_project_prints_the_interpreters_hash(kDefaultZooModel);
}

// uint8 ops (per-tensor quantized, as the Edge TPU era's converters wrote
// them) run the shared nests on the device too.
TEST(Codegen, HostProjectOfAUint8ModelPrintsTheInterpretersHash) {
  expect_host_project_prints_the_interpreters_hash("mobilenet_v1_0.25_128_uint8");
}

// dmo's plan for generated code is made for the kernels the project runs
// (the dmo-device family: their own orders' O_s) and holds the conv
// kernels' scratch buffers in the arena, nothing static beside it.
// float32 ops run the shared nests on the device: conv, depthwise,
// pooling, softmax (exp_float, the same bits everywhere).
TEST(Codegen, HostProjectOfAFloatModelPrintsTheInterpretersHash) {
  expect_host_project_prints_the_interpreters_hash("mobilenet_v1_0.25_128_float32");
}

// Writes `graph` to a model file in `scratch` and checks its host project
// and, where the Arm tools are installed, its Cortex-M4 image under QEMU
// (built without a warning).
void expect_graph_project_prints_the_interpreters_hash(const Graph& graph, const ScratchDirectory& scratch) {
  const std::string model = scratch / "graph.tflite";
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  expect_host_project_prints_the_interpreters_hash(model);
  if (!have("arm-none-eabi-g++") || !have("qemu-system-arm")) return;
  const std::string dir = scratch / "cortex-m4";
  const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", "cortex-m4"});
  ASSERT_EQ(generated.exit_status, 0) << generated.err;
  const Shell run = shell("make -s -C " + dir + " run");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out.find("warning:"), std::string::npos) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(model)) << run.out;
}

// QUANTIZE (float in, and requantizing int8 -> int8, uint8 -> int8,
// int8 -> int16) and DEQUANTIZE, as a converted int8 model's float
// input and output have them.
TEST(Codegen, HostProjectOfQuantizeAndDequantizePrintsTheInterpretersHash) {
  GraphBuilder b("quantize and dequantize");
  const Shape shape{1, 6, 6, 3};
  const int32_t in = b.add_tensor("in", DataType::kFloat32, shape);
  const int32_t q8 = b.add_tensor("q8", DataType::kInt8, shape, Quantization{{1.0f / 64}, {-3}, 0});
  const int32_t r8 = b.add_tensor("r8", DataType::kInt8, shape, Quantization{{1.0f / 48}, {5}, 0});
  const int32_t u8 = b.add_tensor("u8", DataType::kUInt8, shape, Quantization{{1.0f / 64}, {128}, 0});
  const int32_t from_u8 = b.add_tensor("from_u8", DataType::kInt8, shape, Quantization{{1.0f / 40}, {0}, 0});
  const int32_t s16 = b.add_tensor("s16", DataType::kInt16, shape, Quantization{{1.0f / 4096}, {0}, 0});
  const int32_t out8 = b.add_tensor("out8", DataType::kFloat32, shape);
  const int32_t out_u8 = b.add_tensor("out_u8", DataType::kFloat32, shape);
  const int32_t out16 = b.add_tensor("out16", DataType::kFloat32, shape);
  b.add_op(OpKind::kQuantize, {in}, {q8});
  b.add_op(OpKind::kQuantize, {q8}, {r8});
  b.add_op(OpKind::kQuantize, {in}, {u8});
  b.add_op(OpKind::kQuantize, {u8}, {from_u8});
  b.add_op(OpKind::kQuantize, {r8}, {s16});
  b.add_op(OpKind::kDequantize, {r8}, {out8});
  b.add_op(OpKind::kDequantize, {from_u8}, {out_u8});
  b.add_op(OpKind::kDequantize, {s16}, {out16});
  b.set_inputs({in});
  b.set_outputs({out8, out_u8, out16});
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(b.finish(), scratch);
}

// The ops whose state is one aggregate generated code defines from the
// host kernel's fields (ops/device_instance.h): PAD, TRANSPOSE, the
// RESIZE ops, EXPAND_DIMS and the element-wise activations, int8 and
// float32, as detection and segmentation models chain them.
TEST(Codegen, HostProjectOfPaddingResizingAndActivationsPrintsTheInterpretersHash) {
  GraphBuilder b("pad, transpose, resize, activations");
  const Quantization q{{1.0f / 32}, {-4}, 0};
  const Quantization q_out{{1.0f / 24}, {3}, 0};
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 5, 6, 4}, q);
  const int32_t paddings = b.add_constant_values<int32_t>("paddings", DataType::kInt32, {4, 2},
                                                          {0, 0, 1, 2, 2, 1, 0, 0});
  const int32_t padded = b.add_tensor("padded", DataType::kInt8, {1, 8, 9, 4}, q);
  const int32_t leaky = b.add_tensor("leaky", DataType::kInt8, {1, 8, 9, 4}, q_out);
  const int32_t perm = b.add_constant_values<int32_t>("perm", DataType::kInt32, {4}, {0, 2, 1, 3});
  const int32_t transposed = b.add_tensor("transposed", DataType::kInt8, {1, 9, 8, 4}, q_out);
  const int32_t size = b.add_constant_values<int32_t>("size", DataType::kInt32, {2}, {13, 11});
  const int32_t nearest = b.add_tensor("nearest", DataType::kInt8, {1, 13, 11, 4}, q_out);
  const int32_t bilinear = b.add_tensor("bilinear", DataType::kInt8, {1, 13, 11, 4}, q_out);
  const int32_t relu = b.add_tensor("relu", DataType::kInt8, {1, 13, 11, 4}, q);
  const int32_t axis = b.add_constant_values<int32_t>("axis", DataType::kInt32, {1}, {0});
  const int32_t expanded = b.add_tensor("expanded", DataType::kInt8, {1, 1, 13, 11, 4}, q);
  const int32_t f_in = b.add_tensor("f_in", DataType::kFloat32, {1, 4, 5, 3});
  const int32_t f_size = b.add_constant_values<int32_t>("f_size", DataType::kInt32, {2}, {7, 9});
  const int32_t f_bilinear = b.add_tensor("f_bilinear", DataType::kFloat32, {1, 7, 9, 3});
  const int32_t f_leaky = b.add_tensor("f_leaky", DataType::kFloat32, {1, 7, 9, 3});
  const int32_t f_relu = b.add_tensor("f_relu", DataType::kFloat32, {1, 7, 9, 3});
  const int32_t f_relu6 = b.add_tensor("f_relu6", DataType::kFloat32, {1, 7, 9, 3});
  b.add_op(OpKind::kPad, {in, paddings}, {padded});
  b.add_op(OpKind::kLeakyRelu, {padded}, {leaky}, LeakyReluParams{0.2f});
  b.add_op(OpKind::kTranspose, {leaky, perm}, {transposed});
  b.add_op(OpKind::kResizeNearestNeighbor, {transposed, size}, {nearest}, ResizeNearestNeighborParams{false, true});
  b.add_op(OpKind::kResizeBilinear, {transposed, size}, {bilinear}, ResizeBilinearParams{false, true});
  b.add_op(OpKind::kRelu, {nearest}, {relu});
  b.add_op(OpKind::kExpandDims, {relu, axis}, {expanded});
  b.add_op(OpKind::kResizeBilinear, {f_in, f_size}, {f_bilinear}, ResizeBilinearParams{true, false});
  b.add_op(OpKind::kLeakyRelu, {f_bilinear}, {f_leaky}, LeakyReluParams{0.1f});
  b.add_op(OpKind::kRelu, {f_leaky}, {f_relu});
  b.add_op(OpKind::kRelu6, {f_bilinear}, {f_relu6});
  b.set_inputs({in, f_in});
  b.set_outputs({expanded, bilinear, f_relu, f_relu6});
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(b.finish(), scratch);
}

// STRIDED_SLICE (unit and negative strides), SLICE, LOGISTIC and TANH
// (int8, uint8 and float LOGISTIC) and HARD_SWISH (int8, float) as
// recurrent, detection and MobileNet v3 models use them.
TEST(Codegen, HostProjectOfSlicesAndSigmoidsPrintsTheInterpretersHash) {
  GraphBuilder b("slices and sigmoids");
  const Quantization q{{1.0f / 16}, {2}, 0};
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 6, 7, 5}, q);
  auto ints = [&](const std::string& name, std::vector<int32_t> values) {
    return b.add_constant_values<int32_t>(name, DataType::kInt32, {static_cast<int32_t>(values.size())}, values);
  };
  const int32_t unit = b.add_tensor("unit", DataType::kInt8, {1, 3, 7, 4}, q);
  const int32_t reversed = b.add_tensor("reversed", DataType::kInt8, {1, 3, 4, 2}, q);
  const int32_t sliced = b.add_tensor("sliced", DataType::kInt8, {1, 2, 3, 2}, q);
  const int32_t logistic = b.add_tensor("logistic", DataType::kInt8, {1, 2, 3, 2}, Quantization{{1.0f / 256}, {-128}, 0});
  const int32_t tanh = b.add_tensor("tanh", DataType::kInt8, {1, 6, 7, 5}, Quantization{{1.0f / 128}, {0}, 0});
  const Quantization qu{{1.0f / 16}, {130}, 0};
  const int32_t u_in = b.add_tensor("u_in", DataType::kUInt8, {2, 9}, qu);
  const int32_t u_logistic = b.add_tensor("u_logistic", DataType::kUInt8, {2, 9}, Quantization{{1.0f / 256}, {0}, 0});
  const int32_t u_tanh = b.add_tensor("u_tanh", DataType::kUInt8, {2, 9}, Quantization{{1.0f / 128}, {128}, 0});
  const int32_t f_in = b.add_tensor("f_in", DataType::kFloat32, {3, 8});
  const int32_t f_logistic = b.add_tensor("f_logistic", DataType::kFloat32, {3, 8});
  const int32_t swish = b.add_tensor("swish", DataType::kInt8, {1, 6, 7, 5}, Quantization{{1.0f / 20}, {-9}, 0});
  const int32_t f_swish = b.add_tensor("f_swish", DataType::kFloat32, {3, 8});
  b.add_op(OpKind::kStridedSlice, {in, ints("b1", {0, 1, 0, 0}), ints("e1", {1, 6, 7, 4}), ints("s1", {1, 2, 1, 1})},
           {unit}, StridedSliceParams{});
  b.add_op(OpKind::kStridedSlice, {unit, ints("b2", {0, 0, -1, 3}), ints("e2", {1, 3, 0, 0}), ints("s2", {1, 1, -2, -2})},
           {reversed}, StridedSliceParams{0, 4, 0, 0, 0, false});
  b.add_op(OpKind::kSlice, {reversed, ints("b3", {0, 1, 1, 0}), ints("s3", {-1, 2, 3, 2})}, {sliced});
  b.add_op(OpKind::kLogistic, {sliced}, {logistic});
  b.add_op(OpKind::kTanh, {in}, {tanh});
  b.add_op(OpKind::kLogistic, {u_in}, {u_logistic});
  b.add_op(OpKind::kTanh, {u_in}, {u_tanh});
  b.add_op(OpKind::kLogistic, {f_in}, {f_logistic});
  b.add_op(OpKind::kHardSwish, {in}, {swish});
  b.add_op(OpKind::kHardSwish, {f_logistic}, {f_swish});
  b.set_inputs({in, u_in, f_in});
  b.set_outputs({logistic, tanh, u_logistic, u_tanh, swish, f_swish});
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(b.finish(), scratch);
}

// SUB (int8 with a broadcast input and a fused RELU, float), PACK,
// UNPACK, MAXIMUM and MINIMUM, as recurrent models chain them.
TEST(Codegen, HostProjectOfSubPackAndUnpackPrintsTheInterpretersHash) {
  GraphBuilder b("sub, pack and unpack");
  const Quantization q{{1.0f / 16}, {2}, 0};
  const int32_t a = b.add_tensor("a", DataType::kInt8, {2, 3, 5}, q);
  const int32_t row = b.add_tensor("row", DataType::kInt8, {1, 5}, Quantization{{1.0f / 20}, {-7}, 0});
  const int32_t diff = b.add_tensor("diff", DataType::kInt8, {2, 3, 5}, Quantization{{1.0f / 12}, {-20}, 0});
  std::vector<int32_t> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(b.add_tensor("part" + std::to_string(i), DataType::kInt8, {2, 5}, Quantization{{1.0f / 12}, {-20}, 0}));
  }
  const int32_t packed = b.add_tensor("packed", DataType::kInt8, {2, 5, 3}, Quantization{{1.0f / 12}, {-20}, 0});
  const int32_t f_a = b.add_tensor("f_a", DataType::kFloat32, {4, 6});
  const int32_t f_b = b.add_tensor("f_b", DataType::kFloat32, {6});
  const int32_t f_diff = b.add_tensor("f_diff", DataType::kFloat32, {4, 6});
  b.add_op(OpKind::kSub, {a, row}, {diff}, ElementwiseParams{Activation::kRelu});
  b.add_op(OpKind::kUnpack, {diff}, parts, UnpackParams{3, 1});
  b.add_op(OpKind::kPack, parts, {packed}, PackParams{3, 2});
  b.add_op(OpKind::kSub, {f_a, f_b}, {f_diff}, ElementwiseParams{Activation::kRelu6});
  const int32_t floor = b.add_tensor("floor", DataType::kInt8, {5}, q);
  const int32_t highest = b.add_tensor("highest", DataType::kInt8, {2, 3, 5}, q);
  const int32_t lowest = b.add_tensor("lowest", DataType::kFloat32, {4, 6});
  b.add_op(OpKind::kMaximum, {a, floor}, {highest});
  b.add_op(OpKind::kMinimum, {f_diff, f_a}, {lowest});
  b.set_inputs({a, row, f_a, f_b, floor});
  b.set_outputs({packed, f_diff, highest, lowest});
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(b.finish(), scratch);
}

// MEAN and SUM: int8 over height and width (a classifier's global
// pooling, its sums in a static scratch array), float per output and in
// the output, float and int8 SUM.
TEST(Codegen, HostProjectOfMeanAndSumPrintsTheInterpretersHash) {
  GraphBuilder b("mean and sum");
  const Quantization q{{1.0f / 16}, {3}, 0};
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 5, 6, 7}, q);
  const int32_t hw = b.add_constant_values<int32_t>("hw", DataType::kInt32, {2}, {1, 2});
  const int32_t last = b.add_constant_values<int32_t>("last", DataType::kInt32, {1}, {-1});
  const int32_t pooled = b.add_tensor("pooled", DataType::kInt8, {1, 1, 1, 7}, Quantization{{1.0f / 40}, {-5}, 0});
  const int32_t summed = b.add_tensor("summed", DataType::kInt8, {1, 5, 6}, Quantization{{1.0f / 2}, {0}, 0});
  const int32_t f_in = b.add_tensor("f_in", DataType::kFloat32, {1, 4, 3, 5});
  const int32_t f_pooled = b.add_tensor("f_pooled", DataType::kFloat32, {1, 1, 1, 5});
  const int32_t f_rows = b.add_tensor("f_rows", DataType::kFloat32, {1, 4, 3});
  const int32_t f_summed = b.add_tensor("f_summed", DataType::kFloat32, {1, 4, 3});
  b.add_op(OpKind::kMean, {in, hw}, {pooled}, ReducerParams{true});
  b.add_op(OpKind::kSum, {in, last}, {summed}, ReducerParams{false});
  b.add_op(OpKind::kMean, {f_in, hw}, {f_pooled}, ReducerParams{true});
  b.add_op(OpKind::kMean, {f_in, last}, {f_rows}, ReducerParams{false});
  b.add_op(OpKind::kSum, {f_in, last}, {f_summed}, ReducerParams{false});
  b.set_inputs({in, f_in});
  b.set_outputs({pooled, summed, f_pooled, f_rows, f_summed});
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(b.finish(), scratch);
}

// Integer SVDF (a keyword spotter's layers): int8 state with a zero point
// (TFLM resets it there), rank 2, two batches; then int16 state and time
// weights; then an int8 -> int16 SOFTMAX. The states are variable
// tensors: static RAM beside the arena.
TEST(Codegen, HostProjectOfSvdfPrintsTheInterpretersHash) {
  GraphBuilder b("svdf");
  std::mt19937 rng(41);
  auto bytes_of = [&](int32_t n) {
    std::vector<int8_t> v(static_cast<size_t>(n));
    for (int8_t& x : v) x = static_cast<int8_t>(static_cast<int32_t>(rng() % 255) - 127);
    return v;
  };
  const int32_t in = b.add_tensor("in", DataType::kInt8, {2, 12}, Quantization{{0.05f}, {-7}, 0});
  // 8 filters of rank 2 (4 units), memory 5, int8 state.
  const int32_t wf = b.add_constant_values<int8_t>("wf", DataType::kInt8, {8, 12}, bytes_of(96), Quantization{{0.01f}, {0}, 0});
  const int32_t wt = b.add_constant_values<int8_t>("wt", DataType::kInt8, {8, 5}, bytes_of(40), Quantization{{0.02f}, {0}, 0});
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {4}, {300, -200, 50, 0},
                                                      Quantization{{0.5f * 0.02f}, {0}, 0});
  const int32_t state = b.add_tensor("state", DataType::kInt8, {2, 40}, Quantization{{0.5f}, {-20}, 0});
  const int32_t mid = b.add_tensor("mid", DataType::kInt8, {2, 4}, Quantization{{0.25f}, {3}, 0});
  // 6 filters of rank 1, memory 3, int16 state and time weights, no bias.
  const int32_t wf16 = b.add_constant_values<int8_t>("wf16", DataType::kInt8, {6, 4}, bytes_of(24), Quantization{{0.01f}, {0}, 0});
  std::vector<int16_t> time16(18);
  for (int16_t& x : time16) x = static_cast<int16_t>(static_cast<int32_t>(rng() % 4001) - 2000);
  const int32_t wt16 = b.add_constant_values<int16_t>("wt16", DataType::kInt16, {6, 3}, time16, Quantization{{0.002f}, {0}, 0});
  const int32_t state16 = b.add_tensor("state16", DataType::kInt16, {2, 18}, Quantization{{0.001f}, {0}, 0});
  const int32_t out = b.add_tensor("out", DataType::kInt8, {2, 6}, Quantization{{0.1f}, {-2}, 0});
  SvdfParams rank2;
  rank2.rank = 2;
  b.add_op(OpKind::kSvdf, {in, wf, wt, bias, state}, {mid}, rank2);
  SvdfParams rank1;
  rank1.rank = 1;
  b.add_op(OpKind::kSvdf, {mid, wf16, wt16, kNoTensor, state16}, {out}, rank1);
  // As the keyword spotter ends: an int8 -> int16 SOFTMAX.
  const int32_t probabilities =
      b.add_tensor("probabilities", DataType::kInt16, {2, 6}, Quantization{{1.0f / 65536}, {-32768}, 0});
  b.add_op(OpKind::kSoftmax, {out}, {probabilities}, SoftmaxParams{1.0f});
  b.set_inputs({in});
  b.set_outputs({out, probabilities});
  Graph graph = b.finish();
  for (int32_t t : {state, state16}) graph.subgraphs[0].tensors[static_cast<size_t>(t)].is_variable = true;
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(graph, scratch);
}

// A graph whose GATHER reads int32 input indices (the pattern gives 0 to
// 15) from a table `rows` long: float rows of 5 along axis 0, int8 along
// axis 1 of a 2 x rows x 3 table.
Graph gather_graph(int32_t rows) {
  GraphBuilder b("gather");
  const int32_t ids = b.add_tensor("ids", DataType::kInt32, {1, 6});
  std::vector<float> table(static_cast<size_t>(rows) * 5);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 0.25f - 3.0f;
  const int32_t f_table = b.add_constant_values<float>("f_table", DataType::kFloat32, {rows, 5}, table);
  std::vector<int8_t> bytes(static_cast<size_t>(2 * rows * 3));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<int8_t>(static_cast<int32_t>(i * 37 % 256) - 128);
  const Quantization q{{1.0f / 8}, {2}, 0};
  const int32_t q_table = b.add_constant_values<int8_t>("q_table", DataType::kInt8, {2, rows, 3}, bytes, q);
  const int32_t f_out = b.add_tensor("f_out", DataType::kFloat32, {1, 6, 5});
  const int32_t q_out = b.add_tensor("q_out", DataType::kInt8, {2, 1, 6, 3}, q);
  b.add_op(OpKind::kGather, {f_table, ids}, {f_out}, GatherParams{0, 0});
  b.add_op(OpKind::kGather, {q_table, ids}, {q_out}, GatherParams{1, 0});
  b.set_inputs({ids});
  b.set_outputs({f_out, q_out});
  return b.finish();
}

// GATHER (an embedding lookup) runs on the device with its indices as
// data.
TEST(Codegen, HostProjectOfGatherPrintsTheInterpretersHash) {
  ScratchDirectory scratch;
  expect_graph_project_prints_the_interpreters_hash(gather_graph(16), scratch);
}

// An index outside the table stops `dmo run` with an error (exit 2); the
// generated program stops too, with one error line naming the op, exit 2.
TEST(Codegen, GatherIndexOutsideTheTableStopsTheProgramAsDmoRunStops) {
  ScratchDirectory scratch;
  const std::string model = scratch / "gather.tflite";
  const std::vector<uint8_t> bytes = write_tflite(gather_graph(4));
  std::ofstream(model, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult ran = test::run_dmo({"run", model, "--seed", "1"});
  ASSERT_EQ(ran.exit_status, 2) << ran.out << ran.err;
  EXPECT_NE(ran.err.find("op 0 (GATHER)"), std::string::npos) << ran.err;
  std::vector<std::string> targets = {"host"};
  if (have("arm-none-eabi-g++") && have("qemu-system-arm")) targets.push_back("cortex-m4");
  for (const std::string& target : targets) {
    const std::string dir = scratch / target;
    const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", target});
    ASSERT_EQ(generated.exit_status, 0) << generated.err;
    const Shell run = shell("make -s -C " + dir + " run");
    EXPECT_NE(run.status, 0) << target << ": " << run.out;
    EXPECT_NE(run.out.find("] Error 2"), std::string::npos) << target << ": " << run.out;  // the program's status, as make reports it
    EXPECT_NE(run.out.find("error: op 0 (GATHER): an index is outside the gathered axis\n"), std::string::npos)
        << target << ": " << run.out;
    EXPECT_EQ(run.out.find("outputs_fnv1a64"), std::string::npos) << target << ": " << run.out;
  }
}

TEST(Codegen, PlansForTheDeviceKernelsWithTheirScratchInTheArena) {
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  const test::CommandResult generated =
      test::run_dmo({"codegen", kDefaultZooModel, "-o", dir, "--target", "host", "--split", "none"});
  ASSERT_EQ(generated.exit_status, 0) << generated.err;
  PlanOptions device;
  device.families = {KernelFamily::kDmoDevice};
  const PlanResult plan = plan_model(build_zoo_model(kDefaultZooModel), device);
  EXPECT_EQ(codegen_arena(generated.out), plan.dmo.arena_size);
  ASSERT_FALSE(plan.scratch_buffers.empty());
  for (const ScratchBuffer& s : plan.scratch_buffers) EXPECT_NE(s.kernel.find("conv_s8_device"), std::string::npos);
  const Shell run = shell("make -s -C " + dir + " run");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(kDefaultZooModel)) << run.out;
  EXPECT_EQ(field(run.out, "scratch_bytes"), "0") << run.out;
}

class CodegenCortexM4 : public testing::TestWithParam<const char*> {};

TEST_P(CodegenCortexM4, RunsUnderQemuWithTheInterpretersHashAndThePlannedArena) {
  if (!have("arm-none-eabi-g++") || !have("qemu-system-arm")) {
    GTEST_SKIP() << "arm-none-eabi-g++ or qemu-system-arm not found (scripts/install-deps.sh installs them)";
  }
  std::string model = GetParam();
  if (model != kDefaultZooModel) {
    DMO_REQUIRE_SHARED(shared);
    model = shared + "/models/" + model + ".tflite";
  }
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", "cortex-m4"});
  ASSERT_EQ(generated.exit_status, 0) << generated.err;
  const auto start = std::chrono::steady_clock::now();
  const Shell run = shell("make -s -C " + dir + " run");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(run.status, 0) << run.out;
  // The project builds without a warning (-Wall -Wextra).
  EXPECT_EQ(run.out.find("warning:"), std::string::npos) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(model)) << run.out;
  const int64_t planned = codegen_arena(generated.out);
  EXPECT_EQ(std::stoll(field(run.out, "arena_bytes")), planned) << run.out;
  // The arena symbol's size in the image is the plan's.
  const Shell symbols = shell("arm-none-eabi-nm -S -t d " + dir + "/image.elf");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(symbols.out, m, std::regex(R"(\d+ 0*(\d+) [bBdD] dmo_arena\b)"))) << symbols.out;
  EXPECT_EQ(std::stoll(m[1]), planned);
  const std::string map = dir + "/image.map";
  EXPECT_TRUE(fs::exists(map));
  std::cout << GetParam() << ": built and ran in " << seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Models, CodegenCortexM4,
                         testing::Values("tiny_vww_96_int8", "tiny_kws_ref_model_int8", "tiny_resnet8_int8",
                                         "tflm_person_detect_int8", "tiny_ad01_int8", kDefaultZooModel,
                                         "coral_mobilenet_v1_0.25_128_quant",
                                         // uint8, its 3.6 MB of weights in the board's PSRAM
                                         "coral_mobilenet_v2_1.0_224_quant",
                                         // float32: the FPU's results, no fused multiply-adds
                                         "tiny_vww_96_float", "tiny_resnet8_float", "tiny_ad01_fp32",
                                         "tflm_hello_world_float", "tfls_mobilenet_v1_0.25_224_float",
                                         "litert_mobilenet_like_model", "litert_multi_add",
                                         // MUL, SPLIT and CONCATENATION
                                         "litert_topo_sort_fork_split", "litert_topo_sort_interleaved",
                                         "coral_split_concat", "litert_concat",
                                         // PAD, LEAKY_RELU, RESIZE_NEAREST_NEIGHBOR, TRANSPOSE, EXPAND_DIMS
                                         "tflm_pr_id_model", "tflm_pr_retinaface",
                                         // GATHER (an embedding lookup), MEAN, float FULLY_CONNECTED
                                         "tfls_movie_review_float",
                                         // SVDF with its variable states, int8 -> int16 SOFTMAX
                                         "tflm_keyword_scrambled_8bit"));

bool have_arm_tools() { return have("arm-none-eabi-g++") && have("qemu-system-arm"); }

std::string model_path(const std::string& name, const std::string& shared) {
  return name == kDefaultZooModel ? name : shared + "/models/" + name + ".tflite";
}

// The same projects for the Cortex-M7 (its own FPU and board) print the same hashes.
class CodegenCortexM7 : public testing::TestWithParam<const char*> {};

TEST_P(CodegenCortexM7, RunsUnderQemuWithTheInterpretersHash) {
  if (!have_arm_tools()) GTEST_SKIP() << "arm-none-eabi-g++ or qemu-system-arm not found";
  std::string shared;
  if (std::string(GetParam()) != kDefaultZooModel) {
    DMO_REQUIRE_SHARED(found);
    shared = found;
  }
  const std::string model = model_path(GetParam(), shared);
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", "cortex-m7"});
  ASSERT_EQ(generated.exit_status, 0) << generated.err;
  const Shell run = shell("make -s -C " + dir + " run");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(model)) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Models, CodegenCortexM7,
                         testing::Values("tiny_vww_96_int8", "tiny_kws_ref_model_int8", "tiny_resnet8_int8",
                                         "tflm_person_detect_int8", "tiny_ad01_int8", kDefaultZooModel));

// What the program prints is on QEMU's standard output, stderr left to QEMU.
TEST(Codegen, CortexM4ProgramPrintsOnStandardOutput) {
  if (!have_arm_tools()) GTEST_SKIP() << "arm-none-eabi-g++ or qemu-system-arm not found";
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  ASSERT_EQ(test::run_dmo({"codegen", kDefaultZooModel, "-o", dir}).exit_status, 0);
  ASSERT_EQ(shell("make -s -C " + dir + " image.elf").status, 0);
  const Shell run = shell("make -s -C " + dir + " run 2>/dev/null | grep outputs_fnv1a64");
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(kDefaultZooModel)) << run.out;
}

// `make bench` counts the inference's instructions under -icount: the same
// hash, a positive count, and the same count twice.
TEST(Codegen, CortexM4BenchCountsTheInferencesInstructionsRepeatably) {
  if (!have_arm_tools()) GTEST_SKIP() << "arm-none-eabi-g++ or qemu-system-arm not found";
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  ASSERT_EQ(test::run_dmo({"codegen", kDefaultZooModel, "-o", dir}).exit_status, 0);
  const Shell first = shell("make -s -C " + dir + " bench");
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_EQ(field(first.out, "outputs_fnv1a64"), interpreter_hash(kDefaultZooModel)) << first.out;
  const std::string count = field(first.out, "invoke_instructions");
  ASSERT_FALSE(count.empty()) << first.out;
  EXPECT_GT(std::stoll(count), 1000) << first.out;
  const Shell second = shell("make -s -C " + dir + " bench");
  EXPECT_EQ(field(second.out, "invoke_instructions"), count) << second.out;
}

// One line on stderr, exit 2, and no directory written.
void expect_refused(const std::vector<std::string>& args, const std::string& dir, const std::string& message) {
  const test::CommandResult result = test::run_dmo(args);
  EXPECT_EQ(result.exit_status, 2) << result.out << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir)) << dir;
  // No temporary sibling either.
  for (const auto& entry : fs::directory_iterator(fs::path(dir).parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find("dmo-codegen"), std::string::npos) << entry.path();
  }
}

TEST(Codegen, RefusesAnUnknownTarget) {
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  expect_refused({"codegen", kDefaultZooModel, "-o", dir, "--target", "cortex-a53"}, dir,
                 "unknown target 'cortex-a53'");
}

TEST(Codegen, RefusesAnOpWithNoDeviceKernel) {
  DMO_REQUIRE_SHARED(shared);
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  expect_refused({"codegen", shared + "/models/litert_ff.tflite", "-o", dir}, dir,
                 "op 0 (BATCH_MATMUL): no device kernel for dmo codegen");
}

// An arena the board's RAM cannot hold is refused before anything is
// written, naming that part of the budget.
TEST(Codegen, RefusesAnArenaBeyondTheBoardsRam) {
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  expect_refused({"codegen", "mobilenet_v1_1.0_640_int8", "-o", dir, "--target", "cortex-m4", "--split", "none"},
                 dir, "arena: 6553664 bytes and 16384 of stack do not fit cortex-m4's 4194304 bytes of RAM");
}

TEST(Codegen, RefusesADirectoryThatIsNotEmpty) {
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  fs::create_directories(dir);
  { std::FILE* f = std::fopen((dir + "/keep.txt").c_str(), "w"); std::fclose(f); }
  const test::CommandResult result = test::run_dmo({"codegen", kDefaultZooModel, "-o", dir, "--target", "host"});
  EXPECT_EQ(result.exit_status, 2);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find("exists and is not empty"), std::string::npos) << result.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace dmo
