// What a picture of one layer's accesses needs, in bounded memory however
// long the layer runs: an evenly thinned sample of its reads and writes and
// the exact frontiers (lowest read, highest write) per time bin.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dmo {

struct AccessPoint {
  int64_t time = 0;    // instructions since the layer began
  int64_t offset = 0;  // first byte of the access inside its buffer
};

// Per bin of `bin_width` instructions (bin k covers [k*w, (k+1)*w)).
struct AccessBin {
  static constexpr int64_t kNoRead = std::numeric_limits<int64_t>::max();
  int64_t min_read = kNoRead;  // lowest input byte read in the bin
  int64_t max_write = -1;      // highest output byte written in the bin
};

struct AccessPicture {
  std::string name;
  int64_t input_bytes = 0, output_bytes = 0;
  int64_t safe_overlap = 0;
  int64_t instructions = 0;
  int64_t reads = 0, writes = 0;  // all of them, before thinning
  std::vector<AccessPoint> read_points, write_points;
  int64_t bin_width = 1;
  std::vector<AccessBin> bins;
};

class AccessSampler {
 public:
  // At most `max_points` points in all (half reads, half writes) and at most
  // `max_bins` bins.
  explicit AccessSampler(size_t max_points = 20000, size_t max_bins = 1024);

  void read(int64_t time, int64_t lowest, int64_t first) {
    bin_at(time).min_read = std::min(bin_at(time).min_read, lowest);
    sample(reads_, time, first);
  }
  void write(int64_t time, int64_t highest, int64_t first) {
    bin_at(time).max_write = std::max(bin_at(time).max_write, highest);
    sample(writes_, time, first);
  }

  // Moves the samples into a picture (the sampler is spent).
  AccessPicture take(std::string name, int64_t input_bytes, int64_t output_bytes, int64_t safe_overlap,
                     int64_t instructions);

 private:
  // Keeps every stride-th access; when full, drops every other kept point
  // and doubles the stride, so the sample stays even over the whole layer.
  struct Thinned {
    std::vector<AccessPoint> points;
    int64_t seen = 0;
    int64_t stride = 1;
  };
  void sample(Thinned& kind, int64_t time, int64_t offset) {
    if (kind.seen++ % kind.stride != 0) return;
    kind.points.push_back({time, offset});
    if (kind.points.size() > max_points_per_kind_) halve(kind);
  }
  static void halve(Thinned& kind);
  AccessBin& bin_at(int64_t time) {
    int64_t k = time / bin_width_;
    while (k >= static_cast<int64_t>(max_bins_)) {
      merge_bins();
      k = time / bin_width_;
    }
    if (k >= static_cast<int64_t>(bins_.size())) bins_.resize(static_cast<size_t>(k) + 1);
    return bins_[static_cast<size_t>(k)];
  }
  void merge_bins();

  size_t max_points_per_kind_;
  size_t max_bins_;
  Thinned reads_, writes_;
  int64_t bin_width_ = 1;
  std::vector<AccessBin> bins_;
};

}  // namespace dmo
