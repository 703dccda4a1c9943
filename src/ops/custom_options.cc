#include "custom_options.h"

#include <flatbuffers/flexbuffers.h>
#include <fmt/format.h>

namespace dmo {

namespace {

const char* flex_type_name(flexbuffers::Type type) {
  if (flexbuffers::IsFixedTypedVector(type) || flexbuffers::IsTypedVector(type) || type == flexbuffers::FBT_VECTOR) {
    return "a vector";
  }
  switch (type) {
    case flexbuffers::FBT_NULL: return "null";
    case flexbuffers::FBT_FLOAT:
    case flexbuffers::FBT_INDIRECT_FLOAT: return "a float";
    case flexbuffers::FBT_KEY:
    case flexbuffers::FBT_STRING: return "a string";
    case flexbuffers::FBT_MAP: return "a map";
    case flexbuffers::FBT_BLOB: return "a blob";
    case flexbuffers::FBT_BOOL: return "a bool";
    default: return "an integer";
  }
}

bool is_integer(flexbuffers::Type type) {
  return type == flexbuffers::FBT_INT || type == flexbuffers::FBT_UINT || type == flexbuffers::FBT_INDIRECT_INT ||
         type == flexbuffers::FBT_INDIRECT_UINT;
}

flexbuffers::Map root_map(const OpContext& ctx) {
  const std::vector<uint8_t>& bytes = ctx.op->custom_options;
  ctx.require(!bytes.empty(), "custom options are missing (a FlexBuffer map is expected)");
  ctx.require(flexbuffers::VerifyBuffer(bytes.data(), bytes.size()), "custom options are not a valid FlexBuffer");
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes.data(), bytes.size());
  ctx.require(root.IsMap(), fmt::format("custom options are {}, not a FlexBuffer map", flex_type_name(root.GetType())));
  return root.AsMap();
}

flexbuffers::Reference value_of(const OpContext& ctx, const std::string& key) {
  const flexbuffers::Reference value = root_map(ctx)[key];
  ctx.require(!value.IsNull(), fmt::format("custom option '{}' is missing", key));
  return value;
}

}  // namespace

CustomOptions::CustomOptions(const OpContext& ctx) : ctx_(ctx) { root_map(ctx); }

int32_t CustomOptions::integer(const std::string& key, int64_t min, int64_t max) const {
  const flexbuffers::Reference value = value_of(ctx_, key);
  ctx_.require(is_integer(value.GetType()),
               fmt::format("custom option '{}' is {}, not an integer", key, flex_type_name(value.GetType())));
  const bool is_unsigned = value.GetType() == flexbuffers::FBT_UINT || value.GetType() == flexbuffers::FBT_INDIRECT_UINT;
  if (is_unsigned && value.AsUInt64() > static_cast<uint64_t>(max)) {
    ctx_.fail(fmt::format("custom option '{}' is {}, outside [{}, {}]", key, value.AsUInt64(), min, max));
  }
  const int64_t v = value.AsInt64();
  ctx_.require(v >= min && v <= max, fmt::format("custom option '{}' is {}, outside [{}, {}]", key, v, min, max));
  return static_cast<int32_t>(v);
}

bool CustomOptions::boolean(const std::string& key) const {
  const flexbuffers::Reference value = value_of(ctx_, key);
  ctx_.require(value.IsBool() || is_integer(value.GetType()),
               fmt::format("custom option '{}' is {}, not a bool", key, flex_type_name(value.GetType())));
  return value.AsBool();
}

float CustomOptions::real(const std::string& key) const {
  const flexbuffers::Reference value = value_of(ctx_, key);
  ctx_.require(value.IsFloat() || is_integer(value.GetType()),
               fmt::format("custom option '{}' is {}, not a number", key, flex_type_name(value.GetType())));
  return value.AsFloat();
}

bool CustomOptions::has(const std::string& key) const { return !root_map(ctx_)[key].IsNull(); }

}  // namespace dmo
