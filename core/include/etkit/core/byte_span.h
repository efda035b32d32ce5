#pragma once
/// @file
/// A borrowed range of bytes with overflow-safe bounds checks.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etkit {

/// Non-owning view of bytes. The owner (usually a FileData) must outlive it.
struct ByteSpan {
  const uint8_t* data = nullptr;
  size_t size = 0;

  /// True when [offset, offset + length) lies inside the span; safe against
  /// overflow of offset + length.
  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size && length <= size - offset;
  }
  /// The sub-range [offset, offset + length); only call after contains().
  ByteSpan sub(uint64_t offset, uint64_t length) const {
    return ByteSpan{data + offset, static_cast<size_t>(length)};
  }
  bool starts_with_at(size_t offset, const char* magic, size_t n) const {
    return contains(offset, n) && std::memcmp(data + offset, magic, n) == 0;
  }
};

/// Little-endian loads from possibly unaligned bytes.
inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
inline uint64_t load_u64_le(const uint8_t* p) {
  return uint64_t(load_u32_le(p)) | uint64_t(load_u32_le(p + 4)) << 32;
}

}  // namespace etkit
