#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

namespace dmo::cli {

namespace {

enum class Mode { kOff, kTerminal, kLines };
Mode mode = Mode::kOff;

// Shared by the copies of one reporter's callback; the library may call it
// from several threads.
struct Reporter {
  std::string prefix, unit;
  std::mutex mutex;
  size_t tenths_told = 0;
  std::chrono::steady_clock::time_point last_drawn{};

  void report(size_t done, size_t total) {
    std::lock_guard<std::mutex> lock(mutex);
    const std::string line = fmt::format("{}{}/{}{}{}", prefix, done, total, unit.empty() ? "" : " ", unit);
    if (mode == Mode::kTerminal) {
      // Redrawn at most ten times a second; cleared when the step ends.
      const auto now = std::chrono::steady_clock::now();
      if (done >= total) {
        std::fprintf(stderr, "\r\033[K");
      } else if (now - last_drawn >= std::chrono::milliseconds(100)) {
        std::fprintf(stderr, "\r\033[K%s", line.c_str());
        last_drawn = now;
      }
    } else {
      const size_t tenth = total == 0 ? 10 : std::min<size_t>(done * 10 / total, 10);
      if (tenth <= tenths_told) return;
      tenths_told = tenth;
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
};

}  // namespace

void configure_progress(bool forced) {
  mode = ::isatty(STDERR_FILENO) ? Mode::kTerminal : forced ? Mode::kLines : Mode::kOff;
}

std::function<void(size_t, size_t)> progress_reporter(const std::string& command, const std::string& what,
                                                      const std::string& unit) {
  if (mode == Mode::kOff) return {};
  auto reporter = std::make_shared<Reporter>();
  reporter->prefix = fmt::format("dmo: {}: {} ", command, what);
  reporter->unit = unit;
  return [reporter](size_t done, size_t total) { reporter->report(done, total); };
}

void progress_note(const std::string& command, const std::string& text) {
  if (mode == Mode::kOff) return;
  std::fprintf(stderr, "dmo: %s: %s\n", command.c_str(), text.c_str());
  std::fflush(stderr);
}

}  // namespace dmo::cli
