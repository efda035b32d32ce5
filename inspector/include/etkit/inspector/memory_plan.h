#pragma once
/// @file
/// How a method uses its planned memory: every planned tensor's lifetime
/// over the instructions, each arena's peak of live bytes, the size a good
/// offline planner reaches for the same lifetimes, and planning errors.
///
/// Definitions (stated in the README): a step is an instruction's index in
/// the method, chains in order; an instruction references the values it
/// takes as arguments (the items of tensor lists too), a move's source and
/// target, a free's value, a jump's condition; a tensor lives from its first
/// to its last referencing step, method inputs from step 0, method outputs
/// to the last step; a planned tensor nothing references that is no input
/// or output has no lifetime.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"

namespace etkit::inspector {

struct TensorLifetime {
  PlannedTensorSummary planned;
  std::optional<size_t> first;  ///< step; absent: no lifetime (a mutable buffer: the whole method)
  std::optional<size_t> last;
  std::optional<std::string> producer;  ///< op of the first instruction writing it; absent for inputs
  std::vector<std::string> consumers;   ///< ops of the later instructions referencing it, in order
};

struct ArenaUse {
  uint32_t id = 0;
  uint64_t size = 0;             ///< the program's planned buffer size
  uint64_t peak_live_bytes = 0;  ///< most bytes of its tensors alive at one step
  size_t peak_step = 0;          ///< first step reaching the peak
  double utilization = 0;        ///< peak_live_bytes / size (0 for an empty arena)
  uint64_t best_fit_bytes = 0;   ///< best_fit_size() of its tensors
};

struct MethodMemory {
  std::string name;
  size_t instructions = 0;
  std::vector<ArenaUse> arenas;          ///< arenas 1..n (0 is reserved)
  std::vector<TensorLifetime> tensors;   ///< by value index
  std::vector<std::string> errors;       ///< overlapping live tensors, tensors past their arena
};

/// The analysis of one method's summary.
MethodMemory analyze_memory(const MethodSummary& method);

/// The arena size a greedy offline planner reaches: tensors largest first,
/// each placed in the smallest gap (16-byte aligned) left by the already
/// placed tensors whose lifetimes overlap its own, else above them. Never
/// below the peak of live bytes.
uint64_t best_fit_size(const std::vector<TensorLifetime>& tensors);
/// Where that planner puts each of `tensors` (nullopt for tensors without
/// a lifetime or bytes): the plan best_fit_size() measures.
std::vector<std::optional<uint64_t>> best_fit_offsets(const std::vector<TensorLifetime>& tensors);

}  // namespace etkit::inspector
