// Whether a memory policy only records addresses (the address-only policy,
// ops/memory_policy.h): loop nests then take shortcuts that read the same
// bytes in the same order for the fold. Detected by a member, so the
// freestanding loop nests need not know the host's policies.
#pragma once

#include <type_traits>

namespace dmo {

template <class Memory, class = void>
struct records_addresses_only : std::false_type {};

template <class Memory>
struct records_addresses_only<Memory, std::void_t<decltype(Memory::kRecordsAddressesOnly)>>
    : std::bool_constant<Memory::kRecordsAddressesOnly> {};

template <class Memory>
inline constexpr bool records_addresses_only_v = records_addresses_only<Memory>::value;

}  // namespace dmo
