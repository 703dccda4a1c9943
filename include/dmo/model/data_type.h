// Element types of tensors, numbered as in the TFLite format.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dmo {

enum class DataType : int8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUInt8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
  kComplex128 = 11,
  kUInt64 = 12,
  kResource = 13,
  kVariant = 14,
  kUInt32 = 15,
  kUInt16 = 16,
  kInt4 = 17,
  kBFloat16 = 18,
};

// Name as the TFLite enum spells it ("FLOAT32", "INT8", ...).
std::string_view data_type_name(DataType type);

// Bytes per element as TFLM stores it (RESOURCE: its int32 resource id);
// nullopt for types with no fixed element size (STRING, VARIANT) or values
// outside the enum.
std::optional<int> element_size(DataType type);

bool is_known_data_type(int value);

}  // namespace dmo
