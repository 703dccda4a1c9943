#include "dmo/report/tiled_export_report.h"

#include "dmo/report/split_report.h"

namespace dmo {

namespace {

nlohmann::json bytes_or_null(const std::optional<int64_t>& bytes) {
  return bytes ? nlohmann::json(*bytes) : nlohmann::json(nullptr);
}

}  // namespace

std::string tiled_choice_text(const TiledChoice& choice) {
  std::string out;
  for (const std::string& line : choice.left_whole) out += line + '\n';
  return out + choice.reason + '\n';
}

nlohmann::json tiled_choice_json(const TiledChoice& choice) {
  return {{"written", choice.exported.has_value()},
          {"stages", choice.exported ? nlohmann::json(split_stages_text(choice.exported->stages)) : nlohmann::json(nullptr)},
          {"tiles_in_place", choice.exported ? nlohmann::json(choice.exported->tiles_in_place) : nlohmann::json(nullptr)},
          {"requested", split_stages_text(choice.requested)},
          {"left_whole", choice.left_whole},
          {"tflm_arena_bytes", bytes_or_null(choice.tiled_arena_bytes)},
          {"whole_ops_tflm_arena_bytes", bytes_or_null(choice.whole_arena_bytes)},
          {"reason", choice.reason}};
}

}  // namespace dmo
