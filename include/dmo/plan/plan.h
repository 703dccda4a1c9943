// A memory plan: one arena offset per buffer of a MemoryProblem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dmo {

struct Plan {
  std::string planner;           // which planner made it
  std::vector<int64_t> offsets;  // per MemoryProblem buffer
  int64_t arena_size = 0;        // max(offset + planned size)
  // Ops that must walk their output descending: their output sits above the
  // dying input it overlaps (see ops/walk_order.h). Ascending otherwise.
  std::vector<int32_t> descending_ops;
};

constexpr int64_t align_up(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace dmo
