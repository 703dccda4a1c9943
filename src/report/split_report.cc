#include "dmo/report/split_report.h"

#include <fmt/format.h>

#include "dmo/transform/stage_tiling.h"

namespace dmo {

namespace {

double percent_of(int64_t part, int64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

nlohmann::json split_stages_json(const std::vector<SplitStage>& stages) {
  nlohmann::json list = nlohmann::json::array();
  for (const SplitStage& s : stages) {
    nlohmann::json stage = {{"ops", {s.first_op, s.last_op}}, {"axis", s.axes()}, {"tiles", s.tiles}};
    if (s.column_tiles > 1) stage["column_tiles"] = s.column_tiles;
    list.push_back(std::move(stage));
  }
  return list;
}

std::string split_stages_text(const std::vector<SplitStage>& stages) {
  return stages.empty() ? "none" : split_specs(stages);
}

std::string split_search_summary_text(const SplitSearchResult& search) {
  const PlanResult& plan = search.plan;
  if (search.stages.empty()) {
    return fmt::format(
        "split auto (at most {}% extra MACs): no stage lowers dmo's arena of {} bytes ({} candidate stages, {} "
        "planned)\n",
        search.max_recompute_percent, search.unsplit_bytes, search.candidates, search.candidates_planned);
  }
  return fmt::format(
      "split auto (at most {}% extra MACs): --split {}: {} bytes instead of {} unsplit, {:.2f}% extra MACs ({} "
      "candidate stages, {} stage set{} planned)\n",
      search.max_recompute_percent, split_stages_text(search.stages), plan.dmo.arena_size, search.unsplit_bytes,
      percent_of(plan.extra_macs(), plan.macs), search.candidates, search.candidates_planned,
      search.candidates_planned == 1 ? "" : "s");
}

std::string split_tradeoff_text(const SplitSearchResult& search) {
  std::string out = fmt::format("\ntrade-off of the stage sets planned (Pareto front: arena bytes against extra MACs)\n");
  out += fmt::format("{:>12} {:>12} {:>8}  {}\n", "arena bytes", "extra MACs", "extra %", "stages");
  for (size_t i = 0; i < search.pareto.size(); ++i) {
    const SplitTradeoff& t = search.pareto[i];
    out += fmt::format("{:>12} {:>12} {:>7.2f}%  {}{}\n", t.arena_bytes, t.extra_macs,
                       percent_of(t.extra_macs, search.plan.macs), split_stages_text(t.stages),
                       i == search.chosen ? "  <- chosen" : "");
  }
  return out;
}

nlohmann::json split_search_json(const SplitSearchResult& search) {
  nlohmann::json pareto = nlohmann::json::array();
  for (size_t i = 0; i < search.pareto.size(); ++i) {
    const SplitTradeoff& t = search.pareto[i];
    pareto.push_back({{"stages", split_stages_json(t.stages)},
                      {"arena_bytes", t.arena_bytes},
                      {"extra_macs", t.extra_macs},
                      {"extra_macs_percent", percent_of(t.extra_macs, search.plan.macs)},
                      {"chosen", i == search.chosen}});
  }
  return {{"max_recompute_percent", search.max_recompute_percent},
          {"unsplit_bytes", search.unsplit_bytes},
          {"candidates", search.candidates},
          {"candidates_planned", search.candidates_planned},
          {"trade_off_curve", search.trade_off_curve},
          {"pareto", pareto}};
}

}  // namespace dmo
