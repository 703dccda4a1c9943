// The plan-file parser (`dmo run/verify --plan FILE`) on hostile JSON,
// against a zoo model with splittable chains and residual ADDs (MobileNet
// v2 0.35 at 96x96, int8), built once before fuzzing starts so that its
// construction counts against no input's time limit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "dmo/error.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/zoo/zoo.h"

namespace {
std::unique_ptr<dmo::Graph> graph;
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  graph = std::make_unique<dmo::Graph>(dmo::build_zoo_model("mobilenet_v2_0.35_96_int8"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    dmo::parse_placement_file(std::string_view(reinterpret_cast<const char*>(data), size), "input", *graph);
  } catch (const dmo::Error&) {
  }
  return 0;
}
