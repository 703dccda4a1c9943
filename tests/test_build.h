#pragma once
// What differs between the test binaries that share the tests' objects
// (dmo_tests and its sanitized twin): compiled once per binary.
#include <string>

namespace dmo::test {

// The dmo CLI built alongside this test binary.
std::string dmo_binary();

// True when this test binary's library code runs under AddressSanitizer,
// whose programs cannot run under valgrind.
bool sanitized_build();

}  // namespace dmo::test
