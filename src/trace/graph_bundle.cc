#include "dmo/trace/graph_bundle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <type_traits>

#include "dmo/error.h"
#include "dmo/model/op_param_table.h"

namespace dmo {

namespace {

constexpr char kMagic[8] = {'D', 'M', 'O', 'G', 'R', 'P', 'H', '1'};

class Writer {
 public:
  template <typename T>
  void scalar(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), p, p + sizeof(T));
  }
  void boolean(bool b) { scalar<uint8_t>(b ? 1 : 0); }
  void size(size_t n) { scalar<uint64_t>(n); }
  void string(const std::string& s) {
    size(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
  template <typename T>
  void vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    size(v.size());
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(T));
  }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  template <typename T>
  T scalar() {
    need(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  bool boolean() { return scalar<uint8_t>() != 0; }
  size_t size() {
    uint64_t n = scalar<uint64_t>();
    if (n > bytes_.size() - at_ && n > 0)
      fail(fmt::format("a count of {} exceeds the {} bytes left", n, bytes_.size() - at_));
    return static_cast<size_t>(n);
  }
  std::string string() {
    size_t n = size();
    need(n);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }
  template <typename T>
  std::vector<T> vector() {
    size_t n = size();
    need(n * sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), bytes_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }
  bool at_end() const { return at_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: bad graph bundle at byte {}: {}", source_, at_, what));
  }

 private:
  void need(size_t n) {
    if (n > bytes_.size() - at_) fail("truncated");
  }
  std::span<const uint8_t> bytes_;
  const std::string& source_;
  size_t at_ = 0;
};

// The variant index as the tag, then the fields the op parameter table
// names, in its order.
void write_params(Writer& w, const OpParams& params) {
  w.scalar<uint32_t>(static_cast<uint32_t>(params.index()));
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        for_each_param_field<P>([&](const auto& field) {
          if constexpr (kIsVectorField<std::decay_t<decltype(field)>>) {
            w.vector(p.*field.member);
            if (field.given) w.boolean(p.*field.given);
          } else if constexpr (kIsStringField<std::decay_t<decltype(field)>>) {
            w.string(p.*field.member);
          } else if constexpr (std::is_same_v<std::decay_t<decltype(p.*field.member)>, bool>) {
            w.boolean(p.*field.member);
          } else {
            w.scalar(p.*field.member);
          }
        });
      },
      params);
}

// Builds alternative I of OpParams when it is the tag, reading its fields.
template <size_t I = 0>
OpParams read_params_alternative(Reader& r, size_t tag) {
  if constexpr (I == std::variant_size_v<OpParams>) {
    r.fail(fmt::format("unknown op parameters tag {}", tag));
  } else {
    if (tag != I) return read_params_alternative<I + 1>(r, tag);
    using P = std::variant_alternative_t<I, OpParams>;
    P p{};
    for_each_param_field<P>([&](const auto& field) {
      using Member = std::decay_t<decltype(p.*field.member)>;
      if constexpr (kIsVectorField<std::decay_t<decltype(field)>>) {
        p.*field.member = r.vector<int32_t>();
        if (field.given) p.*field.given = r.boolean();
      } else if constexpr (kIsStringField<std::decay_t<decltype(field)>>) {
        p.*field.member = r.string();
      } else if constexpr (std::is_same_v<Member, bool>) {
        p.*field.member = r.boolean();
      } else {
        p.*field.member = r.scalar<Member>();
      }
    });
    return OpParams{std::move(p)};
  }
}

void write_tensor(Writer& w, const Tensor& t) {
  w.string(t.name);
  w.scalar(t.type);
  w.vector(t.shape);
  w.vector(t.quantization.scale);
  w.vector(t.quantization.zero_point);
  w.scalar(t.quantization.quantized_dimension);
  w.boolean(t.is_constant);
  w.boolean(t.is_variable);
  w.scalar(t.buffer_index);
  w.vector(t.data);
  w.scalar(t.element_count);
  w.scalar(t.byte_size);
}

Tensor read_tensor(Reader& r) {
  Tensor t;
  t.name = r.string();
  t.type = r.scalar<DataType>();
  t.shape = r.vector<int32_t>();
  t.quantization.scale = r.vector<float>();
  t.quantization.zero_point = r.vector<int64_t>();
  t.quantization.quantized_dimension = r.scalar<int32_t>();
  t.is_constant = r.boolean();
  t.is_variable = r.boolean();
  t.buffer_index = r.scalar<int32_t>();
  t.data = r.vector<uint8_t>();
  t.element_count = r.scalar<int64_t>();
  t.byte_size = r.scalar<int64_t>();
  if (t.element_count < 0 || t.byte_size < 0) r.fail(fmt::format("tensor '{}' has a negative size", t.name));
  if (t.is_constant && static_cast<int64_t>(t.data.size()) < t.byte_size) {
    r.fail(fmt::format("constant tensor '{}' has {} of its {} bytes", t.name, t.data.size(), t.byte_size));
  }
  return t;
}

void check_index(Reader& r, int32_t index, size_t tensors, bool optional) {
  if ((optional && index == kNoTensor) || (index >= 0 && static_cast<size_t>(index) < tensors)) return;
  r.fail(fmt::format("tensor index {} is outside the {} tensors", index, tensors));
}

}  // namespace

std::vector<uint8_t> encode_graph_bundle(const std::vector<TracedGraph>& graphs) {
  Writer w;
  for (char c : kMagic) w.scalar(c);
  w.size(graphs.size());
  for (const auto& g : graphs) {
    w.string(g.graph.source);
    w.vector(g.ops);
    w.size(g.graph.subgraphs.size());
    for (const Subgraph& sg : g.graph.subgraphs) {
      w.string(sg.name);
      w.size(sg.tensors.size());
      for (const Tensor& t : sg.tensors) write_tensor(w, t);
      w.size(sg.ops.size());
      for (const Op& op : sg.ops) {
        w.scalar(op.builtin_code);
        w.string(op.custom_code);
        w.vector(op.custom_options);
        w.scalar(op.version);
        w.vector(op.inputs);
        w.vector(op.outputs);
        write_params(w, op.params);
        w.boolean(op.has_undecoded_options);
      }
      w.vector(sg.inputs);
      w.vector(sg.outputs);
    }
  }
  return std::move(w.out);
}

std::vector<TracedGraph> decode_graph_bundle(std::span<const uint8_t> bytes, const std::string& source) {
  Reader r(bytes, source);
  for (char c : kMagic) {
    if (r.scalar<char>() != c) r.fail("not a dmo graph bundle");
  }
  std::vector<TracedGraph> graphs(r.size());
  for (auto& g : graphs) {
    g.graph.source = r.string();
    g.ops = r.vector<int32_t>();
    g.graph.subgraphs.resize(r.size());
    for (Subgraph& sg : g.graph.subgraphs) {
      sg.name = r.string();
      sg.tensors.resize(r.size());
      for (Tensor& t : sg.tensors) t = read_tensor(r);
      sg.ops.resize(r.size());
      for (Op& op : sg.ops) {
        op.builtin_code = r.scalar<int32_t>();
        op.custom_code = r.string();
        op.custom_options = r.vector<uint8_t>();
        op.version = r.scalar<int32_t>();
        op.inputs = r.vector<int32_t>();
        op.outputs = r.vector<int32_t>();
        op.params = read_params_alternative(r, r.scalar<uint32_t>());
        op.has_undecoded_options = r.boolean();
        for (int32_t t : op.inputs) check_index(r, t, sg.tensors.size(), true);
        for (int32_t t : op.outputs) check_index(r, t, sg.tensors.size(), false);
      }
      sg.inputs = r.vector<int32_t>();
      sg.outputs = r.vector<int32_t>();
      for (int32_t t : sg.inputs) check_index(r, t, sg.tensors.size(), false);
      for (int32_t t : sg.outputs) check_index(r, t, sg.tensors.size(), false);
    }
    if (g.graph.subgraphs.empty()) r.fail(fmt::format("graph '{}' has no subgraph", g.graph.source));
    for (int32_t op : g.ops) {
      if (op < 0 || static_cast<size_t>(op) >= g.graph.main().ops.size()) {
        r.fail(fmt::format("graph '{}' has no op {}", g.graph.source, op));
      }
    }
  }
  if (!r.at_end()) r.fail("bytes after the last graph");
  return graphs;
}

void write_graph_bundle(const std::string& path, const std::vector<TracedGraph>& graphs) {
  std::vector<uint8_t> bytes = encode_graph_bundle(graphs);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(fmt::format("{}: cannot write the graph bundle", path));
}

std::vector<TracedGraph> read_graph_bundle(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the graph bundle", path));
  in.seekg(0, std::ios::end);
  std::vector<uint8_t> bytes(static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0)));
  in.seekg(0, std::ios::beg);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw Error(fmt::format("{}: cannot read the graph bundle", path));
  return decode_graph_bundle(bytes, path);
}

std::string traced_op_layer_name(const std::string& source, int32_t op, const std::string& kind) {
  return fmt::format("{} op {} {}", source, op, kind);
}

}  // namespace dmo
