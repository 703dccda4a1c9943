// The FFTs TFLM's SignalRfft runs (signal/src/rfft_int16.cc, rfft_int32.cc,
// rfft_float.cc): KISS FFT v1.3.0 (the kissfft TFLM downloads) built three
// times, with FIXED_POINT=16, FIXED_POINT=32 and in float. That is
// kiss_fft_alloc / kf_work / kf_bfly2..5 / kf_bfly_generic for the complex
// transform of half the length, and kiss_fftr_alloc / kiss_fftr to split
// it into the real spectrum. One algorithm over an arithmetic (below) that
// rounds as each build's macros do:
//  - fixed point (int16, int32): products widened (int32, int64) and
//    rounded by 15 or 31 bits (sround), each stage divided by its radix
//    (C_FIXDIV multiplies by SAMP_MAX / radix), sums in C int, wrapping as
//    it does, HALF_OF an arithmetic shift of the int sum;
//  - float: float products and sums, no stage scaling, HALF_OF a multiply
//    by the double 0.5 and the result rounded back to float.
// The complex transform works on the state's own buffers; only the final
// split touches the output, so the kernel (rfft.cc) runs it through its
// memory policy, calling split_bin for each value it stores.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace dmo::signal {

template <typename S>
struct Complex {
  S r{};
  S i{};
};

constexpr double kKissPi = 3.141592653589793238462643383279502884197169399375105820974944;

// _kiss_fft_guts.h with FIXED_POINT: S the sample, P the product (SAMPPROD).
template <typename S, typename P, int kFracBits>
struct FixedPointArithmetic {
  using Scalar = S;
  using Cpx = Complex<S>;
  static constexpr P kSampMax = (P{1} << kFracBits) - 1;

  // C int arithmetic (32 bits, wrapping), narrowed to the sample on store.
  static int32_t int_sum(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  }
  static S add(S a, S b) { return static_cast<S>(int_sum(a, b)); }
  static int32_t wrap_sub(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
  }
  static S sub(S a, S b) { return static_cast<S>(wrap_sub(a, b)); }
  static S neg(S a) { return static_cast<S>(wrap_sub(0, a)); }
  // sround: the rounding add wraps as SAMPPROD does.
  static S sround(P x) {
    using U = std::make_unsigned_t<P>;
    const auto rounded = static_cast<P>(static_cast<U>(x) + (U{1} << (kFracBits - 1)));
    return static_cast<S>(rounded >> kFracBits);
  }
  static P smul(S a, S b) { return static_cast<P>(a) * static_cast<P>(b); }
  static P psub(P a, P b) {
    using U = std::make_unsigned_t<P>;
    return static_cast<P>(static_cast<U>(a) - static_cast<U>(b));
  }
  static P padd(P a, P b) {
    using U = std::make_unsigned_t<P>;
    return static_cast<P>(static_cast<U>(a) + static_cast<U>(b));
  }
  static S mul(S a, S b) { return sround(smul(a, b)); }  // S_MUL and C_MULBYSCALAR
  static Cpx cmul(Cpx a, Cpx b) {                          // C_MUL
    return {sround(psub(smul(a.r, b.r), smul(a.i, b.i))), sround(padd(smul(a.r, b.i), smul(a.i, b.r)))};
  }
  static void fixdiv(Cpx& c, int div) {  // C_FIXDIV
    const auto factor = static_cast<S>(kSampMax / div);
    c.r = mul(c.r, factor);
    c.i = mul(c.i, factor);
  }
  // a - HALF_OF(b), HALF_OF(a + b), HALF_OF(a - b).
  static S sub_half(S a, S b) { return static_cast<S>(wrap_sub(a, b >> 1)); }
  static S half_sum(S a, S b) { return static_cast<S>(int_sum(a, b) >> 1); }
  static S half_difference(S a, S b) { return static_cast<S>(wrap_sub(a, b) >> 1); }
  // kf_cexp: floor(.5 + SAMP_MAX * cos / sin(phase)).
  static Cpx phasor(double phase) {
    return {static_cast<S>(std::floor(.5 + static_cast<double>(kSampMax) * std::cos(phase))),
            static_cast<S>(std::floor(.5 + static_cast<double>(kSampMax) * std::sin(phase)))};
  }
};

using Int16Arithmetic = FixedPointArithmetic<int16_t, int32_t, 15>;
using Int32Arithmetic = FixedPointArithmetic<int32_t, int64_t, 31>;

// _kiss_fft_guts.h without FIXED_POINT, kiss_fft_scalar float.
struct FloatArithmetic {
  using Scalar = float;
  using Cpx = Complex<float>;
  static float add(float a, float b) { return a + b; }
  static float sub(float a, float b) { return a - b; }
  static float neg(float a) { return -a; }
  static float mul(float a, float b) { return a * b; }
  static Cpx cmul(Cpx a, Cpx b) { return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }
  static void fixdiv(Cpx&, int) {}
  // HALF_OF(x) is x * .5, a double, stored back into a float.
  static float sub_half(float a, float b) {
    return static_cast<float>(static_cast<double>(a) - static_cast<double>(b) * .5);
  }
  static float half_sum(float a, float b) { return static_cast<float>(static_cast<double>(a + b) * .5); }
  static float half_difference(float a, float b) { return static_cast<float>(static_cast<double>(a - b) * .5); }
  static Cpx phasor(double phase) { return {static_cast<float>(std::cos(phase)), static_cast<float>(std::sin(phase))}; }
};

// kf_factor: powers of 4, then of 2, then odd primes up to floor(sqrt(n)).
std::vector<int> kiss_factors(int n);

// kiss_fft_alloc(nfft, forward) and kiss_fft: the complex transform.
template <class A>
class KissFft {
 public:
  using Cpx = typename A::Cpx;

  explicit KissFft(int nfft) : nfft_(nfft), twiddles_(static_cast<size_t>(nfft)), factors_(kiss_factors(nfft)) {
    for (int i = 0; i < nfft; ++i) twiddles_[static_cast<size_t>(i)] = A::phasor(-2 * kKissPi * i / nfft);
    int largest = 0;
    for (size_t f = 0; f < factors_.size(); f += 2) largest = std::max(largest, factors_[f]);
    generic_scratch_.resize(static_cast<size_t>(largest));
  }
  int size() const { return nfft_; }
  // kiss_fft(cfg, in, out) with in != out: kf_work(out, in, 1, 1, factors).
  void transform(const Cpx* in, Cpx* out) const { work(out, in, 1, factors_.data()); }

 private:
  static Cpx cadd(Cpx a, Cpx b) { return {A::add(a.r, b.r), A::add(a.i, b.i)}; }
  static Cpx csub(Cpx a, Cpx b) { return {A::sub(a.r, b.r), A::sub(a.i, b.i)}; }

  void work(Cpx* out, const Cpx* in, int fstride, const int* factors) const {
    Cpx* const begin = out;
    const int p = *factors++;  // this stage's radix
    const int m = *factors++;  // the length of each of its sub-transforms
    const Cpx* const end = out + p * m;
    if (m == 1) {
      do {
        *out = *in;
        in += fstride;
      } while (++out != end);
    } else {
      // p transforms of length m, each of a decimated input.
      do {
        work(out, in, fstride * p, factors);
        in += fstride;
      } while ((out += m) != end);
    }
    out = begin;
    switch (p) {
      case 2: butterfly2(out, fstride, m); break;
      case 3: butterfly3(out, fstride, m); break;
      case 4: butterfly4(out, fstride, m); break;
      case 5: butterfly5(out, fstride, m); break;
      default: butterfly_generic(out, fstride, m, p); break;
    }
  }

  void butterfly2(Cpx* out, int fstride, int m) const {
    const Cpx* tw = twiddles_.data();
    Cpx* out2 = out + m;
    do {
      A::fixdiv(*out, 2);
      A::fixdiv(*out2, 2);
      const Cpx t = A::cmul(*out2, *tw);
      tw += fstride;
      *out2 = csub(*out, t);
      *out = cadd(*out, t);
      ++out2;
      ++out;
    } while (--m);
  }

  void butterfly3(Cpx* out, int fstride, int m) const {
    const int m2 = 2 * m;
    const Cpx epi3 = twiddles_[static_cast<size_t>(fstride * m)];
    const Cpx* tw1 = twiddles_.data();
    const Cpx* tw2 = twiddles_.data();
    int k = m;
    do {
      A::fixdiv(out[0], 3);
      A::fixdiv(out[m], 3);
      A::fixdiv(out[m2], 3);
      const Cpx s1 = A::cmul(out[m], *tw1);
      const Cpx s2 = A::cmul(out[m2], *tw2);
      const Cpx s3 = cadd(s1, s2);
      Cpx s0 = csub(s1, s2);
      tw1 += fstride;
      tw2 += fstride * 2;
      out[m].r = A::sub_half(out[0].r, s3.r);
      out[m].i = A::sub_half(out[0].i, s3.i);
      s0.r = A::mul(s0.r, epi3.i);
      s0.i = A::mul(s0.i, epi3.i);
      out[0] = cadd(out[0], s3);
      out[m2].r = A::add(out[m].r, s0.i);
      out[m2].i = A::sub(out[m].i, s0.r);
      out[m].r = A::sub(out[m].r, s0.i);
      out[m].i = A::add(out[m].i, s0.r);
      ++out;
    } while (--k);
  }

  void butterfly4(Cpx* out, int fstride, int m) const {
    const int m2 = 2 * m, m3 = 3 * m;
    const Cpx* tw1 = twiddles_.data();
    const Cpx* tw2 = twiddles_.data();
    const Cpx* tw3 = twiddles_.data();
    int k = m;
    do {
      A::fixdiv(out[0], 4);
      A::fixdiv(out[m], 4);
      A::fixdiv(out[m2], 4);
      A::fixdiv(out[m3], 4);
      const Cpx s0 = A::cmul(out[m], *tw1);
      const Cpx s1 = A::cmul(out[m2], *tw2);
      const Cpx s2 = A::cmul(out[m3], *tw3);
      const Cpx s5 = csub(out[0], s1);
      out[0] = cadd(out[0], s1);
      const Cpx s3 = cadd(s0, s2);
      const Cpx s4 = csub(s0, s2);
      out[m2] = csub(out[0], s3);
      tw1 += fstride;
      tw2 += fstride * 2;
      tw3 += fstride * 3;
      out[0] = cadd(out[0], s3);
      // The forward transform's rotation by -i.
      out[m].r = A::add(s5.r, s4.i);
      out[m].i = A::sub(s5.i, s4.r);
      out[m3].r = A::sub(s5.r, s4.i);
      out[m3].i = A::add(s5.i, s4.r);
      ++out;
    } while (--k);
  }

  void butterfly5(Cpx* out, int fstride, int m) const {
    const Cpx ya = twiddles_[static_cast<size_t>(fstride * m)];
    const Cpx yb = twiddles_[static_cast<size_t>(fstride * 2 * m)];
    Cpx* out0 = out;
    Cpx* out1 = out + m;
    Cpx* out2 = out + 2 * m;
    Cpx* out3 = out + 3 * m;
    Cpx* out4 = out + 4 * m;
    const Cpx* tw = twiddles_.data();
    for (int u = 0; u < m; ++u) {
      A::fixdiv(*out0, 5);
      A::fixdiv(*out1, 5);
      A::fixdiv(*out2, 5);
      A::fixdiv(*out3, 5);
      A::fixdiv(*out4, 5);
      const Cpx s0 = *out0;
      const Cpx s1 = A::cmul(*out1, tw[u * fstride]);
      const Cpx s2 = A::cmul(*out2, tw[2 * u * fstride]);
      const Cpx s3 = A::cmul(*out3, tw[3 * u * fstride]);
      const Cpx s4 = A::cmul(*out4, tw[4 * u * fstride]);
      const Cpx s7 = cadd(s1, s4);
      const Cpx s10 = csub(s1, s4);
      const Cpx s8 = cadd(s2, s3);
      const Cpx s9 = csub(s2, s3);
      out0->r = A::add(out0->r, A::add(s7.r, s8.r));
      out0->i = A::add(out0->i, A::add(s7.i, s8.i));
      const Cpx s5{A::add(A::add(s0.r, A::mul(s7.r, ya.r)), A::mul(s8.r, yb.r)),
                   A::add(A::add(s0.i, A::mul(s7.i, ya.r)), A::mul(s8.i, yb.r))};
      const Cpx s6{A::add(A::mul(s10.i, ya.i), A::mul(s9.i, yb.i)),
                   A::sub(A::neg(A::mul(s10.r, ya.i)), A::mul(s9.r, yb.i))};
      *out1 = csub(s5, s6);
      *out4 = cadd(s5, s6);
      const Cpx s11{A::add(A::add(s0.r, A::mul(s7.r, yb.r)), A::mul(s8.r, ya.r)),
                    A::add(A::add(s0.i, A::mul(s7.i, yb.r)), A::mul(s8.i, ya.r))};
      const Cpx s12{A::add(A::neg(A::mul(s10.i, yb.i)), A::mul(s9.i, ya.i)),
                    A::sub(A::mul(s10.r, yb.i), A::mul(s9.r, ya.i))};
      *out2 = cadd(s11, s12);
      *out3 = csub(s11, s12);
      ++out0, ++out1, ++out2, ++out3, ++out4;
    }
  }

  void butterfly_generic(Cpx* out, int fstride, int m, int p) const {
    Cpx* scratch = generic_scratch_.data();
    for (int u = 0; u < m; ++u) {
      int k = u;
      for (int q1 = 0; q1 < p; ++q1) {
        scratch[q1] = out[k];
        A::fixdiv(scratch[q1], p);
        k += m;
      }
      k = u;
      for (int q1 = 0; q1 < p; ++q1) {
        int twiddle = 0;
        out[k] = scratch[0];
        for (int q = 1; q < p; ++q) {
          twiddle += fstride * k;
          if (twiddle >= nfft_) twiddle -= nfft_;
          out[k] = cadd(out[k], A::cmul(scratch[q], twiddles_[static_cast<size_t>(twiddle)]));
        }
        k += m;
      }
    }
  }

  int nfft_;
  std::vector<Cpx> twiddles_;
  std::vector<int> factors_;  // kf_factor: radix, remaining length, ...
  mutable std::vector<Cpx> generic_scratch_;  // kf_bfly_generic's temporary
};

// kiss_fftr_alloc(nfft, forward): the complex transform of nfft / 2 points,
// its output buffer (tmpbuf) and the super twiddles of the split.
template <class A>
struct KissFftr {
  using Cpx = typename A::Cpx;

  explicit KissFftr(int nfft)
      : half(nfft / 2), super_twiddles(static_cast<size_t>(nfft / 4)), tmpbuf(static_cast<size_t>(nfft / 2)) {
    const int ncfft = nfft / 2;
    for (int i = 0; i < ncfft / 2; ++i) {
      super_twiddles[static_cast<size_t>(i)] = A::phasor(-kKissPi * (static_cast<double>(i + 1) / ncfft + .5));
    }
  }

  // kiss_fftr's split of the half-length transform (in tmpbuf) into the
  // real input's spectrum: calls store(bin, imaginary, value) in its order,
  // DC and Nyquist first, then bins k and ncfft - k for k ascending.
  template <class Store>
  void split(const Store& store) const {
    const int ncfft = half.size();
    Cpx dc = tmpbuf[0];
    A::fixdiv(dc, 2);
    store(0, false, A::add(dc.r, dc.i));
    store(ncfft, false, A::sub(dc.r, dc.i));
    store(ncfft, true, typename A::Scalar{});
    store(0, true, typename A::Scalar{});
    for (int k = 1; k <= ncfft / 2; ++k) {
      Cpx fpk = tmpbuf[static_cast<size_t>(k)];
      Cpx fpnk{tmpbuf[static_cast<size_t>(ncfft - k)].r, A::neg(tmpbuf[static_cast<size_t>(ncfft - k)].i)};
      A::fixdiv(fpk, 2);
      A::fixdiv(fpnk, 2);
      const Cpx f1k{A::add(fpk.r, fpnk.r), A::add(fpk.i, fpnk.i)};
      const Cpx f2k{A::sub(fpk.r, fpnk.r), A::sub(fpk.i, fpnk.i)};
      const Cpx tw = A::cmul(f2k, super_twiddles[static_cast<size_t>(k - 1)]);
      store(k, false, A::half_sum(f1k.r, tw.r));
      store(k, true, A::half_sum(f1k.i, tw.i));
      store(ncfft - k, false, A::half_difference(f1k.r, tw.r));
      store(ncfft - k, true, A::half_difference(tw.i, f1k.i));
    }
  }

  KissFft<A> half;
  std::vector<Cpx> super_twiddles;
  mutable std::vector<Cpx> tmpbuf;
};

}  // namespace dmo::signal
