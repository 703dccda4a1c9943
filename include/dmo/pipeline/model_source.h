// A MODEL argument: a .tflite path or the name of a built-in zoo model,
// resolved in one place for every command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// The model as a Graph (a zoo model is built in code).
Graph load_model(const std::string& model);

// The model as the bytes of a .tflite file (a zoo model is written as one
// first), for commands that rewrite the file losslessly.
struct ModelFile {
  std::string source;  // path or zoo name, for messages
  std::string stem;    // file name without directory and extension
  std::vector<uint8_t> bytes;
};
ModelFile read_model_file(const std::string& model);

// A zoo model as the bytes of a standard .tflite file, its description
// saying where it came from.
std::vector<uint8_t> zoo_model_file(const std::string& name);

}  // namespace dmo
