#include "dmo/trace/access_sampler.h"

#include <algorithm>

namespace dmo {

AccessSampler::AccessSampler(size_t max_points, size_t max_bins)
    : max_points_per_kind_(std::max<size_t>(max_points / 2, 2)), max_bins_(std::max<size_t>(max_bins, 2)) {}

void AccessSampler::halve(Thinned& kind) {
  size_t kept = 0;
  for (size_t i = 0; i < kind.points.size(); i += 2) kind.points[kept++] = kind.points[i];
  kind.points.resize(kept);
  kind.stride *= 2;
}

void AccessSampler::merge_bins() {
  std::vector<AccessBin> merged((bins_.size() + 1) / 2);
  for (size_t i = 0; i < bins_.size(); ++i) {
    AccessBin& into = merged[i / 2];
    into.min_read = std::min(into.min_read, bins_[i].min_read);
    into.max_write = std::max(into.max_write, bins_[i].max_write);
  }
  bins_ = std::move(merged);
  bin_width_ *= 2;
}

AccessPicture AccessSampler::take(std::string name, int64_t input_bytes, int64_t output_bytes, int64_t safe_overlap,
                                  int64_t instructions) {
  AccessPicture p;
  p.name = std::move(name);
  p.input_bytes = input_bytes;
  p.output_bytes = output_bytes;
  p.safe_overlap = safe_overlap;
  p.instructions = instructions;
  p.reads = reads_.seen;
  p.writes = writes_.seen;
  p.read_points = std::move(reads_.points);
  p.write_points = std::move(writes_.points);
  p.bin_width = bin_width_;
  p.bins = std::move(bins_);
  return p;
}

}  // namespace dmo
