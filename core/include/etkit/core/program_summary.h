#pragma once
/// @file
/// A plain description of a loaded program: what `etinspect info` shows and
/// what tools use to describe methods without touching flatbuffer types.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/scalar_type.h"

namespace etkit {

class Program;

struct TensorShape {
  ScalarType scalar_type = ScalarType::kFloat;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> dim_order;
  std::string dynamism;  ///< "static", "dynamic_bound", "dynamic_unbound"
};

/// One entry of a method's values table as seen from its inputs/outputs.
struct ValueSummary {
  int32_t index = 0;   ///< Position in the method's values table.
  std::string kind;    ///< "tensor", "int", "double", "bool", "string",
                       ///< "none", "int_list", …
  TensorShape tensor;  ///< Set when kind == "tensor".
  std::string text;    ///< Printed value for scalars, e.g. "42".
};

struct DelegateSummary {
  std::string backend_id;
  std::string location;  ///< "inline" or "segment"
  uint32_t index = 0;    ///< Into backend_delegate_data or segments.
  uint64_t size = 0;     ///< Bytes of the processed blob.
  std::vector<std::string> compile_spec_keys;
};

/// One instruction: what it runs.
struct InstructionSummary {
  int32_t chain = 0;
  int32_t index = 0;
  std::string kind;    ///< "kernel", "delegate", "move", "jump_false", "free"
  std::string target;  ///< operator name for kernels, backend id for delegates
  int32_t delegate_index = -1;  ///< delegate calls: index into MethodSummary::delegates
  /// Values the instruction references: kernel and delegate arguments (the
  /// items of tensor lists too), a move's source and target, a free's
  /// value, a jump's condition.
  std::vector<int32_t> references;
};

/// A tensor value with allocation info: where the memory plan puts it.
struct PlannedTensorSummary {
  int32_t value = 0;
  uint32_t arena = 0;   ///< memory id
  uint64_t offset = 0;  ///< in the arena
  uint64_t bytes = 0;   ///< numel x element size of its (upper-bound) sizes
  TensorShape tensor;
  /// A mutable buffer with an initial state (planned and naming data: the
  /// mutable data segment or an external file), copied in at load and kept
  /// across executions.
  bool initial_state = false;
};

struct MethodSummary {
  std::string name;
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  size_t value_count = 0;
  size_t chain_count = 0;
  size_t instruction_count = 0;
  size_t kernel_call_count = 0;
  size_t delegate_call_count = 0;
  /// "namespace::name.overload" (or "namespace::name" when the overload is
  /// empty), in the method's operator table order.
  std::vector<std::string> operators;
  std::vector<DelegateSummary> delegates;
  std::vector<InstructionSummary> instructions;  ///< chains in order
  std::vector<PlannedTensorSummary> planned_tensors;  ///< by value index
  /// Bytes per memory arena, index 0 (reserved) included as stored.
  std::vector<int64_t> planned_buffer_sizes;
  uint64_t planned_bytes = 0;  ///< Sum of arenas 1..n.
};

struct ExternalTensor {
  std::string method;
  int32_t value_index = 0;
  std::string key;  ///< Fully qualified name looked up in .ptd files.
  TensorShape tensor;
};

struct SegmentSummary {
  uint64_t file_offset = 0;
  uint64_t size = 0;
};

struct NamedDataSummary {
  std::string key;
  uint32_t segment_index = 0;
  uint64_t size = 0;
};

struct ProgramSummary {
  uint32_t version = 0;
  uint64_t file_size = 0;
  bool has_extended_header = false;
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  std::vector<MethodSummary> methods;
  /// "none", "inline" (legacy constant_buffer) or "segment".
  std::string constant_storage;
  size_t constant_count = 0;       ///< Entries excluding the reserved index 0.
  uint64_t constant_bytes = 0;     ///< Inline buffer bytes or segment size.
  int64_t constant_segment = -1;   ///< Segment index when stored in one.
  std::vector<SegmentSummary> segments;
  std::vector<NamedDataSummary> named_data;
  std::vector<ExternalTensor> external_tensors;
};

ProgramSummary summarize(const Program& program);

/// "namespace::name.overload" as upstream prints operator names.
std::string operator_name(const std::string& name, const std::string& overload);

}  // namespace etkit
