#include "dmo/pipeline/model_source.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "dmo/error.h"
#include "dmo/model/limits.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail_unknown(const std::string& model) {
  throw Error(fmt::format("{}: no such file, and not a zoo model name (for example {})", model, kDefaultZooModel));
}

// True for an existing path; a directory is refused.
bool is_model_path(const std::string& model) {
  std::error_code ec;
  if (!fs::exists(model, ec)) return false;
  if (fs::is_directory(model, ec)) throw Error(fmt::format("{}: is a directory, not a model", model));
  return true;
}

}  // namespace

Graph load_model(const std::string& model) {
  if (is_model_path(model)) return read_tflite_file(model);
  if (is_zoo_model_name(model)) return build_zoo_model(model);
  fail_unknown(model);
}

std::vector<uint8_t> zoo_model_file(const std::string& name) {
  Graph graph = build_zoo_model(name);
  graph.description = "dmo zoo " + name;
  return write_tflite(graph);
}

ModelFile read_model_file(const std::string& model) {
  if (is_model_path(model)) {
    std::ifstream in(model, std::ios::binary | std::ios::ate);
    if (!in) throw Error(fmt::format("{}: cannot open file", model));
    std::streamoff size = in.tellg();
    if (size < 0) throw Error(fmt::format("{}: cannot read file", model));
    if (size > kMaxModelFileBytes) {
      throw Error(fmt::format("{}: file is {} bytes, above the {}-byte limit (larger than a TFLite flatbuffer can be)",
                              model, size, kMaxModelFileBytes));
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw Error(fmt::format("{}: cannot read file", model));
    return {model, fs::path(model).stem().string(), std::move(bytes)};
  }
  if (is_zoo_model_name(model)) return {model, model, zoo_model_file(model)};
  fail_unknown(model);
}

}  // namespace dmo
