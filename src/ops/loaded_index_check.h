// GATHER and GATHER_ND follow indices they load, data only known when the
// op runs, and TFLM stops the op at one outside the input. Under
// whole-arena checking an index can also read wrong because a clobber,
// already recorded, overwrote it: that run is failing anyway, so the kernel
// skips the row instead of stopping and the checked run goes on to report
// every clobber.
#pragma once

namespace dmo {

// Whether the memory policy has recorded a clobber so far (only the
// checking policy can).
template <class Memory>
bool clobber_recorded(const Memory& mem) {
  if constexpr (requires { mem.clobber(); }) {
    return mem.clobber().has_value();
  } else {
    return false;
  }
}

}  // namespace dmo
