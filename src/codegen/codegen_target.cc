#include "dmo/codegen/codegen_target.h"

namespace dmo {

std::optional<CodegenTarget> parse_codegen_target(std::string_view name) {
  if (name == "host") return CodegenTarget::kHost;
  if (name == "cortex-m4") return CodegenTarget::kCortexM4;
  if (name == "cortex-m7") return CodegenTarget::kCortexM7;
  if (name == "cortex-m55") return CodegenTarget::kCortexM55;
  return std::nullopt;
}

std::string codegen_target_name(CodegenTarget target) {
  switch (target) {
    case CodegenTarget::kHost: return "host";
    case CodegenTarget::kCortexM4: return "cortex-m4";
    case CodegenTarget::kCortexM7: return "cortex-m7";
    case CodegenTarget::kCortexM55: return "cortex-m55";
  }
  return "host";
}

std::string codegen_target_names() { return "cortex-m4, cortex-m7, cortex-m55, host"; }

std::optional<DeviceBoard> device_board(CodegenTarget target) {
  // QEMU's maps (hw/arm/mps2.c, mps2-tz.c): MPS2 AN386 (Cortex-M4) and
  // AN500 (Cortex-M7) have 4 MB of ZBT SSRAM1 at 0 (code and weights),
  // 4 MB of SSRAM2/3 at 0x20000000 and 16 MB of PSRAM (at 0x21000000 on
  // AN386, 0x60000000 on AN500); MPS3 AN547 (Cortex-M55) has 512 KB of
  // ITCM at 0 (code), 2 MB of SRAM at 0x01000000 and DDR at 0x60000000.
  // Weights too large for the code memory go to the PSRAM or DDR
  // (device_budget.h). The MPS2 boards' CMSDK APB timer 0 at 0x40000000
  // counts the bench's instructions.
  switch (target) {
    case CodegenTarget::kHost: return std::nullopt;
    case CodegenTarget::kCortexM4: return DeviceBoard{"cortex-m4", "mps2-an386", 0x0, 0x400000, 0x21000000, 0x1000000, 0x20000000, 0x400000,
                                                         "-mfpu=fpv4-sp-d16 -mfloat-abi=hard", 0x40000000};
    case CodegenTarget::kCortexM7: return DeviceBoard{"cortex-m7", "mps2-an500", 0x0, 0x400000, 0x60000000, 0x1000000, 0x20000000, 0x400000,
                                                         "-mfpu=fpv5-d16 -mfloat-abi=hard", 0x40000000};
    case CodegenTarget::kCortexM55:
      return DeviceBoard{"cortex-m55", "mps3-an547", 0x0, 0x80000, 0x60000000, 0x1000000, 0x01000000, 0x200000,
                         "-mfloat-abi=hard", 0x0};
  }
  return std::nullopt;
}

}  // namespace dmo
