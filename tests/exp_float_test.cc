// exp_float: e^x in float with the same bits on every target (the float
// SOFTMAX's exponential on the host and in generated device code).
#include "dmo/ops/eval/exp_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace dmo {
namespace {

float float_of(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Distance in units of the last place between two finite positive floats.
int64_t ulps_apart(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x > y ? int64_t{x} - y : int64_t{y} - x;
}

// Within one unit of the last place of e^x computed in double and rounded
// once, over a sweep of every 997th float from -104 to 89 (both signs).
TEST(ExpFloat, IsWithinOneUlpOfTheDoubleExponentialEverywhereItIsFinite) {
  int64_t checked = 0, exact = 0;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 997) {
    const float x = float_of(static_cast<uint32_t>(bits));
    if (!(x > -103.0f && x < 88.7f)) continue;
    const auto want = static_cast<float>(std::exp(static_cast<double>(x)));
    const float got = exp_float(x);
    ASSERT_LE(ulps_apart(got, want), 1) << "x = " << x;
    ++checked;
    if (got == want) ++exact;
  }
  EXPECT_GT(checked, 2000000);
  // Correctly rounded almost always (the table method errs by at most about half an ulp).
  EXPECT_GT(exact, checked - checked / 1000);
}

TEST(ExpFloat, GivesTheLimitsAtTheEdges) {
  EXPECT_EQ(exp_float(0.0f), 1.0f);
  EXPECT_EQ(exp_float(-0.0f), 1.0f);
  EXPECT_EQ(exp_float(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp_float(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(exp_float(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(exp_float(89.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(exp_float(-104.0f), 0.0f);
  EXPECT_EQ(exp_float(std::numeric_limits<float>::lowest()), 0.0f);
  // The largest finite result and a subnormal one.
  EXPECT_EQ(exp_float(88.7f), static_cast<float>(std::exp(static_cast<double>(88.7f))));
  EXPECT_EQ(exp_float(-100.0f), static_cast<float>(std::exp(-100.0)));
  EXPECT_GT(exp_float(-100.0f), 0.0f);
  EXPECT_EQ(exp_float(0.6931472f), 2.0f);
}

}  // namespace
}  // namespace dmo
