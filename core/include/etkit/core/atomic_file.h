#pragma once
/// @file
/// Output files that appear whole or not at all: written to a temporary
/// sibling, then renamed into place. A run that is interrupted (killed,
/// out of disk) never leaves a half-written trace, report or bundle under
/// the name a user or a CI step will read. (On bare-metal boards, whose
/// semihosting cannot rename, files are written in place.)

#include <cstdio>
#include <string>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"

namespace etkit {

/// Writes `bytes` to `path` atomically. Errors name the path and the
/// system's reason.
Status write_file_atomically(const std::string& path, ByteSpan bytes);

/// A file produced piece by piece (tensor data streamed during runs):
/// writes go to a temporary sibling of `path`; commit() renames it into
/// place; destroying it uncommitted removes the temporary file.
class AtomicFile {
 public:
  static Result<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  /// The open temporary file (null after commit).
  std::FILE* file() const { return file_; }
  /// Flushes, closes and renames the file into place.
  Status commit();

 private:
  AtomicFile() = default;
  void discard();
  std::string path_, temporary_;
  std::FILE* file_ = nullptr;
};

}  // namespace etkit
