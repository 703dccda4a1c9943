// The two index sorts of TFLM's detection_postprocess.cc, step by step,
// since ties (and NaN scores) come out in the order its algorithms leave
// them:
//  - DecreasingPartialArgSort: std::partial_sort of 0..n-1 by value
//    descending, ties by the lower index first;
//  - DecreasingArgSort: a stable merge sort by value descending (insertion
//    sort below 20 values, else the two halves merged through a scratch
//    array and copied back).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <tuple>

namespace dmo::detection {

// The first `num_to_sort` of indices[0, num_values) hold the indices of the
// largest values; `value_of(i)` gives value i (a load from a tensor, or a
// scratch read), called as the comparisons need it.
template <class ValueOf>
void decreasing_partial_arg_sort(const ValueOf& value_of, int32_t num_values, int32_t num_to_sort, int32_t* indices) {
  std::iota(indices, indices + num_values, 0);
  std::partial_sort(indices, indices + num_to_sort, indices + num_values, [&](int32_t i, int32_t j) {
    const float value_i = value_of(i);
    const float value_j = value_of(j);
    return std::tie(value_i, j) > std::tie(value_j, i);
  });
}

namespace sort_detail {

// Each element moves behind the last earlier one it does not precede: stable.
template <class Before>
void insertion_sort(int32_t* begin, int32_t* end, const Before& before) {
  for (int32_t* i = begin; i != end; ++i) std::rotate(std::upper_bound(begin, i, *i, before), i, i + 1);
}

// Merges the sorted halves [0, half) and [half, n) through `scratch`; the
// right element goes first only when it strictly precedes the left one.
template <class Before>
void merge_halves(int32_t* values, int32_t* scratch, int32_t half, int32_t n, const Before& before) {
  int32_t left = 0;
  int32_t right = half;
  for (int32_t i = 0; i < n; ++i) {
    if (left >= half || (right < n && before(values[right], values[left]))) {
      scratch[i] = values[right++];
    } else {
      scratch[i] = values[left++];
    }
  }
  std::copy(scratch, scratch + n, values);
}

template <class Before>
void merge_sort(int32_t* values, int32_t* scratch, int32_t n, const Before& before) {
  constexpr int32_t kInsertionBelow = 20;
  if (n < kInsertionBelow) {
    insertion_sort(values, values + n, before);
    return;
  }
  const int32_t half = n / 2;
  merge_sort(values, scratch, half, before);
  merge_sort(values + half, scratch, n - half, before);
  merge_halves(values, scratch, half, n, before);
}

}  // namespace sort_detail

// indices[0, n) ordered by values descending, equal values in index order;
// `scratch` holds n indices.
inline void decreasing_arg_sort(const float* values, int32_t n, int32_t* indices, int32_t* scratch) {
  std::iota(indices, indices + n, 0);
  sort_detail::merge_sort(indices, scratch, n, [values](int32_t i, int32_t j) { return values[i] > values[j]; });
}

}  // namespace dmo::detection
