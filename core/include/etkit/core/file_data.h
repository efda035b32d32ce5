#pragma once
/// @file
/// The bytes of a file: memory-mapped when possible, read into an aligned
/// buffer otherwise (small files, pipes, special files).

#include <memory>
#include <string>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"

namespace etkit {

/// Immutable file contents. Shared so that views (programs, traces,
/// segments) can keep the bytes alive without copying them.
class FileData {
 public:
  /// Loads `path`. Errors name the path and the system's reason.
  static Result<std::shared_ptr<const FileData>> load(const std::string& path);
  /// Wraps a copy of `bytes` (for tests and in-memory inputs). The copy is
  /// 64-byte aligned, as flatbuffers expect.
  static std::shared_ptr<const FileData> copy_of(ByteSpan bytes,
                                                 std::string name);

  ~FileData();
  FileData(const FileData&) = delete;
  FileData& operator=(const FileData&) = delete;

  ByteSpan bytes() const { return ByteSpan{data_, size_}; }
  const std::string& path() const { return path_; }
  /// True when the bytes are mapped from the file rather than copied.
  bool is_mapped() const { return mapped_; }

 private:
  FileData() = default;
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace etkit
