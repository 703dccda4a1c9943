// Writes small TFLite flatbuffers for tests, including deliberately broken
// ones (bad indices, absurd shapes), without needing any model file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dmo::test {

struct TestTensor {
  std::string name;
  int8_t type = 0;  // FLOAT32
  std::vector<int32_t> shape;
  std::vector<uint8_t> data;  // non-empty = constant
  bool is_variable = false;
  int64_t buffer = -1;  // -1: a buffer of its own
};

struct TestOp {
  int32_t builtin_code = 0;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  int64_t opcode_index = -1;  // -1: the code's own entry
  int32_t stride = 1;         // CONV_2D / DEPTHWISE / pools: strides and filter
  int32_t filter = 1;
  int64_t repeats = 1;  // the op listed this many times in a row (one table, so a huge op count stays small)
};

struct TestModel {
  std::vector<TestTensor> tensors;
  std::vector<TestOp> ops;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  int subgraph_count = 1;  // extra subgraphs repeat the first
  std::vector<std::pair<std::string, std::vector<uint8_t>>> metadata;
};

std::vector<uint8_t> write_test_model(const TestModel& model);

// input [1,8,8,4] float -> CONV_2D 1x1 (4->8) -> RELU -> output: a valid model.
TestModel small_conv_model();

}  // namespace dmo::test
