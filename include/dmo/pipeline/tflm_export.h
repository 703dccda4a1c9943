// The C header `dmo export --c-header` writes: the deployed plan's
// OfflineMemoryAllocation words and the arena TFLM needs with them.
#pragma once

#include <cstdint>
#include <string>

#include "dmo/pipeline/tflm_deployment.h"

namespace dmo {

// A C header holding the deployed plan's words and the arena TFLM needs
// with them, for firmware that keeps the model file untouched. `source`
// names the model, `stem` gives the identifiers.
std::string offline_plan_c_header(const Graph& graph, const std::string& source, const std::string& stem,
                                  const TflmDeployment& deployment);

}  // namespace dmo
