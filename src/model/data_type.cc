#include "dmo/model/data_type.h"

namespace dmo {

std::string_view data_type_name(DataType type) {
  switch (type) {
    case DataType::kFloat32: return "FLOAT32";
    case DataType::kFloat16: return "FLOAT16";
    case DataType::kInt32: return "INT32";
    case DataType::kUInt8: return "UINT8";
    case DataType::kInt64: return "INT64";
    case DataType::kString: return "STRING";
    case DataType::kBool: return "BOOL";
    case DataType::kInt16: return "INT16";
    case DataType::kComplex64: return "COMPLEX64";
    case DataType::kInt8: return "INT8";
    case DataType::kFloat64: return "FLOAT64";
    case DataType::kComplex128: return "COMPLEX128";
    case DataType::kUInt64: return "UINT64";
    case DataType::kResource: return "RESOURCE";
    case DataType::kVariant: return "VARIANT";
    case DataType::kUInt32: return "UINT32";
    case DataType::kUInt16: return "UINT16";
    case DataType::kInt4: return "INT4";
    case DataType::kBFloat16: return "BFLOAT16";
  }
  return "UNKNOWN";
}

std::optional<int> element_size(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kInt8:
    case DataType::kUInt8:
    // TFLM keeps unpacked INT4 tensors at one byte per element.
    case DataType::kInt4: return 1;
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kInt16:
    case DataType::kUInt16: return 2;
    case DataType::kFloat32:
    case DataType::kInt32:
    case DataType::kUInt32:
    // TFLM gives a RESOURCE element the bytes of the int32 resource id.
    case DataType::kResource: return 4;
    case DataType::kInt64:
    case DataType::kUInt64:
    case DataType::kFloat64:
    case DataType::kComplex64: return 8;
    case DataType::kComplex128: return 16;
    case DataType::kString:
    case DataType::kVariant: return std::nullopt;
  }
  return std::nullopt;
}

bool is_known_data_type(int value) { return value >= 0 && value <= 18; }

}  // namespace dmo
