// Resolves a MODEL argument: a .tflite path, or the name of a zoo model.
#pragma once

#include <string>

#include "dmo/model/graph.h"

namespace dmo {

Graph load_model(const std::string& model);

}  // namespace dmo
