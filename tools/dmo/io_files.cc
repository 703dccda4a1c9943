#include "io_files.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "dmo/error.h"
#include "dmo/runtime/input_pattern.h"

namespace dmo::cli {

std::vector<uint8_t> load_input(const Graph& graph, const std::string& path, uint32_t seed) {
  std::vector<uint8_t> bytes;
  if (path.empty()) {
    bytes = pattern_input(graph.main(), seed);
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not an input file", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot open input file", path));
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int64_t want = 0;
  for (int32_t t : graph.main().inputs) want += graph.main().tensors[static_cast<size_t>(t)].byte_size;
  if (static_cast<int64_t>(bytes.size()) != want) {
    throw Error(fmt::format("{}: {} bytes, but the inputs of {} take {}", path.empty() ? "pattern" : path, bytes.size(),
                            graph.source, want));
  }
  return bytes;
}

void prepare_output_directory(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
    throw Error(fmt::format("{}: is a file, but {} wants a directory", path, option));
  }
  fs::create_directories(path, ec);
  if (ec || !fs::is_directory(path, ec)) {
    throw Error(fmt::format("{}: cannot create the directory for {}{}", path, option, ec ? ": " + ec.message() : ""));
  }
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not a file", path));
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("{}: cannot create the file (its directory must exist and be writable)", path));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(fmt::format("{}: write failed", path));
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace dmo::cli
