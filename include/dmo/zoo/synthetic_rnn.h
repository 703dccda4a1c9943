// A recurrent network unrolled into a long flat graph, built in code to
// measure planning on graphs of thousands of ops: each time step runs 2 or 3
// stacked LSTM-like cells on float32 vectors of 64..256 elements
// (FULLY_CONNECTED gates on the layer's input and hidden state, ADD,
// LOGISTIC, TANH, MUL), and the next step's input is projected from a top
// hidden state up to 5 steps back, so tensors fan out and live across steps.
// Weights are shared by every step, as an unrolled cell's are.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/model/graph.h"

namespace dmo {

struct SyntheticRnnConfig {
  int32_t op_count = 2338;  // exactly this many ops, in [1, kMaxSyntheticRnnOps]
  uint32_t seed = 1;        // picks the layers, their widths and how far back each input reaches
};

inline constexpr int32_t kMaxSyntheticRnnOps = 1000000;

// The zoo name of a configuration: "synthetic_rnn_2338" (seed 1) or
// "synthetic_rnn_2338_seed7".
std::string synthetic_rnn_name(const SyntheticRnnConfig& config);

// One subgraph "main"; the same config always gives the same graph. Throws
// dmo::Error on an op count out of range.
Graph build_synthetic_rnn(const SyntheticRnnConfig& config);

}  // namespace dmo
