// The --split and --max-recompute options of `dmo plan`, `dmo verify` and
// `dmo run`: split stages given as FIRST-LAST:TILES[xCOLUMNS] (repeatable,
// transform/stage_tiling.h), `auto` (searched, pipeline/split_search.h) or
// `none`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "dmo/pipeline/split_request.h"

namespace dmo::cli {

struct SplitArguments {
  std::vector<std::string> values;
  double max_recompute = 20;
  CLI::Option* max_recompute_option = nullptr;
};

void add_split_options(CLI::App* command, SplitArguments& arguments);

// The request the options give; dmo::Error naming a malformed or
// contradictory value, or --max-recompute without --split auto.
SplitRequest split_request(const SplitArguments& arguments);

}  // namespace dmo::cli
