// TFLM's OfflineMemoryAllocation words as a model carries them. The first
// two bytes are the model's tensor count (little-endian), the rest the
// metadata buffer. A plan the parser accepts must encode to words that
// parse back to the same plan.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "dmo/error.h"
#include "dmo/tflite/offline_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t tensor_count = data[0] | (size_t{data[1]} << 8);
  const std::span<const uint8_t> words(data + 2, size - 2);
  dmo::OfflinePlan plan;
  try {
    plan = dmo::parse_offline_plan(words, tensor_count, "input");
  } catch (const dmo::Error&) {
    return 0;
  }
  const std::vector<uint8_t> encoded = dmo::encode_offline_plan(plan);
  const dmo::OfflinePlan back = dmo::parse_offline_plan(encoded, tensor_count, "encoded");
  if (back.version != plan.version || back.subgraph_count != plan.subgraph_count || back.offsets != plan.offsets) {
    std::fprintf(stderr, "an offline plan changed through encode and parse\n");
    std::abort();
  }
  return 0;
}
