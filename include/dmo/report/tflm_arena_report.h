// The arena size to give TFLM (pipeline/tflm_arena.h), per kernel family,
// as text lines or JSON. Formatting only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/pipeline/tflm_arena.h"
#include "dmo/pipeline/tflm_deployment.h"

namespace dmo {

// One line per family under `title`: head + tail = total, or why no total.
std::string tflm_arena_text(const std::string& title, const std::vector<TflmArena>& arenas);

// [{"kernels", "head_bytes", "tail_bytes", "arena_bytes", "unknown_op"}]:
// the tail, its parts and the total null when unknown.
nlohmann::json tflm_arena_json(const std::vector<TflmArena>& arenas);

// Each family's arena with a deployed plan.
std::vector<TflmArena> deployment_arenas(const TflmDeployment& deployment);

// `dmo export`'s lines on the arena size to give TFLM with its file: per
// family head + tail, then the largest.
std::string tflm_deployment_arena_text(const TflmDeployment& deployment);

}  // namespace dmo
