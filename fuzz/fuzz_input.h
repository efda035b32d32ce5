#pragma once
// Helpers shared by the fuzz targets: the input as a FileData (as the
// readers get files), and a reader that turns input bytes into choices for
// the targets that generate structured inputs.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "etkit/core/byte_span.h"
#include "etkit/core/file_data.h"
#include "etkit/core/kernel_registry.h"
#include "etkit/core/method.h"
#include "etkit/kernels/all_kernels.h"

namespace etkit::fuzz {

/// The input bytes as a file named `name` (copied, 64-byte aligned as a
/// mapped file would be).
inline std::shared_ptr<const FileData> as_file(const uint8_t* data, size_t size,
                                               const char* name) {
  return FileData::copy_of(ByteSpan{data, size}, name);
}

/// Consumes input bytes as small decisions; once the bytes run out every
/// decision is 0, so any input is a complete one.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return offset_ < size_ ? data_[offset_++] : 0; }
  /// A number in [0, count); count must be > 0.
  size_t pick(size_t count) { return count <= 256 ? byte() % count : word() % count; }
  bool coin() { return (byte() & 1) != 0; }
  uint32_t word() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = (value << 8) | byte();
    return value;
  }
  /// Mostly small values around zero, sometimes extreme ones: the values
  /// that trip index and size arithmetic.
  int64_t integer() {
    switch (pick(8)) {
      case 0: return INT64_MIN;
      case 1: return INT64_MAX;
      case 2: return static_cast<int32_t>(word());
      default: return static_cast<int64_t>(byte() % 9) - 4;
    }
  }
  double real() {
    switch (pick(6)) {
      case 0: {
        uint64_t bits = (uint64_t(word()) << 32) | word();
        double value;
        std::memcpy(&value, &bits, sizeof value);
        return value;  // any bit pattern: NaN, infinities, denormals
      }
      case 1: return 1e300;
      default: return (static_cast<int>(byte()) - 128) / 16.0;
    }
  }
  /// The bytes not consumed yet.
  const uint8_t* rest() const { return data_ + offset_; }
  size_t rest_size() const { return size_ - offset_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
};

/// Reads every byte of `bytes`, so that a span a reader claims lies inside
/// its file but does not is caught by AddressSanitizer here.
inline void touch(ByteSpan bytes) {
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < bytes.size; ++i) sink = sink ^ bytes.data[i];
  (void)sink;
}

/// Planned memory bound for methods loaded from fuzz inputs: a file that
/// asks for more is refused with an error (MethodOptions::memory_limit)
/// rather than exhausting the fuzzer's memory.
constexpr size_t kMethodMemoryLimit = 64u << 20;

/// Options for methods loaded from fuzz inputs: the memory limit, and one
/// kernel scratch shared by every load (a fresh 4 MiB per execution would
/// dominate the time of each).
inline MethodOptions method_options() {
  alignas(64) static uint8_t scratch[kKernelScratchBytes];
  MethodOptions options;
  options.kernels = &all_kernels();
  options.memory_limit = kMethodMemoryLimit;
  options.kernel_scratch = Span<uint8_t>(scratch, sizeof scratch);
  return options;
}

}  // namespace etkit::fuzz
