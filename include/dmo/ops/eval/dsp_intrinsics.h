// The few Arm DSP-extension operations dmo's device kernels are written
// in: on a Cortex-M with the DSP extension (M4, M7, M33) the ACLE
// intrinsics of arm_acle.h, one instruction each; elsewhere (the host, a
// Cortex-M0) plain C with the same results, so the host compiles and
// tests the very loop nests the device runs. A "pair" is two int16 lanes
// of one 32-bit word, lane 0 in the low half. Freestanding.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define DMO_HAS_ARM_DSP 1
#else
#define DMO_HAS_ARM_DSP 0
#endif

// For the small helpers of a kernel's hot loops (its store lambdas): GCC
// may otherwise call them out of line once the kernel grows, spilling the
// loop's registers at every call.
// DMO_NOINLINE keeps one form of a kernel out of another's body, whose
// registers it would otherwise crowd.
#if defined(__GNUC__)
#define DMO_ALWAYS_INLINE __attribute__((always_inline))
#define DMO_NOINLINE __attribute__((noinline))
#else
#define DMO_ALWAYS_INLINE
#define DMO_NOINLINE
#endif

namespace dmo::dsp {

// Four bytes from any address (the M4 and M7 load unaligned words).
inline uint32_t load_word(const void* at) {
  uint32_t word;
  std::memcpy(&word, at, sizeof(word));
  return word;
}

inline void store_word(void* at, uint32_t word) { std::memcpy(at, &word, sizeof(word)); }

// The two words at `at` + kOffset bytes (`at` word-aligned, constant data):
// one LDRD on the device, which GCC does not form from two loads itself.
template <int32_t kOffset>
inline void load_two_words(const void* at, uint32_t& low, uint32_t& high) {
#if defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  asm("ldrd %0, %1, [%2, %3]" : "=r"(low), "=r"(high) : "r"(at), "n"(kOffset));
#else
  const auto* bytes = static_cast<const uint8_t*>(at) + kOffset;
  std::memcpy(&low, bytes, sizeof(low));
  std::memcpy(&high, bytes + 4, sizeof(high));
#endif
}

#if DMO_HAS_ARM_DSP

// Bytes 0 and 2 of `word`, sign-extended into a pair.
inline uint32_t sign_extend_even_bytes(uint32_t word) { return __sxtb16(word); }

// Bytes 1 and 3 of `word`, sign-extended into a pair (SXTB16 with ROR #8).
inline uint32_t sign_extend_odd_bytes(uint32_t word) {
  uint32_t out;
  asm("sxtb16 %0, %1, ror #8" : "=r"(out) : "r"(word));
  return out;
}

// Lane-wise 16-bit addition (wrapping).
inline uint32_t add_pairs(uint32_t a, uint32_t b) { return __sadd16(a, b); }

// `low` in lane 0 and `high` in lane 1, each cut to 16 bits (PKHBT).
inline uint32_t make_pair(int32_t low, int32_t high) {
  uint32_t out;
  asm("pkhbt %0, %1, %2, lsl #16" : "=r"(out) : "r"(low), "r"(high));
  return out;
}

// acc + a.lane0 * b.lane0 + a.lane1 * b.lane1 (SMLAD).
inline int32_t dual_multiply_add(uint32_t a, uint32_t b, int32_t acc) {
  return __smlad(a, b, acc);
}

// The high word of a * b + 2^31 (SMMULR).
inline int32_t multiply_high_rounded(int32_t a, int32_t b) {
  int32_t out;
  asm("smmulr %0, %1, %2" : "=r"(out) : "r"(a), "r"(b));
  return out;
}

// acc + the high word of a * b + 2^31, in one step (SMMLAR).
inline int32_t multiply_high_rounded_add(int32_t a, int32_t b, int32_t acc) {
  int32_t out;
  asm("smmlar %0, %1, %2, %3" : "=r"(out) : "r"(a), "r"(b), "r"(acc));
  return out;
}

// x saturated to [-128, 127] (SSAT #8).
inline int32_t saturate_int8(int32_t x) { return __ssat(x, 8); }

// acc + a.lane0 * b.lane0 (SMLABB) and acc + a.lane1 * b.lane1 (SMLATT).
inline int32_t multiply_add_low(uint32_t a, uint32_t b, int32_t acc) {
  return __smlabb(static_cast<int32_t>(a), static_cast<int32_t>(b), acc);
}
inline int32_t multiply_add_high(uint32_t a, uint32_t b, int32_t acc) {
  return __smlatt(static_cast<int32_t>(a), static_cast<int32_t>(b), acc);
}
// acc + a.lane0 * b.lane1 (SMLABT).
inline int32_t multiply_add_low_by_high(uint32_t a, uint32_t b, int32_t acc) {
  return __smlabt(static_cast<int32_t>(a), static_cast<int32_t>(b), acc);
}

#else

inline int32_t lane(uint32_t pair, int index) {
  return static_cast<int16_t>(static_cast<uint16_t>(pair >> (16 * index)));
}

inline uint32_t make_pair(int32_t low, int32_t high) {
  return static_cast<uint32_t>(static_cast<uint16_t>(low)) | (static_cast<uint32_t>(static_cast<uint16_t>(high)) << 16);
}

inline uint32_t sign_extend_even_bytes(uint32_t word) {
  return make_pair(static_cast<int8_t>(word & 0xff), static_cast<int8_t>((word >> 16) & 0xff));
}

inline uint32_t sign_extend_odd_bytes(uint32_t word) {
  return make_pair(static_cast<int8_t>((word >> 8) & 0xff), static_cast<int8_t>(word >> 24));
}

inline uint32_t add_pairs(uint32_t a, uint32_t b) {
  return make_pair(lane(a, 0) + lane(b, 0), lane(a, 1) + lane(b, 1));
}

// Sums wrap as the instruction's do (two's complement), never overflow in C++.
inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

inline int32_t dual_multiply_add(uint32_t a, uint32_t b, int32_t acc) {
  return wrap_add(wrap_add(acc, lane(a, 0) * lane(b, 0)), lane(a, 1) * lane(b, 1));
}

inline int32_t multiply_high_rounded(int32_t a, int32_t b) {
  return static_cast<int32_t>((int64_t{a} * b + (int64_t{1} << 31)) >> 32);
}

// The 64-bit sum wraps as the instruction's does.
inline int32_t multiply_high_rounded_add(int32_t a, int32_t b, int32_t acc) {
  const uint64_t sum = (static_cast<uint64_t>(static_cast<uint32_t>(acc)) << 32) +
                       static_cast<uint64_t>(int64_t{a} * b) + (uint64_t{1} << 31);
  return static_cast<int32_t>(static_cast<uint32_t>(sum >> 32));
}

inline int32_t saturate_int8(int32_t x) { return x < -128 ? -128 : x > 127 ? 127 : x; }

inline int32_t multiply_add_low(uint32_t a, uint32_t b, int32_t acc) { return wrap_add(acc, lane(a, 0) * lane(b, 0)); }
inline int32_t multiply_add_high(uint32_t a, uint32_t b, int32_t acc) { return wrap_add(acc, lane(a, 1) * lane(b, 1)); }
inline int32_t multiply_add_low_by_high(uint32_t a, uint32_t b, int32_t acc) {
  return wrap_add(acc, lane(a, 0) * lane(b, 1));
}

#endif

// acc + a * b with two's complement wrapping, as the device's MLA.
inline int32_t multiply_add(int32_t a, int32_t b, int32_t acc) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// Keeps the compiler from moving loads across this point, so a loop body
// unrolled by hand uses its loaded words before loading the next ones
// (fewer live registers, no spills on a Cortex-M); nothing on the host.
inline void schedule_barrier() {
#if DMO_HAS_ARM_DSP
  asm volatile("" ::: "memory");
#endif
}

// Both lanes of a pair holding `value`.
inline uint32_t splat_pair(int32_t value) {
  const uint32_t half = static_cast<uint16_t>(value);
  return half | (half << 16);
}

}  // namespace dmo::dsp
