// UNIDIRECTIONAL_SEQUENCE_LSTM: a float step and int8 / int16 steps worked
// out by hand (TFLite's sigmoid table, its rounding and saturation), the
// float path against the LSTM equations over batches and sequences, both
// layouts, the state carried across inferences, the safe overlap its
// per-step order gives (with the checking policy's verdict just at it and
// one element past it), the errors for what TFLM's kernel does not run, and
// the shared MNIST LSTM model.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

// Gates in TFLM's tensor order: weights 1-4 and 5-8, biases 12-15.
enum Gate { kI = 0, kF = 1, kC = 2, kO = 3 };

// One LSTM op; weights and biases as raw little-endian bytes.
struct LstmCase {
  DataType activation = DataType::kFloat32, weights = DataType::kFloat32, bias = DataType::kFloat32,
           cell = DataType::kFloat32;
  int32_t batch = 1, time = 1, input_size = 1, state = 1;
  UnidirectionalSequenceLstmParams params{Activation::kTanh, 0.0f, 0.0f, false, false, false};
  std::array<std::vector<uint8_t>, 4> input_weights, recurrent_weights, biases;
  Quantization input_q, weights_q, hidden_q, cell_q;
  bool variable_states = true;
};

struct LstmModel {
  test::OneOp op;
  int32_t hidden = -1, cell = -1;
};

LstmModel build(const LstmCase& c) {
  GraphBuilder b("lstm_kernel_test");
  LstmModel m;
  const Shape in_shape = c.params.time_major ? Shape{c.time, c.batch, c.input_size}
                                             : Shape{c.batch, c.time, c.input_size};
  const Shape out_shape = c.params.time_major ? Shape{c.time, c.batch, c.state} : Shape{c.batch, c.time, c.state};
  m.op.input = b.add_tensor("input", c.activation, in_shape, c.input_q);
  std::vector<int32_t> inputs(24, kNoTensor);
  inputs[0] = m.op.input;
  for (int g = 0; g < 4; ++g) {
    inputs[static_cast<size_t>(1 + g)] =
        b.add_constant("w_in_" + std::to_string(g), c.weights, {c.state, c.input_size}, c.input_weights[g], c.weights_q);
    inputs[static_cast<size_t>(5 + g)] =
        b.add_constant("w_rec_" + std::to_string(g), c.weights, {c.state, c.state}, c.recurrent_weights[g], c.weights_q);
    inputs[static_cast<size_t>(12 + g)] = b.add_constant("bias_" + std::to_string(g), c.bias, {c.state}, c.biases[g]);
  }
  m.hidden = b.add_tensor("hidden", c.activation, {c.batch, c.state}, c.hidden_q);
  m.cell = b.add_tensor("cell", c.cell, {c.batch, c.state}, c.cell_q);
  inputs[18] = m.hidden;
  inputs[19] = m.cell;
  m.op.output = b.add_tensor("output", c.activation, out_shape, c.hidden_q);
  b.add_op(OpKind::kUnidirectionalSequenceLstm, inputs, {m.op.output}, c.params);
  b.set_inputs({m.op.input});
  b.set_outputs({m.op.output});
  m.op.graph = b.finish();
  for (int32_t t : {m.hidden, m.cell}) m.op.graph.subgraphs[0].tensors[static_cast<size_t>(t)].is_variable = c.variable_states;
  return m;
}

// A float case with the given weights [gate][state x input] etc.
LstmCase float_case(int32_t batch, int32_t time, int32_t input_size, int32_t state,
                    const std::array<std::vector<float>, 4>& w_in, const std::array<std::vector<float>, 4>& w_rec,
                    const std::array<std::vector<float>, 4>& bias) {
  LstmCase c;
  c.batch = batch;
  c.time = time;
  c.input_size = input_size;
  c.state = state;
  for (size_t g = 0; g < 4; ++g) {
    c.input_weights[g] = bytes_of(w_in[g]);
    c.recurrent_weights[g] = bytes_of(w_rec[g]);
    c.biases[g] = bytes_of(bias[g]);
  }
  return c;
}

// Random float weights in [-1, 1).
LstmCase random_float_case(std::mt19937& rng, int32_t batch, int32_t time, int32_t input_size, int32_t state) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  auto draw = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = value(rng);
    return v;
  };
  std::array<std::vector<float>, 4> w_in, w_rec, bias;
  for (size_t g = 0; g < 4; ++g) {
    w_in[g] = draw(static_cast<size_t>(state * input_size));
    w_rec[g] = draw(static_cast<size_t>(state * state));
    bias[g] = draw(static_cast<size_t>(state));
  }
  return float_case(batch, time, input_size, state, w_in, w_rec, bias);
}

struct LstmRun {
  std::vector<uint8_t> output, hidden, cell;
};

// Runs unshared with the checking policy (which must find nothing) and the
// direct one (which must agree).
LstmRun run_lstm(const LstmModel& m, const std::vector<uint8_t>& input) {
  Interpreter checked(m.op.graph, unshared_placement(m.op.graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter direct(m.op.graph, unshared_placement(m.op.graph.main()));
  direct.set_inputs(input);
  direct.run();
  LstmRun r{direct.tensor_contents(m.op.output), direct.tensor_contents(m.hidden), direct.tensor_contents(m.cell)};
  EXPECT_EQ(checked.tensor_contents(m.op.output), r.output) << "checking policy differs";
  return r;
}

std::string run_error(const Graph& graph) {
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(graph, text)                                            \
  do {                                                                           \
    const std::string message = run_error(graph);                               \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

// ------------------------------------------------------------------ float

TEST(LstmFloat, OneStepByHand) {
  // x = 1, no state yet: input gate sigmoid(ln 3) = 0.75, cell gate
  // tanh(ln 2) = 0.6, output gate sigmoid(0) = 0.5 (the forget gate meets a
  // zero cell state). Cell 0.75 * 0.6 = 0.45, hidden 0.5 * tanh(0.45).
  const float ln3 = std::log(3.0f), ln2 = std::log(2.0f);
  LstmModel m = build(float_case(1, 1, 1, 1, {{{ln3}, {4.0f}, {ln2}, {0.0f}}}, {{{0.5f}, {0.5f}, {0.5f}, {0.5f}}},
                                 {{{0.0f}, {0.0f}, {0.0f}, {0.0f}}}));
  const LstmRun r = run_lstm(m, bytes_of(std::vector<float>{1.0f}));
  const double hidden = 0.5 * std::tanh(0.45);  // 0.2109495...
  EXPECT_NEAR(values_from<float>(r.cell)[0], 0.45, 1e-6);
  EXPECT_NEAR(values_from<float>(r.hidden)[0], hidden, 1e-6);
  EXPECT_EQ(r.output, r.hidden);
}

// The LSTM equations in double, batch-major [batch][time][...].
struct Reference {
  std::vector<double> output, hidden, cell;
};

Reference reference_lstm(const LstmCase& c, const std::vector<float>& input_batch_major) {
  auto weights = [](const std::vector<uint8_t>& bytes) { return values_from<float>(bytes); };
  const auto S = static_cast<size_t>(c.state), I = static_cast<size_t>(c.input_size);
  Reference r;
  r.hidden.assign(static_cast<size_t>(c.batch) * S, 0.0);
  r.cell.assign(static_cast<size_t>(c.batch) * S, 0.0);
  r.output.assign(static_cast<size_t>(c.batch * c.time) * S, 0.0);
  auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  for (size_t b = 0; b < static_cast<size_t>(c.batch); ++b) {
    for (size_t t = 0; t < static_cast<size_t>(c.time); ++t) {
      const float* x = &input_batch_major[(b * static_cast<size_t>(c.time) + t) * I];
      std::array<std::vector<double>, 4> gate;
      for (size_t g = 0; g < 4; ++g) {
        const auto w = weights(c.input_weights[g]), u = weights(c.recurrent_weights[g]), bias = weights(c.biases[g]);
        gate[g].resize(S);
        for (size_t s = 0; s < S; ++s) {
          double sum = bias[s];
          for (size_t d = 0; d < I; ++d) sum += double{w[s * I + d]} * x[d];
          for (size_t d = 0; d < S; ++d) sum += double{u[s * S + d]} * r.hidden[b * S + d];
          gate[g][s] = g == kC ? std::tanh(sum) : sigmoid(sum);
        }
      }
      for (size_t s = 0; s < S; ++s) {
        double& cell = r.cell[b * S + s];
        cell = gate[kF][s] * cell + gate[kI][s] * gate[kC][s];
        if (c.params.cell_clip > 0) cell = std::clamp(cell, -double{c.params.cell_clip}, double{c.params.cell_clip});
      }
      for (size_t s = 0; s < S; ++s) {
        r.hidden[b * S + s] = gate[kO][s] * std::tanh(r.cell[b * S + s]);
        r.output[(b * static_cast<size_t>(c.time) + t) * S + s] = r.hidden[b * S + s];
      }
    }
  }
  return r;
}

// [batch][time][...] <-> [time][batch][...]
std::vector<float> swap_leading(const std::vector<float>& v, size_t outer, size_t inner, size_t row) {
  std::vector<float> out(v.size());
  for (size_t a = 0; a < outer; ++a) {
    for (size_t b = 0; b < inner; ++b) {
      for (size_t k = 0; k < row; ++k) out[(b * outer + a) * row + k] = v[(a * inner + b) * row + k];
    }
  }
  return out;
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-5) << what << " element " << i;
}

TEST(LstmFloat, FollowsTheLstmEquationsInBothLayoutsWithAndWithoutClipping) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (bool time_major : {false, true}) {
    for (float clip : {0.0f, 0.3f}) {
      SCOPED_TRACE(fmt::format("time_major {} cell_clip {}", time_major, clip));
      LstmCase c = random_float_case(rng, 2, 3, 3, 2);
      c.params.time_major = time_major;
      c.params.cell_clip = clip;
      std::vector<float> x(2 * 3 * 3);
      for (float& v : x) v = value(rng);
      const Reference want = reference_lstm(c, x);
      const LstmRun got = run_lstm(build(c), bytes_of(time_major ? swap_leading(x, 2, 3, 3) : x));
      const std::vector<float> output = values_from<float>(got.output);
      expect_near_all(time_major ? swap_leading(output, 3, 2, 2) : output, want.output, "output");
      expect_near_all(values_from<float>(got.hidden), want.hidden, "hidden state");
      expect_near_all(values_from<float>(got.cell), want.cell, "cell state");
      if (clip > 0) {
        for (float cell : values_from<float>(got.cell)) EXPECT_LE(std::abs(cell), clip);
      }
    }
  }
}

TEST(LstmFloat, LayoutsAndBatchesGiveTheSameBits) {
  // Batch-major steps one batch through its sequence, time-major steps all
  // batches at once: each row sees the same arithmetic, so the bits agree,
  // and a batch alone gives its rows of the batched run.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  LstmCase c = random_float_case(rng, 2, 4, 3, 5);
  std::vector<float> x(2 * 4 * 3);
  for (float& v : x) v = value(rng);
  const std::vector<float> batch_major = values_from<float>(run_lstm(build(c), bytes_of(x)).output);
  c.params.time_major = true;
  const std::vector<float> time_major =
      values_from<float>(run_lstm(build(c), bytes_of(swap_leading(x, 2, 4, 3))).output);
  EXPECT_EQ(swap_leading(time_major, 4, 2, 5), batch_major);
  c.params.time_major = false;
  c.batch = 1;
  const std::vector<float> second(x.begin() + 12, x.end());
  const std::vector<float> alone = values_from<float>(run_lstm(build(c), bytes_of(second)).output);
  EXPECT_EQ(alone, std::vector<float>(batch_major.begin() + 20, batch_major.end()));
}

TEST(LstmFloat, StateCarriesOverToTheNextInference) {
  // TFLM keeps the variable tensors between invocations: two one-step runs
  // end where one two-step run does.
  std::mt19937 rng(3);
  LstmCase two_steps = random_float_case(rng, 1, 2, 2, 3);
  LstmCase one_step = two_steps;
  one_step.time = 1;
  const std::vector<float> x = {0.5f, -1.0f, 0.25f, 0.75f};
  const LstmRun whole = run_lstm(build(two_steps), bytes_of(x));
  const LstmModel m = build(one_step);
  Interpreter interpreter(m.op.graph, unshared_placement(m.op.graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<float>(x.begin(), x.begin() + 2)));
  interpreter.run();
  interpreter.set_inputs(bytes_of(std::vector<float>(x.begin() + 2, x.end())));
  interpreter.run();
  EXPECT_EQ(interpreter.tensor_contents(m.hidden), whole.hidden);
  EXPECT_EQ(interpreter.tensor_contents(m.cell), whole.cell);
  const std::vector<float> both = values_from<float>(whole.output);
  EXPECT_EQ(values_from<float>(interpreter.tensor_contents(m.op.output)),
            std::vector<float>(both.begin() + 3, both.end()));
}

// ---------------------------------------------------------------- integer

// One gate value per gate, from input x = 1.0 with zero recurrent weights:
// weights w (x 1/4 in Q3.12 when w = 1 for int16 input, w = 64 for int8)
// and bias b in Q3.12 units (4096 = 1.0).
template <typename Weight, typename Bias>
LstmCase integer_case(DataType activation, DataType bias_type, const std::array<Weight, 4>& w,
                      const std::array<Bias, 4>& bias) {
  LstmCase c;
  c.activation = activation;
  c.weights = DataType::kInt8;
  c.bias = bias_type;
  c.cell = DataType::kInt16;
  for (size_t g = 0; g < 4; ++g) {
    c.input_weights[g] = bytes_of(std::vector<Weight>{w[g]});
    c.recurrent_weights[g] = bytes_of(std::vector<Weight>{0});
    c.biases[g] = bytes_of(std::vector<Bias>{bias[g]});
  }
  c.cell_q = per_tensor(1.0f / 2048, 0);  // 2^-11
  return c;
}

// int8 input 1.0 = 16 at scale 2^-4 (zero point 3), weights at 2^-8: the
// gate FC multiplier is exactly 1 (2^-4 * 2^-8 / 2^-12).
LstmCase int8_case(const std::array<int8_t, 4>& w, const std::array<int32_t, 4>& bias, float hidden_scale) {
  LstmCase c = integer_case<int8_t, int32_t>(DataType::kInt8, DataType::kInt32, w, bias);
  c.input_q = per_tensor(1.0f / 16, 3);
  c.weights_q = per_tensor(1.0f / 256, 0);
  c.hidden_q = per_tensor(hidden_scale, 0);
  return c;
}

TEST(LstmInt8, OneStepByHand) {
  // Q3.12 gates: input 64 * 16 = 1024 (0.25), forget 0, cell -128 * 16 =
  // -2048 (-0.5), output bias -4096 (-1). TFLite's table (sigmoid(i/24) in
  // 0.16) at 3x / 2^9 (sigmoid) and 3x / 2^8 (tanh) gives, in Q0.15:
  //   sigmoid(0.25): 3072 -> entry 6 (36843): 36843 * 2^9 + 2^9 >> 10 = 18422
  //   tanh(-0.5): 6144 -> entry 24 (47911): -(47911 * 2^8) + 2^23 + 2^7 - 1 >> 8 = -15143
  //   sigmoid(-1): entry 24 mirrored: 2^25 - 47911 * 2^9 + 2^9 - 1 >> 10 = 8812
  // Cell (2^-11): 18422 * -15143 * 2^-30 / 2^-11 = -532.08 -> -532.
  // tanh(cell): -532 * 6 = -3192, |3192| -> entries 12, 13 (40794, 41432)
  //   at 120/256: -(40794 * 2^8 + 120 * 638) + 2^23 + 2^7 - 1 >> 8 = -8325.
  // Hidden (2^-7): -8325 * 8812 * 2^-30 / 2^-7 = -8.745 -> -9.
  const LstmRun r = run_lstm(build(int8_case({64, 0, -128, 0}, {0, 0, 0, -4096}, 1.0f / 128)),
                    bytes_of(std::vector<int8_t>{19}));  // 16 + zero point 3
  EXPECT_EQ(values_from<int16_t>(r.cell), std::vector<int16_t>{-532});
  EXPECT_EQ(values_from<int8_t>(r.hidden), std::vector<int8_t>{-9});
  EXPECT_EQ(r.output, r.hidden);
  // Cell gate weight 127: 2032 (0.496) -> 6096 -> entries 23, 24 (47369,
  // 47911) at 208/256: 47369 * 2^8 + 208 * 542 - 2^23 + 2^7 >> 8 = 15041;
  // cell 18422 * 15041 -> 528.5 -> 528; tanh: 3168 -> entries 12, 13 at
  // 96/256: 8265; hidden 8265 * 8812 -> 8.68 -> 9.
  const LstmRun p = run_lstm(build(int8_case({64, 0, 127, 0}, {0, 0, 0, -4096}, 1.0f / 128)),
                    bytes_of(std::vector<int8_t>{19}));
  EXPECT_EQ(values_from<int16_t>(p.cell), std::vector<int16_t>{528});
  EXPECT_EQ(values_from<int8_t>(p.hidden), std::vector<int8_t>{9});
}

TEST(LstmInt8, SaturatesGatesAndHiddenStateAndClipsTheCell) {
  // Cell gate bias +-100000 saturates the FC at the int16 limits; tanh gives
  // +32767 and -32767 (the rounding of TFLite's negative branch); the output
  // gate's 32767 (7.99) reads table entry 191: sigmoid 32757. Input and
  // forget gates 0: 16384. Cell: 16384 * 32767 * 2^-19 = 1023.97 -> +-1024
  // (0.5), tanh(0.5) = 15143; hidden at scale 2^-12: 15143 * 32757 * 2^-18
  // = 1892 -> saturated to 127 and -128.
  for (int32_t sign : {1, -1}) {
    SCOPED_TRACE(sign);
    LstmCase c = int8_case({0, 0, 0, 0}, {0, 0, sign * 100000, 100000}, 1.0f / 4096);
    LstmRun r = run_lstm(build(c), bytes_of(std::vector<int8_t>{19}));
    EXPECT_EQ(values_from<int16_t>(r.cell), std::vector<int16_t>{static_cast<int16_t>(sign * 1024)});
    EXPECT_EQ(values_from<int8_t>(r.hidden), std::vector<int8_t>{static_cast<int8_t>(sign > 0 ? 127 : -128)});
    // cell_clip 0.25 is 512 cell units: the cell is clipped to +-512.
    c.params.cell_clip = 0.25f;
    r = run_lstm(build(c), bytes_of(std::vector<int8_t>{19}));
    EXPECT_EQ(values_from<int16_t>(r.cell), std::vector<int16_t>{static_cast<int16_t>(sign * 512)});
  }
}

TEST(LstmInt16, OneStepByHand) {
  // int16 input 1.0 = 1024 at 2^-10, weights at 2^-2, int64 bias: the same
  // gates as the int8 case (weight 1: 0.25, 2: 0.5; bias -4096), so cell 532;
  // hidden at 2^-15: 8325 * 8812 * 2^-30 / 2^-15 = 2238.8 -> 2239.
  LstmCase c = integer_case<int8_t, int64_t>(DataType::kInt16, DataType::kInt64, {1, 0, 2, 0}, {0, 0, 0, -4096});
  c.input_q = per_tensor(1.0f / 1024, 0);
  c.weights_q = per_tensor(0.25f, 0);
  c.hidden_q = per_tensor(1.0f / 32768, 0);
  const LstmRun r = run_lstm(build(c), bytes_of(std::vector<int16_t>{1024}));
  EXPECT_EQ(values_from<int16_t>(r.cell), std::vector<int16_t>{532});
  EXPECT_EQ(values_from<int16_t>(r.hidden), std::vector<int16_t>{2239});
  EXPECT_EQ(r.output, r.hidden);
}

// ----------------------------------------------------------- safe overlap

// Step k's output rows are stored after its input rows are read and before
// step k+1's are: with r rows per step (batch when time-major, else 1),
// O_s = min(|output|, r*S*e + (steps - 1) * r*I*e).
int64_t expected_safe_overlap(const LstmCase& c, int64_t element) {
  const int64_t rows = c.params.time_major ? c.batch : 1;
  const int64_t steps = int64_t{c.batch} * c.time / rows;
  const int64_t output = int64_t{c.batch} * c.time * c.state * element;
  return std::min(output, rows * c.state * element + (steps - 1) * rows * c.input_size * element);
}

std::vector<uint8_t> some_input(const LstmModel& m, std::mt19937& rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(test::bytes_of_tensor(m.op, m.op.input)));
  // Small floats (exponent bytes kept sane) or any int8.
  const bool is_float = m.op.graph.main().tensors[static_cast<size_t>(m.op.input)].type == DataType::kFloat32;
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (size_t i = 0; i < bytes.size(); i += is_float ? 4 : 1) {
    if (is_float) {
      const float v = value(rng);
      std::memcpy(&bytes[i], &v, 4);
    } else {
      bytes[i] = static_cast<uint8_t>(rng());
    }
  }
  return bytes;
}

TEST(LstmSafeOverlap, OutputRowsFollowTheirStepsInputRows) {
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int32_t> small(1, 4);
  int below_whole_output = 0;
  for (int n = 0; n < 40; ++n) {
    const bool int8 = n % 2 == 1;
    LstmCase c = random_float_case(rng, small(rng), small(rng), small(rng), small(rng));
    c.params.time_major = rng() % 2 == 0;
    if (int8) {
      c.activation = DataType::kInt8;
      c.weights = DataType::kInt8;
      c.bias = DataType::kInt32;
      c.cell = DataType::kInt16;
      for (size_t g = 0; g < 4; ++g) {
        c.input_weights[g].assign(static_cast<size_t>(c.state * c.input_size), static_cast<uint8_t>(rng()));
        c.recurrent_weights[g].assign(static_cast<size_t>(c.state * c.state), static_cast<uint8_t>(rng()));
        c.biases[g] = bytes_of(std::vector<int32_t>(static_cast<size_t>(c.state), static_cast<int32_t>(rng() % 4096)));
      }
      c.input_q = per_tensor(1.0f / 16, 1);
      c.weights_q = per_tensor(1.0f / 256, 0);
      c.hidden_q = per_tensor(1.0f / 128, -2);
      c.cell_q = per_tensor(1.0f / 2048, 0);
    }
    const int64_t element = int8 ? 1 : 4;
    SCOPED_TRACE(fmt::format("{} batch {} time {} input {} state {} time_major {}", int8 ? "int8" : "float", c.batch,
                             c.time, c.input_size, c.state, c.params.time_major));
    const LstmModel m = build(c);
    const int64_t os = test::addresses(m.op).safe_overlap();
    EXPECT_EQ(os, expected_safe_overlap(c, element));
    const std::vector<uint8_t> input = some_input(m, rng);
    EXPECT_FALSE(test::clobbers_at_overlap(m.op, os, input));
    if (os < test::bytes_of_tensor(m.op, m.op.output)) {
      EXPECT_TRUE(test::clobbers_at_overlap(m.op, os + element, input));
      ++below_whole_output;
    }
  }
  EXPECT_GE(below_whole_output, 10);  // state wider than input, several steps
}

TEST(LstmSafeOverlap, SharedMnistLstmMayLayItsWholeOutputOnItsInput) {
  // 28 steps of 28 int8 inputs give 28 steps of 20 outputs: every output row
  // lies below the input rows still to be read.
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/tflm_mnist_lstm_int8.tflite");
  EXPECT_EQ(algorithmic_safe_overlap(graph, 0, 0, 23), 560);
}

// ------------------------------------------------------------- bad input

LstmCase small_float_case() {
  std::mt19937 rng(5);
  return random_float_case(rng, 1, 2, 3, 2);
}

TEST(LstmErrors, NameTheOpAndTheProblem) {
  const std::string op = "op 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): ";
  {
    LstmModel m = build(small_float_case());
    m.op.graph.subgraphs[0].ops[0].inputs.pop_back();
    EXPECT_RUN_ERROR(m.op.graph, op + "expected 24 inputs, got 23");
  }
  {
    LstmModel m = build(small_float_case());
    m.op.graph.subgraphs[0].ops[0].inputs[2] = kNoTensor;
    EXPECT_RUN_ERROR(m.op.graph, op + "input 2 (input_to_forget_weights) is missing");
  }
  {
    LstmModel m = build(small_float_case());
    m.op.graph.subgraphs[0].ops[0].inputs[9] = m.op.graph.subgraphs[0].ops[0].inputs[1];
    EXPECT_RUN_ERROR(m.op.graph, op + "input 9 (cell_to_input_weights) is given, but TFLM's kernel runs no peephole");
  }
  {
    LstmCase c = small_float_case();
    c.variable_states = false;
    EXPECT_RUN_ERROR(build(c).op.graph, op + "input 18 (hidden state) must be a variable tensor");
  }
  {
    LstmCase c = small_float_case();
    c.params.activation = Activation::kRelu;
    EXPECT_RUN_ERROR(build(c).op.graph, op + "cell gate activation 1 is not supported; supported: TANH");
  }
  {
    LstmCase c = small_float_case();
    c.params.cell_clip = -1.0f;
    EXPECT_RUN_ERROR(build(c).op.graph, op + "cell_clip -1 must not be negative");
  }
  {
    LstmCase c = small_float_case();
    c.cell = DataType::kInt16;
    EXPECT_RUN_ERROR(build(c).op.graph, op + "FLOAT32 LSTM: input 19 (cell state) has type INT16, expected FLOAT32");
  }
  {
    LstmCase c = small_float_case();
    c.weights = DataType::kInt8;
    for (auto* set : {&c.input_weights, &c.recurrent_weights}) {
      for (auto& w : *set) w.resize(w.size() / 4);
    }
    EXPECT_RUN_ERROR(build(c).op.graph, op + "FLOAT32 LSTM: input 1 (input_to_input_weights) has type INT8");
  }
  {
    LstmModel m = build(small_float_case());
    auto& w = m.op.graph.subgraphs[0].tensors[static_cast<size_t>(m.op.graph.subgraphs[0].ops[0].inputs[7])];
    w.shape = {2, 3};  // a recurrent matrix shaped like an input one
    EXPECT_RUN_ERROR(m.op.graph, op + "input 7 (recurrent_to_cell_weights) is 2x3, expected 2x2");
  }
  {
    LstmModel m = build(small_float_case());
    auto& out = m.op.graph.subgraphs[0].tensors[static_cast<size_t>(m.op.output)];
    out.shape = {1, 2, 3};
    EXPECT_RUN_ERROR(m.op.graph, op + "output 1x2x3 does not match input 1x2x3 with state size 2");
  }
  {
    LstmCase c = int8_case({1, 1, 1, 1}, {0, 0, 0, 0}, 1.0f / 128);
    c.weights_q = Quantization{{0.5f, 0.25f}, {0, 0}, 0};
    EXPECT_RUN_ERROR(build(c).op.graph, op + "input 1 (input_to_input_weights) must be quantized per tensor");
  }
  {
    LstmCase c = int8_case({1, 1, 1, 1}, {0, 0, 0, 0}, 1.0f / 128);
    c.cell_q = per_tensor(16.0f, 0);
    EXPECT_RUN_ERROR(build(c).op.graph, op + "cell state scale 16 (2^4) is outside what TFLM's int16 tanh takes");
  }
  {
    LstmCase c = int8_case({1, 1, 1, 1}, {0, 0, 0, 0}, 1.0f / 128);
    c.activation = DataType::kUInt8;
    EXPECT_RUN_ERROR(build(c).op.graph, op + "input type UINT8 is not supported; supported: FLOAT32, INT8, INT16");
  }
}

TEST(LstmErrors, TheCliRefusesABadLstmInOneLine) {
  LstmCase c = small_float_case();
  c.variable_states = false;
  const std::vector<uint8_t> bytes = write_tflite(build(c).op.graph);
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("dmo_lstm_" + std::to_string(::getpid()) + "_not_variable.tflite"))
                               .string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"run", file});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err, "dmo: error: " + file +
                       ": op 0 (UNIDIRECTIONAL_SEQUENCE_LSTM): input 18 (hidden state) must be a variable tensor\n");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo
