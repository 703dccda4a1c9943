// Files the command line reads and writes: raw input and output bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo::cli {

// The raw bytes of `path`, or the seed's pattern input when `path` is empty;
// either way checked against the model's input size.
std::vector<uint8_t> load_input(const Graph& graph, const std::string& path, uint32_t seed);

// Creates the directory `path` (and its parents) for the option `option`;
// refuses a path that is a file. Called before any slow work.
void prepare_output_directory(const std::string& path, const std::string& option);

void write_file(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text_file(const std::string& path, const std::string& text);

}  // namespace dmo::cli
