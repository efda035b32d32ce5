#pragma once
/// @file
/// Recognises ExecuTorch file kinds by their magic bytes, never by extension.

#include "etkit/core/byte_span.h"

namespace etkit {

enum class FileKind {
  kUnknown,
  kProgram,         ///< .pte: "ET??" at byte 4 (optional "eh??" at 8)
  kBundledProgram,  ///< .bpte: "BP??" at byte 4
  kETDump,          ///< .etdp: size-prefixed, "ED??" at byte 8
  kFlatTensor,      ///< .ptd: "FT??" at byte 4 and "FH??" at 8
  kZip,             ///< A zip archive (ETRecords are zips with ETRECORD_V0)
};

FileKind detect_file_kind(ByteSpan bytes);

/// Short stable name: "program", "bundled_program", "etdump", "flat_tensor",
/// "zip", "unknown".
const char* to_string(FileKind kind);

}  // namespace etkit
