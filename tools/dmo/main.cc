// The dmo executable: the command line on argv (command_line.h).
#include <malloc.h>

#include <string>
#include <vector>

#include "command_line.h"

int main(int argc, char** argv) {
  // Keep freed memory for reuse: a split search builds and drops thousands
  // of schedules and problems of megabytes each, and glibc would give the
  // pages back (and fault them in again, costly on virtual machines) after
  // each, or map the largest blocks afresh.
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  return dmo::cli::run_command_line(std::vector<std::string>(argv + 1, argv + argc));
}
