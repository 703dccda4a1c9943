#include "dmo/report/tflm_arena_report.h"

#include <fmt/format.h>

#include "dmo/report/grouped_number.h"

namespace dmo {

std::string tflm_arena_text(const std::string& title, const std::vector<TflmArena>& arenas) {
  std::string out = title + '\n';
  for (const TflmArena& a : arenas) {
    const std::string family(kernel_family_name(a.family));
    if (a.tail) {
      out += fmt::format("  {:<16} {:>9} head + {:>7} tail = {:>9} bytes\n", family, grouped(a.head_bytes),
                         grouped(a.tail->bytes), grouped(a.head_bytes + a.tail->bytes));
    } else {
      out += fmt::format("  {:<16} {:>9} head + tail unknown ({}'s persistent allocations are not modelled)\n",
                         family, grouped(a.head_bytes), a.unknown_op);
    }
  }
  return out;
}

nlohmann::json tflm_arena_json(const std::vector<TflmArena>& arenas) {
  nlohmann::json out = nlohmann::json::array();
  for (const TflmArena& a : arenas) {
    nlohmann::json row = {{"kernels", kernel_family_name(a.family)},
                          {"head_bytes", a.head_bytes},
                          {"tail_bytes", nullptr},
                          {"arena_bytes", nullptr},
                          {"scratch_requests", a.scratch_requests}};
    if (a.tail) {
      const TflmTail& t = *a.tail;
      row["tail_bytes"] = t.bytes;
      row["arena_bytes"] = a.head_bytes + t.bytes;
      row["tail"] = {{"runtime_bytes", t.runtime_bytes},   {"tensor_bytes", t.tensor_bytes},
                     {"node_bytes", t.node_bytes},         {"kernel_bytes", t.kernel_bytes},
                     {"scratch_handle_bytes", t.scratch_handle_bytes}, {"variable_bytes", t.variable_bytes}};
    } else {
      row["unknown_op"] = a.unknown_op;
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<TflmArena> deployment_arenas(const TflmDeployment& deployment) {
  std::vector<TflmArena> arenas;
  for (const FamilyHead& h : deployment.heads) arenas.push_back(h.arena);
  return arenas;
}

std::string tflm_deployment_arena_text(const TflmDeployment& deployment) {
  std::string out = tflm_arena_text("TFLM's whole arena with this plan (head + persistent tail, 32-bit target):",
                                    deployment_arenas(deployment));
  if (const std::optional<int64_t> total = largest_tflm_arena(deployment)) {
    return out + fmt::format(
                     "give TFLM's MicroInterpreter {} bytes (a 16-byte aligned arena; arena_used_bytes() reports "
                     "the same after AllocateTensors)\n",
                     *total);
  }
  return out + fmt::format("give TFLM at least {} bytes plus its persistent allocations\n", deployment.arena_bytes);
}

}  // namespace dmo
