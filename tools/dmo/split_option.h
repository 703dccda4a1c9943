// The --split option of `dmo plan` and `dmo verify`: split stages given as
// FIRST-LAST:TILES, repeatable (transform/stage_tiling.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "dmo/schedule/split_stage.h"

namespace dmo::cli {

void add_split_option(CLI::App* command, std::vector<std::string>& specs);

// The stages the specs give; dmo::Error naming a malformed spec.
std::vector<SplitStage> split_stages(const std::vector<std::string>& specs);

}  // namespace dmo::cli
