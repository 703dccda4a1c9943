// The table of output stages an int8 conv-like device kernel reads, one
// per output channel (bias and multiplier, ops/eval/device_requantize.h),
// built from the op's bias and filter. The faster, bounded stage form is
// exact only while a channel's sums stay within a bound, which the
// filter's weights and the input's zero point give for every input.
#pragma once

#include <optional>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/device_kernel.h"
#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/device_requantize.h"

namespace dmo {

struct DeviceChannelStages {
  std::vector<ChannelStage> table;
  StageForm form = StageForm::kBounded;
};

// The stages of `op` (CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED with
// an int8 device kernel `k`), in the bounded form when every channel's
// sums fit it, folded when every channel's right shift allows too;
// nothing when its filter or bias is not constant.
std::optional<DeviceChannelStages> device_channel_stages(const Subgraph& sg, const Op& op, const DeviceKernel& k);

}  // namespace dmo
