#pragma once
/// @file
/// Limits and helpers shared by every reader of a flatbuffer format (core,
/// bundled, etdump), defined once. Internal to etkit's libraries: it names
/// no generated type and includes no flatbuffers header.

#include <cstddef>
#include <cstdint>

namespace etkit::detail {

/// The flatbuffers Verifier asserts (aborts) on buffers of 2 GiB or more,
/// so every reader checks this limit first and reports an error instead.
constexpr uint64_t kMaxFlatbufferSize = (uint64_t{1} << 31) - 1;

/// Generous limits for the Verifier: deep enough and wide enough for the
/// largest real programs (tens of thousands of values), still bounded so a
/// crafted file cannot make verification run for minutes.
constexpr unsigned kVerifierMaxDepth = 64;
constexpr unsigned kVerifierMaxTables = 50'000'000;

/// Items of an optional flatbuffer vector (0 when absent).
template <typename V>
size_t length(const V* vector) {
  return vector == nullptr ? 0 : vector->size();
}

}  // namespace etkit::detail
