// Progress on stderr for commands that can run for seconds (planning a big
// model, verifying, tracing). On a terminal one line is rewritten in place
// and cleared when the step ends; with --progress and stderr not a terminal,
// plain lines at every tenth of the way; otherwise nothing, so scripts and
// tests that read stderr see only errors.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace dmo::cli {

// Called once by main after parsing: `forced` is the --progress flag.
void configure_progress(bool forced);

// A callback for the library's progress hooks printing
// "dmo: <command>: <what> <done>/<total> <unit>"; empty when progress is off.
std::function<void(size_t done, size_t total)> progress_reporter(const std::string& command, const std::string& what,
                                                                 const std::string& unit);

// One line for a step that reports nothing while it runs (a traced program).
void progress_note(const std::string& command, const std::string& text);

}  // namespace dmo::cli
