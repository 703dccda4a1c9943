// The model part of a generated project: model.h (what main.cc sees: the
// inputs, the outputs, the arena size, dmo_run) and model.cc (the weights as
// constant arrays, each op's prepared state as constant initialisers, the
// arena (the global `dmo_arena`, so its size shows in the image's symbols), and one call per schedule step into the shared loop nests with
// its operands at their planned offsets, its walk and its region).
#pragma once

#include <cstdint>
#include <string>

#include "dmo/model/graph.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

std::string model_header();

// The interpreter holds the plan (its placement and schedule). Throws
// dmo::Error naming the first op with no device kernel
// ("op N (KIND): no device kernel for dmo codegen").
// `weight_bytes`, when given, receives the bytes of the weight arrays
// model.cc holds (as the model has them, or as a device kernel reads them).
std::string model_source(const Graph& graph, const Interpreter& interpreter, int64_t* weight_bytes = nullptr);

// The same check alone, before anything is written.
void require_device_kernels(const Graph& graph, const Interpreter& interpreter);

}  // namespace dmo
