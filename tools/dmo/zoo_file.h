// A zoo model as the bytes of a standard .tflite file: what `dmo zoo`
// writes, and what `dmo export` plans when given a zoo name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/zoo.h"

namespace dmo::cli {

inline std::string zoo_description(const std::string& name) { return "dmo zoo " + name; }

inline std::vector<uint8_t> zoo_model_file(const std::string& name) {
  Graph graph = build_zoo_model(name);
  graph.description = zoo_description(name);
  return write_tflite(graph);
}

}  // namespace dmo::cli
