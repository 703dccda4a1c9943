#include "split_option.h"

#include "dmo/error.h"

namespace dmo::cli {

void add_split_options(CLI::App* command, SplitArguments& arguments) {
  command->add_option("--split", arguments.values,
                      "run ops FIRST to LAST (a chain, each output read only by the next op) tile by tile: TILES "
                      "bands of the last output's rows, each cut into COLUMNS patches if given, each intermediate "
                      "held as its largest band, halo rows and columns computed again (FIRST-LAST:TILES or "
                      "FIRST-LAST:TILESxCOLUMNS, e.g. 1-2:4 or 1-2:4x2; repeatable; dmo's reference kernels); "
                      "'auto': the stages that make dmo's arena smallest within --max-recompute; 'none' (default)")
      ->allow_extra_args(false);
  arguments.max_recompute_option =
      command->add_option("--max-recompute", arguments.max_recompute,
                          "with --split auto: the extra MACs of all stages at most this percentage of the model's "
                          "MACs (default 20)")
          ->check(CLI::NonNegativeNumber);
}

SplitRequest split_request(const SplitArguments& arguments) {
  SplitRequest request = parse_split_request(arguments.values);
  if (arguments.max_recompute_option && arguments.max_recompute_option->count() > 0 &&
      request.method != SplitMethod::kAuto) {
    throw Error("--max-recompute applies to --split auto only");
  }
  request.max_recompute_percent = arguments.max_recompute;
  return request;
}

}  // namespace dmo::cli
