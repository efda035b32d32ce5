#include "program_verify.h"

#include "etkit/core/checked_size.h"
#include "etkit/core/detail/flatbuffer_limits.h"

#include <cinttypes>

#include "etkit/core/scalar_type.h"
#include "flatbuffer_alignment.h"
#include "program_generated.h"

namespace etkit::detail {
namespace fb = executorch_flatbuffer;
namespace {

using u64 = unsigned long long;


using detail::length;

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
  Status check_tensor_data(size_t index, const fb::Tensor& tensor,
                           uint64_t nbytes) const;
  Status check_value(size_t index, const fb::EValue& value) const;
  Status check_instruction(size_t chain, size_t at, size_t count,
                           const fb::Instruction& instruction) const;
  Status check_args(const flatbuffers::Vector<int32_t>* args,
                    const char* what, size_t chain, size_t at) const;
  Status check_delegates() const;
  Status check();
};

Status MethodChecker::check_tensor_data(size_t index, const fb::Tensor& tensor,
                                        uint64_t nbytes) const {
  const auto* extra = tensor.extra_tensor_info();
  if (extra != nullptr &&
      extra->location() == fb::TensorDataLocation::EXTERNAL) {
    if (extra->fully_qualified_name() == nullptr ||
        extra->fully_qualified_name()->size() == 0) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: external tensor has no "
                         "fully qualified name to look it up by",
                         name, index);
    }
    return Ok{};
  }
  const uint32_t buffer = tensor.data_buffer_idx();
  if (buffer == 0) {
    return Ok{};
  }
  if (tensor.allocation_info() != nullptr) {
    // Mutable tensor with an initial value in a mutable data segment.
    const uint64_t table = extra != nullptr ? extra->mutable_data_segments_idx() : 0;
    if (table >= length(program.mutable_data_segments())) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: initial data in mutable "
                         "segment table %llu, but the program has %zu",
                         name, index, static_cast<u64>(table),
                         length(program.mutable_data_segments()));
    }
    const auto* sub = program.mutable_data_segments()->Get(table);
    if (buffer >= length(sub->offsets())) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: mutable data index %u "
                         "past the %zu offsets",
                         name, index, buffer, length(sub->offsets()));
    }
    return Ok{};
  }
  const size_t inline_count = length(program.constant_buffer());
  if (inline_count > 0) {
    if (buffer >= inline_count) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: constant buffer %u, but "
                         "the program has %zu inline buffers",
                         name, index, buffer, inline_count);
    }
    const auto* storage = program.constant_buffer()->Get(buffer)->storage();
    if (length(storage) < nbytes) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: tensor needs %llu bytes, "
                         "inline constant buffer %u has %zu",
                         name, index, static_cast<u64>(nbytes), buffer,
                         length(storage));
    }
    return Ok{};
  }
  const auto* constants = program.constant_segment();
  const size_t offset_count = constants ? length(constants->offsets()) : 0;
  if (buffer >= offset_count) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: constant %u, but the "
                       "program's constant segment lists %zu",
                       name, index, buffer, offset_count);
  }
  // Segment bounds were checked program-wide; check this constant fits.
  const auto* segment = program.segments()->Get(constants->segment_index());
  const uint64_t offset = constants->offsets()->Get(buffer);
  if (offset > segment->size() || nbytes > segment->size() - offset) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: constant %u at offset %llu "
                       "+ %llu bytes runs past its segment (%llu bytes)",
                       name, index, buffer, static_cast<u64>(offset),
                       static_cast<u64>(nbytes),
                       static_cast<u64>(segment->size()));
  }
  return Ok{};
}

Status MethodChecker::check_tensor(size_t index, const fb::Tensor& tensor) const {
  const auto type = static_cast<ScalarType>(tensor.scalar_type());
  if (!is_valid(type)) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: unknown scalar type %d",
                       name, index, static_cast<int>(tensor.scalar_type()));
  }
  const size_t rank = length(tensor.sizes());
  const size_t order_rank = length(tensor.dim_order());
  if (order_rank != 0 && order_rank != rank) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: dim_order has %zu entries "
                       "for a tensor of rank %zu",
                       name, index, order_rank, rank);
  }
  if (order_rank != 0) {
    uint64_t seen = 0;
    for (uint8_t dim : *tensor.dim_order()) {
      if (dim >= rank || rank > 64 || (seen >> dim & 1) != 0) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': values[%zu]: dim_order is not a "
                           "permutation of 0..%zu",
                           name, index, rank == 0 ? 0 : rank - 1);
      }
      seen |= uint64_t{1} << dim;
    }
  }
  uint64_t nbytes = 0;
  if (tensor.shape_dynamism() != fb::TensorShapeDynamism::DYNAMIC_UNBOUND) {
    auto bytes = tensor_nbytes(rank ? tensor.sizes()->data() : nullptr, rank,
                               element_size(type));
    if (!bytes.ok()) {
      return bytes.error().with_context("method '%s': values[%zu]", name, index);
    }
    nbytes = *bytes;
  }
  if (const auto* alloc = tensor.allocation_info()) {
    const size_t arenas = length(plan.non_const_buffer_sizes());
    if (alloc->memory_id() >= arenas) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: planned in memory arena "
                         "%u, but the method has %zu arenas",
                         name, index, alloc->memory_id(), arenas);
    }
    const uint64_t offset = uint64_t{alloc->memory_offset_high()} << 32 |
                            alloc->memory_offset_low();
    const int64_t arena = plan.non_const_buffer_sizes()->Get(alloc->memory_id());
    if (arena < 0 || offset > static_cast<uint64_t>(arena) ||
        nbytes > static_cast<uint64_t>(arena) - offset) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: planned at offset %llu + "
                         "%llu bytes, beyond arena %u of %lld bytes",
                         name, index, static_cast<u64>(offset),
                         static_cast<u64>(nbytes), alloc->memory_id(),
                         static_cast<long long>(arena));
    }
  }
  return check_tensor_data(index, tensor, nbytes);
}

Status MethodChecker::check_value(size_t index, const fb::EValue& value) const {
  // The Verifier accepts a union whose type is set but whose table is
  // absent; every reader after us would then dereference null.
  if (value.val_type() != fb::KernelTypes::NONE && value.val() == nullptr) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: %s value without its table",
                       name, index, fb::EnumNameKernelTypes(value.val_type()));
  }
  const bool misaligned =
      (value.val_type() == fb::KernelTypes::IntList &&
       !elements_aligned(value.val_as_IntList()->items())) ||
      (value.val_type() == fb::KernelTypes::DoubleList &&
       !elements_aligned(value.val_as_DoubleList()->items()));
  if (misaligned) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: %s items are not 8-byte aligned",
                       name, index, fb::EnumNameKernelTypes(value.val_type()));
  }
  switch (value.val_type()) {
    case fb::KernelTypes::IntList: {
      // Items are indices of Int values (boxed so symbolic sizes can change
      // at run time), not the ints themselves.
      const auto* items = value.val_as_IntList()->items();
      for (size_t k = 0; k < length(items); ++k) {
        char where[64];
        std::snprintf(where, sizeof(where), "int list values[%zu]", index);
        ETKIT_TRY(check_value_index(items->Get(k), where));
        const auto type = type_of(static_cast<int32_t>(items->Get(k)));
        if (type != fb::KernelTypes::Int) {
          return Error::make(ErrorCode::kMalformed,
                             "method '%s': values[%zu]: int list item %zu refers to a %s, "
                             "not an int",
                             name, index, k, fb::EnumNameKernelTypes(type));
        }
      }
      return Ok{};
    }
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null:
    case fb::KernelTypes::Int:
    case fb::KernelTypes::Bool:
    case fb::KernelTypes::Double:
    case fb::KernelTypes::String:
    case fb::KernelTypes::DoubleList:
    case fb::KernelTypes::BoolList:
      return Ok{};
    case fb::KernelTypes::Tensor:
      return check_tensor(index, *value.val_as_Tensor());
    case fb::KernelTypes::TensorList:
    case fb::KernelTypes::OptionalTensorList: {
      const bool optional =
          value.val_type() == fb::KernelTypes::OptionalTensorList;
      const auto* items = optional ? value.val_as_OptionalTensorList()->items()
                                   : value.val_as_TensorList()->items();
      if (items == nullptr) {
        return Ok{};
      }
      for (int32_t item : *items) {
        char where[64];
        std::snprintf(where, sizeof(where), "tensor list values[%zu]", index);
        ETKIT_TRY(check_value_index(item, where));
        const auto type = type_of(item);
        const bool is_none =
            type == fb::KernelTypes::Null || type == fb::KernelTypes::NONE;
        if (type != fb::KernelTypes::Tensor && !(optional && is_none)) {
          return Error::make(ErrorCode::kMalformed,
                             "method '%s': values[%zu]: list item %d is a "
                             "%s, not a tensor",
                             name, index, item, fb::EnumNameKernelTypes(type));
        }
      }
      return Ok{};
    }
  }
  return Error::make(ErrorCode::kMalformed,
                     "method '%s': values[%zu]: unknown value type %d", name,
                     index, static_cast<int>(value.val_type()));
}

Status MethodChecker::check_args(const flatbuffers::Vector<int32_t>* args,
                                 const char* what, size_t chain,
                                 size_t at) const {
  if (args == nullptr) {
    return Ok{};
  }
  char where[96];
  std::snprintf(where, sizeof(where), "chain %zu instruction %zu (%s)", chain,
                at, what);
  for (int32_t arg : *args) {
    ETKIT_TRY(check_value_index(arg, where));
  }
  return Ok{};
}

Status MethodChecker::check_instruction(size_t chain, size_t at, size_t count,
                                        const fb::Instruction& instruction) const {
  char where[96];
  std::snprintf(where, sizeof(where), "chain %zu instruction %zu", chain, at);
  if (instruction.instr_args() == nullptr) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': %s has no arguments (type %d)", name, where,
                       static_cast<int>(instruction.instr_args_type()));
  }
  switch (instruction.instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const auto* call = instruction.instr_args_as_KernelCall();
      const size_t ops = length(plan.operators());
      if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= ops) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: operator %d, but the method "
                           "lists %zu operators",
                           name, where, call->op_index(), ops);
      }
      return check_args(call->args(), "kernel call", chain, at);
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* call = instruction.instr_args_as_DelegateCall();
      const size_t delegates = length(plan.delegates());
      if (call->delegate_index() < 0 ||
          static_cast<size_t>(call->delegate_index()) >= delegates) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: delegate %d, but the method has "
                           "%zu delegates",
                           name, where, call->delegate_index(), delegates);
      }
      return check_args(call->args(), "delegate call", chain, at);
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* call = instruction.instr_args_as_MoveCall();
      ETKIT_TRY(check_value_index(call->move_from(), where));
      return check_value_index(call->move_to(), where);
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* call = instruction.instr_args_as_JumpFalseCall();
      ETKIT_TRY(check_value_index(call->cond_value_index(), where));
      const int32_t target = call->destination_instruction();
      if (target < 0 || static_cast<size_t>(target) >= count) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: jump to instruction %d, outside "
                           "the chain's %zu instructions",
                           name, where, target, count);
      }
      return Ok{};
    }
    case fb::InstructionArguments::FreeCall:
      return check_value_index(instruction.instr_args_as_FreeCall()->value_index(),
                               where);
    case fb::InstructionArguments::NONE:
      break;
  }
  return Error::make(ErrorCode::kMalformed,
                     "method '%s': %s has no arguments (type %d)", name, where,
                     static_cast<int>(instruction.instr_args_type()));
}

Status MethodChecker::check_delegates() const {
  if (plan.delegates() == nullptr) {
    return Ok{};
  }
  for (size_t i = 0; i < plan.delegates()->size(); ++i) {
    const auto* delegate = plan.delegates()->Get(i);
    if (delegate->id() == nullptr) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu has no backend id", name, i);
    }
    const auto* data = delegate->processed();
    if (data == nullptr) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu (%s) has no processed data",
                         name, i, delegate->id()->c_str());
    }
    const bool inline_data = data->location() == fb::DataLocation::INLINE;
    const size_t available = inline_data
                                 ? length(program.backend_delegate_data())
                                 : length(program.segments());
    if (data->index() >= available) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu (%s): %s data %u, but the "
                         "program has %zu",
                         name, i, delegate->id()->c_str(),
                         inline_data ? "inline" : "segment", data->index(),
                         available);
    }
  }
  return Ok{};
}

Status MethodChecker::check() {
  // Arena sizes first: tensor checks index into them.
  if (!elements_aligned(plan.non_const_buffer_sizes())) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': non_const_buffer_sizes is not 8-byte aligned",
                       name);
  }
  if (plan.non_const_buffer_sizes() != nullptr) {
    for (size_t i = 0; i < plan.non_const_buffer_sizes()->size(); ++i) {
      if (plan.non_const_buffer_sizes()->Get(i) < 0) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': memory arena %zu has negative size",
                           name, i);
      }
    }
  }
  for (size_t i = 0; i < value_count; ++i) {
    ETKIT_TRY(check_value(i, *plan.values()->Get(i)));
  }
  if (plan.inputs() != nullptr) {
    for (int32_t index : *plan.inputs()) {
      ETKIT_TRY(check_value_index(index, "inputs"));
    }
  }
  if (plan.outputs() != nullptr) {
    for (int32_t index : *plan.outputs()) {
      ETKIT_TRY(check_value_index(index, "outputs"));
    }
  }
  if (plan.operators() != nullptr) {
    for (size_t i = 0; i < plan.operators()->size(); ++i) {
      if (plan.operators()->Get(i)->name() == nullptr) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': operator %zu has no name", name, i);
      }
    }
  }
  ETKIT_TRY(check_delegates());
  if (plan.chains() == nullptr) {
    return Ok{};
  }
  for (size_t c = 0; c < plan.chains()->size(); ++c) {
    const auto* chain = plan.chains()->Get(c);
    if (chain->inputs() != nullptr) {
      for (int32_t index : *chain->inputs()) {
        ETKIT_TRY(check_value_index(index, "chain inputs"));
      }
    }
    if (chain->outputs() != nullptr) {
      for (int32_t index : *chain->outputs()) {
        ETKIT_TRY(check_value_index(index, "chain outputs"));
      }
    }
    const size_t count = length(chain->instructions());
    for (size_t i = 0; i < count; ++i) {
      ETKIT_TRY(check_instruction(c, i, count, *chain->instructions()->Get(i)));
    }
  }
  return Ok{};
}

Status check_segments(const fb::Program& program, ByteSpan file,
                      const ExtendedHeader& header) {
  const size_t count = length(program.segments());
  // Exporters emit an empty placeholder segment even in programs without an
  // extended header; only segments with bytes need a base offset.
  for (size_t i = 0; i < count && header.segment_base_offset == 0; ++i) {
    if (program.segments()->Get(i)->size() != 0) {
      return Error::make(ErrorCode::kMalformed,
                         "segment %zu has %llu bytes but the program has no "
                         "extended header giving the segments' base offset",
                         i, static_cast<u64>(program.segments()->Get(i)->size()));
    }
  }
  const ByteSpan data = file.sub(header.segment_base_offset,
                                 file.size - header.segment_base_offset);
  for (size_t i = 0; i < count; ++i) {
    const auto* segment = program.segments()->Get(i);
    if (!data.contains(segment->offset(), segment->size())) {
      return Error::make(ErrorCode::kTruncated,
                         "segment %zu at file offset %llu + %llu bytes runs "
                         "past the end of the file (%zu bytes)",
                         i,
                         static_cast<u64>(header.segment_base_offset +
                                          segment->offset()),
                         static_cast<u64>(segment->size()), file.size);
    }
  }
  auto check_index = [&](uint32_t index, const char* what) -> Status {
    if (index >= count) {
      return Error::make(ErrorCode::kMalformed,
                         "%s refers to segment %u, but the program has %zu",
                         what, index, count);
    }
    return Ok{};
  };
  if (const auto* constants = program.constant_segment()) {
    if (!elements_aligned(constants->offsets())) {
      return Error::make(ErrorCode::kMalformed,
                         "constant_segment offsets are not 8-byte aligned");
    }
    if (length(constants->offsets()) > 1) {
      ETKIT_TRY(check_index(constants->segment_index(), "constant_segment"));
      const uint64_t size = program.segments()->Get(constants->segment_index())->size();
      for (size_t i = 0; i < constants->offsets()->size(); ++i) {
        if (constants->offsets()->Get(i) > size) {
          return Error::make(ErrorCode::kMalformed,
                             "constant_segment offset %zu (%llu) is past the "
                             "end of its segment (%llu bytes)",
                             i, static_cast<u64>(constants->offsets()->Get(i)),
                             static_cast<u64>(size));
        }
      }
    }
  }
  if (const auto* mutables = program.mutable_data_segments()) {
    for (const auto* sub : *mutables) {
      if (!elements_aligned(sub->offsets())) {
        return Error::make(ErrorCode::kMalformed,
                           "mutable_data_segments offsets are not 8-byte aligned");
      }
      ETKIT_TRY(check_index(sub->segment_index(), "mutable_data_segments"));
    }
  }
  if (const auto* named = program.named_data()) {
    for (const auto* entry : *named) {
      if (entry->key() == nullptr) {
        return Error::make(ErrorCode::kMalformed, "named_data entry has no key");
      }
      ETKIT_TRY(check_index(entry->segment_index(), "named_data"));
    }
  }
  return Ok{};
}

}  // namespace

Result<uint64_t> tensor_nbytes(const int32_t* sizes, size_t rank,
                               size_t element_size) {
  CheckedShape shape;
  for (size_t d = 0; d < rank; ++d) ETKIT_TRY(shape.add(flatbuffers::ReadScalar<int32_t>(sizes + d)));
  return shape.nbytes(element_size);
}

Status verify_program_references(const fb::Program& program, ByteSpan file,
                                 const ExtendedHeader& header) {
  ETKIT_TRY(check_segments(program, file, header));
  if (program.execution_plan() == nullptr) {
    return Ok{};
  }
  for (size_t m = 0; m < program.execution_plan()->size(); ++m) {
    const auto* plan = program.execution_plan()->Get(m);
    if (plan->name() == nullptr) {
      return Error::make(ErrorCode::kMalformed, "execution_plan[%zu] has no name",
                         m);
    }
    MethodChecker checker{program, *plan, file, header, plan->name()->c_str(),
                          length(plan->values())};
    ETKIT_TRY(checker.check());
  }
  return Ok{};
}

}  // namespace etkit::detail
