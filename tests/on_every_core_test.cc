// Work spread over the cores (overlap/on_every_core.h): every item once,
// each thread its own worker index, the first failure thrown again.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "dmo/overlap/on_every_core.h"

namespace dmo {
namespace {

TEST(OnEveryCore, CallsEveryItemOnceWithAWorkerBelowTheThreadCount) {
  for (size_t count : {0u, 1u, 7u, 1000u}) {
    for (size_t per_thread : {1u, 16u}) {
      std::vector<std::atomic<int>> calls(count);
      std::atomic<size_t> highest_worker{0};
      on_every_core(count, per_thread, [&](size_t item, size_t worker) {
        ++calls[item];
        size_t seen = highest_worker;
        while (worker > seen && !highest_worker.compare_exchange_weak(seen, worker)) {
        }
      });
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i], 1) << "item " << i << " of " << count;
      EXPECT_LT(highest_worker, threads_for(count, per_thread));
    }
  }
  EXPECT_EQ(threads_for(0, 16), 1u);
  EXPECT_EQ(threads_for(16, 16), 1u);
  EXPECT_EQ(threads_for(1000, 1), core_count());
}

TEST(OnEveryCore, ThrowsTheFailureAfterEveryThreadStops) {
  std::atomic<int> running{0};
  EXPECT_THROW(on_every_core(100, 1,
                             [&](size_t item, size_t) {
                               ++running;
                               if (item == 10) {
                                 --running;
                                 throw std::runtime_error("item 10");
                               }
                               --running;
                             }),
               std::runtime_error);
  EXPECT_EQ(running, 0);
}

}  // namespace
}  // namespace dmo
