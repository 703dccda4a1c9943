// Each kernel is a template over a memory policy, defined in its own .cc
// file and instantiated there for the three policies with this macro.
#pragma once

#include "dmo/ops/memory_policy.h"
#include "dmo/ops/op_context.h"

#define DMO_INSTANTIATE_KERNEL(kernel)                                          \
  template void kernel<::dmo::DirectMemory>(const ::dmo::OpContext&, ::dmo::DirectMemory&);     \
  template void kernel<::dmo::AddressMemory>(const ::dmo::OpContext&, ::dmo::AddressMemory&);   \
  template void kernel<::dmo::CheckingMemory>(const ::dmo::OpContext&, ::dmo::CheckingMemory&)
