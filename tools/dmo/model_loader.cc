#include "model_loader.h"

#include <fmt/format.h>

#include <filesystem>

#include "dmo/error.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"

namespace dmo {

Graph load_model(const std::string& model) {
  std::error_code ec;
  if (std::filesystem::exists(model, ec)) {
    if (std::filesystem::is_directory(model, ec)) throw Error(fmt::format("{}: is a directory, not a model", model));
    return read_tflite_file(model);
  }
  if (is_zoo_model_name(model)) return build_zoo_model(model);
  throw Error(fmt::format("{}: no such file, and not a zoo model name (for example {})", model, kDefaultZooModel));
}

}  // namespace dmo
