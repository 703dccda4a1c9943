// Lays out flatbuffer objects front to back, ahead of an existing flatbuffer
// (the "blob") that follows unchanged. Flatbuffer references are unsigned and
// relative to the referencing field, so they can only point forward: every
// reference written here targets an object placed later in the front, or an
// object inside the blob. The front is padded to a multiple of 16 bytes so
// that everything in the blob keeps its alignment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace dmo::tflite_front {

// A position in the front, fixed when the object is written.
struct Label {
  size_t id = 0;
};

// What a reference points at: an object of the front, or one in the blob at
// its position in the original file.
struct Target {
  bool in_blob = false;
  size_t value = 0;  // label id, or blob position

  static Target front(Label label) { return {false, label.id}; }
  static Target blob(size_t position) { return {true, position}; }
};

// One field of a table being written.
struct Field {
  enum class Kind { kUint32, kUint64, kBlobFileOffset, kReference };
  uint16_t id = 0;
  Kind kind = Kind::kUint32;
  uint64_t value = 0;  // scalars; for kBlobFileOffset the offset in the original file
  Target target;       // kReference

  static Field uint32(uint16_t id, uint32_t value) { return {id, Kind::kUint32, value, {}}; }
  static Field uint64(uint16_t id, uint64_t value) { return {id, Kind::kUint64, value, {}}; }
  // A uint64 absolute file offset into the blob: re-based by the front size.
  static Field blob_file_offset(uint16_t id, uint64_t original) { return {id, Kind::kBlobFileOffset, original, {}}; }
  static Field reference(uint16_t id, Target target) { return {id, Kind::kReference, 0, target}; }
};

class FrontBuilder {
 public:
  FrontBuilder();  // reserves the root offset and the file identifier

  Label new_label();

  // Each writer places `at` on the object it writes.
  void table(Label at, const std::vector<Field>& fields);
  void reference_vector(Label at, const std::vector<Target>& elements);
  void string(Label at, std::string_view text);
  // A [ubyte] whose first data byte is a multiple of `alignment` from the start.
  void byte_vector(Label at, std::span<const uint8_t> bytes, size_t alignment);

  // The complete file: the front (root offset -> `root`, `identifier` at bytes
  // 4..7, padding to 16 bytes) followed by `blob`. Throws dmo::Error when the
  // result would exceed flatbuffers' 2 GB limit.
  std::vector<uint8_t> finish(Label root, std::string_view identifier, std::span<const uint8_t> blob);

 private:
  struct Reference {
    size_t field_position;
    Target target;
  };
  struct FileOffset {
    size_t field_position;
    uint64_t original;
  };

  void pad_to(size_t alignment);
  void place(Label label);
  void put_uint16(uint16_t value);
  void put_uint32(uint32_t value);
  void put_uint64(uint64_t value);
  void put_reference(Target target);
  static void store_uint32(std::vector<uint8_t>& out, size_t position, uint32_t value);

  std::vector<uint8_t> bytes_;
  std::vector<size_t> label_positions_;  // SIZE_MAX until placed
  std::vector<Reference> references_;
  std::vector<FileOffset> file_offsets_;
};

}  // namespace dmo::tflite_front
