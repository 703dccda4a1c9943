// SignalFilterBank (TFLM's signal/micro/kernels/filter_bank.cc Eval, calling
// signal/src/filter_bank.cc FilterbankAccumulateChannels): num_channels + 1
// channels accumulate weighted and unweighted input energies into a
// persistent work area (channel 0 only carries the first unweights), then
// channels 1.. are copied (memcpy) to the output. Every input read comes
// before the first output store. The channel tables (frequency starts,
// weight starts, widths) fix the addresses, so they must be constant and
// are read here; the weights are loaded as TFLM loads them.
#include <fmt/format.h>

#include <vector>

#include "../constant_operand.h"
#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct FilterBankKernel {
  std::vector<int16_t> frequency_starts, weight_starts, widths;  // num_channels + 1 each
  mutable std::vector<uint64_t> work_area;                       // TFLM's persistent work_area

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& weights = io.input(1);
    const TensorRef& unweights = io.input(2);
    const TensorRef& output = io.output(0);
    uint64_t weighted = 0;
    uint64_t unweighted = 0;
    for (size_t c = 0; c < work_area.size(); ++c) {
      const int64_t frequency = frequency_starts[c];
      const int64_t weight = weight_starts[c];
      for (int64_t j = 0; j < widths[c]; ++j) {
        // int16 * uint64: the weight converts to uint64 (sign-extended).
        weighted += static_cast<uint64_t>(static_cast<int64_t>(mem.template load<int16_t>(weights, weight + j))) *
                    static_cast<uint64_t>(mem.template load<uint32_t>(input, frequency + j));
        unweighted +=
            static_cast<uint64_t>(static_cast<int64_t>(mem.template load<int16_t>(unweights, weight + j))) *
            static_cast<uint64_t>(mem.template load<uint32_t>(input, frequency + j));
      }
      work_area[c] = weighted;
      weighted = unweighted;
      unweighted = 0;
    }
    // The memcpy from the work area, channel 0 discarded.
    for (size_t c = 1; c < work_area.size(); ++c) mem.template store<uint64_t>(output, static_cast<int64_t>(c - 1), work_area[c]);
  }
};

std::vector<int16_t> constant_int16s(const OpContext& ctx, size_t input, const char* what) {
  const TensorRef& t = ctx.input(input);
  ctx.require(t.tensor->is_constant, fmt::format("{} (input {}) must be constant", what, input));
  ctx.require(static_cast<int64_t>(t.tensor->data.size()) >= t.elements() * 2,
              fmt::format("{} (input {}) holds {} bytes, fewer than its shape needs", what, input, t.tensor->data.size()));
  std::vector<int16_t> values(static_cast<size_t>(t.elements()));
  std::memcpy(values.data(), t.tensor->data.data(), values.size() * sizeof(int16_t));
  return values;
}

}  // namespace

PreparedKernel prepare_signal_filter_bank(const OpContext& ctx) {
  require_operand_counts(ctx, 6, 1);
  const CustomOptions options(ctx);
  const char* names[] = {"input", "weights", "unweights", "channel frequency starts", "channel weight starts",
                         "channel widths"};
  for (size_t i = 0; i < 6; ++i) {
    const TensorRef& t = ctx.input(i);
    const DataType expected = i == 0 ? DataType::kUInt32 : DataType::kInt16;
    if (t.type() != expected) fail_unsupported_type(ctx, names[i], t.type(), data_type_name(expected));
    ctx.require(t.rank() == 1, fmt::format("{} (input {}) has {} dimensions; expected 1", names[i], i, t.rank()));
  }
  const TensorRef& output = ctx.output(0);
  if (output.type() != DataType::kUInt64) fail_unsupported_type(ctx, "output", output.type(), "UINT64");
  ctx.require(output.rank() == 1, fmt::format("output has {} dimensions; expected 1", output.rank()));
  const int32_t channels = options.integer("num_channels", 0, 1 << 20);
  ctx.require(output.elements() == channels,
              fmt::format("output has {} elements for num_channels {}", output.elements(), channels));
  FilterBankKernel kernel;
  kernel.frequency_starts = constant_int16s(ctx, 3, names[3]);
  kernel.weight_starts = constant_int16s(ctx, 4, names[4]);
  kernel.widths = constant_int16s(ctx, 5, names[5]);
  const size_t tables = static_cast<size_t>(channels) + 1;
  for (size_t i = 3; i < 6; ++i) {
    ctx.require(ctx.input(i).elements() >= static_cast<int64_t>(tables),
                fmt::format("{} (input {}) has {} entries; num_channels {} needs {}", names[i], i,
                            ctx.input(i).elements(), channels, tables));
  }
  const int64_t weights = std::min(ctx.input(1).elements(), ctx.input(2).elements());
  for (size_t c = 0; c < tables; ++c) {
    const int64_t width = std::max<int64_t>(kernel.widths[c], 0);
    if (width == 0) continue;
    const int64_t frequency = kernel.frequency_starts[c], weight = kernel.weight_starts[c];
    ctx.require(frequency >= 0 && frequency + width <= ctx.input(0).elements(),
                fmt::format("channel {} reads input elements [{}, {}), outside its {}", c, frequency,
                            frequency + width, ctx.input(0).elements()));
    ctx.require(weight >= 0 && weight + width <= weights,
                fmt::format("channel {} reads weights [{}, {}), outside their {}", c, weight, weight + width, weights));
  }
  kernel.frequency_starts.resize(tables);
  kernel.weight_starts.resize(tables);
  kernel.widths.resize(tables);
  kernel.work_area.assign(tables, 0);
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo
