// Operands that fix shapes and addresses (SPLIT's axis, PAD's paddings,
// MEAN's axes, STRIDED_SLICE's begin/end/strides) are read straight from the
// constant tensor data by the kernel's prepare step, never through the
// memory policy: the address-only policy loads zeros, which must not steer
// the loop nest.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dmo/model/data_type.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// The values of integer input `input` (INT32, or INT64 when `allow_int64`),
// little-endian as stored. `what` names the operand in messages.
inline std::vector<int64_t> constant_ints(const OpContext& ctx, size_t input, const std::string& what,
                                          bool allow_int64 = true) {
  ctx.require(ctx.has_input(input), fmt::format("{} (input {}) is missing", what, input));
  const Tensor& t = *ctx.input(input).tensor;
  const bool int64 = t.type == DataType::kInt64;
  if (t.type != DataType::kInt32 && !(allow_int64 && int64)) {
    ctx.fail(fmt::format("{} (input {}) has type {}; supported: {}", what, input, data_type_name(t.type),
                         allow_int64 ? "INT32, INT64" : "INT32"));
  }
  std::vector<int64_t> values(static_cast<size_t>(t.element_count));
  if (values.empty()) return values;  // a zero-size operand has no buffer to be constant in
  ctx.require(t.is_constant, fmt::format("{} (input {}) must be constant", what, input));
  const size_t width = int64 ? 8 : 4;
  ctx.require(t.data.size() >= values.size() * width,
              fmt::format("{} (input {}) holds {} bytes, fewer than its shape needs", what, input, t.data.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (int64) {
      std::memcpy(&values[i], t.data.data() + i * width, width);
    } else {
      int32_t v;
      std::memcpy(&v, t.data.data() + i * width, width);
      values[i] = v;
    }
  }
  return values;
}

}  // namespace dmo
