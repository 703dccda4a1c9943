// The --split and --max-recompute options of `dmo plan`, `dmo verify` and
// `dmo run`: split stages given as FIRST-LAST:TILES[xCOLUMNS] (repeatable,
// transform/stage_tiling.h), `auto` (searched, pipeline/split_search.h) or
// `none`. Without --split the commands search (`auto`): dmo's smallest
// proven arena is the default, and every split plan they make is run by
// `dmo run` and checked by `dmo verify`. The search steps aside (`none`)
// when another option asks for a plan no split schedule can be: a plan
// file, unshared tensors, re-ordering, in-place concatenation, CMSIS-NN
// kernels, or a dump of every tensor.
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
// contradictory value, or --max-recompute without --split auto. Without
// --split: `auto`, or `none` when `excluded_by` names the option that
// excludes splitting (empty: none does).
SplitRequest split_request(const SplitArguments& arguments, const std::string& excluded_by = {});

// The option among those given that excludes splitting, for split_request:
// re-ordering, in-place concatenation, or a kernel family other than
// tflm-reference (split stages run dmo's reference kernels); empty if none.
std::string split_excluded_by(bool reorder_auto, bool concat_in_place, const std::string& kernels);

// Printed under a plan whose search ran because --split was left out.
inline constexpr const char* kSplitDefaultNote =
    "(--split auto is the default; --split none plans every op whole, as TFLM runs it)";

// Whether --split was left out and the search runs by default.
bool split_by_default(const SplitArguments& arguments);

}  // namespace dmo::cli
