// How reports show the kernel families a figure is for, and each cmsis
// family's safe overlap of an op beside the reference one.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dmo/ops/kernel_family.h"
#include "dmo/overlap/safe_overlaps.h"

namespace dmo {

// The cmsis families among `families`, in order, each once.
std::vector<KernelFamily> cmsis_families(const std::vector<KernelFamily>& families);

// ["tflm-reference", ...].
nlohmann::json family_names_json(const std::vector<KernelFamily>& families);
// "tflm-reference, cmsis-nn".
std::string family_names_text(const std::vector<KernelFamily>& families);

// Per cmsis family whose kernel replaces the reference one for the op:
// {"kernels", "implementation", "algorithmic_bytes"}.
nlohmann::json family_overlaps_json(const OpOverlap& overlap);
// The family's O_s of the op, "ref" where the family runs TFLM's reference
// kernel, "-" where its kernel could not be analysed.
std::string family_overlap_text(const OpOverlap& overlap, KernelFamily family);

}  // namespace dmo
