#include "dmo/report/kernel_family_columns.h"

#include <fmt/format.h>

#include <algorithm>

namespace dmo {

std::vector<KernelFamily> cmsis_families(const std::vector<KernelFamily>& families) {
  std::vector<KernelFamily> out;
  for (KernelFamily f : families) {
    if (is_cmsis_nn(f) && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

nlohmann::json family_names_json(const std::vector<KernelFamily>& families) {
  nlohmann::json names = nlohmann::json::array();
  for (KernelFamily f : families) names.push_back(std::string(kernel_family_name(f)));
  return names;
}

std::string family_names_text(const std::vector<KernelFamily>& families) {
  std::string text;
  for (KernelFamily f : families) {
    if (!text.empty()) text += ", ";
    text += kernel_family_name(f);
  }
  return text;
}

nlohmann::json family_overlaps_json(const OpOverlap& overlap) {
  nlohmann::json rows = nlohmann::json::array();
  for (const FamilyOverlap& f : overlap.by_family) {
    rows.push_back({{"kernels", std::string(kernel_family_name(f.family))},
                    {"implementation", f.implementation},
                    {"algorithmic_bytes", f.algorithmic ? nlohmann::json(*f.algorithmic) : nlohmann::json(nullptr)}});
    if (!f.algorithmic) rows.back()["unavailable"] = f.unavailable;
  }
  return rows;
}

std::string family_overlap_text(const OpOverlap& overlap, KernelFamily family) {
  for (const FamilyOverlap& f : overlap.by_family) {
    if (f.family == family) return f.algorithmic ? fmt::format("{}", *f.algorithmic) : std::string("-");
  }
  return "ref";
}

}  // namespace dmo
