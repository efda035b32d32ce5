#include "etkit/core/file_kind.h"

namespace etkit {
namespace {

// Flatbuffer identifiers are two letters plus two version characters; we
// recognise the family by the letters and let each reader judge the version.
bool has_family(ByteSpan bytes, size_t offset, char a, char b) {
  return bytes.contains(offset, 4) && bytes.data[offset] == a &&
         bytes.data[offset + 1] == b;
}

}  // namespace

FileKind detect_file_kind(ByteSpan bytes) {
  if (bytes.starts_with_at(0, "PK\x03\x04", 4)) {
    return FileKind::kZip;
  }
  if (has_family(bytes, 4, 'F', 'T') && has_family(bytes, 8, 'F', 'H')) {
    return FileKind::kFlatTensor;
  }
  if (has_family(bytes, 4, 'E', 'T')) {
    return FileKind::kProgram;
  }
  if (has_family(bytes, 4, 'B', 'P')) {
    return FileKind::kBundledProgram;
  }
  if (has_family(bytes, 8, 'E', 'D')) {
    return FileKind::kETDump;
  }
  return FileKind::kUnknown;
}

const char* to_string(FileKind kind) {
  switch (kind) {
    case FileKind::kProgram: return "program";
    case FileKind::kBundledProgram: return "bundled_program";
    case FileKind::kETDump: return "etdump";
    case FileKind::kFlatTensor: return "flat_tensor";
    case FileKind::kZip: return "zip";
    case FileKind::kUnknown: break;
  }
  return "unknown";
}

}  // namespace etkit
