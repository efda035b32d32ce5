#pragma once
// Internal state of a loaded Method, shared by the load and execute files.

#include <memory>
#include <string>
#include <vector>

#include "etkit/core/backend.h"
#include "etkit/core/kernel_registry.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "low_precision_staging.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}

namespace etkit::detail {

enum class InstructionKind : uint8_t { kKernel, kDelegate, kMove, kJumpFalse, kFree };

struct PreparedInstruction {
  InstructionKind kind = InstructionKind::kKernel;
  int32_t chain = 0;
  int32_t index = 0;          ///< Position in its chain.
  Span<Value*> args;          ///< Kernel/delegate arguments.
  KernelFunction kernel = nullptr;
  const char* op_name = "";   ///< "aten::add.out"
  const char* event_name = "";  ///< "native_call_add.out", as upstream
  uint64_t out_args = 0;      ///< Bit a: argument a is an out argument.
  size_t delegate = 0;        ///< Index into MethodState::delegates.
  int32_t staging = -1;       ///< Index into MethodState::stagings: float16/bfloat16 via float32.
  int32_t a = 0;              ///< move_from / cond value / freed value
  int32_t b = 0;              ///< move_to / jump destination
};

struct LoadedDelegate {
  Backend* backend = nullptr;
  void* handle = nullptr;
  std::string id;
};

struct AlignedFree {
  void operator()(uint8_t* p) const;
};

struct MethodState {
  std::string name;
  const executorch_flatbuffer::ExecutionPlan* plan = nullptr;
  EventTracer* tracer = nullptr;

  std::vector<Value> values;
  std::vector<Tensor> tensors;         // storage for tensor values
  std::vector<Value*> boxed_ints;      // storage for IntList items
  std::vector<Tensor*> tensor_lists;   // storage for tensor list items
  std::vector<uint8_t> bool_lists;     // storage for bool list items
  std::vector<Value*> arg_storage;     // storage for instruction args
  std::vector<std::string> names;      // storage for operator/event names
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<bool> input_borrowed;  // inputs without planned memory
  std::vector<bool> input_static;    // inputs whose shape the program fixes (TensorShapeDynamism::STATIC)
  std::vector<size_t> input_bound_bytes;  // bytes of an input's declared sizes (its upper bound); SIZE_MAX if unbound
  std::vector<std::vector<PreparedInstruction>> chains;
  std::vector<LoadedDelegate> delegates;
  std::vector<std::unique_ptr<uint8_t, AlignedFree>> owned_arenas;
  size_t owned_bytes = 0;   // sum of owned_arenas' sizes
  size_t memory_limit = 0;  // MethodOptions::memory_limit
  std::vector<Span<uint8_t>> arenas;
  Span<uint8_t> scratch;  // kernel temporaries, in owned_arenas: worker 0's
  Span<uint8_t> worker_scratch;  // every worker's, back to back (scratch first)
  const ParallelRunner* parallel = nullptr;
  std::vector<LowPrecisionStaging> stagings;  // one per float16/bfloat16 instruction
  /// Mutable buffers with an initial state: value index and the bytes
  /// copied in at load (reset_state copies them again).
  std::vector<std::pair<size_t, ByteSpan>> initial_states;
  size_t instruction_count = 0;

  ~MethodState();
};

/// Builds values, tensors (placed in arenas or constants) and lists.
Status load_values(const Program& program, const MethodOptions& options, MethodState& state);
/// Allocates `size` bytes (64-byte aligned) owned by the state.
Result<Span<uint8_t>> allocate_owned(MethodState& state, size_t size);
/// Resolves kernels and delegates and checks arguments and data flow.
/// Every operator of `plan` has a kernel in the options' registry; else the
/// error lists each missing one. Checked before anything is allocated.
Status check_kernels(const executorch_flatbuffer::ExecutionPlan& plan, const MethodOptions& options,
                     const std::string& method);
Status load_instructions(const Program& program, const MethodOptions& options,
                         MethodState& state);

}  // namespace etkit::detail
