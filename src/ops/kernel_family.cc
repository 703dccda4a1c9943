#include "dmo/ops/kernel_family.h"

#include <fmt/format.h>

namespace dmo {

std::optional<KernelFamily> kernel_family_named(std::string_view name) {
  for (KernelFamily family : kKernelFamilies) {
    if (kernel_family_name(family) == name) return family;
  }
  return std::nullopt;
}

std::string kernel_family_names() {
  std::string names;
  for (KernelFamily family : kKernelFamilies) {
    if (!names.empty()) names += ", ";
    names += kernel_family_name(family);
  }
  return names;
}

}  // namespace dmo
