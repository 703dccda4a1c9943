// A generated project's budget on its board (codegen/device_budget.h): the
// arena with its stack in RAM, the weights in the code memory while they
// leave half of it to the code, else in the board's constant memory, and
// one line naming the part exceeded when they do not fit.
#include <gtest/gtest.h>

#include <string>

#include "dmo/codegen/device_budget.h"
#include "dmo/error.h"

namespace dmo {
namespace {

DeviceBoard cortex_m4() { return *device_board(CodegenTarget::kCortexM4); }

std::string refusal(int64_t weight_bytes, int64_t arena_bytes) {
  try {
    device_layout(cortex_m4(), weight_bytes, arena_bytes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceBudget, SmallWeightsStayInTheCodeMemory) {
  EXPECT_FALSE(device_layout(cortex_m4(), 2 * 1024 * 1024, 160 * 1024).constants_apart);
}

TEST(DeviceBudget, WeightsBeyondHalfTheCodeMemoryGoToTheConstantMemory) {
  EXPECT_TRUE(device_layout(cortex_m4(), 2 * 1024 * 1024 + 1, 160 * 1024).constants_apart);
}

TEST(DeviceBudget, AnArenaBeyondTheRamLessTheStackIsRefused) {
  const int64_t ram = 4 * 1024 * 1024;
  EXPECT_EQ(refusal(1024, ram - kDeviceStackBytes), "");
  const std::string message = refusal(1024, ram - kDeviceStackBytes + 16);
  EXPECT_EQ(message.rfind("arena: ", 0), 0u) << message;
  EXPECT_NE(message.find("cortex-m4"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(DeviceBudget, WeightsBeyondTheConstantMemoryAreRefused) {
  const int64_t constant = 16 * 1024 * 1024;
  EXPECT_EQ(refusal(constant, 1024), "");
  const std::string message = refusal(constant + 1, 1024);
  EXPECT_EQ(message.rfind("weights: ", 0), 0u) << message;
  EXPECT_NE(message.find("constant memory"), std::string::npos) << message;
}

}  // namespace
}  // namespace dmo
