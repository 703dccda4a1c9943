// The --reorder option of `dmo plan`, `run`, `verify` and `export`: `auto`
// searches the execution order of subgraph 0's ops whose plan is smallest
// (pipeline/reordered_plan.h), `none` (default) keeps file order.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "dmo/pipeline/reordered_plan.h"

namespace dmo::cli {

void add_reorder_option(CLI::App* command, std::string& value);

ReorderRequest reorder_request(const std::string& value);

}  // namespace dmo::cli
