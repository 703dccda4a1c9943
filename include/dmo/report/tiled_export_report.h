// `dmo export --split`'s account of the split stages (pipeline/
// tiled_export.h): written or not, why, and TFLM's whole arena both ways.
// Formatting only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dmo/pipeline/tiled_export.h"

namespace dmo {

std::string tiled_choice_text(const TiledChoice& choice);
nlohmann::json tiled_choice_json(const TiledChoice& choice);

}  // namespace dmo
