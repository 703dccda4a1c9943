#include "dmo/tflite/offline_plan.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo {

namespace {
int32_t load_le32(const uint8_t* p) {
  return static_cast<int32_t>(uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
}
void store_le32(std::vector<uint8_t>& out, int32_t value) {
  auto v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
}  // namespace

OfflinePlan parse_offline_plan(std::span<const uint8_t> data, size_t tensor_count, const std::string& source) {
  auto fail = [&](const std::string& what) -> OfflinePlan {
    throw Error(fmt::format("{}: metadata '{}' is broken: {}", source, kOfflinePlanMetadataName, what));
  };
  if (data.size() < 12 || data.size() % 4 != 0) {
    return fail(fmt::format("{} bytes, expected a whole number of int32 words and at least 3", data.size()));
  }
  OfflinePlan plan;
  plan.version = load_le32(data.data());
  plan.subgraph_count = load_le32(data.data() + 4);
  int32_t count = load_le32(data.data() + 8);
  if (plan.version != 0) return fail(fmt::format("version {}, only version 0 exists", plan.version));
  if (count < 0 || static_cast<size_t>(count) != tensor_count) {
    return fail(fmt::format("it lists {} tensor offsets, the model has {} tensors", count, tensor_count));
  }
  if (data.size() != 12 + 4 * static_cast<size_t>(count)) {
    return fail(fmt::format("{} bytes for {} offsets, expected {}", data.size(), count, 12 + 4 * count));
  }
  for (int32_t i = 0; i < count; ++i) {
    int32_t offset = load_le32(data.data() + 12 + 4 * static_cast<size_t>(i));
    if (offset < -1) return fail(fmt::format("tensor {} has offset {}", i, offset));
    plan.offsets.push_back(offset);
  }
  return plan;
}

std::vector<uint8_t> encode_offline_plan(const OfflinePlan& plan) {
  std::vector<uint8_t> out;
  store_le32(out, plan.version);
  store_le32(out, plan.subgraph_count);
  store_le32(out, static_cast<int32_t>(plan.offsets.size()));
  for (int32_t offset : plan.offsets) store_le32(out, offset);
  return out;
}

}  // namespace dmo
