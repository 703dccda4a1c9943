#include "split_option.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo::cli {

void add_split_options(CLI::App* command, SplitArguments& arguments) {
  command->add_option("--split", arguments.values,
                      "run ops FIRST to LAST (a chain, each output read only by the next op) tile by tile: TILES "
                      "bands of the last output's rows, each cut into COLUMNS patches if given, each intermediate "
                      "held as its largest band, halo rows and columns computed again (FIRST-LAST:TILES or "
                      "FIRST-LAST:TILESxCOLUMNS, e.g. 1-2:4 or 1-2:4x2; repeatable; dmo's reference kernels); "
                      "'auto' (default): the stages that make dmo's arena smallest within --max-recompute, none when no "
                      "stage lowers it, and none when --plan, --unshared, --reorder auto, --concat-in-place, a "
                      "cmsis kernel family or --dump-tensors is given; 'none': every op runs whole")
      ->allow_extra_args(false);
  arguments.max_recompute_option =
      command->add_option("--max-recompute", arguments.max_recompute,
                          "with --split auto: the extra MACs of all stages at most this percentage of the model's "
                          "MACs (default 20)")
          ->check(CLI::NonNegativeNumber);
}

std::string split_excluded_by(bool reorder_auto, bool concat_in_place, const std::string& kernels) {
  if (reorder_auto) return "--reorder auto";
  if (concat_in_place) return "--concat-in-place";
  if (kernels != "tflm-reference") return fmt::format("--kernels {}", kernels);
  return {};
}

bool split_by_default(const SplitArguments& arguments) { return arguments.values.empty(); }

SplitRequest split_request(const SplitArguments& arguments, const std::string& excluded_by) {
  SplitRequest request = parse_split_request(arguments.values);
  if (split_by_default(arguments)) request.method = excluded_by.empty() ? SplitMethod::kAuto : SplitMethod::kNone;
  if (arguments.max_recompute_option && arguments.max_recompute_option->count() > 0 &&
      request.method != SplitMethod::kAuto) {
    throw Error(split_by_default(arguments)
                    ? fmt::format("--max-recompute applies to --split auto, which {} excludes", excluded_by)
                    : "--max-recompute applies to --split auto only");
  }
  request.max_recompute_percent = arguments.max_recompute;
  return request;
}

}  // namespace dmo::cli
