// Byte counts for people: 1234567 -> "1,234,567", read digit by digit
// when comparing figures.
#pragma once

#include <cstdint>
#include <string>

namespace dmo {

std::string grouped(int64_t value);

}  // namespace dmo
