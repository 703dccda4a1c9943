// MEAN's and SUM's loop nests, as TFLM's reduce kernel runs them
// (src/ops/mean/mean.cc says which path an op takes, and why):
//  - kFloatPerOutput (reference_ops::Mean for 4-D): per kept position, the
//    reduced positions summed in order, then the one output stored;
//  - kFloatInOutput (reference_ops::Mean<float, float>): the output zeroed
//    (twice: as output and as its own sum buffer), the input added onto it
//    in row-major order, then each output divided in place;
//  - kFloatSum (reference_ops::ReduceGeneric<float>): zeroed once, added onto;
//  - kRequantize (reference_ops::QuantizedMeanOrSum): the output and an int32
//    sum per output zeroed, the input summed into the sums in row-major
//    order, then each output one requantization, saturated to T.
// The sums live in `sums` (TFLM's scratch buffer; the host kernel's own
// array, a static one beside the arena in generated code). Up to five
// dimensions, as TFLM's reduce kernel. Freestanding: the host kernel and
// generated code run these nests.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/eval/scratch_words.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

inline constexpr int32_t kMaxReduceRank = 5;

// A row-major walk over some dimensions of the input, each position's flat
// input offset the sum of its index times the strides.
struct DimensionWalk {
  int32_t rank = 0;
  int64_t sizes[kMaxReduceRank] = {};
  int64_t strides[kMaxReduceRank] = {};

  int64_t count() const {
    int64_t n = 1;
    for (int32_t d = 0; d < rank; ++d) n *= sizes[d];
    return n;
  }
  template <class F>
  void each_field(F&& f) const {
    f(rank), f(sizes), f(strides);
  }
};

// Where a DimensionWalk is (TFLM keeps it in its temp_index array).
class WalkPosition {
 public:
  explicit WalkPosition(const DimensionWalk& walk) : walk_(walk) {}
  int64_t offset() const { return offset_; }
  void next() {
    for (int32_t d = walk_.rank; d-- > 0;) {
      offset_ += walk_.strides[d];
      if (++index_[d] < walk_.sizes[d]) return;
      offset_ -= walk_.strides[d] * walk_.sizes[d];
      index_[d] = 0;
    }
  }

 private:
  const DimensionWalk& walk_;
  int64_t index_[kMaxReduceRank] = {};
  int64_t offset_ = 0;
};

enum MeanPath : int32_t { kFloatPerOutput, kFloatInOutput, kFloatSum, kRequantize };

// T is float for the float paths, int8_t, uint8_t or int16_t for kRequantize.
template <typename T>
struct MeanLoops {
  int32_t path = kFloatInOutput;  // a MeanPath
  int64_t input_elements = 0, output_elements = 0;
  int64_t count = 0;  // input elements per output element
  DimensionWalk kept, reduced;  // kFloatPerOutput
  DimensionWalk output_of_input;  // the output element of each input element (strides 0 where reduced)
  QuantizedMultiplier multiplier;  // kRequantize: input_scale / output_scale, 1/count folded in for MEAN
  int32_t input_zero_point = 0, output_zero_point = 0;
  ScratchWords sums;  // kRequantize: one per output element

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    const auto& output = io.output(0);
    if constexpr (std::is_same_v<T, float>) {
      if (path == kFloatPerOutput) {
        WalkPosition at_kept(kept);
        for (int64_t o = 0; o < kept.count(); ++o, at_kept.next()) {
          WalkPosition at_reduced(reduced);
          float sum = 0.0f;
          for (int64_t r = 0; r < count; ++r, at_reduced.next()) {
            sum += mem.template load<float>(input, at_kept.offset() + at_reduced.offset());
          }
          // TFLM divides by height * width even when that is 0.
          mem.template store<float>(output, o, sum / static_cast<float>(count));
        }
        return;
      }
      for (int64_t o = 0; o < output_elements; ++o) {
        mem.template store<float>(output, o, 0.0f);  // the output
        if (path == kFloatInOutput) mem.template store<float>(output, o, 0.0f);  // the same bytes as the sum buffer
      }
      // The input in row-major order, each element added onto its output
      // element in place: the output element loaded, then the input element.
      WalkPosition at(output_of_input);
      for (int64_t i = 0; i < input_elements; ++i, at.next()) {
        const float current = mem.template load<float>(output, at.offset());
        mem.template store<float>(output, at.offset(), current + mem.template load<float>(input, i));
      }
      if (path == kFloatSum || count == 0) return;
      for (int64_t o = 0; o < output_elements; ++o) {
        mem.template store<float>(output, o, mem.template load<float>(output, o) / static_cast<float>(count));
      }
    } else {
      for (int64_t o = 0; o < output_elements; ++o) {
        mem.template store<T>(output, o, T{0});
        sums.data[o] = 0;
      }
      // An empty input leaves the zeroed output (TFLM returns here).
      if (input_elements == 0 || count == 0) return;
      WalkPosition at(output_of_input);
      for (int64_t i = 0; i < input_elements; ++i, at.next()) {
        int32_t& sum = sums.data[at.offset()];
        sum = fixed::wrapping_add(sum, mem.template load<T>(input, i));  // int32, wrapping as TFLM expects
      }
      constexpr int32_t kLow = std::numeric_limits<T>::min(), kHigh = std::numeric_limits<T>::max();
      for (int64_t o = 0; o < output_elements; ++o) {
        // The zero point times the count comes off in 64 bits, narrowed to int32.
        const auto shifted = static_cast<int32_t>(sums.data[o] - int64_t{input_zero_point} * count);
        const int32_t value = multiply_by_quantized_multiplier(shifted, multiplier) + output_zero_point;
        mem.template store<T>(output, o, static_cast<T>(value < kLow ? kLow : value > kHigh ? kHigh : value));
      }
    }
  }

  template <class F>
  void each_field(F&& f) const {
    f(path), f(input_elements), f(output_elements), f(count), f(kept), f(reduced), f(output_of_input), f(multiplier),
        f(input_zero_point), f(output_zero_point), f(sums);
  }
};

}  // namespace dmo
