#pragma once
/// @file
/// A verified, zero-copy view of an external data file (.ptd, FlatTensor).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"

namespace etkit {

class FileData;

/// The "FH01" header at byte 8 of a .ptd: u32 length, then u64 flatbuffer
/// offset, flatbuffer size, segment base offset and segment data size.
struct FlatTensorHeader {
  uint32_t length = 0;
  uint64_t flatbuffer_offset = 0;
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

/// One named blob: a tensor when `has_layout`, otherwise opaque bytes.
struct NamedTensorData {
  std::string key;
  uint32_t segment_index = 0;
  bool has_layout = false;
  ScalarType scalar_type = ScalarType::kByte;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  ByteSpan data;  ///< Points into the file; valid while the FlatTensor lives.
};

class FlatTensor {
 public:
  static Result<FlatTensor> load_file(const std::string& path);
  static Result<FlatTensor> load(std::shared_ptr<const FileData> owner,
                                 std::string name);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  const FlatTensorHeader& header() const { return header_; }
  const std::vector<NamedTensorData>& entries() const { return entries_; }
  size_t segment_count() const { return segment_count_; }

  /// The entry with `key`, or nullptr.
  const NamedTensorData* find(const std::string& key) const;

 private:
  FlatTensor() = default;
  std::shared_ptr<const FileData> owner_;
  std::string name_;
  FlatTensorHeader header_;
  uint32_t version_ = 0;
  size_t segment_count_ = 0;
  std::vector<NamedTensorData> entries_;
};

}  // namespace etkit
