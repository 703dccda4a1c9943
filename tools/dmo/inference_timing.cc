#include "inference_timing.h"

#include <algorithm>
#include <chrono>

namespace dmo::cli {

InferenceTiming time_inferences(Interpreter& interpreter, std::span<const uint8_t> input, int32_t repeat,
                                const Interpreter::OpObserver& first_observer) {
  InferenceTiming timing;
  timing.repeat = repeat;
  // Kernels are prepared lazily: prepare them now so that no run pays for it.
  interpreter.prepare_all();
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(repeat));
  for (int32_t i = 0; i < repeat; ++i) {
    // The arena is shared: earlier runs overwrote the inputs.
    interpreter.set_inputs(input);
    const auto start = std::chrono::steady_clock::now();
    interpreter.run(i == 0 ? first_observer : Interpreter::OpObserver{});
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (i == 0) timing.first_outputs = interpreter.outputs();
  }
  // The median; of an even count, the mean of the middle two.
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  timing.median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return timing;
}

}  // namespace dmo::cli
