// Kernel families: which implementation of an op the firmware links, since
// the safe overlap depends on the algorithm's access order, not only on the
// op. dmo's kernels mirror each family's loop order over the same memory
// policies, with TFLM's values.
//  - tflm-reference: TFLM's reference kernels (tensorflow/lite/micro/kernels).
//  - cmsis-nn: TFLM's kernels/cmsis_nn glue over Arm's CMSIS-NN, its
//    portable C paths (no ARM_MATH_DSP, no MVE); reference kernels where the
//    glue falls back to them (float, and types CMSIS-NN lacks).
//  - cmsis-nn-dsp: the same with ARM_MATH_DSP (Cortex-M4/M7/M33): the DSP
//    paths, with their 4-byte SIMD reads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dmo {

enum class KernelFamily { kTflmReference, kCmsisNn, kCmsisNnDsp };

inline constexpr std::array<KernelFamily, 3> kKernelFamilies = {KernelFamily::kTflmReference,
                                                                KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

constexpr std::string_view kernel_family_name(KernelFamily family) {
  switch (family) {
    case KernelFamily::kCmsisNn: return "cmsis-nn";
    case KernelFamily::kCmsisNnDsp: return "cmsis-nn-dsp";
    default: return "tflm-reference";
  }
}

// The family named `name`, or nothing.
std::optional<KernelFamily> kernel_family_named(std::string_view name);

// "tflm-reference, cmsis-nn, cmsis-nn-dsp" (for messages).
std::string kernel_family_names();

constexpr bool is_cmsis_nn(KernelFamily family) { return family != KernelFamily::kTflmReference; }

// A scratch buffer a kernel asks for in its prepare step, as TFLM's glue
// requests it (RequestScratchBufferInArena): live during the op only.
struct KernelScratch {
  int64_t bytes = 0;
  std::string buffer;  // what the kernel keeps in it
};

}  // namespace dmo
