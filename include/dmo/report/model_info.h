// `dmo info`: what a model holds (subgraphs, ops, tensors, shapes, types).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dmo/model/graph.h"

namespace dmo {

nlohmann::json model_info_json(const Graph& graph);
std::string model_info_text(const Graph& graph);

}  // namespace dmo
