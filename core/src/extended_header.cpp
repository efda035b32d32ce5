#include "etkit/core/extended_header.h"

namespace etkit {

Result<ExtendedHeader> ExtendedHeader::parse(ByteSpan file) {
  ExtendedHeader header;
  if (!file.contains(kOffset, 4) || file.data[kOffset] != 'e' ||
      file.data[kOffset + 1] != 'h') {
    return header;  // No header: a legacy program without segments.
  }
  if (!file.starts_with_at(kOffset, "eh00", 4)) {
    return Error::make(ErrorCode::kUnsupported,
                       "byte 8: extended header version '%.4s' (etkit reads "
                       "eh00)",
                       reinterpret_cast<const char*>(file.data + kOffset));
  }
  if (!file.contains(kOffset, 8)) {
    return Error::make(ErrorCode::kTruncated,
                       "extended header at byte 8 is cut off (file has %zu "
                       "bytes)",
                       file.size);
  }
  header.length = load_u32_le(file.data + kOffset + 4);
  if (header.length < kMinLength) {
    return Error::make(ErrorCode::kMalformed,
                       "byte 12: extended header length %u is below the "
                       "minimum %u",
                       header.length, kMinLength);
  }
  if (!file.contains(kOffset, header.length)) {
    return Error::make(ErrorCode::kTruncated,
                       "extended header of %u bytes at byte 8 runs past the "
                       "end of the file (%zu bytes)",
                       header.length, file.size);
  }
  const uint8_t* p = file.data + kOffset;
  header.present = true;
  header.program_size = load_u64_le(p + 8);
  header.segment_base_offset = load_u64_le(p + 16);
  if (header.length >= 32) {
    header.segment_data_size = load_u64_le(p + 24);
  }
  if (header.program_size > file.size) {
    return Error::make(ErrorCode::kTruncated,
                       "byte 16: extended header says the program flatbuffer "
                       "has %llu bytes, the file only %zu",
                       static_cast<unsigned long long>(header.program_size),
                       file.size);
  }
  if (header.segment_base_offset != 0 &&
      (header.segment_base_offset < header.program_size ||
       header.segment_base_offset > file.size)) {
    return Error::make(ErrorCode::kMalformed,
                       "byte 24: segment base offset %llu is outside [%llu, "
                       "%zu] (after the flatbuffer, within the file)",
                       static_cast<unsigned long long>(header.segment_base_offset),
                       static_cast<unsigned long long>(header.program_size),
                       file.size);
  }
  return header;
}

}  // namespace etkit
