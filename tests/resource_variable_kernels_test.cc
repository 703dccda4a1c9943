// Resource variables: VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE as TFLM
// runs them. A model whose CALL_ONCE init subgraph assigns a constant and
// whose main subgraph reads, adds and assigns back keeps its state from one
// run to the next; a variable read before its first assignment holds its
// value's zero point; the handle's RESOURCE tensor takes the 4 bytes of an
// int32 id; READ_VARIABLE's safe overlap; the refusals of bad operands in
// the interpreter and on the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::values_from;

VarHandleParams named(const std::string& name) { return VarHandleParams{"", name}; }

// main (subgraph 0): CALL_ONCE(init); h = VAR_HANDLE("counter");
// v = READ_VARIABLE(h); y = ADD(v, x); ASSIGN_VARIABLE(h, y); output y.
// init (subgraph 1): VAR_HANDLE("counter"); ASSIGN_VARIABLE of `start`.
Graph accumulator(const std::vector<float>& start) {
  const Shape shape{static_cast<int32_t>(start.size())};
  GraphBuilder b("accumulator");
  const int32_t x = b.add_tensor("x", DataType::kFloat32, shape);
  const int32_t h = b.add_tensor("h", DataType::kResource, {});
  const int32_t v = b.add_tensor("v", DataType::kFloat32, shape);
  const int32_t y = b.add_tensor("y", DataType::kFloat32, shape);
  CallOnceParams once;
  once.init_subgraph = b.add_subgraph("init");
  b.add_op(OpKind::kCallOnce, {}, {}, once);
  b.add_op(OpKind::kVarHandle, {}, {h}, named("counter"));
  b.add_op(OpKind::kReadVariable, {h}, {v});
  b.add_op(OpKind::kAdd, {v, x}, {y}, ElementwiseParams{});
  b.add_op(OpKind::kAssignVariable, {h, y}, {});
  b.set_inputs({x});
  b.set_outputs({y});

  b.select(once.init_subgraph);
  const int32_t init_h = b.add_tensor("init_h", DataType::kResource, {});
  const int32_t value = b.add_constant_values<float>("start", DataType::kFloat32, shape, start);
  b.add_op(OpKind::kVarHandle, {}, {init_h}, named("counter"));
  b.add_op(OpKind::kAssignVariable, {init_h, value}, {});
  return b.finish();
}

std::vector<float> run_once(Interpreter& interpreter, const std::vector<float>& x) {
  interpreter.set_inputs(bytes_of(x));
  interpreter.run();
  return values_from<float>(interpreter.outputs());
}

TEST(ResourceVariables, StateLivesFromOneRunToTheNext) {
  const Graph graph = accumulator({1.5f, -2.0f, 0.25f});
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  // Run 1: init assigns start, main reads it and adds x.
  EXPECT_EQ(run_once(interpreter, {1.0f, 2.0f, 3.0f}), (std::vector<float>{2.5f, 0.0f, 3.25f}));
  // Run 2: CALL_ONCE does not run again; the variable holds run 1's sum.
  EXPECT_EQ(run_once(interpreter, {1.0f, 2.0f, 3.0f}), (std::vector<float>{3.5f, 2.0f, 6.25f}));
  EXPECT_EQ(run_once(interpreter, {-0.5f, 0.0f, 0.0f}), (std::vector<float>{3.0f, 2.0f, 6.25f}));
  // A new interpreter starts afresh, as a new TFLM interpreter does.
  Interpreter fresh(graph, unshared_placement(graph.main()));
  EXPECT_EQ(run_once(fresh, {0.0f, 0.0f, 0.0f}), (std::vector<float>{1.5f, -2.0f, 0.25f}));
}

TEST(ResourceVariables, CheckedRunsAgreeAndFindNoClobber) {
  const Graph graph = accumulator({4.0f, 5.0f});
  Interpreter checked(graph, unshared_placement(graph.main()));
  for (int run = 0; run < 2; ++run) {
    checked.set_inputs(bytes_of(std::vector<float>{1.0f, 1.0f}));
    EXPECT_FALSE(checked.run_checked().has_value());
  }
  EXPECT_EQ(values_from<float>(checked.outputs()), (std::vector<float>{6.0f, 7.0f}));
}

TEST(ResourceVariables, TheHandleHoldsTheIdOfItsSharedName) {
  // Two variables: "b" is created first, so its id is 0, "a"'s 1; the
  // second handle of "b" gets 0 again.
  GraphBuilder b("ids");
  const int32_t x = b.add_tensor("x", DataType::kInt32, {2});
  std::vector<int32_t> handles;
  for (const char* name : {"b", "a", "b"}) {
    handles.push_back(b.add_tensor(std::string("h_") + name, DataType::kResource, {1}));
    b.add_op(OpKind::kVarHandle, {}, {handles.back()}, named(name));
  }
  b.add_op(OpKind::kAssignVariable, {handles[0], x}, {});
  b.add_op(OpKind::kAssignVariable, {handles[1], x}, {});
  const int32_t y = b.add_tensor("y", DataType::kInt32, {2});
  b.add_op(OpKind::kReadVariable, {handles[2]}, {y});
  b.set_inputs({x});
  b.set_outputs({y});
  const Graph graph = b.finish();
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  interpreter.set_inputs(bytes_of(std::vector<int32_t>{7, -9}));
  interpreter.run();
  EXPECT_EQ(values_from<int32_t>(interpreter.tensor_bytes(handles[0])), std::vector<int32_t>{0});
  EXPECT_EQ(values_from<int32_t>(interpreter.tensor_bytes(handles[1])), std::vector<int32_t>{1});
  EXPECT_EQ(values_from<int32_t>(interpreter.tensor_bytes(handles[2])), std::vector<int32_t>{0});
  EXPECT_EQ(values_from<int32_t>(interpreter.outputs()), (std::vector<int32_t>{7, -9}));
}

// h = VAR_HANDLE; v = READ_VARIABLE(h); ASSIGN_VARIABLE(h, x); output v.
Graph read_then_assign(DataType type, Quantization quant) {
  GraphBuilder b("read_then_assign");
  const int32_t x = b.add_tensor("x", type, {5}, quant);
  const int32_t h = b.add_tensor("h", DataType::kResource, {});
  const int32_t v = b.add_tensor("v", type, {5}, quant);
  b.add_op(OpKind::kVarHandle, {}, {h}, named("state"));
  b.add_op(OpKind::kReadVariable, {h}, {v});
  b.add_op(OpKind::kAssignVariable, {h, x}, {});
  b.set_inputs({x});
  b.set_outputs({v});
  return b.finish();
}

TEST(ResourceVariables, ReadBeforeTheFirstAssignHoldsTheZeroPoint) {
  // TFLM allocates the buffer in ASSIGN_VARIABLE's Prepare, before any op
  // runs, and fills it with the value's zero point as int8.
  const Graph int8 = read_then_assign(DataType::kInt8, test::per_tensor(0.5f, -5));
  Interpreter interpreter(int8, unshared_placement(int8.main()));
  const std::vector<int8_t> x{1, -2, 3, 127, -128};
  interpreter.set_inputs(bytes_of(x));
  interpreter.run();
  EXPECT_EQ(values_from<int8_t>(interpreter.outputs()), std::vector<int8_t>(5, -5));
  interpreter.run();
  EXPECT_EQ(values_from<int8_t>(interpreter.outputs()), x);

  // An INT16 zero point is cast to int8 and set in every byte, as TFLM's memset does.
  const Graph int16 = read_then_assign(DataType::kInt16, test::per_tensor(0.5f, 3));
  Interpreter wide(int16, unshared_placement(int16.main()));
  wide.set_inputs(std::vector<uint8_t>(10, 0));
  wide.run();
  EXPECT_EQ(values_from<int16_t>(wide.outputs()), std::vector<int16_t>(5, 0x0303));

  // Without quantization the buffer starts at zero.
  const Graph plain = read_then_assign(DataType::kFloat32, {});
  Interpreter floats(plain, unshared_placement(plain.main()));
  floats.set_inputs(bytes_of(std::vector<float>{1, 2, 3, 4, 5}));
  floats.run();
  EXPECT_EQ(values_from<float>(floats.outputs()), std::vector<float>(5, 0.0f));
}

TEST(ResourceVariables, AResourceTensorTakesTheBytesOfAnInt32Id) {
  EXPECT_EQ(element_size(DataType::kResource), 4);
  const Graph graph = accumulator({1.0f, 2.0f});
  const Graph back = read_tflite_bytes(write_tflite(graph), "back");
  EXPECT_EQ(back.main().tensors[1].type, DataType::kResource);
  EXPECT_EQ(back.main().tensors[1].byte_size, 4);
  EXPECT_EQ(back.subgraphs[1].tensors[0].byte_size, 4);
  EXPECT_EQ(std::get<VarHandleParams>(back.main().ops[1].params).shared_name, "counter");
  // A [3] handle holds three ids' bytes.
  GraphBuilder b("wide");
  EXPECT_EQ(b.tensor(b.add_tensor("h", DataType::kResource, {3})).byte_size, 12);
}

// h = VAR_HANDLE; ASSIGN_VARIABLE(h, x); h2 = VAR_HANDLE (same name);
// y = READ_VARIABLE(h2): the pair (h2, y) of op 3.
test::OneOp read_model(DataType type, const Shape& shape) {
  GraphBuilder b("read");
  const int32_t x = b.add_tensor("x", type, shape);
  const int32_t h = b.add_tensor("h", DataType::kResource, {});
  const int32_t h2 = b.add_tensor("h2", DataType::kResource, {});
  const int32_t y = b.add_tensor("y", type, shape);
  b.add_op(OpKind::kVarHandle, {}, {h}, named("v"));
  b.add_op(OpKind::kAssignVariable, {h, x}, {});
  b.add_op(OpKind::kVarHandle, {}, {h2}, named("v"));
  b.add_op(OpKind::kReadVariable, {h2}, {y});
  b.set_inputs({x});
  b.set_outputs({y});
  test::OneOp m;
  m.graph = b.finish();
  m.input = h2;
  m.output = y;
  return m;
}

constexpr int32_t kReadOp = 3;

TEST(ResourceVariables, ReadVariableReadsItsHandleBeforeWritingAnything) {
  // The id is read first, then the buffer copied: the whole output may lie
  // over the handle (O_s = |output|), and the overlapped run is clean.
  const test::OneOp m = read_model(DataType::kInt16, {2, 3});
  const int64_t os = algorithmic_safe_overlap(m.graph, kReadOp, m.input, m.output);
  EXPECT_EQ(os, 12);
  const std::vector<uint8_t> input = bytes_of(std::vector<int16_t>{1, -2, 3, -4, 5, -6});
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input));
  // Laid over the handle, the output still holds the variable's value.
  Interpreter overlapped(m.graph, test::overlapped_placement(m, os));
  overlapped.set_inputs(input);
  overlapped.run();
  EXPECT_EQ(overlapped.tensor_contents(m.output), input);
}

TEST(ResourceVariables, ReadVariableOverlapOnRandomShapes) {
  std::mt19937 rng(20261201);
  const std::vector<DataType> types{DataType::kFloat32, DataType::kInt8, DataType::kInt16, DataType::kInt32,
                                    DataType::kBool, DataType::kInt64};
  for (int trial = 0; trial < 200; ++trial) {
    const DataType type = types[rng() % types.size()];
    Shape shape;
    const size_t rank = 1 + rng() % 3;
    for (size_t d = 0; d < rank; ++d) shape.push_back(static_cast<int32_t>(1 + rng() % 5));
    const test::OneOp m = read_model(type, shape);
    SCOPED_TRACE(::testing::Message() << data_type_name(type) << " " << shape_to_string(shape));
    const int64_t os = algorithmic_safe_overlap(m.graph, kReadOp, m.input, m.output);
    EXPECT_EQ(os, test::bytes_of_tensor(m, m.output));
    std::vector<uint8_t> input(static_cast<size_t>(test::bytes_of_tensor(m, 0)));
    for (auto& byte : input) byte = static_cast<uint8_t>(type == DataType::kBool ? rng() % 2 : rng() >> 24);
    EXPECT_FALSE(test::clobbers_at_overlap(m, os, input));
  }
}

TEST(ResourceVariables, VarHandleWritesItsIdWhereThePlanPutsTheHandle) {
  // TFLM points the handle at an id it keeps; dmo stores the id in the
  // handle's planned bytes, so a plan must keep them apart from live values.
  const test::OneOp m = read_model(DataType::kInt32, {4});
  TensorPlacement p = unshared_placement(m.graph.main());
  p.offsets[static_cast<size_t>(m.input)] = p.offsets[0];  // h2 on x's bytes: x is dead after op 1
  Interpreter fine(m.graph, p);
  fine.set_inputs(bytes_of(std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_FALSE(fine.run_checked().has_value());
  EXPECT_EQ(values_from<int32_t>(fine.outputs()), (std::vector<int32_t>{1, 2, 3, 4}));
  p.offsets[1] = p.offsets[0];  // h on x's bytes too: op 0 stores the id over x before op 1 reads x
  Interpreter bad(m.graph, p);
  bad.set_inputs(bytes_of(std::vector<int32_t>{1, 2, 3, 4}));
  const std::optional<Clobber> clobber = bad.run_checked();
  ASSERT_TRUE(clobber.has_value());
}

std::string run_error(const Graph& graph) {
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(graph, text)                                           \
  do {                                                                          \
    const std::string message = run_error(graph);                               \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

// One handle, one value x, and the ops `add` puts after VAR_HANDLE (op 0).
Graph handle_and(DataType value_type, const std::function<void(GraphBuilder&, int32_t h, int32_t x)>& add,
                 VarHandleParams params = named("v")) {
  GraphBuilder b("bad");
  const int32_t x = b.add_tensor("x", value_type, {4});
  const int32_t h = b.add_tensor("h", DataType::kResource, {});
  b.add_op(OpKind::kVarHandle, {}, {h}, std::move(params));
  add(b, h, x);
  b.set_inputs({x});
  return b.finish();
}

TEST(ResourceVariables, RefusesWrongOperandCounts) {
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     const int32_t h2 = b.add_tensor("h2", DataType::kResource, {});
                     b.add_op(OpKind::kVarHandle, {x}, {h2}, named("w"));
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                   }),
                   "op 1 (VAR_HANDLE): expected 0 inputs, got 1");
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                     const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
                     const int32_t z = b.add_tensor("z", DataType::kFloat32, {4});
                     b.add_op(OpKind::kReadVariable, {h}, {y, z});
                   }),
                   "op 2 (READ_VARIABLE): expected 1 output, got 2");
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                     const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
                     b.add_op(OpKind::kReadVariable, {h, x}, {y});
                   }),
                   "op 2 (READ_VARIABLE): expected 1 input, got 2");
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32,
                              [](GraphBuilder& b, int32_t h, int32_t) { b.add_op(OpKind::kAssignVariable, {h}, {}); }),
                   "op 1 (ASSIGN_VARIABLE): expected 2 inputs, got 1");
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
                     b.add_op(OpKind::kAssignVariable, {h, x}, {y});
                   }),
                   "op 1 (ASSIGN_VARIABLE): expected 0 outputs, got 1");
}

TEST(ResourceVariables, RefusesAReadOfAVariableNothingAssigns) {
  // TFLM would copy from a buffer it never allocated.
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t) {
                     const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
                     b.add_op(OpKind::kReadVariable, {h}, {y});
                   }),
                   "op 1 (READ_VARIABLE): reads resource variable 'v', which no ASSIGN_VARIABLE of the model assigns");
}

TEST(ResourceVariables, RefusesTypeAndSizeMismatches) {
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                     const int32_t y = b.add_tensor("y", DataType::kInt32, {4});
                     b.add_op(OpKind::kReadVariable, {h}, {y});
                   }),
                   "op 2 (READ_VARIABLE): the output is INT32 4 (16 bytes) but resource variable 'v' holds "
                   "FLOAT32 4 (16 bytes)");
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                     const int32_t wider = b.add_tensor("wider", DataType::kFloat32, {5});
                     b.add_op(OpKind::kAssignVariable, {h, wider}, {});
                   }),
                   "op 2 (ASSIGN_VARIABLE): the value (input 1) is FLOAT32 5 (20 bytes) but resource variable 'v' "
                   "holds FLOAT32 4 (16 bytes)");
}

TEST(ResourceVariables, RefusesBadHandles) {
  // A handle of another type.
  EXPECT_RUN_ERROR(handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
                     b.add_op(OpKind::kAssignVariable, {h, x}, {});
                     const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
                     b.add_op(OpKind::kReadVariable, {x}, {y});
                   }),
                   "op 2 (READ_VARIABLE): input 0 (the resource handle) is FLOAT32; it must be RESOURCE");
  // A handle no VAR_HANDLE writes (a graph input).
  GraphBuilder b("input_handle");
  const int32_t h = b.add_tensor("h", DataType::kResource, {});
  const int32_t x = b.add_tensor("x", DataType::kFloat32, {4});
  b.add_op(OpKind::kAssignVariable, {h, x}, {});
  b.set_inputs({h, x});
  EXPECT_RUN_ERROR(b.finish(),
                   "op 0 (ASSIGN_VARIABLE): input 0 (the resource handle) 'h' is not written by a VAR_HANDLE of this "
                   "subgraph");
  // VAR_HANDLE writing something other than a RESOURCE, or without its options.
  GraphBuilder c("int_handle");
  const int32_t i = c.add_tensor("i", DataType::kInt32, {});
  c.add_op(OpKind::kVarHandle, {}, {i}, named("v"));
  c.set_outputs({i});
  EXPECT_RUN_ERROR(c.finish(), "op 0 (VAR_HANDLE): output type INT32 is not supported; the output must be RESOURCE");
  GraphBuilder d("no_options");
  const int32_t r = d.add_tensor("r", DataType::kResource, {});
  d.add_op(OpKind::kVarHandle, {}, {r});
  d.set_outputs({r});
  EXPECT_RUN_ERROR(d.finish(), "op 0 (VAR_HANDLE): has no VarHandleOptions");
}

std::string write_temp(const Graph& graph, const std::string& name) {
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_resource_" + std::to_string(::getpid()) + "_" + name)).string();
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return file;
}

TEST(ResourceVariables, TheCliPlansAndVerifiesTheModel) {
  const std::string file = write_temp(accumulator({1.0f, 2.0f, 3.0f, 4.0f}), "accumulator.tflite");
  const test::CommandResult plan = test::run_dmo({"plan", file, "--json"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const nlohmann::json j = nlohmann::json::parse(plan.out);
  EXPECT_EQ(j["planned_subgraphs"], (std::vector<int32_t>{0, 1}));
  const test::CommandResult verify = test::run_dmo({"verify", file});
  EXPECT_EQ(verify.exit_status, 0) << verify.out << verify.err;
  const test::CommandResult run = test::run_dmo({"run", file});
  EXPECT_EQ(run.exit_status, 0) << run.err;
  std::filesystem::remove(file);
}

TEST(ResourceVariables, TheCliRefusesInOneLineNamingTheOp) {
  const Graph unassigned = handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t) {
    const int32_t y = b.add_tensor("y", DataType::kFloat32, {4});
    b.add_op(OpKind::kReadVariable, {h}, {y});
    b.set_outputs({y});
  });
  const Graph mismatched = handle_and(DataType::kFloat32, [](GraphBuilder& b, int32_t h, int32_t x) {
    b.add_op(OpKind::kAssignVariable, {h, x}, {});
    const int32_t y = b.add_tensor("y", DataType::kInt8, {16});
    b.add_op(OpKind::kReadVariable, {h}, {y});
    b.set_outputs({y});
  });
  const std::string unassigned_file = write_temp(unassigned, "unassigned.tflite");
  const std::string mismatched_file = write_temp(mismatched, "mismatched.tflite");
  for (const char* command : {"run", "verify"}) {
    SCOPED_TRACE(command);
    for (const auto& [file, message] :
         {std::pair{unassigned_file, ": op 1 (READ_VARIABLE): reads resource variable 'v', which no ASSIGN_VARIABLE"},
          std::pair{mismatched_file, ": op 2 (READ_VARIABLE): the output is INT8 16 (16 bytes) but resource "
                                     "variable 'v' holds FLOAT32 4 (16 bytes)"}}) {
      const test::CommandResult r = test::run_dmo({command, file});
      EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find(file + message), std::string::npos) << "wanted: " << message << "\ngot: " << r.err;
    }
  }
  std::filesystem::remove(unassigned_file);
  std::filesystem::remove(mismatched_file);
}

}  // namespace
}  // namespace dmo
