// A prepared kernel whose state is one freestanding aggregate of
// ops/eval/ (ops/device_instance.h): the host runs its eval, generated
// code defines the same aggregate from its fields and runs the same eval.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "dmo/model/data_type.h"
#include "dmo/ops/device_instance.h"
#include "dmo/ops/device_kernel.h"
#include "dmo/ops/eval/map_elements_loops.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// `type_name` is the aggregate's C++ type as generated code spells it;
// `type` the element type the nest runs on.
template <class Kernel>
PreparedKernel instance_kernel(Kernel kernel, std::string type_name, DataType type) {
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kInstance;
  device->type = type;
  device->instance = device_instance(std::move(type_name), kernel);
  PreparedKernel p = PreparedKernel::of(std::move(kernel));
  p.device = std::move(device);
  return p;
}

// map_elements_loops over `elements` with the per-element arithmetic `f`,
// whose C++ type generated code spells `f_type`.
template <typename In, typename Out, class F>
PreparedKernel map_elements_instance(F f, std::string_view f_type, int64_t elements, DataType type) {
  return instance_kernel(MapElementsLoops<In, Out, F>{elements, std::move(f)},
                         fmt::format("MapElementsLoops<{}, {}, {}>", device_type_name<In>(), device_type_name<Out>(),
                                     f_type),
                         type);
}

}  // namespace dmo
