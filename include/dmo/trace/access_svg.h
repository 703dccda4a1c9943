// Draws one traced layer like Figure 3 of the diagonal memory optimisation
// paper: reads and writes over time (instructions) against their offset in
// the input or output buffer, with the frontiers that decide O_s.
#pragma once

#include <string>

#include "dmo/trace/access_sampler.h"

namespace dmo {

// A standalone SVG document.
std::string access_picture_svg(const AccessPicture& picture);

}  // namespace dmo
