#include "device_order_kernel.h"

#include <array>
#include <optional>
#include <vector>

#include "dmo/ops/device_channel_stages.h"
#include "dmo/ops/device_kernel_applies.h"
#include "dmo/ops/device_order_access.h"
#include "dmo/ops/device_tables.h"

namespace dmo {

namespace {

struct DeviceOrderKernel {
  PreparedKernel reference;
  std::shared_ptr<const DeviceKernel> device;
  DeviceChannelStages stages;          // conv-like ops
  std::vector<int8_t> packed_rows;     // conv and fully connected: the weights as the kernel reads them
  std::vector<int32_t> row_terms;      // a conv reading its input pixels in place
  std::vector<int32_t> window_terms;   // depthwise
  std::vector<int8_t> packed_windows;  // depthwise 3x3
  // The conv kernel's two windows and their columns (generated code has
  // them in the arena, as the scratch buffer this kernel requests).
  mutable std::vector<int16_t> column;
  mutable std::vector<int8_t> gather;

  template <class Memory>
  void eval(const KernelIO& io, Memory& memory) const {
    const DeviceKernel& k = *device;
    if (!device_kernel_applies(k, io)) return reference.eval(io, memory);
    // The weights as generated code stores them (packed rows).
    std::array<TensorRef, 3> inputs{};
    const size_t count = io.inputs.size() < inputs.size() ? io.inputs.size() : inputs.size();
    for (size_t i = 0; i < count; ++i) inputs[i] = io.inputs[i];
    if (!packed_rows.empty()) inputs[1].data = reinterpret_cast<uint8_t*>(const_cast<int8_t*>(packed_rows.data()));
    const KernelIO device_io{std::span<const TensorRef>(inputs.data(), count), io.outputs, io.descending, io.region};
    const ChannelStages table{stages.table.data(), stages.form};
    switch (k.loops) {
      case DeviceLoops::kConv: {
        const DeviceOrderAccess<Memory> access(device_io, memory, gather.data(), static_cast<int64_t>(gather.size()));
        conv_s8_device(k.conv, k.requantization, device_io, table, DeviceColumnBuffers{gather.data(), column.data()},
                       row_terms.empty() ? nullptr : row_terms.data(), access);
        return;
      }
      case DeviceLoops::kDepthwiseConv:
        depthwise_s8_device(k.depthwise, k.requantization, device_io, table,
                            window_terms.empty() ? nullptr : window_terms.data(),
                            packed_windows.empty() ? nullptr : packed_windows.data(),
                            DeviceOrderAccess<Memory>(device_io, memory));
        return;
      case DeviceLoops::kFullyConnected:
        fully_connected_s8_device(k.fully_connected, k.requantization, device_io, table,
                                  DeviceOrderAccess<Memory>(device_io, memory));
        return;
      case DeviceLoops::kAveragePool:
        average_pool_s8_device(k.pool, k.pool_range, device_io, DeviceOrderAccess<Memory>(device_io, memory));
        return;
      case DeviceLoops::kAdd: add_s8_device(k.add, device_io, DeviceOrderAccess<Memory>(device_io, memory)); return;
      default: return reference.eval(io, memory);
    }
  }
};

const char* device_function(DeviceLoops loops) {
  switch (loops) {
    case DeviceLoops::kConv: return "conv_s8_device";
    case DeviceLoops::kDepthwiseConv: return "depthwise_s8_device";
    case DeviceLoops::kFullyConnected: return "fully_connected_s8_device";
    case DeviceLoops::kAveragePool: return "average_pool_s8_device";
    case DeviceLoops::kAdd: return "add_s8_device";
    default: return nullptr;
  }
}

}  // namespace

PreparedKernel with_device_order(const OpContext& ctx, PreparedKernel reference) {
  if (reference.device == nullptr || reference.device->type != DataType::kInt8) return reference;
  const DeviceKernel& k = *reference.device;
  const char* function = device_function(k.loops);
  if (function == nullptr) return reference;
  DeviceOrderKernel kernel;
  kernel.device = reference.device;
  if (device_kernel_is_conv_like(k)) {
    // Generated code runs the reference nest where the weights or bias are
    // not constant; so does this family.
    std::optional<DeviceChannelStages> stages = device_channel_stages(*ctx.subgraph, *ctx.op, k);
    if (!stages) return reference;
    kernel.stages = std::move(*stages);
  }
  int64_t scratch_bytes = 0;
  switch (k.loops) {
    case DeviceLoops::kConv: {
      kernel.packed_rows = device_packed_rows(*ctx.subgraph, *ctx.op, k);
      kernel.row_terms = device_row_terms(*ctx.subgraph, *ctx.op, k);
      if (!kernel.row_terms.empty()) break;  // no scratch
      const auto elements = static_cast<size_t>(conv_scratch_elements(k.conv));
      kernel.column.resize(elements);
      if (conv_gathers_windows(k.conv)) kernel.gather.resize(elements);
      scratch_bytes = device_conv_scratch_bytes(k.conv);
      break;
    }
    case DeviceLoops::kFullyConnected: kernel.packed_rows = device_packed_rows(*ctx.subgraph, *ctx.op, k); break;
    case DeviceLoops::kDepthwiseConv:
      kernel.window_terms = device_window_terms(*ctx.subgraph, *ctx.op, k);
      kernel.packed_windows = device_packed_windows(*ctx.subgraph, *ctx.op, k);
      break;
    default: break;
  }
  std::shared_ptr<const DeviceKernel> device = reference.device;
  kernel.reference = std::move(reference);
  PreparedKernel prepared = PreparedKernel::of(std::move(kernel));
  prepared.device = std::move(device);
  prepared.implementation = function;
  if (scratch_bytes > 0) {
    prepared.scratch.push_back(KernelScratch{scratch_bytes, "two output pixels' int16 columns (and windows, where gathered)"});
  }
  return prepared;
}

}  // namespace dmo
