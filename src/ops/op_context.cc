#include "dmo/ops/op_context.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo {

void OpContext::fail(const std::string& what) const {
  throw Error(fmt::format("op {} ({}): {}", op_index, op->name(), what));
}

}  // namespace dmo
