// The whole dmo command line as a function: parse, run the command, turn
// every error into the one line "dmo: error: ..." on std::cerr. main() is
// this on argv; tests call it in-process on thousands of inputs where a
// process per run would be too slow.
#pragma once

#include <string>
#include <vector>

namespace dmo::cli {

// `args` without the program name. Returns the exit status: 0 success,
// 1 a check failed, 2 bad input or usage.
int run_command_line(const std::vector<std::string>& args);

}  // namespace dmo::cli
