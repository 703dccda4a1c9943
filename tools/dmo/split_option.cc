#include "split_option.h"

#include "dmo/transform/stage_tiling.h"

namespace dmo::cli {

void add_split_option(CLI::App* command, std::vector<std::string>& specs) {
  command->add_option("--split", specs,
                      "run ops FIRST to LAST (a chain, each output read only by the next op) tile by tile: TILES "
                      "bands of the last output's rows, each intermediate held as its largest band, halo rows "
                      "computed again (FIRST-LAST:TILES, e.g. 1-2:4; repeatable; dmo's reference kernels)")
      ->allow_extra_args(false);
}

std::vector<SplitStage> split_stages(const std::vector<std::string>& specs) {
  std::vector<SplitStage> stages;
  for (const std::string& spec : specs) stages.push_back(parse_split_spec(spec));
  return stages;
}

}  // namespace dmo::cli
