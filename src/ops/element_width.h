// Copy kernels (RESHAPE, CONCATENATION, SPLIT, PAD, STRIDED_SLICE) move
// elements without looking at them, so they load and store an unsigned
// integer as wide as the element: bit-exact for every type, and one load and
// one store per element as in TFLite, which keeps the overlap analysis exact.
// Prepare finds the width (and refuses types without one); eval dispatches on it.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "dmo/model/data_type.h"
#include "dmo/ops/op_context.h"

namespace dmo {

enum class ElementWidth : uint8_t { k1 = 1, k2 = 2, k4 = 4, k8 = 8 };

// The element width of `type`; fails for types without a 1, 2, 4 or 8 byte element.
inline ElementWidth element_width(const OpContext& ctx, DataType type) {
  switch (element_size(type).value_or(0)) {
    case 1: return ElementWidth::k1;
    case 2: return ElementWidth::k2;
    case 4: return ElementWidth::k4;
    case 8: return ElementWidth::k8;
    default:
      ctx.fail(fmt::format("type {} is not supported: it has no 1, 2, 4 or 8 byte element", data_type_name(type)));
  }
}

// Calls body.template operator()<U>() with U the unsigned type `width` bytes wide.
template <class Body>
void with_element_width(ElementWidth width, Body&& body) {
  switch (width) {
    case ElementWidth::k1: return body.template operator()<uint8_t>();
    case ElementWidth::k2: return body.template operator()<uint16_t>();
    case ElementWidth::k4: return body.template operator()<uint32_t>();
    case ElementWidth::k8: return body.template operator()<uint64_t>();
  }
}

}  // namespace dmo
