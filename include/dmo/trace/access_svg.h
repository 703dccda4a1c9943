// Draws one traced layer like Figure 3 of the diagonal memory optimisation
// paper: reads and writes over time (instructions) against their offset in
// the input or output buffer, with the frontiers that decide O_s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dmo/trace/access_sampler.h"

namespace dmo {

struct AccessPictureOptions {
  // Set when the layer walked its output descending: the picture then
  // headlines this O_s (output above the input, over its end) and draws the
  // writes where that placement puts them in the input's offsets.
  std::optional<int64_t> descending_safe_overlap;
};

// A standalone SVG document.
std::string access_picture_svg(const AccessPicture& picture, const AccessPictureOptions& options = {});

}  // namespace dmo
