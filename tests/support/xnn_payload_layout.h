#pragma once
// Upstream's XNNPACK payload layout around an XNNGraph flatbuffer: the
// XNNHeader ("XH00" at byte 4, then its length, the flatbuffer's offset
// and size, the constant data's offset and size), the flatbuffer at byte
// 32 and the constant data 16-byte aligned after it. Header-only, so the
// fuzz targets use it without the tests' flatc-based builder.

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace etkit::test {

inline std::vector<uint8_t> xnn_payload(const uint8_t* flatbuffer, size_t flatbuffer_size,
                                        const std::vector<uint8_t>& constants) {
  const uint32_t fb_offset = 32, fb_size = uint32_t(flatbuffer_size);
  const uint32_t data_offset = (fb_offset + fb_size + 15) / 16 * 16;
  const uint64_t data_size = constants.size();
  const uint16_t length = 30;
  // The header in a fixed-size array first: GCC's bounds analysis (with
  // LTO) does not see that the vector is at least 32 bytes long.
  std::array<uint8_t, 32> header{};
  std::memcpy(header.data() + 4, "XH00", 4);
  std::memcpy(header.data() + 8, &length, 2);
  std::memcpy(header.data() + 10, &fb_offset, 4);
  std::memcpy(header.data() + 14, &fb_size, 4);
  std::memcpy(header.data() + 18, &data_offset, 4);
  std::memcpy(header.data() + 22, &data_size, 8);
  std::vector<uint8_t> bytes(header.begin(), header.end());
  bytes.resize(data_offset + constants.size(), 0);
  std::memcpy(bytes.data() + fb_offset, flatbuffer, flatbuffer_size);
  if (!constants.empty()) std::memcpy(bytes.data() + data_offset, constants.data(), constants.size());
  return bytes;
}

}  // namespace etkit::test
