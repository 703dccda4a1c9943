// Copy kernels (RESHAPE, CONCATENATION, SPLIT, PAD, STRIDED_SLICE) move
// elements without looking at them, so they load and store an unsigned
// integer as wide as the element: bit-exact for every type, and one load and
// one store per element as in TFLite, which keeps the overlap analysis exact.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "dmo/model/data_type.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// Calls body.template operator()<U>() with U the unsigned type as wide as an
// element of `type`; fails for types without a 1, 2, 4 or 8 byte element.
template <class Body>
void with_element_width(const OpContext& ctx, DataType type, Body&& body) {
  switch (element_size(type).value_or(0)) {
    case 1: return body.template operator()<uint8_t>();
    case 2: return body.template operator()<uint16_t>();
    case 4: return body.template operator()<uint32_t>();
    case 8: return body.template operator()<uint64_t>();
    default:
      ctx.fail(fmt::format("type {} is not supported: it has no 1, 2, 4 or 8 byte element", data_type_name(type)));
  }
}

}  // namespace dmo
