#pragma once
// What changed between two programs and what it cost: methods, operators
// (kernel calls per op), delegation (delegate calls per backend), constants
// (matched by fully qualified name, else by method and value; XNNPACK's by
// the node that reads them) with the largest change of each, and the file
// size by category. The facts behind `etinspect diff-program`.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/inspector/file_size.h"

namespace etkit::inspector {

struct CountChange {
  std::string name;  ///< an operator, or a backend
  int64_t old_count = 0, new_count = 0;
};

struct MethodChange {
  std::string name;
  int64_t old_instructions = 0, new_instructions = 0;
  std::vector<CountChange> operators;  ///< kernel calls per operator, changed ones only
  std::vector<CountChange> delegates;  ///< delegate calls per backend, changed ones only
};

struct ConstantChange {
  std::string key;
  std::string status;  ///< "changed", "reshaped", "added", "removed"
  std::string old_shape, new_shape;  ///< "float32[64, 3]"; empty when absent
  uint64_t old_bytes = 0, new_bytes = 0;
  /// Largest |new - old| of float32 constants of one shape (NaN otherwise).
  double max_abs_change = std::numeric_limits<double>::quiet_NaN();
};

struct SizeChange {
  std::string category;
  int64_t old_bytes = 0, new_bytes = 0;
};

struct ProgramDiff {
  int64_t old_file_bytes = 0, new_file_bytes = 0;
  std::vector<std::string> methods_added, methods_removed;
  std::vector<MethodChange> methods;  ///< methods in both that changed
  std::vector<ConstantChange> constants;
  size_t constants_unchanged = 0;
  std::vector<SizeChange> sizes;  ///< every category of either file
};

struct ProgramFacts {
  const ProgramSummary* summary = nullptr;
  const SizePart* size = nullptr;
  const std::vector<ProgramConstant>* constants = nullptr;
};

ProgramDiff diff_programs(const ProgramFacts& old_program, const ProgramFacts& new_program);

}  // namespace etkit::inspector
