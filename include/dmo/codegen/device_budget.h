// Whether a generated project fits its board, decided before anything is
// written: the arena (with room for the stack) in the board's RAM, the
// weights in its code memory or, when they would crowd the code there, in
// the board's larger memory for constants. A project that cannot fit is
// refused with one line naming the part of the budget it exceeds.
#pragma once

#include <cstdint>

#include "dmo/codegen/codegen_target.h"

namespace dmo {

// The stack the generated program may use above the arena.
inline constexpr int64_t kDeviceStackBytes = 16 * 1024;

struct DeviceLayout {
  bool constants_apart = false;  // the weights (all constants) in the board's constant memory
};

// Throws dmo::Error ("arena: ..." or "weights: ...", naming the board's
// core) when the project does not fit `board`.
DeviceLayout device_layout(const DeviceBoard& board, int64_t weight_bytes, int64_t arena_bytes);

}  // namespace dmo
