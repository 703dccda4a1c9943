// The dmo executable: the command line on argv (command_line.h).
#include <string>
#include <vector>

#include "command_line.h"

int main(int argc, char** argv) { return dmo::cli::run_command_line(std::vector<std::string>(argv + 1, argv + argc)); }
