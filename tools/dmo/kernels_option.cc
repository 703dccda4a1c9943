#include "kernels_option.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo::cli {

void add_kernels_option(CLI::App* command, std::string& value, const std::string& what_default_means) {
  std::vector<std::string> names;
  for (KernelFamily family : kKernelFamilies) names.emplace_back(kernel_family_name(family));
  names.emplace_back("all");
  command
      ->add_option("--kernels", value,
                   fmt::format("the kernels the firmware links, whose access orders decide each op's safe overlap: "
                               "tflm-reference (TFLM's reference kernels), cmsis-nn (TFLM's CMSIS-NN glue, portable "
                               "C), cmsis-nn-dsp (CMSIS-NN's DSP paths, Cortex-M4/M7/M33), or all (per op the least "
                               "safe overlap of every family, so the plan holds whichever is linked; {})",
                               what_default_means))
      ->check(CLI::IsMember(names));
}

std::vector<KernelFamily> kernel_families(const std::string& value) {
  if (value == "all") return {kKernelFamilies.begin(), kKernelFamilies.end()};
  if (std::optional<KernelFamily> family = kernel_family_named(value)) return {*family};
  throw Error(fmt::format("unknown kernel family '{}'; families: {}, all", value, kernel_family_names()));
}

std::string kernel_families_label(const std::vector<KernelFamily>& families) {
  if (families.size() == 1) return std::string(kernel_family_name(families.front()));
  std::string names;
  for (KernelFamily family : families) {
    if (!names.empty()) names += ", ";
    names += kernel_family_name(family);
  }
  return families.size() == kKernelFamilies.size() ? fmt::format("all ({})", names) : names;
}

}  // namespace dmo::cli
