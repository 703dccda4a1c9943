// What the codegen tests share: running a shell command, a scratch
// directory per test, and the fields a generated program prints.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test_support.h"

namespace dmo::codegen_test {

namespace fs = std::filesystem;

struct Shell {
  int status = -1;
  std::string out;  // stdout and stderr
};

inline Shell shell(const std::string& command) {
  Shell result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return result;
}

inline bool have(const std::string& program) { return shell("command -v " + program + " >/dev/null").status == 0; }

// A fresh directory for one test's projects, removed afterwards.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    path_ = fs::temp_directory_path() /
            ("dmo_codegen_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDirectory() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

inline std::string field(const std::string& text, const std::string& name) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(name + "=([0-9a-f]+)"))) return m[1];
  return "";
}

// `dmo run MODEL --seed 1`'s outputs hash.
inline std::string interpreter_hash(const std::string& model) {
  const test::CommandResult run = test::run_dmo({"run", model, "--seed", "1"});
  EXPECT_EQ(run.exit_status, 0) << run.err;
  return field(run.out, "outputs_fnv1a64");
}

// The arena of the plan codegen wrote ("..., N-byte arena").
inline int64_t codegen_arena(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(([0-9]+)-byte arena)"))) return -1;
  return std::stoll(m[1]);
}

}  // namespace dmo::codegen_test
