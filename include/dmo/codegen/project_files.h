// The files of a generated project besides the model and dmo's headers:
// main.cc (the golden input, one inference, the outputs' hash and the arena
// size), the platform layer (stdout on the host; semihosting on a device,
// whose exit call ends QEMU with the program's status), and for a device
// its startup code (vector table, reset handler), linker script and the
// Makefile (`make run` builds and runs: natively or under QEMU).
#pragma once

#include <map>
#include <string>

#include "dmo/codegen/codegen_target.h"

namespace dmo {

// File name -> contents, for `target`; `seed` is the input pattern's;
// `constants_apart` puts a device's constants (the weights) in its board's
// constant memory instead of its code memory (device_budget.h).
std::map<std::string, std::string> project_files(CodegenTarget target, uint32_t seed, bool constants_apart);

}  // namespace dmo
