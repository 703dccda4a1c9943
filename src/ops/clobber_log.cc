#include "dmo/ops/clobber_log.h"

#include <algorithm>
#include <iterator>

namespace dmo {

void ClobberLog::add(const Clobber& c) {
  if (!first_) first_ = c;
  const int64_t end = c.byte_offset + c.bytes;
  const Key key{c.access, c.writer, c.tensor};
  if (c.op != op_) {
    close_op();
    op_ = c.op;
  } else if (last_key_ && *last_key_ == key && last_run_->first <= c.byte_offset && end <= last_run_->second) {
    return;  // already logged: a kernel reads the same bytes many times
  }
  auto [entry, inserted] = open_.try_emplace(key);
  Runs& runs = entry->second;
  int64_t first = c.byte_offset, last = end;
  // Merge with every run that overlaps or touches [first, last).
  auto it = runs.upper_bound(first);
  if (it != runs.begin() && std::prev(it)->second >= first) --it;
  while (it != runs.end() && it->first <= last) {
    first = std::min(first, it->first);
    last = std::max(last, it->second);
    it = runs.erase(it);
  }
  last_run_ = runs.emplace(first, last).first;
  last_key_ = &entry->first;
}

void ClobberLog::append(std::vector<Clobber>& out, int32_t op, const std::map<Key, Runs>& runs) {
  const size_t begin = out.size();
  for (const auto& [key, spans] : runs) {
    for (const auto& [first, end] : spans) {
      out.push_back(Clobber{op, std::get<0>(key), std::get<1>(key), std::get<2>(key), first, end - first});
    }
  }
  // Within an op, stores before loads, then by victim and byte.
  std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(begin), out.end(), [](const Clobber& a, const Clobber& b) {
    return std::tie(a.access, a.tensor, a.byte_offset) < std::tie(b.access, b.tensor, b.byte_offset);
  });
}

void ClobberLog::close_op() {
  append(closed_, op_, open_);
  open_.clear();
  last_key_ = nullptr;
}

std::vector<Clobber> ClobberLog::all() const {
  std::vector<Clobber> out = closed_;
  append(out, op_, open_);
  return out;
}

}  // namespace dmo
