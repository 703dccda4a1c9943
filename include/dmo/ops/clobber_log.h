// Clobbers the checking policy (ops/memory_policy.h) finds, and their log:
// one access at a time goes in, contiguous runs of bytes within one op come
// out as one finding, so a plan that is wrong by one tensor gives a handful
// of lines rather than one per element.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace dmo {

struct Clobber {
  enum class Access : uint8_t {
    kStore,  // the op wrote over bytes whose value a later read still needs
    kLoad,   // the op read bytes that no longer hold the value it reads
  };
  int32_t op = -1;
  Access access = Access::kLoad;
  // The tensor whose value the bytes hold after the clobber (-1: unknown).
  int32_t writer = -1;
  // The victim: the tensor whose value was lost (a view's base tensor).
  int32_t tensor = -1;
  int64_t byte_offset = 0;  // first byte lost, within the victim
  int64_t bytes = 1;
};

class ClobberLog {
 public:
  void add(const Clobber& clobber);
  bool empty() const { return !first_; }
  // The first clobber added, as it was added.
  const std::optional<Clobber>& first() const { return first_; }
  // Every clobber, contiguous and overlapping runs with the same op, access,
  // writer and victim merged; ops in the order found.
  std::vector<Clobber> all() const;

 private:
  using Key = std::tuple<Clobber::Access, int32_t, int32_t>;  // access, writer, victim
  using Runs = std::map<int64_t, int64_t>;                    // first byte -> end
  void close_op();
  static void append(std::vector<Clobber>& out, int32_t op, const std::map<Key, Runs>& runs);

  std::optional<Clobber> first_;
  std::vector<Clobber> closed_;    // ops before the current one
  int32_t op_ = -1;
  std::map<Key, Runs> open_;       // the current op's runs
  // The run the last clobber fell in: the same bytes are usually hit again.
  const Key* last_key_ = nullptr;
  Runs::const_iterator last_run_;
};

}  // namespace dmo
