#pragma once
/// @file
/// A verified, zero-copy view of an ExecuTorch program (.pte).

#include <memory>
#include <string>

#include "etkit/core/byte_span.h"
#include "etkit/core/extended_header.h"
#include "etkit/core/result.h"

namespace executorch_flatbuffer {
struct Program;
}

namespace etkit {

class FileData;

/// A program whose every table, index, offset and size has been checked
/// against its bytes at load, so later readers may index without checks.
/// The bytes are borrowed from a FileData kept alive by this object.
class Program {
 public:
  /// Loads a program from a file path.
  static Result<Program> load_file(const std::string& path);

  /// Loads a program from `bytes`, which `owner` keeps alive (e.g. the
  /// program embedded in a bundled program). `name` prefixes error messages.
  static Result<Program> load(std::shared_ptr<const FileData> owner,
                              ByteSpan bytes, std::string name);

  /// The file name or description used in messages.
  const std::string& name() const { return name_; }
  /// All bytes of the program, including trailing segments.
  ByteSpan bytes() const { return bytes_; }
  const ExtendedHeader& extended_header() const { return header_; }

  /// The root table. Internal: include the generated schema header to use it.
  const executorch_flatbuffer::Program* flatbuffer() const { return root_; }

  /// Bytes of segment `index` (already checked to lie inside the file).
  ByteSpan segment(size_t index) const;
  size_t segment_count() const;

  /// Bytes of backend_delegate_data[index] (an inline delegate payload);
  /// empty when there is no such entry.
  ByteSpan inline_delegate_data(size_t index) const;

  /// Bytes of the named data entry `key` (delegates' constants, keyed by
  /// their sha256), or kNotFound.
  Result<ByteSpan> named_data(const std::string& key) const;

 private:
  Program() = default;
  std::shared_ptr<const FileData> owner_;
  std::string name_;
  ByteSpan bytes_;
  ExtendedHeader header_;
  const executorch_flatbuffer::Program* root_ = nullptr;
};

}  // namespace etkit
