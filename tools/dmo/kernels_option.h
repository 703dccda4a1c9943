// `--kernels FAMILY`: the kernels the firmware links, shared by the
// commands that plan or prove a plan (ops/kernel_family.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "dmo/ops/kernel_family.h"

namespace dmo::cli {

// Adds the option; an unknown name is a usage error listing the families.
void add_kernels_option(CLI::App* command, std::string& value, const std::string& what_default_means);

// "all" -> every family, reference first; else the one named.
std::vector<KernelFamily> kernel_families(const std::string& value);

// "tflm-reference" or "all (tflm-reference, cmsis-nn, cmsis-nn-dsp)".
std::string kernel_families_label(const std::vector<KernelFamily>& families);

}  // namespace dmo::cli
