// The element types a kernel runs, as a list its prepare step checks an
// operand against, naming the operand and the list when it is not there.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "dmo/model/data_type.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// "FLOAT32, INT8, INT16"
inline std::string type_list(std::initializer_list<DataType> types) {
  std::string names;
  for (DataType t : types) {
    if (!names.empty()) names += ", ";
    names += data_type_name(t);
  }
  return names;
}

// Fails unless `type` is one of `supported`.
inline void require_type_among(const OpContext& ctx, std::string_view what, DataType type,
                               std::initializer_list<DataType> supported) {
  if (std::find(supported.begin(), supported.end(), type) != supported.end()) return;
  ctx.fail(std::string(what) + " type " + std::string(data_type_name(type)) +
           " is not supported; supported: " + type_list(supported));
}

}  // namespace dmo
