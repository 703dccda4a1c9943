// The largest inputs dmo accepts, in one place. Each is refused beyond with
// a dmo::Error naming the limit (exit status 2 at the command line), before
// anything of that size is allocated.
#pragma once

#include <cstdint>

namespace dmo {

// A .tflite file: flatbuffers address their contents with 32-bit offsets.
inline constexpr int64_t kMaxModelFileBytes = (int64_t{1} << 31) - 1;

// One tensor, and the arena a plan needs (the bytes live at the busiest op,
// which no plan without overlaps can beat): TFLM addresses its arena with
// int32 offsets.
inline constexpr int64_t kMaxTensorBytes = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxArenaBytes = (int64_t{1} << 31) - 1;

// Ops over all subgraphs of a model: planning cost grows with them, and the
// longest built-in model (synthetic_rnn) has as many.
inline constexpr int64_t kMaxOps = 1'000'000;

// Loads and stores one address-only run of a kernel (an op's algorithmic
// O_s, or a split stage's) may make before it is abandoned: the run costs
// time in proportion to them (about 0.4 s at this limit), and a tensor near
// kMaxTensorBytes would take seconds per op. Such an op gets its closed
// form, or 0, which is always safe. The busiest op of the shared models
// makes 8.4 million.
inline constexpr int64_t kMaxAddressOnlyAccesses = int64_t{1} << 27;

}  // namespace dmo
