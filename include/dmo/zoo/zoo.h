// The built-in model zoo: models named on the command line instead of a
// .tflite file, built in code by name.
#pragma once

#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

inline constexpr const char* kDefaultZooModel = "mobilenet_v1_0.25_128_int8";

// The accepted form, for help texts and error messages.
inline constexpr const char* kZooNameForm =
    "mobilenet_v<1|2>_<alpha>_<resolution>_<float32|int8|uint8> or synthetic_rnn_<ops>[_seed<n>]";

// Names: mobilenet_v<version>_<alpha>_<resolution>_<type>, alpha a decimal
// number (0.25, 1.0, 1.4), resolution a whole number; or
// synthetic_rnn_<ops>[_seed<n>] (synthetic_rnn.h), an unrolled recurrent cell. The graph's source is
// `name` as given. Throws dmo::Error on a name that does not parse (the
// message gives the accepted form) or a configuration build_mobilenet rejects.
Graph build_zoo_model(const std::string& name);

// True when `name` has the zoo form, even if its version, alpha or resolution
// is out of range and a build would fail.
bool is_zoo_model_name(const std::string& name);

// A few valid names for help texts; the first is kDefaultZooModel.
std::vector<std::string> zoo_example_names();

}  // namespace dmo
