#include "dmo/pipeline/split_request.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "dmo/error.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

const char* split_method_name(SplitMethod method) {
  switch (method) {
    case SplitMethod::kNone: return "none";
    case SplitMethod::kManual: return "manual";
    case SplitMethod::kAuto: return "auto";
  }
  return "?";
}

SplitRequest parse_split_request(const std::vector<std::string>& values) {
  SplitRequest request;
  for (const char* word : {"auto", "none"}) {
    if (std::find(values.begin(), values.end(), word) == values.end()) continue;
    if (values.size() > 1) {
      throw Error(fmt::format("--split {} excludes other --split values (given: {})", word, fmt::join(values, ", ")));
    }
    request.method = std::string(word) == "auto" ? SplitMethod::kAuto : SplitMethod::kNone;
    return request;
  }
  for (const std::string& spec : values) request.stages.push_back(parse_split_spec(spec));
  if (!request.stages.empty()) request.method = SplitMethod::kManual;
  return request;
}

}  // namespace dmo
