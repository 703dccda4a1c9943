#include "test_build.h"

namespace dmo::test {

std::string dmo_binary() { return DMO_BINARY; }

bool sanitized_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#else
  return false;
#endif
}

}  // namespace dmo::test
