// The limits of include/dmo/model/limits.h, as the README lists them: a file
// just over each is refused with exit status 2 and one line naming the limit,
// before anything of that size is allocated. The command line runs
// in-process (command_line.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "dmo/model/limits.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_limits_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

struct Result {
  int exit_status = 0;
  std::string err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::streambuf* const out_buf = std::cout.rdbuf(out.rdbuf());
  std::streambuf* const err_buf = std::cerr.rdbuf(err.rdbuf());
  const int status = cli::run_command_line(args);
  std::cout.rdbuf(out_buf);
  std::cerr.rdbuf(err_buf);
  return {status, err.str()};
}

void expect_refused(const Result& r, const std::string& problem) {
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
}

// input [elements] int8 -> RELU -> output [elements] int8.
test::TestModel relu_model(int32_t rows, int32_t columns) {
  test::TestModel m;
  m.tensors = {{"input", 9, {rows, columns}, {}}, {"output", 9, {rows, columns}, {}}};
  m.ops = {{19, {0}, {1}}};  // RELU
  m.inputs = {0};
  m.outputs = {1};
  return m;
}

TEST(Limits, ModelFileJustOverTheLimitIsRefusedBeforeReading) {
  const std::string file = temp_path("huge.tflite");
  std::ofstream(file).close();
  std::filesystem::resize_file(file, static_cast<uintmax_t>(kMaxModelFileBytes) + 1);  // sparse: no disk used
  expect_refused(run({"info", file}), "file is 2147483648 bytes, above the 2147483647-byte limit");
  expect_refused(run({"export", file, "-o", temp_path("out.tflite")}),
                 "file is 2147483648 bytes, above the 2147483647-byte limit");
  std::filesystem::remove(file);
}

TEST(Limits, TensorJustOverTheLimitIsRefused) {
  const std::string file = temp_path("tensor.tflite");
  test::TestModel at_limit = relu_model(1, 0x7fffffff);  // kMaxTensorBytes int8 elements
  write_file(file, test::write_test_model(at_limit));
  EXPECT_EQ(run({"info", file}).exit_status, 0);
  test::TestModel over = relu_model(2, 1 << 30);  // kMaxTensorBytes + 1
  write_file(file, test::write_test_model(over));
  expect_refused(run({"info", file}), "whose size overflows the 2147483647 byte limit of a tensor");
  std::filesystem::remove(file);
}

TEST(Limits, ArenaJustOverTheLimitIsRefusedBeforePlanning) {
  const std::string file = temp_path("arena.tflite");
  // Input and output live together at the RELU: 2 x 2^30 bytes, kMaxArenaBytes + 1.
  write_file(file, test::write_test_model(relu_model(1, 1 << 30)));
  expect_refused(run({"plan", file, "--split", "none"}),
                 "2147483648 bytes are live at one op, above the 2147483647-byte arena limit");
  // 16 bytes less each: at the limit's last 16-byte boundary, planned.
  write_file(file, test::write_test_model(relu_model(1, (1 << 30) - 16)));
  EXPECT_EQ(run({"plan", file, "--split", "none", "--overlap", "none"}).exit_status, 0);
  std::filesystem::remove(file);
}

TEST(Limits, OpCountJustOverTheLimitIsRefused) {
  const std::string file = temp_path("ops.tflite");
  test::TestModel m;
  m.tensors = {{"input", 0, {1, 4}, {}}, {"output", 0, {1, 4}, {}}};
  m.ops = {{19, {0}, {1}}};
  m.ops[0].repeats = kMaxOps + 1;  // one Operator table, listed kMaxOps + 1 times
  m.inputs = {0};
  m.outputs = {1};
  write_file(file, test::write_test_model(m));
  expect_refused(run({"info", file}), "the model has 1000001 ops, above the 1000000-op limit");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo
