#include "dmo/overlap/on_every_core.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dmo {

size_t core_count() {
  static const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

size_t threads_for(size_t count, size_t items_per_thread) {
  const size_t per_thread = std::max<size_t>(items_per_thread, 1);
  return std::min(core_count(), std::max<size_t>((count + per_thread - 1) / per_thread, 1));
}

void on_every_core(size_t count, size_t items_per_thread, const std::function<void(size_t item, size_t worker)>& work) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failing;
  auto run = [&](size_t worker) {
    for (size_t item = next++; item < count; item = next++) {
      try {
        work(item, worker);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failing);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  const size_t threads = threads_for(count, items_per_thread);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace dmo
