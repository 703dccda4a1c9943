#include "tflite_test_model.h"

#include <map>

#include "tflite_subset_generated.h"

namespace dmo::test {

namespace fb = ::dmo::tfl;

std::vector<uint8_t> write_test_model(const TestModel& model) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  buffers.push_back(fb::CreateBuffer(b));  // sentinel
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const TestTensor& t : model.tensors) {
    uint32_t buffer_index;
    if (t.buffer >= 0) {
      buffer_index = static_cast<uint32_t>(t.buffer);
    } else {
      b.ForceVectorAlignment(t.data.size(), 1, 16);
      auto data = t.data.empty() ? 0 : b.CreateVector(t.data);
      buffers.push_back(fb::CreateBuffer(b, data));
      buffer_index = static_cast<uint32_t>(buffers.size() - 1);
    }
    tensors.push_back(fb::CreateTensor(b, b.CreateVector(t.shape), static_cast<fb::TensorType>(t.type), buffer_index,
                                       b.CreateString(t.name), 0, t.is_variable));
  }
  std::map<int32_t, uint32_t> code_index;
  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  std::vector<flatbuffers::Offset<fb::Operator>> ops;
  for (const TestOp& op : model.ops) {
    if (!code_index.count(op.builtin_code)) {
      code_index[op.builtin_code] = static_cast<uint32_t>(codes.size());
      auto small = static_cast<int8_t>(op.builtin_code < 127 ? op.builtin_code : 127);
      codes.push_back(fb::CreateOperatorCode(b, small, 0, 1, op.builtin_code));
    }
    fb::BuiltinOptions options_type = fb::BuiltinOptions_NONE;
    flatbuffers::Offset<void> options = 0;
    if (op.builtin_code == 3) {
      options_type = fb::BuiltinOptions_Conv2DOptions;
      options = fb::CreateConv2DOptions(b, fb::Padding_SAME, op.stride, op.stride).Union();
    } else if (op.builtin_code == 4) {
      options_type = fb::BuiltinOptions_DepthwiseConv2DOptions;
      options = fb::CreateDepthwiseConv2DOptions(b, fb::Padding_SAME, op.stride, op.stride, 1).Union();
    } else if (op.builtin_code == 1 || op.builtin_code == 17) {
      options_type = fb::BuiltinOptions_Pool2DOptions;
      options = fb::CreatePool2DOptions(b, fb::Padding_VALID, op.stride, op.stride, op.filter, op.filter).Union();
    }
    uint32_t opcode = op.opcode_index >= 0 ? static_cast<uint32_t>(op.opcode_index) : code_index[op.builtin_code];
    const auto table =
        fb::CreateOperator(b, opcode, b.CreateVector(op.inputs), b.CreateVector(op.outputs), options_type, options);
    ops.insert(ops.end(), static_cast<size_t>(op.repeats), table);
  }
  auto tensor_vec = b.CreateVector(tensors);
  auto op_vec = b.CreateVector(ops);
  auto inputs = b.CreateVector(model.inputs);
  auto outputs = b.CreateVector(model.outputs);
  std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs;
  for (int s = 0; s < model.subgraph_count; ++s) {
    subgraphs.push_back(fb::CreateSubGraph(b, tensor_vec, inputs, outputs, op_vec, b.CreateString("main")));
  }
  std::vector<flatbuffers::Offset<fb::Metadata>> metadata;
  for (const auto& [name, data] : model.metadata) {
    buffers.push_back(fb::CreateBuffer(b, b.CreateVector(data)));
    metadata.push_back(fb::CreateMetadata(b, b.CreateString(name), static_cast<uint32_t>(buffers.size() - 1)));
  }
  auto root = fb::CreateModel(b, 3, b.CreateVector(codes), b.CreateVector(subgraphs), b.CreateString("test"),
                              b.CreateVector(buffers), 0, metadata.empty() ? 0 : b.CreateVector(metadata));
  fb::FinishModelBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

TestModel small_conv_model() {
  TestModel m;
  m.tensors.push_back({"input", 0, {1, 8, 8, 4}, {}});
  m.tensors.push_back({"weights", 0, {8, 1, 1, 4}, std::vector<uint8_t>(8 * 4 * 4, 0)});
  m.tensors.push_back({"bias", 0, {8}, std::vector<uint8_t>(8 * 4, 0)});
  m.tensors.push_back({"conv", 0, {1, 8, 8, 8}, {}});
  m.tensors.push_back({"relu", 0, {1, 8, 8, 8}, {}});
  m.ops.push_back({3, {0, 1, 2}, {3}});
  m.ops.push_back({19, {3}, {4}});
  m.inputs = {0};
  m.outputs = {4};
  return m;
}

}  // namespace dmo::test
