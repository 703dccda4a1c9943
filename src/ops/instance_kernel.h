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

// A kernel the host runs as `host`, which holds the aggregate `instance`
// was made from and what that points to (its scratch words).
template <class Host>
PreparedKernel instance_kernel_run_by(Host host, DeviceInstance instance, DataType type) {
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kInstance;
  device->type = type;
  device->instance = std::move(instance);
  PreparedKernel p = PreparedKernel::of(std::move(host));
  p.device = std::move(device);
  return p;
}

// The aggregate `kernel`, run on the host as it is. `type_name` is its C++
// type as generated code spells it; `type` the element type the nest runs on.
template <class Kernel>
PreparedKernel instance_kernel(Kernel kernel, std::string type_name, DataType type) {
  const DeviceInstance instance = device_instance(std::move(type_name), kernel);
  return instance_kernel_run_by(std::move(kernel), instance, type);
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
