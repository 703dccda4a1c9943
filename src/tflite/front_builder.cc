#include "front_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "dmo/error.h"

namespace dmo::tflite_front {

namespace {

constexpr size_t kUnplaced = std::numeric_limits<size_t>::max();
// The blob starts at a multiple of this: TFLite aligns buffer data to 16.
constexpr size_t kFrontAlignment = 16;
// flatbuffers' limit (offsets are int32 inside the verifier).
constexpr uint64_t kMaxFileBytes = (uint64_t{1} << 31) - 1;

}  // namespace

FrontBuilder::FrontBuilder() : bytes_(8, 0) {}

Label FrontBuilder::new_label() {
  label_positions_.push_back(kUnplaced);
  return Label{label_positions_.size() - 1};
}

void FrontBuilder::pad_to(size_t alignment) {
  while (bytes_.size() % alignment != 0) bytes_.push_back(0);
}

void FrontBuilder::place(Label label) {
  if (label_positions_.at(label.id) != kUnplaced) throw Error("internal: a front object was written twice");
  label_positions_[label.id] = bytes_.size();
}

void FrontBuilder::put_uint16(uint16_t value) {
  bytes_.push_back(static_cast<uint8_t>(value));
  bytes_.push_back(static_cast<uint8_t>(value >> 8));
}

void FrontBuilder::put_uint32(uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void FrontBuilder::put_uint64(uint64_t value) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void FrontBuilder::put_reference(Target target) {
  references_.push_back({bytes_.size(), target});
  put_uint32(0);  // resolved by finish()
}

void FrontBuilder::store_uint32(std::vector<uint8_t>& out, size_t position, uint32_t value) {
  for (int i = 0; i < 4; ++i) out[position + static_cast<size_t>(i)] = static_cast<uint8_t>(value >> (8 * i));
}

void FrontBuilder::table(Label at, const std::vector<Field>& fields) {
  // Inline layout: the vtable offset, 4-byte fields, then 8-byte fields at
  // multiples of 8 (the table itself starts at a multiple of 8).
  std::vector<const Field*> narrow, wide;
  uint16_t field_count = 0;
  for (const Field& field : fields) {
    bool is_wide = field.kind == Field::Kind::kUint64 || field.kind == Field::Kind::kBlobFileOffset;
    (is_wide ? wide : narrow).push_back(&field);
    field_count = std::max<uint16_t>(field_count, static_cast<uint16_t>(field.id + 1));
  }
  std::vector<uint16_t> field_offsets(field_count, 0);
  size_t inline_size = 4;
  for (const Field* field : narrow) {
    field_offsets[field->id] = static_cast<uint16_t>(inline_size);
    inline_size += 4;
  }
  if (!wide.empty()) inline_size = (inline_size + 7) / 8 * 8;
  for (const Field* field : wide) {
    field_offsets[field->id] = static_cast<uint16_t>(inline_size);
    inline_size += 8;
  }

  pad_to(2);
  const size_t vtable_position = bytes_.size();
  put_uint16(static_cast<uint16_t>(4 + 2 * field_count));
  put_uint16(static_cast<uint16_t>(inline_size));
  for (uint16_t offset : field_offsets) put_uint16(offset);

  pad_to(8);
  place(at);
  const size_t table_position = bytes_.size();
  put_uint32(static_cast<uint32_t>(table_position - vtable_position));  // soffset: vtable lies before
  for (const Field* field : narrow) {
    if (field->kind == Field::Kind::kReference) put_reference(field->target);
    else put_uint32(static_cast<uint32_t>(field->value));
  }
  if (!wide.empty()) pad_to(8);
  for (const Field* field : wide) {
    if (field->kind == Field::Kind::kBlobFileOffset) file_offsets_.push_back({bytes_.size(), field->value});
    put_uint64(field->value);
  }
  if (bytes_.size() != table_position + inline_size) throw Error("internal: front table layout mismatch");
}

void FrontBuilder::reference_vector(Label at, const std::vector<Target>& elements) {
  pad_to(4);
  place(at);
  put_uint32(static_cast<uint32_t>(elements.size()));
  for (const Target& target : elements) put_reference(target);
}

void FrontBuilder::string(Label at, std::string_view text) {
  pad_to(4);
  place(at);
  put_uint32(static_cast<uint32_t>(text.size()));
  bytes_.insert(bytes_.end(), text.begin(), text.end());
  bytes_.push_back(0);  // flatbuffers strings end in a NUL the verifier checks
}

void FrontBuilder::byte_vector(Label at, std::span<const uint8_t> bytes, size_t alignment) {
  alignment = std::max<size_t>(alignment, 4);
  // The length word sits right before the data.
  while ((bytes_.size() + 4) % alignment != 0) bytes_.push_back(0);
  place(at);
  put_uint32(static_cast<uint32_t>(bytes.size()));
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

std::vector<uint8_t> FrontBuilder::finish(Label root, std::string_view identifier, std::span<const uint8_t> blob) {
  if (identifier.size() != 4) throw Error("internal: a file identifier has 4 characters");
  references_.insert(references_.begin(), Reference{0, Target::front(root)});
  pad_to(kFrontAlignment);
  const size_t front_size = bytes_.size();
  if (uint64_t{front_size} + blob.size() >= kMaxFileBytes) {
    throw Error(fmt::format("the result would be {} bytes, over the 2 GB limit of a flatbuffer",
                            uint64_t{front_size} + blob.size()));
  }
  std::vector<uint8_t> out = bytes_;
  std::copy(identifier.begin(), identifier.end(), out.begin() + 4);
  for (const Reference& reference : references_) {
    size_t target;
    if (reference.target.in_blob) {
      if (reference.target.value >= blob.size()) throw Error("internal: a reference points past the original file");
      target = front_size + reference.target.value;
    } else {
      target = label_positions_.at(reference.target.value);
      if (target == kUnplaced) throw Error("internal: a front object was referenced but never written");
    }
    if (target <= reference.field_position) throw Error("internal: a flatbuffer reference must point forward");
    store_uint32(out, reference.field_position, static_cast<uint32_t>(target - reference.field_position));
  }
  for (const FileOffset& offset : file_offsets_) {
    uint64_t rebased = offset.original + front_size;
    for (int i = 0; i < 8; ++i) out[offset.field_position + static_cast<size_t>(i)] = static_cast<uint8_t>(rebased >> (8 * i));
  }
  out.insert(out.end(), blob.begin(), blob.end());
  return out;
}

}  // namespace dmo::tflite_front
