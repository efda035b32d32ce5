// The "XH00" header in front of an XNNPACK payload: magic at byte 4 (where
// a bare flatbuffer has its identifier), then u16 length, u32 flatbuffer
// offset and size, u32 constant data offset, u64 constant data size, all
// little-endian and relative to the payload's start.

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {
namespace {

constexpr size_t kHeaderMinSize = 30;

}  // namespace

Result<PayloadHeader> parse_payload_header(ByteSpan payload, bool& present) {
  present = payload.starts_with_at(4, "XH00", 4);
  PayloadHeader header;
  if (!present) {
    header.flatbuffer_size = static_cast<uint32_t>(payload.size);
    if (payload.size > UINT32_MAX) {
      return Error::make(ErrorCode::kUnsupported, "XNNPACK payload of %zu bytes is too large",
                         payload.size);
    }
    return header;
  }
  if (payload.size < kHeaderMinSize) {
    return Error::make(ErrorCode::kTruncated,
                       "XNNPACK payload header: %zu bytes, the header alone needs %zu",
                       payload.size, kHeaderMinSize);
  }
  const uint8_t* p = payload.data;
  header.length = static_cast<uint16_t>(p[8] | p[9] << 8);
  header.flatbuffer_offset = load_u32_le(p + 10);
  header.flatbuffer_size = load_u32_le(p + 14);
  header.constant_data_offset = load_u32_le(p + 18);
  header.constant_data_size = load_u64_le(p + 22);
  if (header.length < kHeaderMinSize) {
    return Error::make(ErrorCode::kMalformed, "XNNPACK payload header: length %u is below %zu",
                       unsigned(header.length), kHeaderMinSize);
  }
  if (!payload.contains(header.flatbuffer_offset, header.flatbuffer_size)) {
    return Error::make(ErrorCode::kTruncated,
                       "XNNPACK payload header: flatbuffer at offset %u, %u bytes, lies outside "
                       "the %zu-byte payload",
                       header.flatbuffer_offset, header.flatbuffer_size, payload.size);
  }
  if (!payload.contains(header.constant_data_offset, header.constant_data_size)) {
    return Error::make(ErrorCode::kTruncated,
                       "XNNPACK payload header: constant data at offset %u, %llu bytes, lies "
                       "outside the %zu-byte payload",
                       header.constant_data_offset,
                       static_cast<unsigned long long>(header.constant_data_size), payload.size);
  }
  return header;
}

}  // namespace etkit::xnnpack
