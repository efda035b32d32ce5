#pragma once
// Verifying an ETDump before anything reads it: the flatbuffer's bounds
// and alignment (flatbuffers' Verifier), then what the Verifier cannot
// check (each event exactly one kind, debug tensors that can be read).
// The root table is verified first, then each run_data block on its own
// (block_ranges.h: on several threads in the host build), which verifies
// the same things as the whole-buffer Verifier does.

#include <cstddef>
#include <cstdint>

#include "etdump_generated.h"
#include "etkit/core/result.h"

namespace etkit::etdump::internal {

struct VerifiedTrace {
  /// The root; null when the flatbuffer is corrupt (a table, vector or
  /// string outside it or misaligned).
  const ::etdump::ETDump* root = nullptr;
  /// The first block's error (lowest run_data index) when the flatbuffer
  /// is sound but an event is not.
  Status events = Ok{};
};

/// Verifies the ETDump flatbuffer in buffer[0, size) whose root offset is
/// at `root_at` (4 in a size-prefixed buffer, 0 in a plain one), its
/// identifier right after.
VerifiedTrace verify_trace(const uint8_t* buffer, size_t size, size_t root_at);

}  // namespace etkit::etdump::internal
