// A kernel in TFLM's two steps.
//  - prepare (ops/kernels.h): checks the op's operands, computes geometry
//    and requantisation parameters once, and fails with a message naming
//    the op when it cannot run it.
//  - eval: the one loop nest, templated over a memory policy
//    (ops/memory_policy.h); no checks, no exceptions, no allocation.
// PreparedKernel holds a kernel's prepared state and its eval instantiated
// for the three policies, behind plain function pointers.
#pragma once

#include <memory>
#include <string>
#include <vector>
#include <type_traits>
#include <utility>

#include "dmo/ops/device_kernel.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/memory_policy.h"

namespace dmo {

class PreparedKernel {
 public:
  PreparedKernel() = default;

  // `Kernel` has `template <class Memory> void eval(const KernelIO&, Memory&) const`.
  // Which kernels honour KernelIO::region and KernelIO::descending is said
  // once, by kind, in ops/walk_order.h.
  template <class Kernel>
  static PreparedKernel of(Kernel kernel) {
    PreparedKernel p;
    p.state_ = std::make_shared<const Kernel>(std::move(kernel));
    p.direct_ = &call<Kernel, DirectMemory>;
    p.address_ = &call<Kernel, AddressMemory>;
    p.checking_ = &call<Kernel, CheckingMemory>;
    return p;
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& memory) const {
    if constexpr (std::is_same_v<Memory, DirectMemory>) direct_(state_.get(), io, memory);
    else if constexpr (std::is_same_v<Memory, AddressMemory>) address_(state_.get(), io, memory);
    else checking_(state_.get(), io, memory);
  }

  bool valid() const { return state_ != nullptr; }

  // Set by kernels of another family than TFLM's reference: the function
  // whose order eval follows ("arm_convolve_1x1_s8_fast"), and the scratch
  // buffers that function's glue requests in its Prepare. Reference kernels
  // leave both empty: their scratch buffers are plan/tflm_scratch_buffers.h's.
  std::string implementation;
  std::vector<KernelScratch> scratch;
  // The state generated device code runs the kernel's shared loop nest
  // with (ops/device_kernel.h); null when the kernel has no device path.
  std::shared_ptr<const DeviceKernel> device;

 private:
  template <class Kernel, class Memory>
  static void call(const void* state, const KernelIO& io, Memory& memory) {
    static_cast<const Kernel*>(state)->eval(io, memory);
  }
  template <class Memory>
  using Eval = void (*)(const void*, const KernelIO&, Memory&);

  std::shared_ptr<const void> state_;
  Eval<DirectMemory> direct_ = nullptr;
  Eval<AddressMemory> address_ = nullptr;
  Eval<CheckingMemory> checking_ = nullptr;
};

}  // namespace dmo
