// TFLM's offline memory plan: the "OfflineMemoryAllocation" metadata buffer
// of little-endian int32 words [version, subgraph count, N, N offsets].
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

inline constexpr const char* kOfflinePlanMetadataName = "OfflineMemoryAllocation";

// Parses and checks the words; `tensor_count` is the model's total over all
// subgraphs, which TFLM requires N to equal.
OfflinePlan parse_offline_plan(std::span<const uint8_t> data, size_t tensor_count, const std::string& source);

std::vector<uint8_t> encode_offline_plan(const OfflinePlan& plan);

}  // namespace dmo
