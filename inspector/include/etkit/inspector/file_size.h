#pragma once
// Where the bytes of a .pte, .bpte or .ptd go: every byte attributed to one
// part of a tree (headers, each flatbuffer table by the field that holds it,
// each segment: constants one by one, delegate payloads opened, named data
// by key, mutable state), with alignment padding and unreferenced bytes as
// parts of their own, so every node's parts add up to its bytes and the
// root's to the file size. The flatbuffers are walked with their binary
// schemas (reflection), so a field the schema gains is attributed without
// code here.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/etrecord/etrecord.h"

namespace etkit::inspector {

struct SizePart {
  std::string name;
  uint64_t bytes = 0;
  std::vector<SizePart> parts;  ///< empty for a leaf; else they add up to `bytes`
  /// For a constant linked to the model (link_constants): the op that
  /// reads it, its module and source line; empty otherwise.
  std::string detail;
  std::string method;        ///< linked constants: the method and
  int32_t instruction = -1;  ///< instruction that read them (views select it)
};

/// The breakdown of a whole file (its kind from its identifier). Fails on
/// a file of another kind, or one whose flatbuffer does not verify.
Result<SizePart> file_size_breakdown(ByteSpan file, const std::string& name);

/// Names the op that reads each constant tensor of the tree ("constant …
/// (method M, value V)"): the first kernel instruction of M referencing V,
/// its graph node in `record`, the node's innermost module and user source
/// line, written to the part's `detail`. Returns how many were linked.
size_t link_constants(SizePart& root, const ProgramSummary& program, const etrecord::Etrecord& record);

/// A leaf named by its path from the root
/// ("segments/constants/constant 3 float32[64, 3, 3, 3]").
struct SizeLeaf {
  std::string path;
  uint64_t bytes = 0;
  std::string detail;  ///< as SizePart::detail
};

/// The `count` largest leaves, largest first (ties in tree order).
std::vector<SizeLeaf> largest_leaves(const SizePart& root, size_t count);

/// A constant tensor of a program, with where its bytes are: the constant
/// segment's (or legacy inline buffer's) tensors keyed by fully qualified
/// name when the program carries one, else "<method> value <index>"; an
/// XNNPACK delegate's constants keyed by the node that reads them.
struct ProgramConstant {
  std::string key;
  std::string type;              ///< "float32", … (XNNPACK: its datatype name)
  std::vector<int64_t> sizes;
  bool is_float32 = false;       ///< values comparable as numbers
  ByteSpan data;
};

/// The program's constants (of a .pte, or the program inside a .bpte).
Result<std::vector<ProgramConstant>> program_constants(ByteSpan file, const std::string& name);

/// A constant tensor value of a method (not planned: its bytes are in the
/// file or a .ptd), for views that put bytes on the ops that read them.
struct ValueConstant {
  std::string method;
  size_t value = 0;
  std::string fqn;  ///< empty when the program names none
  uint64_t bytes = 0;
};
Result<std::vector<ValueConstant>> constant_values(ByteSpan file, const std::string& name);

}  // namespace etkit::inspector
