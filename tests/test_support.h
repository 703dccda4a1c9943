// Helpers shared by the tests: where the shared models are, running the CLI.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/tensor.h"

namespace dmo::test {

// ../shared beside the checkout (or $DMO_SHARED_DIR); nullopt when absent.
std::optional<std::string> shared_dir();

// Skips the calling test with a message when ../shared is absent.
#define DMO_REQUIRE_SHARED(dir)                                               \
  auto dir##_opt = ::dmo::test::shared_dir();                               \
  if (!dir##_opt) GTEST_SKIP() << "../shared not found: skipping model test"; \
  const std::string dir = *dir##_opt

std::vector<std::string> tflite_files_in(const std::string& directory);

// The op named by one of the runtime's refusals "op N (KIND): dmo has no
// kernel for this op (builtin code C)", "op N (KIND): dmo has no kernel for
// custom op 'KIND'" or "op N (KIND): custom op 'KIND' runs on an
// accelerator; dmo cannot execute it": the one failure a sweep over real
// models may skip, since the model is fine and only dmo lacks the kernel.
struct MissingKernel {
  int32_t op = 0;
  std::string kind;
};

// nullopt for any other message, so every other error still fails the test.
std::optional<MissingKernel> missing_kernel(const std::string& error_message);

// "<model>: dmo has no kernel for op N (KIND)", the line a skip prints.
std::string describe_skip(const std::string& model, const MissingKernel& missing);

std::string file_stem(const std::string& path);

std::vector<uint8_t> read_file(const std::string& path);

// A row of ../shared/golden/INDEX.tsv that TFLM ran ("ok"): a model and the
// seed of its pattern input.
struct GoldenCase {
  std::string model;
  int seed = 0;
  bool has_bin = false;  // the .bin file with the recorded bytes is kept
  // Prefix of its files under `shared`: <shared>/golden/<model>.s<seed>
  // (then .in, .tsv and, when kept, .bin).
  std::string stem(const std::string& shared) const;
};

// How GoogleTest prints a case: "<model> seed <seed>".
void PrintTo(const GoldenCase& c, std::ostream* os);

// Every "ok" row of the golden index; empty when ../shared is absent.
std::vector<GoldenCase> golden_cases();

// A tensor TFLM recorded for a golden case (a row of its .tsv, in order),
// with where its bytes sit in the .bin file when that is kept.
struct GoldenTensor {
  int32_t tensor = 0;
  std::string name;
  int64_t bytes = 0;
  std::string fnv;       // fnv1a64_hex of the bytes
  int32_t first_op = 0;  // the op that writes it, -1 for graph inputs
  int64_t offset = 0;    // in the .bin file
};

std::vector<GoldenTensor> read_golden_tensors(const std::string& tsv_path);

// The message of the dmo::Error that f throws; "" when it throws none.
std::string error_of(const std::function<void()>& f);

// FNV-1a 64 of the bytes as 16 lowercase hex digits (the golden files' checksum).
std::string fnv1a64_hex(std::span<const uint8_t> bytes);

// n integers drawn uniformly from [lo, hi] by `rng`, each converted to T.
template <typename T>
std::vector<T> random_values(std::mt19937& rng, int64_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Per-tensor affine quantization with one scale and zero point.
inline Quantization per_tensor(float scale, int64_t zero_point) { return Quantization{{scale}, {zero_point}, 0}; }

// Values as little-endian bytes, and back.
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> values_from(std::span<const uint8_t> bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

struct CommandResult {
  int exit_status = -1;
  std::string out;
  std::string err;
};

// Runs the dmo binary with the given arguments (shell-quoted here).
CommandResult run_dmo(const std::vector<std::string>& args);

}  // namespace dmo::test
