// The device path of a kernel aggregate (ops/device_instance.h): its
// fields, in declaration order, with a brace around every nested aggregate
// and array, as generated code's initializer needs them.
#include "dmo/ops/device_instance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "dmo/ops/eval/activation_arithmetic.h"
#include "dmo/ops/eval/map_elements_loops.h"
#include "dmo/ops/eval/pad_loops.h"

namespace dmo {
namespace {

// The values as text: integers, floats with an 'f', braces.
std::string text(const std::vector<DeviceValue>& values) {
  std::string out;
  for (const DeviceValue& v : values) {
    if (const auto* brace = std::get_if<DeviceBrace>(&v)) {
      out += *brace == DeviceBrace::kOpen ? "{ " : "} ";
    } else if (const auto* i = std::get_if<int64_t>(&v)) {
      out += std::to_string(*i) + " ";
    } else {
      out += std::to_string(std::get<float>(v)) + "f ";
    }
  }
  return out;
}

TEST(DeviceInstance, NestsTheArithmeticsFieldsAndItsMultiplier) {
  const MapElementsLoops<int8_t, int8_t, RequantizedClamp<int8_t>> k{
      12, RequantizedClamp<int8_t>{-3, 5, QuantizedMultiplier{1 << 30, -2}, -128, 100}};
  const DeviceInstance instance = device_instance("MapElementsLoops<int8_t, int8_t, RequantizedClamp<int8_t>>", k);
  EXPECT_EQ(instance.type, "MapElementsLoops<int8_t, int8_t, RequantizedClamp<int8_t>>");
  EXPECT_EQ(text(instance.values), "12 { -3 5 { 1073741824 -2 } -128 100 } ");
}

TEST(DeviceInstance, WritesEveryElementOfAnArray) {
  PadLoops<uint8_t> k;
  k.rank = 2;
  k.before[0] = 1;
  k.in_dims[0] = 3;
  k.in_dims[1] = 4;
  k.out_dims[0] = 5;
  k.out_dims[1] = 4;
  k.output_elements = 20;
  k.implicit_pad = 0x80;
  EXPECT_EQ(text(device_instance("PadLoops<uint8_t>", k).values),
            "2 { 1 0 0 0 0 } { 3 4 0 0 0 } { 5 4 0 0 0 } 20 0 128 ");
}

TEST(DeviceInstance, KeepsFloatsAsFloatsInfinityIncluded) {
  const ValueClamp<float> k{-1.5f, std::numeric_limits<float>::infinity()};
  const DeviceInstance instance = device_instance("ValueClamp<float>", k);
  ASSERT_EQ(instance.values.size(), 2u);
  EXPECT_EQ(std::get<float>(instance.values[0]), -1.5f);
  EXPECT_TRUE(std::isinf(std::get<float>(instance.values[1])));
}

}  // namespace
}  // namespace dmo
