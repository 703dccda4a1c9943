// Checks that a file written by with_offline_plan differs from its original
// only by the plan: the original bytes follow a 16-byte multiple front
// unchanged, and the new root reaches exactly the original objects for every
// field except the buffers and metadata vectors, whose entries are the
// original tables too, apart from the plan's buffer and entry.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "dmo/tflite/offline_plan.h"
#include "tflite_subset_generated.h"

namespace dmo::test {

struct PlanFileFacts {
  size_t front_bytes = 0;        // bytes in front of the original file
  uint32_t plan_buffer = 0;      // buffer index of the (first) plan entry
  bool plan_replaced = false;    // the plan took an existing entry's slot
  size_t aligned_data_buffers = 0;  // original buffers whose data starts at a multiple of 16
  size_t data_buffers = 0;
};

// "" when `out` is `original` plus a plan; otherwise the first difference.
inline std::string plan_file_difference(std::span<const uint8_t> original, std::span<const uint8_t> out,
                                        PlanFileFacts* facts = nullptr) {
  namespace fb = ::dmo::tfl;
  PlanFileFacts f;
  if (out.size() <= original.size()) return "the new file is not longer than the original";
  f.front_bytes = out.size() - original.size();
  if (f.front_bytes % 16 != 0) return fmt::format("front of {} bytes, not a multiple of 16", f.front_bytes);
  if (!std::equal(original.begin(), original.end(), out.begin() + static_cast<std::ptrdiff_t>(f.front_bytes))) {
    return "the original bytes do not follow the front unchanged";
  }
  flatbuffers::Verifier verifier(out.data(), out.size(), 64, 10'000'000);
  if (!fb::VerifyModelBuffer(verifier)) return "the new file fails the flatbuffers verifier";
  const fb::Model* a = fb::GetModel(original.data());
  const fb::Model* b = fb::GetModel(out.data());
  auto pos = [](const void* p, std::span<const uint8_t> file) -> int64_t {
    return p ? static_cast<const uint8_t*>(p) - file.data() : -1;
  };
  // The same object of the original, moved by the front.
  auto same = [&](const void* pa, const void* pb) {
    if (!pa || !pb) return !pa && !pb;
    return pos(pb, out) == pos(pa, original) + static_cast<int64_t>(f.front_bytes);
  };
  if (a->version() != b->version()) return "root version";
  if (!same(a->operator_codes(), b->operator_codes())) return "root operator_codes is not the original vector";
  if (!same(a->subgraphs(), b->subgraphs())) return "root subgraphs is not the original vector";
  if (!same(a->description(), b->description())) return "root description is not the original string";
  if (!same(a->metadata_buffer(), b->metadata_buffer())) return "root metadata_buffer is not the original vector";
  if (!same(a->signature_defs(), b->signature_defs())) return "root signature_defs is not the original vector";

  // Metadata: the original entries (same table, or a re-created plan entry
  // with the original name string), then at most one new plan entry.
  const uint32_t ma = a->metadata() ? a->metadata()->size() : 0;
  if (!b->metadata()) return "the new file has no metadata";
  const uint32_t mb = b->metadata()->size();
  if (mb != ma && mb != ma + 1) return fmt::format("{} metadata entries became {}", ma, mb);
  bool have_plan = false;
  for (uint32_t m = 0; m < mb; ++m) {
    const fb::Metadata* eb = b->metadata()->Get(m);
    const bool is_plan = eb->name() && eb->name()->str() == kOfflinePlanMetadataName;
    if (m < ma) {
      const fb::Metadata* ea = a->metadata()->Get(m);
      if (!same(ea, eb) && !(is_plan && same(ea->name(), eb->name()))) {
        return fmt::format("metadata entry {} is not the original", m);
      }
    } else if (!is_plan) {
      return "the added metadata entry is not the offline plan";
    }
    if (is_plan && !have_plan) {
      have_plan = true;
      f.plan_buffer = eb->buffer();
      f.plan_replaced = m < ma && same(a->metadata()->Get(m), eb);
    }
  }
  if (!have_plan) return "the new file has no OfflineMemoryAllocation entry";

  // Buffers: the original tables except the plan's, and tables re-created
  // for data stored by absolute offset.
  const uint32_t ba = a->buffers() ? a->buffers()->size() : 0;
  const uint32_t bb = b->buffers()->size();
  if (bb < ba || bb > ba + 2) return fmt::format("{} buffers became {}", ba, bb);
  const uint32_t shift = ba == 0 ? 1 : 0;  // a sentinel buffer 0 added to a model without buffers
  for (uint32_t i = 0; i < ba; ++i) {
    const fb::Buffer* xa = a->buffers()->Get(i);
    const fb::Buffer* xb = b->buffers()->Get(i + shift);
    if (i == f.plan_buffer && f.plan_replaced) continue;
    if (!same(xa, xb)) {
      if (xa->offset() <= 1) return fmt::format("buffer {} is not the original table", i);
      if (!same(xa->data(), xb->data()) || xb->size() != xa->size() ||
          xb->offset() != xa->offset() + f.front_bytes) {
        return fmt::format("buffer {} (stored by offset) was not re-based exactly", i);
      }
    }
    if (xa->data() && xa->data()->size() > 0) {
      ++f.data_buffers;
      const int64_t pa = pos(xa->data()->data(), original), pb = pos(xb->data()->data(), out);
      if (pa % 16 != pb % 16) return fmt::format("buffer {} data changed its alignment", i);
      if (pb % 16 == 0) ++f.aligned_data_buffers;
    }
  }
  const fb::Buffer* plan = b->buffers()->Get(f.plan_buffer);
  if (!plan->data() || pos(plan->data()->data(), out) % 16 != 0) return "the plan's data is not 16-byte aligned";
  if (facts) *facts = f;
  return "";
}

}  // namespace dmo::test
