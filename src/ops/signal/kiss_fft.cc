#include "kiss_fft.h"

namespace dmo::signal {

std::vector<int> kiss_factors(int n) {
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

}  // namespace dmo::signal
