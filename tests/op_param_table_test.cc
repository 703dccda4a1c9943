// The op parameter table against the schema it describes (read from
// schema/tflite_subset.fbs, not from the table), and the three users of the
// table on every op kind it lists: the .tflite writer and reader, and the
// trace graph bundle, with graph_equality.h's own list of fields as the
// judge of a round trip.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/op_param_table.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/trace/graph_bundle.h"
#include "dmo/zoo/graph_builder.h"
#include "graph_equality.h"
#include "test_support.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

using test::error_of;
using test::graph_difference;

struct SchemaField {
  std::string name, type, default_value;  // default_value empty when the schema gives none
};

struct Schema {
  std::map<std::string, std::vector<SchemaField>> tables;
  std::map<std::string, int> options_tags;
};

// The checkout: the build defines the shared folder as "<checkout>/../shared".
std::filesystem::path checkout_dir() {
  const std::string shared = DMO_SHARED_DIR;
  const std::string suffix = "/../shared";
  EXPECT_TRUE(shared.ends_with(suffix)) << shared;
  return shared.substr(0, shared.size() - suffix.size());
}

Schema read_schema() {
  const auto path = checkout_dir() / "schema" / "tflite_subset.fbs";
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string schema = text.str();
  Schema out;
  const std::regex table(R"(table\s+(\w+)\s*\{([^}]*)\})");
  const std::regex field(R"((\w+)\s*:\s*([\w\[\]]+)\s*(?:=\s*([\w.\-]+))?\s*;)");
  for (std::sregex_iterator t(schema.begin(), schema.end(), table), end; t != end; ++t) {
    const std::string body = (*t)[2];
    auto& fields = out.tables[(*t)[1]];
    for (std::sregex_iterator f(body.begin(), body.end(), field); f != end; ++f) {
      fields.push_back({(*f)[1], (*f)[2], (*f)[3]});
    }
  }
  const std::smatch options = [&] {
    std::smatch m;
    std::regex_search(schema, m, std::regex(R"(union\s+BuiltinOptions\s*\{([^}]*)\})"));
    return m;
  }();
  const std::string members = options[1];
  const std::regex member(R"((\w+)\s*=\s*(\d+))");
  for (std::sregex_iterator m(members.begin(), members.end(), member), end; m != end; ++m) {
    out.options_tags[(*m)[1]] = std::stoi((*m)[2]);
  }
  return out;
}

template <class M>
std::string schema_type_of() {
  if constexpr (std::is_same_v<M, Padding>) return "Padding";
  if constexpr (std::is_same_v<M, Activation>) return "ActivationFunctionType";
  if constexpr (std::is_same_v<M, DataType>) return "TensorType";
  if constexpr (std::is_same_v<M, int32_t>) return "int";
  if constexpr (std::is_same_v<M, int8_t>) return "byte";
  if constexpr (std::is_same_v<M, bool>) return "bool";
  if constexpr (std::is_same_v<M, float>) return "float";
  return "?";
}

// The schema's words for a default: none means zero, the enum's first value or false.
template <class M>
std::string schema_default_of(M value) {
  if constexpr (std::is_same_v<M, bool>) return value ? "true" : "";
  if constexpr (std::is_same_v<M, float>) return value == 0.0f ? "" : std::to_string(value);
  if constexpr (std::is_enum_v<M>) return static_cast<int>(value) == 0 ? "" : std::to_string(static_cast<int>(value));
  if constexpr (std::is_integral_v<M> && !std::is_same_v<M, bool>) return value == 0 ? "" : std::to_string(value);
  return "?";
}

TEST(OpParamTable, MatchesTheSchema) {
  const Schema schema = read_schema();
  int entries = 0;
  std::apply(
      [&](const auto&... entry) {
        ([&](const auto& e) {
          using P = typename std::decay_t<decltype(e)>::Params;
          ++entries;
          const std::string name(e.table_name);
          SCOPED_TRACE(name);
          ASSERT_TRUE(schema.options_tags.count(name)) << "not in union BuiltinOptions";
          EXPECT_EQ(schema.options_tags.at(name), e.union_tag);
          ASSERT_TRUE(schema.tables.count(name));
          const std::vector<SchemaField>& fields = schema.tables.at(name);
          for_each_param_field<P>([&](const auto& field) {
            SCOPED_TRACE(std::string(field.name));
            ASSERT_LT(field.id, fields.size());
            const SchemaField& expected = fields[field.id];
            EXPECT_EQ(expected.name, field.name);
            if constexpr (kIsVectorField<std::decay_t<decltype(field)>>) {
              EXPECT_EQ(expected.type, "[int]");
            } else if constexpr (kIsStringField<std::decay_t<decltype(field)>>) {
              EXPECT_EQ(expected.type, "string");
            } else {
              using M = std::decay_t<decltype(field.schema_default)>;
              EXPECT_EQ(expected.type, schema_type_of<M>());
              EXPECT_EQ(expected.default_value, schema_default_of(field.schema_default));
            }
          });
        }(entry),
         ...);
      },
      kOpOptions);
  EXPECT_EQ(entries, 34);
}

TEST(OpParamTable, EveryParamsStructHasAnOpKind) {
  std::vector<size_t> described;
  std::apply(
      [&](const auto&... entry) {
        (described.push_back(OpParams(typename std::decay_t<decltype(entry)>::Params{}).index()), ...);
      },
      kOpOptions);
  for (size_t alternative = 1; alternative < std::variant_size_v<OpParams>; ++alternative) {
    EXPECT_NE(std::find(described.begin(), described.end(), alternative), described.end())
        << "OpParams alternative " << alternative << " is not in kOpOptions";
  }
}

// Every field away from its default (and valid), so a field the writer, the
// reader or the bundle dropped or misplaced shows.
template <class P>
P unusual_params() {
  P p{};
  for_each_param_field<P>([&](const auto& field) {
    if constexpr (kIsVectorField<std::decay_t<decltype(field)>>) {
      p.*field.member = {field.id + 1, 3};
      if (field.given) p.*field.given = true;
    } else if constexpr (kIsStringField<std::decay_t<decltype(field)>>) {
      p.*field.member = std::string(field.name) + "_value";
    } else {
      using M = std::decay_t<decltype(field.schema_default)>;
      if constexpr (std::is_enum_v<M>) {
        p.*field.member = static_cast<M>(OptionEnum<M>::kMax);
      } else if constexpr (std::is_same_v<M, bool>) {
        p.*field.member = true;
      } else if constexpr (std::is_same_v<M, float>) {
        p.*field.member = 0.5f;
      } else {
        p.*field.member = static_cast<M>(field.id + 2);
      }
    }
  });
  return p;
}

Graph one_op_graph(OpKind kind, OpParams params) {
  GraphBuilder builder(builtin_op_name(static_cast<int32_t>(kind)));
  const int32_t x = builder.add_tensor("x", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t y = builder.add_tensor("y", DataType::kFloat32, {1, 4, 4, 2});
  builder.add_op(kind, {x}, {y}, std::move(params));
  builder.set_inputs({x});
  builder.set_outputs({y});
  return builder.finish();
}

TEST(OpParamTable, EveryOpKindRoundTripsThroughFileAndBundle) {
  std::apply(
      [&](const auto&... entry) {
        ([&](const auto& e) {
          using P = typename std::decay_t<decltype(e)>::Params;
          SCOPED_TRACE(builtin_op_name(static_cast<int32_t>(e.kind)));
          // dmo's defaults too where they make a valid file (no zero counts).
          std::vector<P> cases{unusual_params<P>()};
          if (!e.required) cases.push_back(P{});
          for (const P& params : cases) {
            const Graph graph = one_op_graph(e.kind, params);
            Graph back = read_tflite_bytes(write_tflite(graph), "back");
            EXPECT_EQ(graph_difference(graph, back), "");
            EXPECT_FALSE(back.main().ops[0].has_undecoded_options);
            Graph bundled = decode_graph_bundle(encode_graph_bundle({{graph, {0}}}), "b")[0].graph;
            bundled.version = graph.version;  // a bundle holds no file version
            EXPECT_EQ(graph_difference(graph, bundled, {.compare_description = false}), "");
          }
        }(entry),
         ...);
      },
      kOpOptions);
}

TEST(OpParamTable, ReaderNamesTheBadField) {
  auto read_back = [](OpKind kind, OpParams params) {
    return error_of([&] { read_tflite_bytes(write_tflite(one_op_graph(kind, std::move(params))), "m.tflite"); });
  };
  Conv2DParams conv;
  conv.activation = static_cast<Activation>(9);
  EXPECT_EQ(read_back(OpKind::kConv2D, conv), "m.tflite: subgraph 0 op 0 (CONV_2D) has unknown fused activation 9");
  conv = {};
  conv.padding = static_cast<Padding>(3);
  EXPECT_EQ(read_back(OpKind::kConv2D, conv), "m.tflite: subgraph 0 op 0 (CONV_2D) has unknown padding 3");
  conv = {};
  conv.dilation_h = 0;
  EXPECT_EQ(read_back(OpKind::kConv2D, conv),
            "m.tflite: subgraph 0 op 0 (CONV_2D) has dilation_h_factor = 0, must be at least 1");
  Pool2DParams pool;
  pool.filter_w = -2;
  EXPECT_EQ(read_back(OpKind::kMaxPool2D, pool),
            "m.tflite: subgraph 0 op 0 (MAX_POOL_2D) has filter_width = -2, must be at least 1");

  // Converters that write a negative depth multiplier mean "implied by the shapes".
  DepthwiseConv2DParams depthwise;
  depthwise.depth_multiplier = -3;
  Graph back = read_tflite_bytes(write_tflite(one_op_graph(OpKind::kDepthwiseConv2D, depthwise)), "m");
  EXPECT_EQ(std::get<DepthwiseConv2DParams>(back.main().ops[0].params).depth_multiplier, 0);
}

TEST(OpParamTable, ReaderNeedsTheRequiredTablesOnly) {
  test::TestModel m = test::small_conv_model();
  m.ops[1].builtin_code = static_cast<int32_t>(OpKind::kSplit);  // the RELU, written without options
  EXPECT_NE(error_of([&] { read_tflite_bytes(test::write_test_model(m), "m"); })
                .find("op 1 (SPLIT) lacks its SplitOptions (options type 0)"),
            std::string::npos);
  // Without a table an optional one takes dmo's defaults, not the schema's.
  m.ops[1].builtin_code = static_cast<int32_t>(OpKind::kSoftmax);
  Graph g = read_tflite_bytes(test::write_test_model(m), "m");
  EXPECT_EQ(std::get<SoftmaxParams>(g.main().ops[1].params).beta, 1.0f);
}

TEST(OpParamTable, ReshapeWithoutNewShapeWritesNoOptions) {
  const Graph graph = one_op_graph(OpKind::kReshape, ReshapeParams{});
  const std::vector<uint8_t> bytes = write_tflite(graph);
  Graph back = read_tflite_bytes(bytes, "back");
  EXPECT_FALSE(std::get<ReshapeParams>(back.main().ops[0].params).has_new_shape);
  // The same with an empty new_shape given: the table is written and read back.
  Graph given = one_op_graph(OpKind::kReshape, ReshapeParams{{}, true});
  EXPECT_GT(write_tflite(given).size(), bytes.size());
  EXPECT_TRUE(std::get<ReshapeParams>(read_tflite_bytes(write_tflite(given), "b").main().ops[0].params).has_new_shape);
}

}  // namespace
}  // namespace dmo
