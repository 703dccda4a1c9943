#include "kiss_fft_int16.h"

#include <cmath>

namespace dmo::signal {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884197169399375105820974944;

// kf_cexp with FIXED_POINT: floor(0.5 + 32767 * cos/sin(phase)).
Complex16 unit_phasor(double phase) {
  return {static_cast<int16_t>(std::floor(0.5 + 32767 * std::cos(phase))),
          static_cast<int16_t>(std::floor(0.5 + 32767 * std::sin(phase)))};
}

// kf_factor: powers of 4, then of 2, then odd primes up to floor(sqrt(n)).
std::vector<int> factor(int n) {
  std::vector<int> factors;
  int p = 4;
  const double floor_sqrt = std::floor(std::sqrt(static_cast<double>(n)));
  do {
    while (n % p) {
      switch (p) {
        case 4: p = 2; break;
        case 2: p = 3; break;
        default: p += 2; break;
      }
      if (p > floor_sqrt) p = n;
    }
    n /= p;
    factors.push_back(p);
    factors.push_back(n);
  } while (n > 1);
  return factors;
}

}  // namespace

KissFft16::KissFft16(int nfft) : nfft_(nfft), twiddles_(static_cast<size_t>(nfft)), factors_(factor(nfft)) {
  for (int i = 0; i < nfft; ++i) twiddles_[static_cast<size_t>(i)] = unit_phasor(-2 * kPi * i / nfft);
  int largest = 0;
  for (size_t f = 0; f < factors_.size(); f += 2) largest = std::max(largest, factors_[f]);
  generic_scratch_.resize(static_cast<size_t>(largest));
}

void KissFft16::transform(const Complex16* in, Complex16* out) const { work(out, in, 1, factors_.data()); }

void KissFft16::work(Complex16* out, const Complex16* in, int fstride, const int* factors) const {
  Complex16* const begin = out;
  const int p = *factors++;  // this stage's radix
  const int m = *factors++;  // the length of each of its sub-transforms
  const Complex16* const end = out + p * m;
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

void KissFft16::butterfly2(Complex16* out, int fstride, int m) const {
  const Complex16* tw = twiddles_.data();
  Complex16* out2 = out + m;
  do {
    fixdiv(*out, 2);
    fixdiv(*out2, 2);
    const Complex16 t = cmul(*out2, *tw);
    tw += fstride;
    *out2 = csub(*out, t);
    *out = cadd(*out, t);
    ++out2;
    ++out;
  } while (--m);
}

void KissFft16::butterfly3(Complex16* out, int fstride, int m) const {
  const int m2 = 2 * m;
  const Complex16 epi3 = twiddles_[static_cast<size_t>(fstride * m)];
  const Complex16* tw1 = twiddles_.data();
  const Complex16* tw2 = twiddles_.data();
  int k = m;
  do {
    fixdiv(out[0], 3);
    fixdiv(out[m], 3);
    fixdiv(out[m2], 3);
    const Complex16 s1 = cmul(out[m], *tw1);
    const Complex16 s2 = cmul(out[m2], *tw2);
    const Complex16 s3 = cadd(s1, s2);
    Complex16 s0 = csub(s1, s2);
    tw1 += fstride;
    tw2 += fstride * 2;
    out[m].r = static_cast<int16_t>(out[0].r - (s3.r >> 1));
    out[m].i = static_cast<int16_t>(out[0].i - (s3.i >> 1));
    s0.r = mul_q15(s0.r, epi3.i);
    s0.i = mul_q15(s0.i, epi3.i);
    out[0] = cadd(out[0], s3);
    out[m2].r = static_cast<int16_t>(out[m].r + s0.i);
    out[m2].i = static_cast<int16_t>(out[m].i - s0.r);
    out[m].r = static_cast<int16_t>(out[m].r - s0.i);
    out[m].i = static_cast<int16_t>(out[m].i + s0.r);
    ++out;
  } while (--k);
}

void KissFft16::butterfly4(Complex16* out, int fstride, int m) const {
  const int m2 = 2 * m, m3 = 3 * m;
  const Complex16* tw1 = twiddles_.data();
  const Complex16* tw2 = twiddles_.data();
  const Complex16* tw3 = twiddles_.data();
  int k = m;
  do {
    fixdiv(out[0], 4);
    fixdiv(out[m], 4);
    fixdiv(out[m2], 4);
    fixdiv(out[m3], 4);
    const Complex16 s0 = cmul(out[m], *tw1);
    const Complex16 s1 = cmul(out[m2], *tw2);
    const Complex16 s2 = cmul(out[m3], *tw3);
    const Complex16 s5 = csub(out[0], s1);
    out[0] = cadd(out[0], s1);
    const Complex16 s3 = cadd(s0, s2);
    const Complex16 s4 = csub(s0, s2);
    out[m2] = csub(out[0], s3);
    tw1 += fstride;
    tw2 += fstride * 2;
    tw3 += fstride * 3;
    out[0] = cadd(out[0], s3);
    // The forward transform's rotation by -i.
    out[m].r = static_cast<int16_t>(s5.r + s4.i);
    out[m].i = static_cast<int16_t>(s5.i - s4.r);
    out[m3].r = static_cast<int16_t>(s5.r - s4.i);
    out[m3].i = static_cast<int16_t>(s5.i + s4.r);
    ++out;
  } while (--k);
}

void KissFft16::butterfly5(Complex16* out, int fstride, int m) const {
  const Complex16 ya = twiddles_[static_cast<size_t>(fstride * m)];
  const Complex16 yb = twiddles_[static_cast<size_t>(fstride * 2 * m)];
  Complex16* out0 = out;
  Complex16* out1 = out + m;
  Complex16* out2 = out + 2 * m;
  Complex16* out3 = out + 3 * m;
  Complex16* out4 = out + 4 * m;
  const Complex16* tw = twiddles_.data();
  auto narrow = [](int v) { return static_cast<int16_t>(v); };
  for (int u = 0; u < m; ++u) {
    fixdiv(*out0, 5);
    fixdiv(*out1, 5);
    fixdiv(*out2, 5);
    fixdiv(*out3, 5);
    fixdiv(*out4, 5);
    const Complex16 s0 = *out0;
    const Complex16 s1 = cmul(*out1, tw[u * fstride]);
    const Complex16 s2 = cmul(*out2, tw[2 * u * fstride]);
    const Complex16 s3 = cmul(*out3, tw[3 * u * fstride]);
    const Complex16 s4 = cmul(*out4, tw[4 * u * fstride]);
    const Complex16 s7 = cadd(s1, s4);
    const Complex16 s10 = csub(s1, s4);
    const Complex16 s8 = cadd(s2, s3);
    const Complex16 s9 = csub(s2, s3);
    out0->r = narrow(out0->r + (s7.r + s8.r));
    out0->i = narrow(out0->i + (s7.i + s8.i));
    const Complex16 s5{narrow(s0.r + mul_q15(s7.r, ya.r) + mul_q15(s8.r, yb.r)),
                       narrow(s0.i + mul_q15(s7.i, ya.r) + mul_q15(s8.i, yb.r))};
    const Complex16 s6{narrow(mul_q15(s10.i, ya.i) + mul_q15(s9.i, yb.i)),
                       narrow(-mul_q15(s10.r, ya.i) - mul_q15(s9.r, yb.i))};
    *out1 = csub(s5, s6);
    *out4 = cadd(s5, s6);
    const Complex16 s11{narrow(s0.r + mul_q15(s7.r, yb.r) + mul_q15(s8.r, ya.r)),
                        narrow(s0.i + mul_q15(s7.i, yb.r) + mul_q15(s8.i, ya.r))};
    const Complex16 s12{narrow(-mul_q15(s10.i, yb.i) + mul_q15(s9.i, ya.i)),
                        narrow(mul_q15(s10.r, yb.i) - mul_q15(s9.r, ya.i))};
    *out2 = cadd(s11, s12);
    *out3 = csub(s11, s12);
    ++out0, ++out1, ++out2, ++out3, ++out4;
  }
}

void KissFft16::butterfly_generic(Complex16* out, int fstride, int m, int p) const {
  Complex16* scratch = generic_scratch_.data();
  for (int u = 0; u < m; ++u) {
    int k = u;
    for (int q1 = 0; q1 < p; ++q1) {
      scratch[q1] = out[k];
      fixdiv(scratch[q1], p);
      k += m;
    }
    k = u;
    for (int q1 = 0; q1 < p; ++q1) {
      int twiddle = 0;
      out[k] = scratch[0];
      for (int q = 1; q < p; ++q) {
        twiddle += fstride * k;
        if (twiddle >= nfft_) twiddle -= nfft_;
        out[k] = cadd(out[k], cmul(scratch[q], twiddles_[static_cast<size_t>(twiddle)]));
      }
      k += m;
    }
  }
}

KissFftr16::KissFftr16(int nfft)
    : half(nfft / 2), super_twiddles(static_cast<size_t>(nfft / 4)), tmpbuf(static_cast<size_t>(nfft / 2)) {
  const int ncfft = nfft / 2;
  for (int i = 0; i < ncfft / 2; ++i) {
    super_twiddles[static_cast<size_t>(i)] = unit_phasor(-kPi * (static_cast<double>(i + 1) / ncfft + .5));
  }
}

}  // namespace dmo::signal
