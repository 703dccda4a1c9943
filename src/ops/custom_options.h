// A CUSTOM op's options: the FlexBuffer map TFLM's signal kernels read in
// their Init (by key order; dmo reads them by name). Every key a kernel
// needs is checked here: missing, not a number, or out of the kernel's
// range is an error naming the op and the key.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/ops/op_context.h"

namespace dmo {

class CustomOptions {
 public:
  // Fails unless the op carries a well-formed FlexBuffer map.
  explicit CustomOptions(const OpContext& ctx);

  // An integer key within [min, max].
  int32_t integer(const std::string& key, int64_t min, int64_t max) const;
  // A boolean key (TFLM's ElementAsBool: a bool, or an integer where 0 is false).
  bool boolean(const std::string& key) const;
  // A number key read as TFLM's AsFloat reads it (a float, or an integer converted).
  float real(const std::string& key) const;
  // Whether the map holds `key` (for keys TFLM gives a default when absent).
  bool has(const std::string& key) const;

 private:
  const OpContext& ctx_;
};

}  // namespace dmo
