#include "dmo/tflite/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "dmo/error.h"
#include "dmo/tflite/offline_plan.h"
#include "front_builder.h"
#include "tflite_subset_generated.h"

namespace dmo {

namespace {

namespace fb = ::dmo::tfl;
using tflite_front::Field;
using tflite_front::FrontBuilder;
using tflite_front::Label;
using tflite_front::Target;

// Field ids of the tables the front rewrites (schema order).
enum ModelField : uint16_t {
  kModelVersion = 0,
  kModelOperatorCodes = 1,
  kModelSubgraphs = 2,
  kModelDescription = 3,
  kModelBuffers = 4,
  kModelMetadataBuffer = 5,
  kModelMetadata = 6,
  kModelSignatureDefs = 7,
};
enum SubGraphField : uint16_t {
  kSubGraphTensors = 0,
  kSubGraphInputs = 1,
  kSubGraphOutputs = 2,
  kSubGraphOperators = 3,
  kSubGraphName = 4,
};
enum BufferField : uint16_t { kBufferData = 0, kBufferOffset = 1, kBufferSize = 2 };
enum MetadataField : uint16_t { kMetadataName = 0, kMetadataBuffer = 1 };

// Files this size or larger cannot be flatbuffers; Buffer.offset data beyond
// this is the >2 GB layout, which dmo does not write.
constexpr uint64_t kTwoGigabytes = uint64_t{1} << 31;

// Position of a flatbuffer object inside the file.
size_t position_of(const void* object, std::span<const uint8_t> file) {
  return static_cast<size_t>(static_cast<const uint8_t*>(object) - file.data());
}

// Ids of the fields a table really carries, read from its vtable (the
// generated accessors only know the ids of our schema).
std::vector<uint16_t> present_field_ids(const void* table) {
  const auto* t = static_cast<const uint8_t*>(table);
  int32_t soffset;
  std::memcpy(&soffset, t, 4);
  const uint8_t* vtable = t - soffset;
  uint16_t vtable_size;
  std::memcpy(&vtable_size, vtable, 2);
  std::vector<uint16_t> ids;
  for (uint16_t id = 0; 4 + 2 * id + 2 <= vtable_size; ++id) {
    uint16_t offset;
    std::memcpy(&offset, vtable + 4 + 2 * id, 2);
    if (offset != 0) ids.push_back(id);
  }
  return ids;
}

// Refuses tables with fields newer than the ones the front can re-create.
void require_known_fields(const void* table, uint16_t known_count, const std::string& what,
                          const std::string& source) {
  for (uint16_t id : present_field_ids(table)) {
    if (id >= known_count) {
      throw Error(fmt::format("{}: the {} has field id {}, unknown to dmo's schema (a newer TFLite schema); it "
                              "cannot be re-based safely, so no plan is written",
                              source, what, id));
    }
  }
}

class PlanWriter {
 public:
  PlanWriter(std::span<const uint8_t> file, const OfflinePlan& plan, const std::string& source,
             const std::vector<int32_t>& main_op_order)
      : file_(file), plan_(plan), source_(source), order_(main_op_order) {}

  std::vector<uint8_t> run() {
    open_model();
    check_plan();
    check_order();
    find_existing_plans();
    check_buffers();
    std::vector<uint8_t> out = build();
    check_result(out);
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}", source_, what)); }

  void open_model() {
    if (file_.size() < 8) fail(fmt::format("file is {} bytes, too short for a TFLite model", file_.size()));
    if (std::memcmp(file_.data() + 4, "TFL3", 4) != 0) fail("bytes 4..7 are not the file identifier 'TFL3'");
    if (file_.size() >= kTwoGigabytes) fail(fmt::format("file is {} bytes; files of 2 GB or more are not supported", file_.size()));
    if (!verify(file_)) fail("the flatbuffers verifier rejected the file (corrupt, truncated or not a TFLite model)");
    model_ = fb::GetModel(file_.data());
    require_known_fields(model_, kModelSignatureDefs + 1, "root Model table", source_);
    if (model_->subgraphs()) {
      for (const fb::SubGraph* subgraph : *model_->subgraphs()) {
        tensor_count_ += subgraph->tensors() ? subgraph->tensors()->size() : 0;
      }
    }
    buffer_count_ = model_->buffers() ? model_->buffers()->size() : 0;
  }

  static bool verify(std::span<const uint8_t> bytes) {
    flatbuffers::Verifier::Options options;
    options.max_depth = 64;
    options.max_tables = 10'000'000;
    flatbuffers::Verifier verifier(bytes.data(), bytes.size(), options);
    return fb::VerifyModelBuffer(verifier);
  }

  void check_plan() const {
    const uint32_t subgraph_count = model_->subgraphs() ? model_->subgraphs()->size() : 0;
    if (plan_.version != 0) fail(fmt::format("offline plan version {}, only version 0 exists", plan_.version));
    if (plan_.subgraph_count < 0 || static_cast<uint32_t>(plan_.subgraph_count) != subgraph_count) {
      fail(fmt::format("the offline plan is for {} subgraphs, the model has {}", plan_.subgraph_count,
                       subgraph_count));
    }
    if (plan_.offsets.size() != tensor_count_) {
      fail(fmt::format("the offline plan has {} tensor offsets, the model has {} tensors over all subgraphs",
                       plan_.offsets.size(), tensor_count_));
    }
    for (size_t i = 0; i < plan_.offsets.size(); ++i) {
      if (plan_.offsets[i] < -1) {
        fail(fmt::format("the offline plan gives tensor {} offset {}; offsets are >= 0, or -1 for TFLM to plan",
                         i, plan_.offsets[i]));
      }
    }
  }

  // A new operator order for subgraph 0 names each of its operators once;
  // the SubGraph table is re-created, so it may carry only fields it knows.
  void check_order() const {
    if (order_.empty()) return;
    const fb::SubGraph* main = model_->subgraphs() && model_->subgraphs()->size() > 0 ? model_->subgraphs()->Get(0) : nullptr;
    const uint32_t ops = main && main->operators() ? main->operators()->size() : 0;
    std::vector<char> seen(ops, 0);
    if (order_.size() != ops) fail(fmt::format("the op order has {} ops, subgraph 0 has {}", order_.size(), ops));
    for (int32_t op : order_) {
      if (op < 0 || static_cast<uint32_t>(op) >= ops || seen[static_cast<size_t>(op)]) {
        fail(fmt::format("the op order names op {} out of range or twice", op));
      }
      seen[static_cast<size_t>(op)] = 1;
    }
    require_known_fields(main, kSubGraphName + 1, "SubGraph table 0", source_);
  }

  // The subgraphs vector at `subgraphs` with subgraph 0's operators in the
  // new order (placed after the root: front references point forward).
  void write_reordered_subgraphs(FrontBuilder& front, Label subgraphs) const {
    const Label main = front.new_label();
    const Label operators = front.new_label();
    std::vector<Target> subgraph_targets = {Target::front(main)};
    for (uint32_t s = 1; s < model_->subgraphs()->size(); ++s) subgraph_targets.push_back(blob(model_->subgraphs()->Get(s)));
    front.reference_vector(subgraphs, subgraph_targets);
    const fb::SubGraph* original = model_->subgraphs()->Get(0);
    std::vector<Field> fields;
    auto reuse = [&](uint16_t id, const void* object) {
      if (object) fields.push_back(Field::reference(id, blob(object)));
    };
    reuse(kSubGraphTensors, original->tensors());
    reuse(kSubGraphInputs, original->inputs());
    reuse(kSubGraphOutputs, original->outputs());
    fields.push_back(Field::reference(kSubGraphOperators, Target::front(operators)));
    reuse(kSubGraphName, original->name());
    front.table(main, fields);
    std::vector<Target> operator_targets;
    for (int32_t op : order_) operator_targets.push_back(blob(original->operators()->Get(static_cast<uint32_t>(op))));
    front.reference_vector(operators, operator_targets);
  }

  // Bytes of buffer `index` as the reader sees them: inline data, or the
  // bytes its offset/size point at.
  std::span<const uint8_t> buffer_bytes(uint32_t index) const {
    if (index >= buffer_count_) return {};
    const fb::Buffer* buffer = model_->buffers()->Get(index);
    if (buffer->data() && buffer->data()->size() > 0) return {buffer->data()->data(), buffer->data()->size()};
    if (buffer->offset() > 1) {
      check_buffer_range(index, buffer);
      return file_.subspan(buffer->offset(), buffer->size());
    }
    return {};
  }

  void check_buffer_range(uint32_t index, const fb::Buffer* buffer) const {
    uint64_t offset = buffer->offset(), size = buffer->size();
    if (offset >= kTwoGigabytes || size >= kTwoGigabytes) {
      fail(fmt::format("buffer {} points at bytes [{}, {}), beyond 2 GB; such models are not supported", index,
                       offset, offset + size));
    }
    if (offset + size > file_.size()) {
      fail(fmt::format("buffer {} points at bytes [{}, {}) outside the {}-byte file", index, offset, offset + size,
                       file_.size()));
    }
  }

  // Existing OfflineMemoryAllocation entries must be valid: a broken one
  // means the file is not what its writer meant, and is refused.
  void find_existing_plans() {
    if (!model_->metadata()) return;
    for (uint32_t m = 0; m < model_->metadata()->size(); ++m) {
      const fb::Metadata* entry = model_->metadata()->Get(m);
      if (!entry->name() || entry->name()->str() != kOfflinePlanMetadataName) continue;
      if (entry->buffer() >= buffer_count_) {
        fail(fmt::format("metadata '{}' refers to buffer {}, but the model has {} buffers", kOfflinePlanMetadataName,
                         entry->buffer(), buffer_count_));
      }
      parse_offline_plan(buffer_bytes(entry->buffer()), tensor_count_, source_);
      plan_entries_.push_back(m);
    }
    // An entry's buffer slot can take the new plan only when nothing else
    // reads that buffer; otherwise the entry is re-created with a new buffer.
    std::multiset<uint32_t> readers;
    if (model_->subgraphs()) {
      for (const fb::SubGraph* subgraph : *model_->subgraphs()) {
        if (!subgraph->tensors()) continue;
        for (const fb::Tensor* tensor : *subgraph->tensors()) readers.insert(tensor->buffer());
      }
    }
    for (const fb::Metadata* entry : *model_->metadata()) readers.insert(entry->buffer());
    for (uint32_t m : plan_entries_) {
      uint32_t buffer = model_->metadata()->Get(m)->buffer();
      if (buffer != 0 && readers.count(buffer) == 1) replaced_slots_.insert(buffer);
      else recreated_entries_.insert(m);
    }
  }

  void check_buffers() const {
    for (uint32_t i = 0; i < buffer_count_; ++i) {
      const fb::Buffer* buffer = model_->buffers()->Get(i);
      if (buffer->offset() > 1 && !replaced_slots_.count(i)) {
        check_buffer_range(i, buffer);
        require_known_fields(buffer, kBufferSize + 1, fmt::format("Buffer table {} (stored by offset)", i), source_);
      }
    }
    for (uint32_t m : recreated_entries_) {
      require_known_fields(model_->metadata()->Get(m), kMetadataBuffer + 1, fmt::format("metadata entry {}", m),
                           source_);
    }
  }

  Target blob(const void* object) const { return Target::blob(position_of(object, file_)); }

  std::vector<uint8_t> build() {
    FrontBuilder front;
    const Label root = front.new_label();
    const Label buffers = front.new_label();
    const Label metadata = front.new_label();
    const Label plan_buffer = front.new_label();
    const Label plan_data = front.new_label();

    // The new root: original subtables by reference, new buffers and metadata.
    std::vector<Field> fields;
    if (present(kModelVersion)) fields.push_back(Field::uint32(kModelVersion, model_->version()));
    auto reuse = [&](uint16_t id, const void* object) {
      if (object) fields.push_back(Field::reference(id, blob(object)));
    };
    reuse(kModelOperatorCodes, model_->operator_codes());
    const Label subgraphs = front.new_label();
    if (order_.empty()) reuse(kModelSubgraphs, model_->subgraphs());
    else fields.push_back(Field::reference(kModelSubgraphs, Target::front(subgraphs)));
    reuse(kModelDescription, model_->description());
    fields.push_back(Field::reference(kModelBuffers, Target::front(buffers)));
    reuse(kModelMetadataBuffer, model_->metadata_buffer());
    fields.push_back(Field::reference(kModelMetadata, Target::front(metadata)));
    reuse(kModelSignatureDefs, model_->signature_defs());
    front.table(root, fields);
    if (!order_.empty()) write_reordered_subgraphs(front, subgraphs);

    // Buffers: the original tables, except the replaced plan slot and tables
    // holding an absolute file offset, which moves with the original bytes.
    std::vector<Target> buffer_targets;
    std::vector<std::pair<Label, const fb::Buffer*>> rebased_buffers;
    const bool add_sentinel = buffer_count_ == 0;
    Label sentinel = front.new_label();
    if (add_sentinel) buffer_targets.push_back(Target::front(sentinel));  // buffer 0 stays empty
    for (uint32_t i = 0; i < buffer_count_; ++i) {
      const fb::Buffer* buffer = model_->buffers()->Get(i);
      if (replaced_slots_.count(i)) {
        buffer_targets.push_back(Target::front(plan_buffer));
      } else if (buffer->offset() > 1) {
        rebased_buffers.emplace_back(front.new_label(), buffer);
        buffer_targets.push_back(Target::front(rebased_buffers.back().first));
      } else {
        buffer_targets.push_back(blob(buffer));
      }
    }
    const bool add_entry = plan_entries_.empty();
    const bool append_buffer = add_entry || !recreated_entries_.empty();
    const auto plan_buffer_index = static_cast<uint32_t>(buffer_targets.size());
    if (append_buffer) buffer_targets.push_back(Target::front(plan_buffer));
    front.reference_vector(buffers, buffer_targets);

    // Metadata: the original entries in order, plus a new entry at the end.
    std::vector<Target> metadata_targets;
    std::vector<std::pair<Label, const fb::Metadata*>> recreated;
    const uint32_t metadata_count = model_->metadata() ? model_->metadata()->size() : 0;
    for (uint32_t m = 0; m < metadata_count; ++m) {
      const fb::Metadata* entry = model_->metadata()->Get(m);
      if (recreated_entries_.count(m)) {
        recreated.emplace_back(front.new_label(), entry);
        metadata_targets.push_back(Target::front(recreated.back().first));
      } else {
        metadata_targets.push_back(blob(entry));
      }
    }
    const Label new_entry = front.new_label();
    const Label new_entry_name = front.new_label();
    if (add_entry) metadata_targets.push_back(Target::front(new_entry));
    front.reference_vector(metadata, metadata_targets);

    for (const auto& [label, entry] : recreated) {
      std::vector<Field> entry_fields;
      if (entry->name()) entry_fields.push_back(Field::reference(kMetadataName, blob(entry->name())));
      entry_fields.push_back(Field::uint32(kMetadataBuffer, plan_buffer_index));
      front.table(label, entry_fields);
    }
    if (add_entry) {
      front.table(new_entry, {Field::reference(kMetadataName, Target::front(new_entry_name)),
                              Field::uint32(kMetadataBuffer, plan_buffer_index)});
      front.string(new_entry_name, kOfflinePlanMetadataName);
    }
    if (add_sentinel) front.table(sentinel, {});
    for (const auto& [label, buffer] : rebased_buffers) {
      std::vector<Field> buffer_fields;
      if (buffer->data()) buffer_fields.push_back(Field::reference(kBufferData, blob(buffer->data())));
      buffer_fields.push_back(Field::blob_file_offset(kBufferOffset, buffer->offset()));
      buffer_fields.push_back(Field::uint64(kBufferSize, buffer->size()));
      front.table(label, buffer_fields);
    }
    front.table(plan_buffer, {Field::reference(kBufferData, Target::front(plan_data))});
    words_ = encode_offline_plan(plan_);
    front.byte_vector(plan_data, words_, 16);
    try {
      return front.finish(root, "TFL3", file_);
    } catch (const Error& e) {
      fail(e.what());
    }
  }

  bool present(uint16_t id) const {
    auto ids = present_field_ids(model_);
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }

  // Never hand back a file that does not verify or does not hold the plan.
  void check_result(const std::vector<uint8_t>& out) const {
    if (!verify(out)) fail("internal error: the file with the offline plan does not pass the flatbuffers verifier");
    const fb::Model* model = fb::GetModel(out.data());
    bool found = false;
    for (const fb::Metadata* entry : *model->metadata()) {
      if (!entry->name() || entry->name()->str() != kOfflinePlanMetadataName) continue;
      const fb::Buffer* buffer = model->buffers()->Get(entry->buffer());
      if (!buffer->data() || !std::equal(words_.begin(), words_.end(), buffer->data()->begin(), buffer->data()->end()) ||
          position_of(buffer->data()->data(), out) % 16 != 0) {
        fail("internal error: the written offline plan does not read back");
      }
      found = true;
    }
    if (!found) fail("internal error: the written file has no offline plan");
  }

  std::span<const uint8_t> file_;
  const OfflinePlan& plan_;
  std::string source_;
  const std::vector<int32_t>& order_;
  const fb::Model* model_ = nullptr;
  size_t tensor_count_ = 0;
  uint32_t buffer_count_ = 0;
  std::vector<uint32_t> plan_entries_;     // metadata indices named OfflineMemoryAllocation
  std::set<uint32_t> replaced_slots_;      // buffer indices that take the new plan in place
  std::set<uint32_t> recreated_entries_;   // plan entries whose buffer is shared: new table, new buffer
  std::vector<uint8_t> words_;
};

}  // namespace

std::vector<uint8_t> with_offline_plan(std::span<const uint8_t> original_file, const OfflinePlan& plan,
                                       const std::string& source, const std::vector<int32_t>& main_op_order) {
  return PlanWriter(original_file, plan, source, main_op_order).run();
}

}  // namespace dmo
