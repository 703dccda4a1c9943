// Independent pieces of work spread over the machine's cores: the safe
// overlaps of many ops or stages, the peaks of many candidate stages. Each
// piece writes only its own result.
#pragma once

#include <cstddef>
#include <functional>

namespace dmo {

// The cores to use (std::thread::hardware_concurrency, at least 1), asked
// once: the split search runs hundreds of small batches.
size_t core_count();

// Calls work(item, worker) for every item in [0, count), on up to
// core_count() threads (the caller's one of them) and no more than one per
// `items_per_thread` items. `worker` (below the thread count) lets a piece
// use state of its own thread's. The first exception a call throws stops
// the handing out of items and is thrown again once every thread is done.
void on_every_core(size_t count, size_t items_per_thread, const std::function<void(size_t item, size_t worker)>& work);

// The number of threads on_every_core uses for `count` items.
size_t threads_for(size_t count, size_t items_per_thread);

}  // namespace dmo
