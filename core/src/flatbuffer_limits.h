#pragma once
// The flatbuffers Verifier asserts (aborts) on buffers of 2 GiB or more, so
// every reader checks this limit first and reports an error instead.

#include <cstddef>
#include <cstdint>

namespace etkit::detail {

constexpr uint64_t kMaxFlatbufferSize = (uint64_t{1} << 31) - 1;

// Generous limits for the Verifier: deep enough and wide enough for the
// largest real programs (tens of thousands of values), still bounded so a
// crafted file cannot make verification run for minutes.
constexpr unsigned kVerifierMaxDepth = 64;
constexpr unsigned kVerifierMaxTables = 50'000'000;

}  // namespace etkit::detail
