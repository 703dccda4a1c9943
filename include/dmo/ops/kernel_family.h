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
// And one family TFLM never links:
//  - dmo-device: what `dmo codegen` projects run: dmo's int8 device kernels
//    (ops/eval/*_s8_device.h) where they apply, the shared reference nests
//    elsewhere; plans for generated code use their orders' O_s.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dmo {

enum class KernelFamily { kTflmReference, kCmsisNn, kCmsisNnDsp, kDmoDevice };

// The families a TFLM firmware may link (`--kernels`; `all` is these).
inline constexpr std::array<KernelFamily, 3> kKernelFamilies = {KernelFamily::kTflmReference,
                                                                KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

constexpr std::string_view kernel_family_name(KernelFamily family) {
  switch (family) {
    case KernelFamily::kCmsisNn: return "cmsis-nn";
    case KernelFamily::kCmsisNnDsp: return "cmsis-nn-dsp";
    case KernelFamily::kDmoDevice: return "dmo-device";
    default: return "tflm-reference";
  }
}

// The family whose kernels run an op that no cmsis glue takes over:
// dmo-device when the plan is for generated code, else TFLM's reference.
inline KernelFamily own_kernels_family(const std::vector<KernelFamily>& families) {
  for (KernelFamily family : families) {
    if (family == KernelFamily::kDmoDevice) return family;
  }
  return KernelFamily::kTflmReference;
}

// The TFLM family named `name`, or nothing.
std::optional<KernelFamily> kernel_family_named(std::string_view name);

// "tflm-reference, cmsis-nn, cmsis-nn-dsp" (for messages).
std::string kernel_family_names();

constexpr bool is_cmsis_nn(KernelFamily family) {
  return family == KernelFamily::kCmsisNn || family == KernelFamily::kCmsisNnDsp;
}

// A scratch buffer a kernel asks for in its prepare step, as TFLM's glue
// requests it (RequestScratchBufferInArena): live during the op only.
struct KernelScratch {
  int64_t bytes = 0;
  std::string buffer;  // what the kernel keeps in it
};

}  // namespace dmo
