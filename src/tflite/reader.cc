#include "dmo/tflite/reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/op_param_table.h"
#include "dmo/tflite/offline_plan.h"
#include "tflite_subset_generated.h"

namespace dmo {

namespace {

namespace fb = ::dmo::tfl;

// The elements of a [long] vector. The verifier checks the alignment of the
// length word only, so in a hostile file the elements can sit 4 bytes off
// an 8-byte boundary, where reading them as int64_t is undefined: copied
// byte-wise instead.
std::vector<int64_t> int64_values(const flatbuffers::Vector<int64_t>& vector) {
  std::vector<int64_t> values(vector.size());
  for (size_t i = 0; i < values.size(); ++i) {
    std::memcpy(&values[i], vector.Data() + i * sizeof(int64_t), sizeof(int64_t));
    values[i] = flatbuffers::EndianScalar(values[i]);
  }
  return values;
}

class Importer {
 public:
  Importer(std::span<const uint8_t> bytes, const std::string& source)
      : bytes_(bytes), source_(source) {}

  Graph run() {
    check_header();
    flatbuffers::Verifier::Options options;
    options.max_depth = 64;
    options.max_tables = 10'000'000;
    flatbuffers::Verifier verifier(bytes_.data(), bytes_.size(), options);
    if (!fb::VerifyModelBuffer(verifier)) {
      fail("the flatbuffers verifier rejected the file (corrupt, truncated or not a TFLite model)");
    }
    model_ = fb::GetModel(bytes_.data());

    Graph graph;
    graph.source = source_;
    graph.version = model_->version();
    if (model_->description()) graph.description = model_->description()->str();
    if (!model_->subgraphs() || model_->subgraphs()->size() == 0) {
      fail("the model has no subgraphs");
    }
    int64_t ops = 0;
    for (const fb::SubGraph* sg : *model_->subgraphs()) ops += sg && sg->operators() ? sg->operators()->size() : 0;
    if (ops > kMaxOps) fail(fmt::format("the model has {} ops, above the {}-op limit", ops, kMaxOps));
    for (uint32_t s = 0; s < model_->subgraphs()->size(); ++s) {
      graph.subgraphs.push_back(import_subgraph(s));
    }
    import_metadata(graph);
    return graph;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: {}", source_, what));
  }

  void check_header() const {
    if (bytes_.size() < 8) fail(fmt::format("file is {} bytes, too short for a TFLite model", bytes_.size()));
    if (std::memcmp(bytes_.data() + 4, "TFL3", 4) != 0) {
      fail(fmt::format("bytes 4..7 are {:02x} {:02x} {:02x} {:02x}, not the file identifier 'TFL3' (not a TFLite model)",
                       bytes_[4], bytes_[5], bytes_[6], bytes_[7]));
    }
  }

  uint32_t buffer_count() const { return model_->buffers() ? model_->buffers()->size() : 0; }

  // Bytes held by buffer `index`, inline or (for files over 2 GB) by offset.
  std::span<const uint8_t> buffer_bytes(uint32_t index, const std::string& who) const {
    if (index >= buffer_count()) {
      if (index == 0) return {};
      fail(fmt::format("{} refers to buffer {}, but the model has {} buffers", who, index, buffer_count()));
    }
    const fb::Buffer* buffer = model_->buffers()->Get(index);
    if (!buffer) return {};
    if (buffer->data() && buffer->data()->size() > 0) {
      return {buffer->data()->data(), buffer->data()->size()};
    }
    if (buffer->offset() > 1) {
      uint64_t offset = buffer->offset(), size = buffer->size();
      if (offset > bytes_.size() || size > bytes_.size() - offset) {
        fail(fmt::format("buffer {} points at bytes [{}, {}) outside the {}-byte file", index, offset,
                         offset + size, bytes_.size()));
      }
      return bytes_.subspan(offset, size);
    }
    return {};
  }

  Subgraph import_subgraph(uint32_t s) {
    const fb::SubGraph* sg = model_->subgraphs()->Get(s);
    Subgraph out;
    if (sg->name()) out.name = sg->name()->str();
    uint32_t tensor_count = sg->tensors() ? sg->tensors()->size() : 0;
    for (uint32_t t = 0; t < tensor_count; ++t) {
      out.tensors.push_back(import_tensor(s, t, sg->tensors()->Get(t)));
    }
    auto indices = [&](const flatbuffers::Vector<int32_t>* list, const std::string& who, bool allow_omitted) {
      std::vector<int32_t> result;
      if (!list) return result;
      for (int32_t index : *list) {
        if (allow_omitted && index == kNoTensor) {
          result.push_back(index);
          continue;
        }
        if (index < 0 || static_cast<uint32_t>(index) >= tensor_count) {
          fail(fmt::format("subgraph {}: {} refers to tensor {}, but the subgraph has {} tensors", s, who,
                           index, tensor_count));
        }
        result.push_back(index);
      }
      return result;
    };
    out.inputs = indices(sg->inputs(), "the input list", false);
    out.outputs = indices(sg->outputs(), "the output list", false);
    uint32_t op_count = sg->operators() ? sg->operators()->size() : 0;
    for (uint32_t i = 0; i < op_count; ++i) {
      const fb::Operator* fop = sg->operators()->Get(i);
      Op op = import_op_code(s, i, fop);
      std::string who = fmt::format("op {} ({})", i, op.name());
      op.inputs = indices(fop->inputs(), who + " input", true);
      op.outputs = indices(fop->outputs(), who + " output", false);
      op.params = import_params(s, i, op, fop);
      if (fop->custom_options()) op.custom_options.assign(fop->custom_options()->begin(), fop->custom_options()->end());
      out.ops.push_back(std::move(op));
    }
    check_execution_order(out, static_cast<int>(s), source_);
    check_constant_gather_indices(out, s);
    return out;
  }

  Tensor import_tensor(uint32_t s, uint32_t t, const fb::Tensor* ft) {
    Tensor tensor;
    if (ft->name()) tensor.name = ft->name()->str();
    std::string who = fmt::format("subgraph {} tensor {} '{}'", s, t, tensor.name);
    int type = static_cast<int>(ft->type());
    if (!is_known_data_type(type)) fail(fmt::format("{} has unknown type {}", who, type));
    tensor.type = static_cast<DataType>(type);
    if (ft->shape()) tensor.shape.assign(ft->shape()->begin(), ft->shape()->end());
    if (tensor.shape.size() > 16) fail(fmt::format("{} has {} dimensions", who, tensor.shape.size()));
    for (int32_t dim : tensor.shape) {
      if (dim < 0) fail(fmt::format("{} has negative dimension {} in shape {}", who, dim, shape_to_string(tensor.shape)));
    }
    tensor.is_variable = ft->is_variable();
    tensor.buffer_index = static_cast<int32_t>(ft->buffer());

    std::optional<int> elem = element_size(tensor.type);
    int64_t max_elements = kMaxTensorBytes / (elem ? *elem : 1);
    std::optional<int64_t> count = checked_element_count(tensor.shape, max_elements);
    if (!count) {
      fail(fmt::format("{} has shape {} whose size overflows the {} byte limit of a tensor", who,
                       shape_to_string(tensor.shape), kMaxTensorBytes));
    }
    tensor.element_count = *count;

    std::span<const uint8_t> data = buffer_bytes(ft->buffer(), who);
    tensor.is_constant = !data.empty();
    if (elem) {
      tensor.byte_size = *count * *elem;
      int64_t expected = tensor.type == DataType::kInt4 ? (*count + 1) / 2 : tensor.byte_size;
      if (tensor.is_constant && static_cast<int64_t>(data.size()) != expected &&
          static_cast<int64_t>(data.size()) != tensor.byte_size) {
        fail(fmt::format("{} (shape {}, {}) needs {} bytes, but its buffer {} holds {}", who,
                         shape_to_string(tensor.shape), data_type_name(tensor.type), tensor.byte_size,
                         ft->buffer(), data.size()));
      }
    } else if (tensor.is_constant) {
      tensor.byte_size = static_cast<int64_t>(data.size());
    } else {
      // No fixed element size: TFLM cannot plan it; keep it visible with size 0
      // only when it holds nothing, otherwise refuse.
      if (*count != 0 && type != static_cast<int>(DataType::kVariant)) {
        fail(fmt::format("{} is a non-constant {} tensor, whose size is not fixed", who,
                         data_type_name(tensor.type)));
      }
      tensor.byte_size = 0;
    }
    tensor.data.assign(data.begin(), data.end());
    import_quantization(tensor, ft->quantization(), who);
    return tensor;
  }

  void import_quantization(Tensor& tensor, const fb::QuantizationParameters* q, const std::string& who) {
    if (!q) return;
    if (q->scale()) tensor.quantization.scale.assign(q->scale()->begin(), q->scale()->end());
    if (q->zero_point()) tensor.quantization.zero_point = int64_values(*q->zero_point());
    tensor.quantization.quantized_dimension = q->quantized_dimension();
    const Quantization& quant = tensor.quantization;
    if (!quant.zero_point.empty() && quant.zero_point.size() != quant.scale.size()) {
      fail(fmt::format("{} has {} quantization scales but {} zero points", who, quant.scale.size(),
                       quant.zero_point.size()));
    }
    if (quant.scale.size() > 1) {
      int32_t dim = quant.quantized_dimension;
      // Converters write the weights' channel axis on 1-D biases too (3 for a
      // depthwise bias); the only axis a 1-D tensor has is meant.
      if (tensor.shape.size() == 1 && dim != 0) dim = tensor.quantization.quantized_dimension = 0;
      if (dim < 0 || static_cast<size_t>(dim) >= tensor.shape.size()) {
        fail(fmt::format("{} is quantized along dimension {}, but has {} dimensions", who, dim,
                         tensor.shape.size()));
      }
      if (static_cast<int64_t>(quant.scale.size()) != tensor.shape[static_cast<size_t>(dim)]) {
        fail(fmt::format("{} has {} per-channel scales for dimension {} of size {}", who, quant.scale.size(),
                         dim, tensor.shape[static_cast<size_t>(dim)]));
      }
    }
  }

  Op import_op_code(uint32_t s, uint32_t i, const fb::Operator* fop) const {
    uint32_t code_count = model_->operator_codes() ? model_->operator_codes()->size() : 0;
    if (fop->opcode_index() >= code_count) {
      fail(fmt::format("subgraph {} op {} uses operator code {}, but the model has {}", s, i,
                       fop->opcode_index(), code_count));
    }
    const fb::OperatorCode* code = model_->operator_codes()->Get(fop->opcode_index());
    Op op;
    // Files written before the int32 field existed only set the int8 one.
    op.builtin_code = std::max<int32_t>(code->deprecated_builtin_code(), code->builtin_code());
    op.version = code->version();
    if (code->custom_code()) op.custom_code = code->custom_code()->str();
    return op;
  }

  OpParams import_params(uint32_t s, uint32_t i, Op& op, const fb::Operator* fop) const {
    std::string who = fmt::format("subgraph {} op {} ({})", s, i, op.name());
    const fb::BuiltinOptions type = fop->builtin_options_type();
    check_options_type(op, type, who);
    OpParams params;
    bool decoded = visit_op_options(op.builtin_code, [&](const auto& entry) {
      using P = typename std::decay_t<decltype(entry)>::Params;
      // Options of another type are as good as absent (check_options_type
      // refused those that belong to another op).
      const auto* table = type == entry.union_tag ? static_cast<const flatbuffers::Table*>(fop->builtin_options())
                                                  : nullptr;
      if (!table && entry.required) {
        fail(fmt::format("{} lacks its {} (options type {})", who, entry.table_name, static_cast<int>(type)));
      }
      P p;  // without a table: dmo's defaults, not the schema's
      if (table) for_each_param_field<P>([&](const auto& field) { import_field(*table, field, p, who); });
      params = std::move(p);
    });
    if (!decoded) op.has_undecoded_options = type != fb::BuiltinOptions_NONE;
    return params;
  }

  template <class P, class M>
  void import_field(const flatbuffers::Table& table, const ScalarField<P, M>& field, P& p,
                    const std::string& who) const {
    using Wire = WireScalar<M>;
    const Wire value = table.GetField<Wire>(vtable_offset(field.id), static_cast<Wire>(field.schema_default));
    if constexpr (std::is_enum_v<M>) {
      if (value < 0 || value > OptionEnum<M>::kMax) {
        fail(fmt::format("{} has unknown {} {}", who, OptionEnum<M>::kWhat, static_cast<int>(value)));
      }
    }
    if constexpr (std::is_same_v<M, int32_t>) {
      if (field.rule == FieldRule::kAtLeastOne && value < 1) {
        fail(fmt::format("{} has {} = {}, must be at least 1", who, field.name, value));
      }
      if (field.rule == FieldRule::kNegativeAsZero && value < 0) {
        p.*field.member = 0;
        return;
      }
    }
    p.*field.member = static_cast<M>(value);
  }

  template <class P>
  void import_field(const flatbuffers::Table& table, const IntVectorField<P>& field, P& p, const std::string&) const {
    const auto* values = table.GetPointer<const flatbuffers::Vector<int32_t>*>(vtable_offset(field.id));
    if (!values) return;
    (p.*field.member).assign(values->begin(), values->end());
    if (field.given) p.*field.given = true;
  }

  template <class P>
  void import_field(const flatbuffers::Table& table, const StringField<P>& field, P& p, const std::string&) const {
    if (const auto* text = table.GetPointer<const flatbuffers::String*>(vtable_offset(field.id))) {
      p.*field.member = text->str();
    }
  }

  // Options of a type dmo knows must belong to the op that carries them.
  void check_options_type(const Op& op, fb::BuiltinOptions type, const std::string& who) const {
    if (op.is(OpKind::kCustom) || type == fb::BuiltinOptions_NONE) return;
    std::vector<int32_t> owners;
    std::apply(
        [&](const auto&... entry) {
          ((entry.union_tag == type ? owners.push_back(static_cast<int32_t>(entry.kind)) : void()), ...);
        },
        kOpOptions);
    for (int32_t code : owners_without_decoding(type)) owners.push_back(code);
    if (owners.empty()) return;  // a type this schema subset does not name
    if (std::find(owners.begin(), owners.end(), op.builtin_code) == owners.end()) {
      fail(fmt::format("{} carries {}, which belong to {}", who, fb::EnumNameBuiltinOptions(type),
                       builtin_op_name(owners.front())));
    }
  }

  // Ops that own an options table of the schema subset though dmo does not
  // decode it for them.
  static std::vector<int32_t> owners_without_decoding(fb::BuiltinOptions type) {
    switch (type) {
      case fb::BuiltinOptions_Pool2DOptions: return {12};  // L2_POOL_2D
      case fb::BuiltinOptions_PadOptions:
        return {static_cast<int32_t>(OpKind::kPad), static_cast<int32_t>(OpKind::kPadV2)};
      case fb::BuiltinOptions_ReducerOptions:
        return {74, 81, 82, 89, 91, 147};  // SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL
      default: return {};
    }
  }

  // Constant GATHER indices must address the input: a hostile model can
  // otherwise make any kernel read outside its tensor.
  void check_constant_gather_indices(const Subgraph& sg, uint32_t s) const {
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      const Op& op = sg.ops[i];
      if (!op.is(OpKind::kGather) || op.inputs.size() < 2 || op.inputs[0] < 0 || op.inputs[1] < 0) continue;
      const Tensor& params = sg.tensors[static_cast<size_t>(op.inputs[0])];
      const Tensor& indices = sg.tensors[static_cast<size_t>(op.inputs[1])];
      if (!indices.is_constant) continue;
      int32_t axis = std::get<GatherParams>(op.params).axis;
      if (axis < 0) axis += static_cast<int32_t>(params.shape.size());
      if (axis < 0 || static_cast<size_t>(axis) >= params.shape.size()) {
        fail(fmt::format("subgraph {} op {} (GATHER) has axis {} for a {}-D input", s, i, axis, params.shape.size()));
      }
      int64_t limit = params.shape[static_cast<size_t>(axis)];
      for (int64_t e = 0; e < indices.element_count; ++e) {
        int64_t value = 0;
        if (indices.type == DataType::kInt32) {
          int32_t v;
          std::memcpy(&v, indices.data.data() + 4 * e, 4);
          value = v;
        } else if (indices.type == DataType::kInt64) {
          std::memcpy(&value, indices.data.data() + 8 * e, 8);
        } else {
          continue;
        }
        if (value < 0 || value >= limit) {
          fail(fmt::format("subgraph {} op {} (GATHER): index {} in constant tensor {} '{}' is outside dimension "
                           "{} of size {}",
                           s, i, value, op.inputs[1], indices.name, axis, limit));
        }
      }
    }
  }

  void import_metadata(Graph& graph) const {
    if (!model_->metadata()) return;
    for (uint32_t m = 0; m < model_->metadata()->size(); ++m) {
      const fb::Metadata* meta = model_->metadata()->Get(m);
      MetadataEntry entry;
      if (meta->name()) entry.name = meta->name()->str();
      entry.buffer_index = meta->buffer();
      std::string who = fmt::format("metadata '{}'", entry.name);
      std::span<const uint8_t> data = buffer_bytes(entry.buffer_index, who);
      if (entry.name == kOfflinePlanMetadataName) {
        graph.offline_plan = parse_offline_plan(data, graph.total_tensor_count(), source_);
      } else {
        entry.data.assign(data.begin(), data.end());
      }
      graph.metadata.push_back(std::move(entry));
    }
  }

  std::span<const uint8_t> bytes_;
  std::string source_;
  const fb::Model* model_ = nullptr;
};

}  // namespace

Graph read_tflite_bytes(std::span<const uint8_t> bytes, const std::string& source) {
  return Importer(bytes, source).run();
}

namespace {

// The file's bytes mapped read-only, its pages read in by one call: no copy
// of a model whose weights the import copies anyway, and no page faults
// one by one (costly on virtual machines).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open file", path));
    struct stat status {};
    const bool regular = fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
    size_ = regular ? static_cast<size_t>(status.st_size) : 0;
    // Reading the whole file: models for micro-controllers are small.
    if (regular && status.st_size > kMaxModelFileBytes) {
      close(fd);
      throw Error(fmt::format("{}: file is {} bytes, above the {}-byte limit (larger than a TFLite flatbuffer can be)",
                              path, status.st_size, kMaxModelFileBytes));
    }
    void* mapped = regular && size_ > 0 ? mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : nullptr;
    close(fd);
    if (!regular || mapped == MAP_FAILED) throw Error(fmt::format("{}: cannot read file", path));
    data_ = static_cast<const uint8_t*>(mapped);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  const uint8_t* data_ = nullptr;  // nothing for an empty file
  size_t size_ = 0;
};

}  // namespace

Graph read_tflite_file(const std::string& path) {
  const MappedFile file(path);
  return read_tflite_bytes(file.bytes(), path);
}

}  // namespace dmo
