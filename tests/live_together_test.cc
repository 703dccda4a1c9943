// The sweep finds exactly the pairs of buffers whose lifetimes intersect.
#include <gtest/gtest.h>

#include <random>

#include "dmo/plan/live_together.h"

namespace dmo {
namespace {

TEST(LiveTogether, SweepFindsExactlyTheIntersectingPairs) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    MemoryProblem problem;
    const int n = std::uniform_int_distribution<int>(0, 40)(rng);
    problem.op_count = 30;
    for (int i = 0; i < n; ++i) {
      BufferRequest b;
      b.tensor = i;
      b.size = std::uniform_int_distribution<int>(0, 3)(rng) * 16;  // some empty
      // Inverted and uninitialised lifetimes too.
      b.lifetime.first = std::uniform_int_distribution<int>(-2, 29)(rng);
      b.lifetime.last = std::uniform_int_distribution<int>(-2, 29)(rng);
      problem.buffers.push_back(b);
    }
    const std::vector<std::vector<int32_t>> together = buffers_live_together(problem);
    ASSERT_EQ(together.size(), problem.buffers.size());
    for (int a = 0; a < n; ++a) {
      std::vector<int32_t> expected;
      for (int b = 0; b < n; ++b) {
        const BufferRequest& x = problem.buffers[static_cast<size_t>(a)];
        const BufferRequest& y = problem.buffers[static_cast<size_t>(b)];
        if (a != b && x.size > 0 && y.size > 0 && x.lifetime.intersects(y.lifetime)) expected.push_back(b);
      }
      EXPECT_EQ(together[static_cast<size_t>(a)], expected) << "trial " << trial << ", buffer " << a;
    }
  }
}

}  // namespace
}  // namespace dmo
