#pragma once
// The checks of one method's tables (values, tensors, chains, instructions,
// delegates) against the program and the file, shared by the files that
// implement them: program_verify_values.cpp (EValue and Tensor tables),
// program_verify_instructions.cpp (chains, instructions, delegates) and
// program_verify.cpp (the plan as a whole, segments).

#include <cinttypes>
#include <cstdint>

#include "etkit/core/byte_span.h"
#include "etkit/core/extended_header.h"
#include "etkit/core/result.h"
#include "program_generated.h"

namespace etkit::detail {

namespace fb = executorch_flatbuffer;
using u64 = unsigned long long;

// Context shared by the checks of one method.
struct MethodChecker {
  const fb::Program& program;
  const fb::ExecutionPlan& plan;
  ByteSpan file;
  const ExtendedHeader& header;
  const char* name;
  size_t value_count;

  Error fail(ErrorCode code, const char* what) const {
    return Error::make(code, "method '%s': %s", name, what);
  }

  Status check_value_index(int64_t index, const char* where) const {
    if (index < 0 || index > INT32_MAX || static_cast<uint64_t>(index) >= value_count) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': %s refers to value %" PRId64
                         ", outside the %zu values",
                         name, where, index, value_count);
    }
    return Ok{};
  }

  fb::KernelTypes type_of(int32_t index) const {
    return plan.values()->Get(static_cast<uint32_t>(index))->val_type();
  }

  Status check_tensor(size_t index, const fb::Tensor& tensor) const;
  Status check_planned(size_t index, const fb::AllocationDetails& alloc, uint64_t nbytes) const;
  Status check_tensor_data(size_t index, const fb::Tensor& tensor,
                           uint64_t nbytes) const;
  Status check_initial_data(size_t index, const fb::Tensor& tensor) const;
  Status check_inline_constant(size_t index, uint32_t buffer, uint64_t nbytes) const;
  Status check_segment_constant(size_t index, uint32_t buffer, uint64_t nbytes) const;
  Status check_value(size_t index, const fb::EValue& value) const;
  Status check_int_list(size_t index, const fb::IntList& list) const;
  Status check_tensor_list(size_t index, const fb::EValue& value) const;
  Status check_instruction(size_t chain, size_t at, size_t count,
                           const fb::Instruction& instruction) const;
  Status check_args(const flatbuffers::Vector<int32_t>* args,
                    const char* what, size_t chain, size_t at) const;
  Status check_delegates() const;
  Status check();
};

}  // namespace etkit::detail
