#pragma once
/// @file
/// The "eh00" extended header that follows the flatbuffer identifier in
/// programs that carry data segments.

#include <cstdint>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"

namespace etkit {

/// Layout at byte 8 of a program: magic "eh00", u32 header length, u64
/// program (flatbuffer) size, u64 segment base offset, then (length >= 32)
/// u64 total segment data size. All little-endian.
struct ExtendedHeader {
  static constexpr size_t kOffset = 8;
  static constexpr uint32_t kMinLength = 24;

  bool present = false;
  uint32_t length = 0;
  uint64_t program_size = 0;         ///< Bytes of the flatbuffer from offset 0.
  uint64_t segment_base_offset = 0;  ///< File offset of segment data (0: none).
  uint64_t segment_data_size = 0;    ///< 0 when the header predates the field.

  /// Parses the header if the magic is present. Absent magic is not an
  /// error (older programs have none); a present but inconsistent header is.
  static Result<ExtendedHeader> parse(ByteSpan file);
};

}  // namespace etkit
