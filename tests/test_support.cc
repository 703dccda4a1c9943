#include "test_support.h"
#include "test_build.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <regex>
#include <sstream>

#include "dmo/error.h"
#include "dmo/runtime/fnv1a64.h"

namespace dmo::test {

std::optional<std::string> shared_dir() {
  const char* env = std::getenv("DMO_SHARED_DIR");
  std::string dir = env ? env : DMO_SHARED_DIR;
  if (std::filesystem::is_directory(dir + "/models")) return dir;
  return std::nullopt;
}

std::vector<std::string> tflite_files_in(const std::string& directory) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() == ".tflite") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<MissingKernel> missing_kernel(const std::string& error_message) {
  static const std::regex builtin(R"(op (\d+) \((.+)\): dmo has no kernel for this op \(builtin code \d+\))");
  static const std::regex custom(R"(op (\d+) \((.+)\): dmo has no kernel for custom op '(.+)')");
  static const std::regex accelerator(
      R"(op (\d+) \((.+)\): custom op '(.+)' runs on an accelerator; dmo cannot execute it)");
  std::smatch match;
  if (std::regex_match(error_message, match, builtin)) return MissingKernel{std::stoi(match[1].str()), match[2].str()};
  for (const std::regex* refusal : {&custom, &accelerator}) {
    // The custom op's refusal names its code twice: both must agree.
    if (std::regex_match(error_message, match, *refusal) && match[2].str() == match[3].str()) {
      return MissingKernel{std::stoi(match[1].str()), match[2].str()};
    }
  }
  return std::nullopt;
}

std::string describe_skip(const std::string& model, const MissingKernel& missing) {
  return model + ": dmo has no kernel for op " + std::to_string(missing.op) + " (" + missing.kind + ")";
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string GoldenCase::stem(const std::string& shared) const {
  return shared + "/golden/" + model + ".s" + std::to_string(seed);
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.model << " seed " << c.seed; }

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  auto dir = shared_dir();
  if (!dir) return cases;
  std::ifstream index(*dir + "/golden/INDEX.tsv");
  std::string line;
  std::getline(index, line);  // header
  while (std::getline(index, line)) {
    std::stringstream fields(line);
    std::string model, seed, status;
    std::getline(fields, model, '\t');
    std::getline(fields, seed, '\t');
    std::getline(fields, status, '\t');
    if (status != "ok") continue;
    GoldenCase c;
    c.model = model;
    c.seed = std::stoi(seed);
    c.has_bin = std::filesystem::is_regular_file(c.stem(*dir) + ".bin");
    cases.push_back(c);
  }
  return cases;
}

std::vector<GoldenTensor> read_golden_tensors(const std::string& tsv_path) {
  std::vector<GoldenTensor> rows;
  std::ifstream in(tsv_path);
  std::string line;
  std::getline(in, line);  // header
  int64_t offset = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (f.size() < 7) continue;
    const int64_t bytes = std::stoll(f[4]);
    rows.push_back({std::stoi(f[0]), f[1], bytes, f[5], std::stoi(f[6]), offset});
    offset += bytes;
  }
  return rows;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string fnv1a64_hex(std::span<const uint8_t> bytes) {
  char text[17];
  dmo::fnv1a64_hex(fnv1a64_update(kFnv1a64Offset, bytes.data(), bytes.size()), text);
  return text;
}

std::string file_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

namespace {
std::string quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'') q.append("'\\''");
    else q.push_back(c);
  }
  q.push_back('\'');
  return q;
}
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CommandResult run_dmo(const std::vector<std::string>& args) {
  auto tmp = std::filesystem::temp_directory_path();
  static int counter = 0;
  std::string stem = (tmp / ("dmo_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++))).string();
  std::string command = quote(dmo_binary());
  for (const auto& a : args) {
    command.push_back(' ');
    command += quote(a);
  }
  command += " >" + quote(stem + ".out") + " 2>" + quote(stem + ".err") + " </dev/null";
  int status = std::system(command.c_str());
  CommandResult result;
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(stem + ".out");
  result.err = slurp(stem + ".err");
  std::filesystem::remove(stem + ".out");
  std::filesystem::remove(stem + ".err");
  return result;
}

}  // namespace dmo::test
