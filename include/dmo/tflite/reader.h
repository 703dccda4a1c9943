// Reads a .tflite file into a Graph. The flatbuffers verifier runs before
// anything is read; every index, shape and size is then checked so a broken
// or hostile file gives a dmo::Error naming the problem, never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "dmo/model/graph.h"
#include "dmo/model/limits.h"

namespace dmo {


Graph read_tflite_file(const std::string& path);

// `source` names the bytes in error messages.
Graph read_tflite_bytes(std::span<const uint8_t> bytes, const std::string& source);

}  // namespace dmo
