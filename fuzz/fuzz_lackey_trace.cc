// The valgrind lackey log reader (`dmo trace`) on hostile text, fed in
// chunks whose size the first byte picks (lines spanning chunks), with the
// access picture on so the sampler runs too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dmo/error.h"
#include "dmo/trace/lackey_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = size_t{data[0]} + 1;
  const std::string_view log(reinterpret_cast<const char*>(data + 1), size - 1);
  dmo::LackeyTraceOptions options;
  options.picture = true;
  options.max_points = 64;
  dmo::LackeyTraceReader reader(options);
  try {
    for (size_t at = 0; at < log.size(); at += chunk) reader.feed(log.substr(at, std::min(chunk, log.size() - at)));
    reader.finish();
    reader.recent_messages();
  } catch (const dmo::Error&) {
  }
  return 0;
}
