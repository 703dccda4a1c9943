// TFLite_Detection_PostProcess, mirroring TFLM's
// micro/kernels/detection_postprocess.cc (Init, Prepare, Eval,
// DecodeCenterSizeBoxes, NonMaxSuppressionMultiClass with
// NonMaxSuppressionMultiClassRegularHelper or ...FastHelper, and
// NonMaxSuppressionSingleClassHelper with its sorts, nms_sort.h).
//  - Decoding loads each anchor's four box encodings, then its anchor, and
//    keeps the corner boxes in a scratch buffer.
//  - The regular path copies each class's column of scores into scratch and
//    suppresses per class; only then are the outputs written, every one of
//    max_detections entries (zeros past the detections), then the count.
//  - The fast path ranks each anchor's classes with loads from the class
//    predictions, suppresses on each anchor's best score, then writes per
//    selected anchor and ranked class: its box, its class, then its score,
//    loaded from the class predictions right before it is stored. Entries
//    past the detections are left as they were, as TFLM leaves them.
// Which anchors are selected, and so which score the fast path loads after
// each write, is data: the address-only policy, whose loads read 0, walks
// instead the selection that reads lowest (see fast_path_address_walk).
// TFLM's kernel runs FLOAT32 only (anchors and outputs read and written as
// float); the scratch buffers its Prepare requests are listed in
// plan/tflm_scratch_buffers.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../custom_options.h"
#include "../elementwise.h"
#include "../loaded_index_check.h"
#include "../supported_types.h"
#include "dmo/error.h"
#include "dmo/ops/kernels.h"
#include "nms_sort.h"

namespace dmo {

namespace {

constexpr int32_t kBoxEncodings = 0, kClassPredictions = 1, kAnchors = 2;
constexpr int32_t kDetectionBoxes = 0, kDetectionClasses = 1, kDetectionScores = 2, kNumDetections = 3;
constexpr int32_t kCoordinates = 4;  // y, x, h, w in; ymin, xmin, ymax, xmax out

struct CenterSize {
  float y = 0, x = 0, h = 0, w = 0;
};

struct DetectionPostProcessKernel {
  int32_t num_boxes = 0;
  int32_t encoding_stride = kCoordinates;  // box encodings per anchor (4 or more)
  int32_t num_classes = 0;
  int32_t classes_with_background = 0;
  int32_t label_offset = 0;  // 1 when the class predictions start with a background class
  int32_t max_detections = 0;
  int32_t categories_per_anchor = 0;  // fast path: min(max_classes_per_detection, num_classes)
  int32_t detections_per_class = 0;   // regular path
  bool regular = false;
  float score_threshold = 0;
  float iou_threshold = 0;
  CenterSize scale;
  std::string op_label;  // "op 3 (TFLite_Detection_PostProcess)", for the eval-time box check

  // TFLM's scratch buffers, sized for what eval indexes.
  mutable std::vector<float> decoded_boxes;             // ymin, xmin, ymax, xmax per anchor
  mutable std::vector<uint8_t> active_candidate;        // per kept box
  mutable std::vector<float> score_buffer;              // a class's column, or each anchor's best score
  mutable std::vector<float> keep_scores;               // scores above the threshold
  mutable std::vector<int32_t> keep_indices;            // their anchors (and the merge sort's scratch)
  mutable std::vector<int32_t> sorted_indices;          // keep_scores' order; the regular path's top order
  mutable std::vector<int32_t> selected;                // anchors NMS keeps, best first
  mutable std::vector<int32_t> buffer;                  // regular: flat score indices; fast: ranked classes
  mutable std::vector<float> scores_after_suppression;  // regular: their scores
  mutable std::vector<float> sorted_values;             // regular: the top scores, reordered

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    decode_center_size_boxes(io, mem);
    if (regular) {
      regular_non_max_suppression(io, mem);
    } else {
      fast_non_max_suppression(io, mem);
    }
  }

  // DecodeCenterSizeBoxes: the arithmetic in double, as TFLM writes it.
  template <class Memory>
  void decode_center_size_boxes(const KernelIO& io, Memory& mem) const {
    const TensorRef& encodings = io.input(kBoxEncodings);
    const TensorRef& anchors = io.input(kAnchors);
    for (int32_t a = 0; a < num_boxes; ++a) {
      const int64_t at = static_cast<int64_t>(a) * encoding_stride;
      CenterSize box;
      box.y = mem.template load<float>(encodings, at + 0);
      box.x = mem.template load<float>(encodings, at + 1);
      box.h = mem.template load<float>(encodings, at + 2);
      box.w = mem.template load<float>(encodings, at + 3);
      CenterSize anchor;
      anchor.y = mem.template load<float>(anchors, int64_t{a} * kCoordinates + 0);
      anchor.x = mem.template load<float>(anchors, int64_t{a} * kCoordinates + 1);
      anchor.h = mem.template load<float>(anchors, int64_t{a} * kCoordinates + 2);
      anchor.w = mem.template load<float>(anchors, int64_t{a} * kCoordinates + 3);
      const auto ycenter = static_cast<float>(static_cast<double>(box.y) / static_cast<double>(scale.y) *
                                                  static_cast<double>(anchor.h) +
                                              static_cast<double>(anchor.y));
      const auto xcenter = static_cast<float>(static_cast<double>(box.x) / static_cast<double>(scale.x) *
                                                  static_cast<double>(anchor.w) +
                                              static_cast<double>(anchor.x));
      const auto half_h = static_cast<float>(
          0.5 * std::exp(static_cast<double>(box.h) / static_cast<double>(scale.h)) * static_cast<double>(anchor.h));
      const auto half_w = static_cast<float>(
          0.5 * std::exp(static_cast<double>(box.w) / static_cast<double>(scale.w)) * static_cast<double>(anchor.w));
      float* corners = &decoded_boxes[static_cast<size_t>(a) * kCoordinates];
      corners[0] = ycenter - half_h;
      corners[1] = xcenter - half_w;
      corners[2] = ycenter + half_h;
      corners[3] = xcenter + half_w;
    }
  }

  // NonMaxSuppressionMultiClassRegularHelper.
  template <class Memory>
  void regular_non_max_suppression(const KernelIO& io, Memory& mem) const {
    const TensorRef& predictions = io.input(kClassPredictions);
    int32_t kept_so_far = 0;
    for (int32_t cls = 0; cls < num_classes; ++cls) {
      for (int32_t a = 0; a < num_boxes; ++a) {
        score_buffer[static_cast<size_t>(a)] =
            mem.template load<float>(predictions, int64_t{a} * classes_with_background + cls + label_offset);
      }
      if (!boxes_valid() && stops_at_invalid_boxes(mem)) return;
      const int32_t selected_size = single_class_non_max_suppression(score_buffer.data(), detections_per_class);
      int32_t count = kept_so_far;
      for (int32_t i = 0; i < selected_size; ++i) {
        const int32_t anchor = selected[static_cast<size_t>(i)];
        buffer[static_cast<size_t>(count)] = anchor * classes_with_background + cls + label_offset;
        scores_after_suppression[static_cast<size_t>(count)] = score_buffer[static_cast<size_t>(anchor)];
        ++count;
      }
      // Keep the best max_detections of those so far and this class's.
      const int32_t to_sort = std::min(count, max_detections);
      detection::decreasing_partial_arg_sort(
          [this](int32_t i) { return scores_after_suppression[static_cast<size_t>(i)]; }, count, to_sort,
          sorted_indices.data());
      for (int32_t row = 0; row < to_sort; ++row) {
        const auto from = static_cast<size_t>(sorted_indices[static_cast<size_t>(row)]);
        sorted_indices[static_cast<size_t>(row)] = buffer[from];
        sorted_values[static_cast<size_t>(row)] = scores_after_suppression[from];
      }
      for (int32_t row = 0; row < to_sort; ++row) {
        buffer[static_cast<size_t>(row)] = sorted_indices[static_cast<size_t>(row)];
        scores_after_suppression[static_cast<size_t>(row)] = sorted_values[static_cast<size_t>(row)];
      }
      kept_so_far = to_sort;
    }
    for (int32_t entry = 0; entry < max_detections; ++entry) {
      if (entry < kept_so_far) {
        const int32_t flat = buffer[static_cast<size_t>(entry)];
        const int32_t anchor = flat / classes_with_background;
        const int32_t cls = flat - anchor * classes_with_background - label_offset;
        store_box(io, mem, entry, anchor);
        mem.template store<float>(io.output(kDetectionClasses), entry, static_cast<float>(cls));
        mem.template store<float>(io.output(kDetectionScores), entry,
                                  scores_after_suppression[static_cast<size_t>(entry)]);
      } else {
        for (int32_t c = 0; c < kCoordinates; ++c) {
          mem.template store<float>(io.output(kDetectionBoxes), int64_t{entry} * kCoordinates + c, 0.0f);
        }
        mem.template store<float>(io.output(kDetectionClasses), entry, 0.0f);
        mem.template store<float>(io.output(kDetectionScores), entry, 0.0f);
      }
    }
    mem.template store<float>(io.output(kNumDetections), 0, static_cast<float>(kept_so_far));
  }

  // NonMaxSuppressionMultiClassFastHelper.
  template <class Memory>
  void fast_non_max_suppression(const KernelIO& io, Memory& mem) const {
    const TensorRef& predictions = io.input(kClassPredictions);
    for (int32_t a = 0; a < num_boxes; ++a) {
      const int64_t row = int64_t{a} * classes_with_background + label_offset;
      int32_t* ranked = &buffer[static_cast<size_t>(a) * static_cast<size_t>(num_classes)];
      detection::decreasing_partial_arg_sort(
          [&](int32_t cls) { return mem.template load<float>(predictions, row + cls); }, num_classes,
          categories_per_anchor, ranked);
      score_buffer[static_cast<size_t>(a)] = mem.template load<float>(predictions, row + ranked[0]);
    }
    if constexpr (std::is_same_v<Memory, AddressMemory>) {
      fast_path_address_walk(io, mem);
    } else {
      if (!boxes_valid() && stops_at_invalid_boxes(mem)) return;
      const int32_t selected_size = single_class_non_max_suppression(score_buffer.data(), max_detections);
      int32_t entry = 0;
      for (int32_t i = 0; i < selected_size; ++i) {
        const int32_t anchor = selected[static_cast<size_t>(i)];
        const int64_t row = int64_t{anchor} * classes_with_background + label_offset;
        const int32_t* ranked = &buffer[static_cast<size_t>(anchor) * static_cast<size_t>(num_classes)];
        for (int32_t col = 0; col < categories_per_anchor; ++col) {
          store_fast_entry(io, mem, entry, col, anchor, row + ranked[col], ranked[col]);
          ++entry;
        }
      }
      mem.template store<float>(io.output(kNumDetections), 0, static_cast<float>(entry));
    }
  }

  // The fast path's writes for the most detections it can make
  // (min(num_boxes, max_detections) anchors, each with its ranked classes),
  // every score loaded from the lowest byte real data can make it load:
  // anchor 0's first class. Each entry can be that one (anchor 0 selected
  // there, class 0 ranked there), and the writes before it are at most
  // these, so the O_s this walk folds holds for any data and is reached.
  void fast_path_address_walk(const KernelIO& io, AddressMemory& mem) const {
    const int32_t most_selected = std::min(num_boxes, max_detections);
    int32_t entry = 0;
    for (int32_t i = 0; i < most_selected; ++i) {
      for (int32_t col = 0; col < categories_per_anchor; ++col) {
        store_fast_entry(io, mem, entry, col, 0, label_offset, 0);
        ++entry;
      }
    }
    mem.template store<float>(io.output(kNumDetections), 0, static_cast<float>(entry));
  }

  // One fast-path entry: box, class, then the score, loaded (class
  // predictions element `score_at`) right before it is stored. TFLM places
  // the entry at categories_per_anchor * entry + col (entry counting every
  // class written so far): consecutive for one category per anchor, spread
  // out beyond that.
  template <class Memory>
  void store_fast_entry(const KernelIO& io, Memory& mem, int32_t entry, int32_t col, int32_t anchor, int64_t score_at,
                        int32_t cls) const {
    const int32_t at = categories_per_anchor * entry + col;
    store_box(io, mem, at, anchor);
    mem.template store<float>(io.output(kDetectionClasses), at, static_cast<float>(cls));
    const float score = mem.template load<float>(io.input(kClassPredictions), score_at);
    mem.template store<float>(io.output(kDetectionScores), at, score);
  }

  template <class Memory>
  void store_box(const KernelIO& io, Memory& mem, int32_t at, int32_t anchor) const {
    for (int32_t c = 0; c < kCoordinates; ++c) {
      mem.template store<float>(io.output(kDetectionBoxes), int64_t{at} * kCoordinates + c,
                                decoded_boxes[static_cast<size_t>(anchor) * kCoordinates + static_cast<size_t>(c)]);
    }
  }

  // ValidateBoxes: every decoded box has ymin < ymax and xmin < xmax.
  bool boxes_valid() const { return first_invalid_box() == num_boxes; }
  int32_t first_invalid_box() const {
    for (int32_t a = 0; a < num_boxes; ++a) {
      const float* b = &decoded_boxes[static_cast<size_t>(a) * kCoordinates];
      if (b[0] >= b[2] || b[1] >= b[3]) return a;
    }
    return num_boxes;
  }

  // TFLM's Eval fails on an invalid box. The address-only policy (loads
  // read 0, so every box is empty) carries on; a checked run whose clobber
  // already garbled the boxes stops the op quietly (ops/loaded_index_check.h).
  template <class Memory>
  bool stops_at_invalid_boxes(const Memory& mem) const {
    if constexpr (std::is_same_v<Memory, AddressMemory>) {
      return false;
    } else {
      if (clobber_recorded(mem)) return true;
      const int32_t a = first_invalid_box();
      const float* b = &decoded_boxes[static_cast<size_t>(a) * kCoordinates];
      throw Error(fmt::format("{}: decoded box {} is empty or inverted (ymin {}, xmin {}, ymax {}, xmax {}); TFLM's "
                              "ValidateBoxes fails the op",
                              op_label, a, b[0], b[1], b[2], b[3]));
    }
  }

  // NonMaxSuppressionSingleClassHelper on scratch scores: fills `selected`
  // with up to `most` anchors, best first; returns how many.
  int32_t single_class_non_max_suppression(const float* scores, int32_t most) const {
    int32_t kept = 0;
    for (int32_t a = 0; a < num_boxes; ++a) {
      if (scores[a] >= score_threshold) {
        keep_scores[static_cast<size_t>(kept)] = scores[a];
        keep_indices[static_cast<size_t>(kept)] = a;
        ++kept;
      }
    }
    // keep_indices is the merge sort's scratch, then filled again.
    detection::decreasing_arg_sort(keep_scores.data(), kept, sorted_indices.data(), keep_indices.data());
    int32_t refilled = 0;
    for (int32_t a = 0; a < num_boxes; ++a) {
      if (scores[a] >= score_threshold) keep_indices[static_cast<size_t>(refilled++)] = a;
    }
    const int32_t output_size = std::min(kept, most);
    int32_t selected_size = 0;
    int32_t active = kept;
    std::fill(active_candidate.begin(), active_candidate.begin() + kept, uint8_t{1});
    auto anchor_of = [&](int32_t i) {
      return keep_indices[static_cast<size_t>(sorted_indices[static_cast<size_t>(i)])];
    };
    for (int32_t i = 0; i < kept; ++i) {
      if (active == 0 || selected_size >= output_size) break;
      if (active_candidate[static_cast<size_t>(i)] != 1) continue;
      selected[static_cast<size_t>(selected_size++)] = anchor_of(i);
      active_candidate[static_cast<size_t>(i)] = 0;
      --active;
      for (int32_t j = i + 1; j < kept; ++j) {
        if (active_candidate[static_cast<size_t>(j)] == 1 &&
            intersection_over_union(anchor_of(i), anchor_of(j)) > iou_threshold) {
          active_candidate[static_cast<size_t>(j)] = 0;
          --active;
        }
      }
    }
    return selected_size;
  }

  // ComputeIntersectionOverUnion, in float.
  float intersection_over_union(int32_t i, int32_t j) const {
    const float* a = &decoded_boxes[static_cast<size_t>(i) * kCoordinates];
    const float* b = &decoded_boxes[static_cast<size_t>(j) * kCoordinates];
    const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
    const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) return 0.0f;
    const float ymin = std::max(a[0], b[0]);
    const float xmin = std::max(a[1], b[1]);
    const float ymax = std::min(a[2], b[2]);
    const float xmax = std::min(a[3], b[3]);
    const float intersection = std::max(ymax - ymin, 0.0f) * std::max(xmax - xmin, 0.0f);
    return intersection / (area_a + area_b - intersection);
  }
};

// TFLM computes every scratch size in int: refuse what would overflow it.
void require_int_sized(const OpContext& ctx, int64_t elements, const char* what) {
  ctx.require(elements * 4 <= std::numeric_limits<int32_t>::max(),
              fmt::format("the {} scratch buffer would take {} bytes, more than TFLM's int sizes hold", what,
                          elements * 4));
}

// An output of at least `entries` values per detection entry laid flat.
void require_output_entries(const OpContext& ctx, int32_t k, const char* what, int64_t needed) {
  const TensorRef& t = ctx.output(static_cast<size_t>(k));
  ctx.require(t.elements() >= needed,
              fmt::format("output {} ({}) has {} elements; the kernel writes up to {}", k, what, t.elements(), needed));
}

}  // namespace

PreparedKernel prepare_detection_postprocess(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 4);
  for (size_t k = 1; k < 4; ++k) ctx.require(ctx.output(k).tensor != nullptr, fmt::format("output {} is missing", k));
  const CustomOptions options(ctx);
  constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();

  DetectionPostProcessKernel k;
  k.max_detections = options.integer("max_detections", 0, kIntMax);
  const int32_t max_classes_per_detection = options.integer("max_classes_per_detection", 0, kIntMax);
  k.detections_per_class = options.has("detections_per_class") ? options.integer("detections_per_class", 0, kIntMax)
                                                                 : 100;  // TFLM's default
  k.regular = options.has("use_regular_nms") && options.boolean("use_regular_nms");
  k.score_threshold = options.real("nms_score_threshold");
  k.iou_threshold = options.real("nms_iou_threshold");
  k.num_classes = options.integer("num_classes", 1, kIntMax);
  k.scale = {options.real("y_scale"), options.real("x_scale"), options.real("h_scale"), options.real("w_scale")};
  ctx.require(k.iou_threshold > 0.0f && k.iou_threshold <= 1.0f,
              fmt::format("custom option 'nms_iou_threshold' is {}, outside (0, 1]", k.iou_threshold));
  if (k.regular) {
    ctx.require(k.detections_per_class > 0, "custom option 'detections_per_class' must be positive for regular NMS");
  } else {
    ctx.require(max_classes_per_detection > 0,
                "custom option 'max_classes_per_detection' must be positive for fast NMS");
  }

  const TensorRef& encodings = ctx.input(kBoxEncodings);
  const TensorRef& predictions = ctx.input(kClassPredictions);
  const TensorRef& anchors = ctx.input(kAnchors);
  require_type_among(ctx, "box encodings (input 0)", encodings.type(), {DataType::kFloat32});
  require_type_among(ctx, "class predictions (input 1)", predictions.type(), {DataType::kFloat32});
  require_type_among(ctx, "anchors (input 2)", anchors.type(), {DataType::kFloat32});
  for (int32_t o = 0; o < 4; ++o) {
    require_type_among(ctx, fmt::format("output {}", o), ctx.output(static_cast<size_t>(o)).type(),
                       {DataType::kFloat32});
  }
  ctx.require(encodings.rank() == 3 && encodings.dim(0) == 1 && encodings.dim(2) >= kCoordinates,
              fmt::format("box encodings (input 0) have shape {}; expected 1 x boxes x 4 (or more)",
                          shape_to_string(encodings.shape())));
  k.num_boxes = encodings.dim(1);
  k.encoding_stride = encodings.dim(2);
  ctx.require(predictions.rank() == 3 && predictions.dim(0) == 1 && predictions.dim(1) == k.num_boxes,
              fmt::format("class predictions (input 1) have shape {}; expected 1x{}x(classes)",
                          shape_to_string(predictions.shape()), k.num_boxes));
  k.classes_with_background = predictions.dim(2);
  k.label_offset = k.classes_with_background - k.num_classes;
  ctx.require(k.label_offset == 0 || k.label_offset == 1,
              fmt::format("class predictions hold {} classes for num_classes {}; expected num_classes or one more "
                          "(a background class)",
                          k.classes_with_background, k.num_classes));
  ctx.require(anchors.rank() == 2 && anchors.dim(0) == k.num_boxes && anchors.dim(1) == kCoordinates,
              fmt::format("anchors (input 2) have shape {}; expected {}x4", shape_to_string(anchors.shape()),
                          k.num_boxes));

  k.categories_per_anchor = std::min(max_classes_per_detection, k.num_classes);
  const int64_t boxes = k.num_boxes;
  const int64_t most = k.max_detections;
  // Entries written: every max_detections in the regular path; in the fast
  // path up to categories_per_anchor^2 * selected (TFLM's spread placement).
  const int64_t entries = k.regular ? most
                                    : int64_t{k.categories_per_anchor} * k.categories_per_anchor *
                                          std::min(boxes, most);
  require_output_entries(ctx, kDetectionBoxes, "detection boxes", entries * kCoordinates);
  require_output_entries(ctx, kDetectionClasses, "detection classes", entries);
  require_output_entries(ctx, kDetectionScores, "detection scores", entries);
  require_output_entries(ctx, kNumDetections, "number of detections", 1);
  require_int_sized(ctx, most * boxes, "sorted indices");
  require_int_sized(ctx, std::max<int64_t>(k.num_classes, most) * boxes, "class ranking");

  k.op_label = fmt::format("op {} ({})", ctx.op_index, ctx.op->name());
  const auto n = static_cast<size_t>(boxes);
  const auto top = static_cast<size_t>(most);
  const size_t per_class = std::min(n, static_cast<size_t>(k.detections_per_class));
  k.decoded_boxes.resize(n * kCoordinates);
  k.active_candidate.resize(n);
  k.score_buffer.resize(n);
  k.keep_scores.resize(n);
  k.keep_indices.resize(n);
  k.selected.resize(n);
  k.sorted_indices.resize(std::max(n, top + per_class));
  k.buffer.resize(std::max(n * static_cast<size_t>(k.num_classes), top + per_class));
  k.scores_after_suppression.resize(top + per_class);
  k.sorted_values.resize(top);
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo
