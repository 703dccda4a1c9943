// The freestanding headers a generated project compiles with: dmo's own
// shared loop nests (include/dmo/ops/eval/ and what they include), built
// into the binary at configure time, so codegen needs no source tree.
#pragma once

#include <span>
#include <string_view>

namespace dmo {

struct EmbeddedHeader {
  std::string_view path;  // relative to include/, e.g. "dmo/ops/eval/conv_loops.h"
  std::string_view text;
};

std::span<const EmbeddedHeader> device_kernel_headers();

}  // namespace dmo
