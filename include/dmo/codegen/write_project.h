// dmo codegen: writes a self-contained project running one inference of a
// planned model (codegen/model_source.h) for a target
// (codegen/codegen_target.h) into a directory, whole or not at all: the
// files go to a temporary sibling directory renamed at the end.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/codegen/codegen_target.h"
#include "dmo/model/graph.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

struct CodegenOptions {
  CodegenTarget target = CodegenTarget::kCortexM4;
  uint32_t seed = 1;  // the input pattern's
};

// Throws dmo::Error when `directory` exists and is not empty, when an op
// has no device kernel, or when a file cannot be written; nothing is left
// behind then.
void write_codegen_project(const Graph& graph, const Interpreter& interpreter, const std::string& directory,
                           const CodegenOptions& options);

// The same refusal of `directory` alone, before any slow step.
void require_empty_directory(const std::string& directory);

}  // namespace dmo
