// The int16 FFT TFLM's SignalRfft runs (signal/src/rfft_int16.cc): KISS FFT
// v1.3.0 (the kissfft TFLM downloads) built with FIXED_POINT=16, that is
// kiss_fft_alloc / kf_work / kf_bfly2..5 / kf_bfly_generic for the complex
// transform of half the length, and kiss_fftr_alloc / kiss_fftr to split it
// into the real spectrum. Every step rounds to int16 as that build does:
// products in int32 rounded by 15 bits (sround), each stage divided by its
// radix (C_FIXDIV multiplies by 32767 / radix), sums truncated to int16.
// The complex transform works on the state's own buffers; only the final
// split touches the output, so the kernel (rfft.cc) runs it through its
// memory policy with the helpers below.
#pragma once

#include <cstdint>
#include <vector>

namespace dmo::signal {

struct Complex16 {
  int16_t r = 0;
  int16_t i = 0;
};

// kiss_fft_scalar arithmetic of the FIXED_POINT=16 build.
inline int16_t round_q15(int64_t product_sum) {
  // The sum is an int32 in KISS FFT; the rounding add wraps as its int32 does.
  const auto wrapped = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(product_sum)) + (1u << 14));
  return static_cast<int16_t>(wrapped >> 15);
}
inline int16_t mul_q15(int16_t a, int16_t b) { return round_q15(int64_t{a} * b); }  // S_MUL
inline Complex16 cmul(Complex16 a, Complex16 b) {                                    // C_MUL
  return {round_q15(int64_t{a.r} * b.r - int64_t{a.i} * b.i), round_q15(int64_t{a.r} * b.i + int64_t{a.i} * b.r)};
}
inline void fixdiv(Complex16& c, int div) {  // C_FIXDIV
  const auto factor = static_cast<int16_t>(32767 / div);
  c.r = mul_q15(c.r, factor);
  c.i = mul_q15(c.i, factor);
}
inline Complex16 cadd(Complex16 a, Complex16 b) {
  return {static_cast<int16_t>(a.r + b.r), static_cast<int16_t>(a.i + b.i)};
}
inline Complex16 csub(Complex16 a, Complex16 b) {
  return {static_cast<int16_t>(a.r - b.r), static_cast<int16_t>(a.i - b.i)};
}

// kiss_fft_alloc(nfft, forward) and kiss_fft: the complex transform.
class KissFft16 {
 public:
  explicit KissFft16(int nfft);
  int size() const { return nfft_; }
  // kiss_fft(cfg, in, out) with in != out: kf_work(out, in, 1, 1, factors).
  void transform(const Complex16* in, Complex16* out) const;

 private:
  void work(Complex16* out, const Complex16* in, int fstride, const int* factors) const;
  void butterfly2(Complex16* out, int fstride, int m) const;
  void butterfly3(Complex16* out, int fstride, int m) const;
  void butterfly4(Complex16* out, int fstride, int m) const;
  void butterfly5(Complex16* out, int fstride, int m) const;
  void butterfly_generic(Complex16* out, int fstride, int m, int p) const;

  int nfft_;
  std::vector<Complex16> twiddles_;
  std::vector<int> factors_;  // kf_factor: radix, remaining length, ...
  mutable std::vector<Complex16> generic_scratch_;  // kf_bfly_generic's temporary
};

// kiss_fftr_alloc(nfft, forward): the complex transform of nfft / 2 points,
// its output buffer (tmpbuf) and the super twiddles of the split.
struct KissFftr16 {
  explicit KissFftr16(int nfft);
  KissFft16 half;
  std::vector<Complex16> super_twiddles;
  mutable std::vector<Complex16> tmpbuf;
};

}  // namespace dmo::signal
