// Where a generated project runs: natively on the build machine, or as a
// bare-metal image for one Cortex-M core under QEMU (the board QEMU
// emulates for that core, its compiler flags and memory map).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dmo {

enum class CodegenTarget { kHost, kCortexM4, kCortexM7, kCortexM55 };

// "host", "cortex-m4", "cortex-m7", "cortex-m55"; nullopt for any other name.
std::optional<CodegenTarget> parse_codegen_target(std::string_view name);
std::string codegen_target_name(CodegenTarget target);
// The names parse_codegen_target accepts, for messages.
std::string codegen_target_names();

// A Cortex-M target's board and memory map.
struct DeviceBoard {
  std::string cpu;              // -mcpu=
  std::string qemu_machine;     // qemu-system-arm -M
  unsigned long flash_origin;   // the vector table and code
  unsigned long flash_bytes;
  unsigned long const_origin;   // constants (the weights); may be the code memory
  unsigned long const_bytes;
  unsigned long ram_origin;     // data, bss (the arena) and the stack
  unsigned long ram_bytes;
  std::string float_flags;      // the FPU and the float ABI (hard: the part's FPU in use)
  unsigned long timer_base;     // a CMSDK APB timer counting at 25 MHz (the bench); 0: none
};
// nullopt for the host target.
std::optional<DeviceBoard> device_board(CodegenTarget target);

}  // namespace dmo
