// Runs a program under `valgrind --tool=lackey --trace-mem=yes` and reads
// its log through a pipe while it runs, one chunk at a time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dmo/trace/lackey_trace.h"

namespace dmo {

struct TraceRunOptions {
  LackeyTraceOptions reader;
  // Where the program's stdout and stderr go: inherited, or /dev/null.
  bool program_stdout_to_stderr = true;  // keeps dmo's own stdout clean
  bool discard_program_output = false;
};

struct TraceRun {
  std::vector<LayerTrace> layers;
  std::optional<AccessPicture> picture;
  int64_t log_bytes = 0;
  int64_t lines = 0;
  int64_t memory_events = 0;  // all loads, stores and modifies of the program
  int64_t instructions = 0;
  double seconds = 0;  // wall time of the run
};

// Throws dmo::Error when valgrind is not installed, the program cannot be
// found, it exits with a non-zero status or is killed, or the trace is bad.
TraceRun trace_program(const std::vector<std::string>& command, const TraceRunOptions& options = {});

// The same analysis of a log that valgrind already wrote to a file.
TraceRun trace_log_file(const std::string& path, const LackeyTraceOptions& options = {});

// Whether `valgrind` is on the PATH (for tests that need it).
bool valgrind_available();

}  // namespace dmo
