#include "dmo/codegen/device_budget.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo {

DeviceLayout device_layout(const DeviceBoard& board, int64_t weight_bytes, int64_t arena_bytes) {
  const auto ram = static_cast<int64_t>(board.ram_bytes);
  if (arena_bytes + kDeviceStackBytes > ram) {
    throw Error(fmt::format("arena: {} bytes and {} of stack do not fit {}'s {} bytes of RAM (QEMU {} at 0x{:x})",
                            arena_bytes, kDeviceStackBytes, board.cpu, ram, board.qemu_machine, board.ram_origin));
  }
  DeviceLayout layout;
  // Weights beyond half the code memory would leave too little of it for
  // the code and the schedule's tables: they go to the constant memory.
  const auto code = static_cast<int64_t>(board.flash_bytes);
  layout.constants_apart = board.const_bytes > 0 && weight_bytes > code / 2;
  const int64_t room = layout.constants_apart ? static_cast<int64_t>(board.const_bytes) : code;
  if (weight_bytes > room) {
    throw Error(fmt::format("weights: {} bytes do not fit {}'s {} bytes of {} memory (QEMU {} at 0x{:x})",
                            weight_bytes, board.cpu, room, layout.constants_apart ? "constant" : "code",
                            board.qemu_machine, layout.constants_apart ? board.const_origin : board.flash_origin));
  }
  return layout;
}

}  // namespace dmo
