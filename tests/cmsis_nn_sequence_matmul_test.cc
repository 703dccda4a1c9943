// SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM and BATCH_MATMUL in the cmsis-nn
// families: which CMSIS-NN function each op runs and the scratch buffers
// its glue requests, the safe overlap of each family's access order
// (with the checking policy's verdict at it and one element past it, and
// TFLM's reference values when nothing is clobbered), random shapes of the
// same facts, CMSIS-NN's own arithmetic where it differs from TFLM's
// reference, float ops left to the reference kernels, and the shared models.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

constexpr std::array<KernelFamily, 2> kCmsisFamilies = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

std::string family_suffix(KernelFamily family) { return family == KernelFamily::kCmsisNnDsp ? "(DSP)" : "(portable)"; }

const PreparedKernel& prepared_kernel(const Interpreter& interpreter) { return interpreter.prepared(0); }

// The family's implementation of op 0 of `graph`.
std::string implementation_of(const Graph& graph, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  return prepared_kernel(interpreter).implementation;
}

std::vector<int64_t> scratch_bytes_of(const Graph& graph, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  std::vector<int64_t> bytes;
  for (const KernelScratch& s : prepared_kernel(interpreter).scratch) bytes.push_back(s.bytes);
  return bytes;
}

// The error message of preparing and running `graph` under `family`, or "".
std::string run_error(const Graph& graph, KernelFamily family) {
  try {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The output of one unshared run of `graph` under `family`.
std::vector<uint8_t> run_output(const test::OneOp& m, const std::vector<uint8_t>& input, KernelFamily family) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.tensor_contents(m.output);
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

using test::random_values;

// The overlap facts of one op under `family`: no clobber at the family's
// O_s (and TFLM's reference values), a clobber one element past it when it
// is below the whole output. Returns that O_s.
int64_t check_overlap_facts(const test::OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                            int64_t element, const std::string& what) {
  const int64_t os = test::addresses(m, family).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input, family)) << what << " at O_s " << os;
  if (os < test::bytes_of_tensor(m, m.output)) {
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + element, input, family)) << what << " past O_s " << os;
  }
  return os;
}

// ------------------------------------------------------------------- SVDF

struct SvdfShape {
  int32_t batch = 1, input_size = 4, filters = 6, memory = 3, rank = 1;
  DataType state = DataType::kInt8;
  bool bias = true;
};

// Scales keep every new state value inside the int8 range (where CMSIS-NN
// and the reference agree); the weights are random.
test::OneOp svdf_model(const SvdfShape& s, std::mt19937& rng, float to_state = 1e-4f) {
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  test::OneOp m;
  const int32_t units = s.filters / s.rank;
  m.input = b.add_tensor("input", DataType::kInt8, {s.batch, s.input_size}, per_tensor(0.01f, 3));
  const int32_t wf = b.add_constant_values<int8_t>("weights_feature", DataType::kInt8, {s.filters, s.input_size},
                                                   random_values<int8_t>(rng, s.filters * s.input_size, -127, 127),
                                                   per_tensor(to_state * 100.0f, 0));
  int32_t wt = 0;
  if (s.state == DataType::kInt16) {
    wt = b.add_constant_values<int16_t>("weights_time", DataType::kInt16, {s.filters, s.memory},
                                        random_values<int16_t>(rng, s.filters * s.memory, -2000, 2000),
                                        per_tensor(0.002f, 0));
  } else {
    wt = b.add_constant_values<int8_t>("weights_time", DataType::kInt8, {s.filters, s.memory},
                                       random_values<int8_t>(rng, s.filters * s.memory, -127, 127),
                                       per_tensor(0.002f, 0));
  }
  const int32_t bias = s.bias ? b.add_constant_values<int32_t>("bias", DataType::kInt32, {units},
                                                               random_values<int32_t>(rng, units, -500, 500),
                                                               per_tensor(1.0f * 0.002f, 0))
                              : kNoTensor;
  const int32_t state = b.add_tensor("state", s.state, {s.batch, s.filters * s.memory}, per_tensor(1.0f, 0));
  m.output = b.add_tensor("output", DataType::kInt8, {s.batch, units}, per_tensor(0.5f, -2));
  SvdfParams p;
  p.rank = s.rank;
  b.add_op(OpKind::kSvdf, {m.input, wf, wt, bias, state}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  m.graph.subgraphs[0].tensors[static_cast<size_t>(state)].is_variable = true;
  return m;
}

TEST(CmsisSvdf, SelectsTheStateTypesFunctionAndTheGluesScratch) {
  std::mt19937 rng(1);
  const test::OneOp s8 = svdf_model({2, 4, 6, 3, 2, DataType::kInt8, true}, rng);
  const test::OneOp s16 = svdf_model({2, 4, 6, 3, 2, DataType::kInt16, true}, rng);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(s8.graph, family), "arm_svdf_s8 " + family_suffix(family));
    EXPECT_EQ(implementation_of(s16.graph, family), "arm_svdf_state_s16_s8 " + family_suffix(family));
    // batch x filters and batch x units int32.
    EXPECT_EQ(scratch_bytes_of(s8.graph, family), (std::vector<int64_t>{2 * 6 * 4, 2 * 3 * 4}));
    EXPECT_EQ(scratch_bytes_of(s16.graph, family), (std::vector<int64_t>{2 * 6 * 4, 2 * 3 * 4}));
  }
  EXPECT_EQ(implementation_of(s8.graph, KernelFamily::kTflmReference), "");
}

TEST(CmsisSvdf, FloatRunsTheReferenceKernel) {
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  const int32_t input = b.add_tensor("input", DataType::kFloat32, {1, 2});
  const int32_t wf = b.add_constant_values<float>("wf", DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  const int32_t wt = b.add_constant_values<float>("wt", DataType::kFloat32, {2, 2}, {1, 1, 1, 1});
  const int32_t state = b.add_tensor("state", DataType::kFloat32, {1, 4});
  const int32_t output = b.add_tensor("output", DataType::kFloat32, {1, 2});
  SvdfParams p;
  p.rank = 1;
  b.add_op(OpKind::kSvdf, {input, wf, wt, kNoTensor, state}, {output}, p);
  b.set_inputs({input});
  b.set_outputs({output});
  Graph graph = b.finish();
  graph.subgraphs[0].tensors[static_cast<size_t>(state)].is_variable = true;
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(graph, family), "");
    EXPECT_TRUE(scratch_bytes_of(graph, family).empty());
  }
}

TEST(CmsisSvdf, Int8StateWrapsWhereTheReferenceSaturates) {
  // One input 100 times one feature weight 100 at scale 1/64: 10000 / 64 =
  // 156.25 -> 156. arm_nn_vec_mat_mult_t_s8 clamps to the int16 range and
  // narrows: int8 156 = -100; the reference saturates to 127. Time weight
  // 1 at scale 1, output scale 1: the output is the new state value, -100
  // (the reference's 127).
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  test::OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, 1}, per_tensor(1.0f, 0));
  const int32_t wf = b.add_constant_values<int8_t>("wf", DataType::kInt8, {1, 1}, {100}, per_tensor(1.0f / 64, 0));
  const int32_t wt = b.add_constant_values<int8_t>("wt", DataType::kInt8, {1, 1}, {1}, per_tensor(1.0f, 0));
  const int32_t state = b.add_tensor("state", DataType::kInt8, {1, 1}, per_tensor(1.0f, 0));
  m.output = b.add_tensor("output", DataType::kInt8, {1, 1}, per_tensor(1.0f, 0));
  SvdfParams p;
  p.rank = 1;
  b.add_op(OpKind::kSvdf, {m.input, wf, wt, kNoTensor, state}, {m.output}, p);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  m.graph.subgraphs[0].tensors[static_cast<size_t>(state)].is_variable = true;
  const std::vector<uint8_t> input = {100};
  EXPECT_EQ(values_from<int8_t>(run_output(m, input, KernelFamily::kTflmReference)), std::vector<int8_t>{127});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_output(m, input, family)), std::vector<int8_t>{-100});
  }
}

TEST(CmsisSvdf, OutputMayOverlapTheWholeInputInEveryFamily) {
  // Every input read (the feature product) precedes the first output
  // store, so the whole output (8 bytes) may lie on the input (32).
  std::mt19937 rng(2);
  const test::OneOp m = svdf_model({1, 32, 16, 4, 2, DataType::kInt16, true}, rng);
  const std::vector<uint8_t> input = random_bytes(rng, 32);
  EXPECT_EQ(test::addresses(m).safe_overlap(), 8);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(check_overlap_facts(m, family, input, 1, "svdf"), 8);
  }
}

TEST(CmsisSvdf, RandomShapesKeepTheOverlapFacts) {
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    SvdfShape s;
    s.batch = std::uniform_int_distribution<int32_t>(1, 3)(rng);
    s.input_size = std::uniform_int_distribution<int32_t>(1, 24)(rng);
    s.rank = std::uniform_int_distribution<int32_t>(1, 3)(rng);
    s.filters = s.rank * std::uniform_int_distribution<int32_t>(1, 7)(rng);  // 3-row and 2-row groups, leftovers
    s.memory = std::uniform_int_distribution<int32_t>(1, 9)(rng);
    s.state = rng() % 2 ? DataType::kInt8 : DataType::kInt16;
    s.bias = rng() % 3 != 0;
    const test::OneOp m = svdf_model(s, rng);
    const std::vector<uint8_t> input = random_bytes(rng, s.batch * s.input_size);
    const std::string what = fmt::format("batch {} input {} filters {} memory {} rank {}", s.batch, s.input_size,
                                         s.filters, s.memory, s.rank);
    for (KernelFamily family : kCmsisFamilies) {
      // The whole output, however it compares with the input.
      EXPECT_EQ(check_overlap_facts(m, family, input, 1, what), s.batch * (s.filters / s.rank)) << what;
    }
  }
}

TEST(CmsisSvdf, SharedKeywordModelMatchesTheReference) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/tflm_keyword_scrambled_8bit.tflite");
  std::mt19937 rng(4);
  Interpreter reference(graph, unshared_placement(graph.main()));
  const std::vector<uint8_t> input = random_bytes(rng, reference.input_bytes());
  reference.set_inputs(input);
  reference.run();
  for (KernelFamily family : kCmsisFamilies) {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    Interpreter cmsis(graph, unshared_placement(graph.main()), schedule);
    int32_t svdf_ops = 0;
    for (size_t op = 0; op < graph.main().ops.size(); ++op) {
      if (!graph.main().ops[op].is(OpKind::kSvdf)) continue;
      EXPECT_EQ(cmsis.prepared(static_cast<int32_t>(op)).implementation, "arm_svdf_s8 " + family_suffix(family));
      ++svdf_ops;
    }
    EXPECT_EQ(svdf_ops, 7);
    cmsis.set_inputs(input);
    cmsis.run();
    EXPECT_EQ(cmsis.outputs(), reference.outputs()) << kernel_family_name(family);
  }
}

// ------------------------------------------------------------------- LSTM

struct LstmShape {
  int32_t batch = 1, time = 3, input_size = 4, state = 5;
  bool time_major = false;
  DataType activation = DataType::kInt8;
};

struct LstmModel {
  test::OneOp op;
  int32_t hidden = -1, cell = -1;
};

// An int8 LSTM (int16 cell state at 2^-11, int32 biases) with random weights
// at scales that keep each gate's products well inside int16.
LstmModel lstm_model(const LstmShape& s, std::mt19937& rng) {
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  LstmModel m;
  const Shape in_shape = s.time_major ? Shape{s.time, s.batch, s.input_size} : Shape{s.batch, s.time, s.input_size};
  const Shape out_shape = s.time_major ? Shape{s.time, s.batch, s.state} : Shape{s.batch, s.time, s.state};
  // int16 activations: symmetric, inputs within [-1, 1).
  const Quantization io_q =
      s.activation == DataType::kInt16 ? per_tensor(1.0f / 32768, 0) : per_tensor(1.0f / 128, 5);
  m.op.input = b.add_tensor("input", s.activation, in_shape, io_q);
  std::vector<int32_t> inputs(24, kNoTensor);
  inputs[0] = m.op.input;
  const DataType bias_type = s.activation == DataType::kInt16 ? DataType::kInt64 : DataType::kInt32;
  for (int32_t g = 0; g < 4; ++g) {
    inputs[static_cast<size_t>(1 + g)] = b.add_constant_values<int8_t>(
        fmt::format("w_in_{}", g), DataType::kInt8, {s.state, s.input_size},
        random_values<int8_t>(rng, s.state * s.input_size, -127, 127), per_tensor(0.02f, 0));
    inputs[static_cast<size_t>(5 + g)] =
        b.add_constant_values<int8_t>(fmt::format("w_rec_{}", g), DataType::kInt8, {s.state, s.state},
                                      random_values<int8_t>(rng, s.state * s.state, -127, 127), per_tensor(0.02f, 0));
    if (bias_type == DataType::kInt64) {
      inputs[static_cast<size_t>(12 + g)] = b.add_constant_values<int64_t>(
          fmt::format("bias_{}", g), bias_type, {s.state}, random_values<int64_t>(rng, s.state, -3000, 3000));
    } else {
      inputs[static_cast<size_t>(12 + g)] = b.add_constant_values<int32_t>(
          fmt::format("bias_{}", g), bias_type, {s.state}, random_values<int32_t>(rng, s.state, -3000, 3000));
    }
  }
  m.hidden = b.add_tensor("hidden", s.activation, {s.batch, s.state}, io_q);
  m.cell = b.add_tensor("cell", DataType::kInt16, {s.batch, s.state}, per_tensor(1.0f / 2048, 0));
  inputs[18] = m.hidden;
  inputs[19] = m.cell;
  m.op.output = b.add_tensor("output", s.activation, out_shape, io_q);
  UnidirectionalSequenceLstmParams params{Activation::kTanh, 0.0f, 0.0f, s.time_major, false, false};
  b.add_op(OpKind::kUnidirectionalSequenceLstm, inputs, {m.op.output}, params);
  b.set_inputs({m.op.input});
  b.set_outputs({m.op.output});
  m.op.graph = b.finish();
  for (int32_t t : {m.hidden, m.cell}) m.op.graph.subgraphs[0].tensors[static_cast<size_t>(t)].is_variable = true;
  return m;
}

TEST(CmsisLstm, SelectsTheActivationTypesFunctionAndThreeScratchBuffers) {
  std::mt19937 rng(10);
  const LstmModel m = lstm_model({1, 3, 4, 5, false, DataType::kInt8}, rng);
  const LstmModel int16 = lstm_model({1, 3, 4, 5, false, DataType::kInt16}, rng);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(m.op.graph, family), "arm_lstm_unidirectional_s8 " + family_suffix(family));
    EXPECT_EQ(implementation_of(int16.op.graph, family), "arm_lstm_unidirectional_s16 " + family_suffix(family));
    // temp1, temp2 and the cell state: batch x state int16 each.
    EXPECT_EQ(scratch_bytes_of(m.op.graph, family), (std::vector<int64_t>{10, 10, 10}));
    EXPECT_EQ(scratch_bytes_of(int16.op.graph, family), (std::vector<int64_t>{10, 10, 10}));
  }
  const LstmModel time_major = lstm_model({3, 2, 4, 5, true, DataType::kInt8}, rng);
  EXPECT_EQ(scratch_bytes_of(time_major.op.graph, KernelFamily::kCmsisNn), (std::vector<int64_t>{30, 30, 30}));
}

TEST(CmsisLstm, RefusesWhatThisCmsisNnVersionCannotRun) {
  std::mt19937 rng(11);
  const std::string op = "op 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): ";
  const LstmModel batches = lstm_model({2, 3, 4, 5, false, DataType::kInt8}, rng);
  const LstmModel int16 = lstm_model({3, 3, 4, 5, false, DataType::kInt16}, rng);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_NE(run_error(batches.op.graph, family).find(op + "CMSIS-NN's arm_lstm_unidirectional_s8 addresses "
                                                             "batch-major input of 2 batches beyond its rows"),
              std::string::npos)
        << run_error(batches.op.graph, family);
    EXPECT_NE(run_error(int16.op.graph, family).find(op + "CMSIS-NN's arm_lstm_unidirectional_s16 addresses "
                                                           "batch-major input of 3 batches beyond its rows"),
              std::string::npos)
        << run_error(int16.op.graph, family);
    // The reference kernel's checks come first, with its messages.
    LstmModel missing = lstm_model({1, 2, 3, 4, false, DataType::kInt8}, rng);
    missing.op.graph.subgraphs[0].ops[0].inputs.pop_back();
    EXPECT_NE(run_error(missing.op.graph, family).find(op + "expected 24 inputs, got 23"), std::string::npos);
  }
  EXPECT_EQ(run_error(batches.op.graph, KernelFamily::kTflmReference), "");
}

TEST(CmsisLstm, FloatRunsTheReferenceKernel) {
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  const int32_t input = b.add_tensor("input", DataType::kFloat32, {1, 2, 1});
  std::vector<int32_t> inputs(24, kNoTensor);
  inputs[0] = input;
  for (size_t i : {1, 2, 3, 4, 5, 6, 7, 8}) {
    inputs[i] = b.add_constant_values<float>(fmt::format("w{}", i), DataType::kFloat32, {1, 1}, {0.5f});
  }
  for (size_t i : {12, 13, 14, 15}) {
    inputs[i] = b.add_constant_values<float>(fmt::format("b{}", i), DataType::kFloat32, {1}, {0.1f});
  }
  inputs[18] = b.add_tensor("hidden", DataType::kFloat32, {1, 1});
  inputs[19] = b.add_tensor("cell", DataType::kFloat32, {1, 1});
  const int32_t output = b.add_tensor("output", DataType::kFloat32, {1, 2, 1});
  b.add_op(OpKind::kUnidirectionalSequenceLstm, inputs, {output},
           UnidirectionalSequenceLstmParams{Activation::kTanh, 0.0f, 0.0f, false, false, false});
  b.set_inputs({input});
  b.set_outputs({output});
  Graph graph = b.finish();
  for (int32_t t : {inputs[18], inputs[19]}) graph.subgraphs[0].tensors[static_cast<size_t>(t)].is_variable = true;
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(graph, family), "");
    EXPECT_EQ(run_error(graph, family), "");
  }
}

TEST(CmsisLstm, TypicalShapesOverlapAsTheReference) {
  // Each step's output rows are stored after that step's input rows were
  // read, and the next steps read only later input rows (and earlier
  // output rows, as their hidden state): the same bound as the reference.
  std::mt19937 rng(12);
  for (const LstmShape& s : {LstmShape{1, 8, 16, 8, false, DataType::kInt8},
                             LstmShape{1, 8, 8, 16, false, DataType::kInt8},
                             LstmShape{2, 6, 10, 12, true, DataType::kInt8},
                             LstmShape{1, 8, 8, 16, false, DataType::kInt16}}) {
    const LstmModel m = lstm_model(s, rng);
    const int64_t element = s.activation == DataType::kInt16 ? 2 : 1;
    const std::vector<uint8_t> input = random_bytes(rng, s.batch * s.time * s.input_size * element);
    const int64_t reference = test::addresses(m.op).safe_overlap();
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(check_overlap_facts(m.op, family, input, element, "lstm"), reference)
          << s.batch << "x" << s.time << "x" << s.input_size << " state " << s.state;
    }
  }
}

TEST(CmsisLstm, RandomShapesKeepTheOverlapFacts) {
  std::mt19937 rng(13);
  int below_whole = 0;
  for (int i = 0; i < 200; ++i) {
    LstmShape s;
    s.time_major = rng() % 2 == 0;
    s.batch = s.time_major ? std::uniform_int_distribution<int32_t>(1, 3)(rng) : 1;
    s.time = std::uniform_int_distribution<int32_t>(1, 5)(rng);
    s.input_size = std::uniform_int_distribution<int32_t>(1, 9)(rng);
    s.state = std::uniform_int_distribution<int32_t>(1, 8)(rng);  // 3-row and 2-row groups, leftovers
    s.activation = rng() % 3 == 0 ? DataType::kInt16 : DataType::kInt8;
    const int64_t element = s.activation == DataType::kInt16 ? 2 : 1;
    const LstmModel m = lstm_model(s, rng);
    const std::vector<uint8_t> input = random_bytes(rng, s.batch * s.time * s.input_size * element);
    const std::string what = fmt::format("{}x{}x{} state {} time_major {}", s.batch, s.time, s.input_size, s.state,
                                         s.time_major);
    for (KernelFamily family : kCmsisFamilies) {
      // Step k's output rows (r rows of S) are stored after its input rows
      // are read and before step k+1's: O_s = min(|output|, r*S + (T - 1)*r*I).
      const int64_t rows = s.batch;
      const int64_t output = int64_t{s.batch} * s.time * s.state * element;
      const int64_t expected = std::min(output, (rows * s.state + (s.time - 1) * rows * s.input_size) * element);
      EXPECT_EQ(check_overlap_facts(m.op, family, input, element, what), expected) << what;
      if (expected < output) ++below_whole;
    }
  }
  EXPECT_GE(below_whole, 10);
}

TEST(CmsisLstm, SharedMnistLstmMatchesTheReference) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/tflm_mnist_lstm_int8.tflite");
  std::mt19937 rng(14);
  for (int run = 0; run < 3; ++run) {
    Interpreter reference(graph, unshared_placement(graph.main()));
    const std::vector<uint8_t> input = random_bytes(rng, reference.input_bytes());
    reference.set_inputs(input);
    reference.run();
    for (KernelFamily family : kCmsisFamilies) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      Interpreter cmsis(graph, unshared_placement(graph.main()), schedule);
      EXPECT_EQ(cmsis.prepared(0).implementation, "arm_lstm_unidirectional_s8 " + family_suffix(family));
      cmsis.set_inputs(input);
      cmsis.run();
      EXPECT_EQ(cmsis.tensor_contents(23), reference.tensor_contents(23)) << kernel_family_name(family);
      EXPECT_EQ(cmsis.outputs(), reference.outputs()) << kernel_family_name(family);
    }
  }
  // 28 steps of 28 inputs and 20 outputs: as in the reference, the whole output may lie on the input.
  test::OneOp lstm{graph, 0, 23};
  for (KernelFamily family : kCmsisFamilies) EXPECT_EQ(test::addresses(lstm, family).safe_overlap(), 560);
}

// ------------------------------------------------------------ BATCH_MATMUL

struct MatMulShape {
  Shape lhs, rhs;
  bool adj_x = false, adj_y = false;
  DataType type = DataType::kInt8;
  bool constant_rhs = false;
};

// The output shape TFLM's ReshapeOutputTensor gives.
Shape matmul_output_shape(const MatMulShape& s) {
  const size_t rank = std::max(s.lhs.size(), s.rhs.size());
  Shape l(rank, 1), r(rank, 1), out(rank, 1);
  std::copy(s.lhs.begin(), s.lhs.end(), l.begin() + static_cast<std::ptrdiff_t>(rank - s.lhs.size()));
  std::copy(s.rhs.begin(), s.rhs.end(), r.begin() + static_cast<std::ptrdiff_t>(rank - s.rhs.size()));
  for (size_t d = 0; d + 2 < rank; ++d) out[d] = std::max(l[d], r[d]);
  out[rank - 2] = s.adj_x ? l[rank - 1] : l[rank - 2];
  out[rank - 1] = s.adj_y ? r[rank - 2] : r[rank - 1];
  return out;
}

int64_t elements_of(const Shape& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

// The left operand is the op's input (the one whose overlap is measured);
// the right one is a second graph input, or a constant.
test::OneOp matmul_model(const MatMulShape& s, std::mt19937& rng) {
  GraphBuilder b("cmsis_nn_sequence_matmul_test");
  test::OneOp m;
  const bool int16 = s.type == DataType::kInt16;
  m.input = b.add_tensor("lhs", s.type, s.lhs, per_tensor(0.05f, int16 ? 0 : 3));
  const Quantization rhs_q = per_tensor(0.04f, int16 ? 0 : -2);
  int32_t rhs = 0;
  if (s.constant_rhs) {
    const int64_t n = elements_of(s.rhs);
    rhs = int16 ? b.add_constant_values<int16_t>("rhs", s.type, s.rhs, random_values<int16_t>(rng, n, -3000, 3000), rhs_q)
                : b.add_constant_values<int8_t>("rhs", s.type, s.rhs, random_values<int8_t>(rng, n, -128, 127), rhs_q);
  } else {
    rhs = b.add_tensor("rhs", s.type, s.rhs, rhs_q);
  }
  m.output = b.add_tensor("output", s.type, matmul_output_shape(s), per_tensor(int16 ? 0.5f : 0.3f, int16 ? 0 : -1));
  b.add_op(OpKind::kBatchMatMul, {m.input, rhs}, {m.output}, BatchMatMulParams{s.adj_x, s.adj_y, false});
  b.set_inputs(s.constant_rhs ? std::vector<int32_t>{m.input} : std::vector<int32_t>{m.input, rhs});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

std::vector<uint8_t> matmul_inputs(const test::OneOp& m, std::mt19937& rng) {
  const Interpreter probe(m.graph, unshared_placement(m.graph.main()));
  return random_bytes(rng, probe.input_bytes());
}

int64_t element_size(const MatMulShape& s) { return s.type == DataType::kInt16 ? 2 : 1; }

TEST(CmsisBatchMatMul, SelectsTheTypesFunctionWithoutScratch) {
  std::mt19937 rng(20);
  const test::OneOp s8 = matmul_model({{2, 3, 4}, {2, 4, 5}}, rng);
  const test::OneOp s16 = matmul_model({{2, 3, 4}, {2, 4, 5}, false, false, DataType::kInt16}, rng);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(s8.graph, family), "arm_batch_matmul_s8 " + family_suffix(family));
    EXPECT_EQ(implementation_of(s16.graph, family), "arm_batch_matmul_s16 " + family_suffix(family));
    EXPECT_TRUE(scratch_bytes_of(s8.graph, family).empty());
    EXPECT_TRUE(scratch_bytes_of(s16.graph, family).empty());
  }
}

TEST(CmsisBatchMatMul, FloatRunsTheReferenceKernel) {
  std::mt19937 rng(21);
  const test::OneOp f = matmul_model({{2, 3}, {3, 2}, false, false, DataType::kFloat32}, rng);
  for (KernelFamily family : kCmsisFamilies) EXPECT_EQ(implementation_of(f.graph, family), "");
}

TEST(CmsisBatchMatMul, RefusesWhatTheGlueCannotRun) {
  std::mt19937 rng(22);
  const std::string op = "op 0 (BATCH_MATMUL): ";
  const test::OneOp five = matmul_model({{1, 1, 2, 3, 4}, {1, 1, 2, 4, 5}}, rng);
  const test::OneOp folded_adj_x = matmul_model({{2, 4, 3}, {1, 4, 5}, true, false}, rng);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_NE(run_error(five.graph, family).find(op + "left operand 1x1x2x3x4 has 5 dimensions"), std::string::npos)
        << run_error(five.graph, family);
    EXPECT_NE(run_error(folded_adj_x.graph, family).find(op + "TFLM's cmsis_nn batch_matmul folds the untransposed"),
              std::string::npos)
        << run_error(folded_adj_x.graph, family);
    // The reference checks first, with their messages.
    const test::OneOp mismatch = matmul_model({{2, 3}, {4, 2}}, rng);
    EXPECT_NE(run_error(mismatch.graph, family).find(op + "left operand 2x3 (adj_x false) and right operand 4x2"),
              std::string::npos)
        << run_error(mismatch.graph, family);
  }
  EXPECT_EQ(run_error(five.graph, KernelFamily::kTflmReference), "");
}

TEST(CmsisBatchMatMul, TypicalShapesAgainstTheReference) {
  // Every pass over left row m stores its outputs before the next pass
  // reads row m again, as the reference (one output per pass) does. The
  // bound comes from the last pass over the last row: its first output is
  // stored after that row's final read. The reference's last pass holds one
  // output; CMSIS-NN's holds `group` when that divides N (int8: 3 portable,
  // 2 DSP; int16: 1 portable, 2 DSP), else one (the leftovers go singly),
  // which leaves that many elements less to guard.
  std::mt19937 rng(23);
  for (const MatMulShape& s : {MatMulShape{{1, 16, 32}, {1, 32, 8}}, MatMulShape{{1, 16, 8}, {1, 8, 32}},
                               MatMulShape{{4, 8, 8}, {4, 8, 8}, false, true},
                               MatMulShape{{1, 16, 32}, {1, 32, 9}},
                               MatMulShape{{2, 8, 16}, {2, 16, 8}, false, false, DataType::kInt16}}) {
    const test::OneOp m = matmul_model(s, rng);
    const std::vector<uint8_t> inputs = matmul_inputs(m, rng);
    const int64_t reference = test::addresses(m).safe_overlap();
    const int64_t n = s.adj_y ? s.rhs[s.rhs.size() - 2] : s.rhs.back();
    for (KernelFamily family : kCmsisFamilies) {
      const bool dsp = family == KernelFamily::kCmsisNnDsp;
      const int64_t group = s.type == DataType::kInt8 ? (dsp ? 2 : 3) : (dsp ? 2 : 1);
      const int64_t last_pass = n % group == 0 ? group : 1;
      const int64_t os = check_overlap_facts(m, family, inputs, element_size(s), "batch matmul");
      EXPECT_EQ(os, reference + (last_pass - 1) * element_size(s))
          << shape_to_string(s.lhs) << " x " << shape_to_string(s.rhs) << " " << kernel_family_name(family);
    }
  }
}

TEST(CmsisBatchMatMul, RandomShapesKeepTheOverlapFacts) {
  std::mt19937 rng(24);
  int below_whole = 0;
  for (int i = 0; i < 200; ++i) {
    MatMulShape s;
    auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng); };
    const int32_t m = dim(1, 6), k = dim(1, 9), n = dim(1, 7);
    s.adj_x = rng() % 3 == 0;
    s.adj_y = rng() % 2 == 0;
    s.type = rng() % 3 == 0 ? DataType::kInt16 : DataType::kInt8;
    s.constant_rhs = rng() % 4 == 0;
    const int rank = dim(2, 4);
    Shape lhs_batch, rhs_batch;
    for (int d = 0; d + 2 < rank; ++d) {
      const int32_t extent = dim(1, 3);
      const int broadcast = dim(0, 2);  // 0: both, 1: lhs only, 2: rhs only
      lhs_batch.push_back(broadcast == 2 ? 1 : extent);
      rhs_batch.push_back(broadcast == 1 ? 1 : extent);
    }
    if (s.adj_x && rank > 2 && rhs_batch.back() == 1) rhs_batch.back() = 2, lhs_batch.back() = 2;  // no adj_x fold
    s.lhs = lhs_batch;
    s.rhs = rhs_batch;
    for (int32_t d : s.adj_x ? std::array<int32_t, 2>{k, m} : std::array<int32_t, 2>{m, k}) s.lhs.push_back(d);
    for (int32_t d : s.adj_y ? std::array<int32_t, 2>{n, k} : std::array<int32_t, 2>{k, n}) s.rhs.push_back(d);
    const test::OneOp model = matmul_model(s, rng);
    const std::vector<uint8_t> inputs = matmul_inputs(model, rng);
    const std::string what = fmt::format("{} x {} adj {} {} {}", shape_to_string(s.lhs), shape_to_string(s.rhs),
                                         s.adj_x, s.adj_y, data_type_name(s.type));
    for (KernelFamily family : kCmsisFamilies) {
      const int64_t os = check_overlap_facts(model, family, inputs, element_size(s), what);
      if (os < test::bytes_of_tensor(model, model.output)) ++below_whole;
    }
  }
  EXPECT_GE(below_whole, 20);
}

TEST(CmsisBatchMatMul, Int16RequantizesAsArmNnRequantizeS64) {
  // 1x1 times 1x1: 3000 * 3000 = 9e6 at scales 0.05 * 0.04 / 0.5 = 0.004:
  // 36000 saturates to 32767 in every family; 100 * -70 = -7000 -> -28.
  std::mt19937 rng(25);
  test::OneOp m = matmul_model({{1, 2}, {2, 1}, false, false, DataType::kInt16}, rng);
  const std::vector<uint8_t> saturating = bytes_of(std::vector<int16_t>{3000, 0, 3000, 0});
  const std::vector<uint8_t> small = bytes_of(std::vector<int16_t>{100, 0, -70, 5});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int16_t>(run_output(m, saturating, family)), std::vector<int16_t>{32767});
    EXPECT_EQ(values_from<int16_t>(run_output(m, small, family)), std::vector<int16_t>{-28});
  }
}

TEST(CmsisBatchMatMul, SharedFeedForwardModelFallsBackForFloat) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/litert_ff.tflite");
  for (KernelFamily family : kCmsisFamilies) {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    for (size_t op = 0; op < graph.main().ops.size(); ++op) {
      if (graph.main().ops[op].is(OpKind::kBatchMatMul)) {
        EXPECT_EQ(interpreter.prepared(static_cast<int32_t>(op)).implementation, "");
      }
    }
  }
}

}  // namespace
}  // namespace dmo
