// Checks of a method's EValue and Tensor tables: kinds, indices, sizes,
// allocation info and constant data against the program and the file.

#include "etkit/core/checked_size.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/scalar_type.h"
#include "flatbuffer_alignment.h"
#include "program_verify.h"
#include "program_verify_method.h"

namespace etkit::detail {

using detail::length;

// A mutable tensor's initial value: an index into a mutable data segment's
// offsets.
Status MethodChecker::check_initial_data(size_t index, const fb::Tensor& tensor) const {
  const auto* extra = tensor.extra_tensor_info();
  const uint32_t buffer = tensor.data_buffer_idx();
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

// A constant in the program's inline constant_buffer (the legacy layout).
Status MethodChecker::check_inline_constant(size_t index, uint32_t buffer, uint64_t nbytes) const {
  const size_t inline_count = length(program.constant_buffer());
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

// A constant in the constant segment: its offset entry, and its bytes
// within the segment.
Status MethodChecker::check_segment_constant(size_t index, uint32_t buffer, uint64_t nbytes) const {
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
    return check_initial_data(index, tensor);
  }
  if (length(program.constant_buffer()) > 0) {
    return check_inline_constant(index, buffer, nbytes);
  }
  return check_segment_constant(index, buffer, nbytes);
}

// A planned tensor lies inside an arena the method has (entry 0 of
// non_const_buffer_sizes is reserved: no memory stands behind it).
Status MethodChecker::check_planned(size_t index, const fb::AllocationDetails& alloc, uint64_t nbytes) const {
  const size_t arenas = length(plan.non_const_buffer_sizes());
  if (alloc.memory_id() >= arenas) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: planned in memory arena "
                       "%u, but the method has %zu arenas",
                       name, index, alloc.memory_id(), arenas);
  }
  // Entry 0 of non_const_buffer_sizes is reserved: no memory stands behind it.
  if (alloc.memory_id() == 0) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: planned in memory arena 0, which is reserved "
                       "(planned arenas are numbered from 1)",
                       name, index);
  }
  const uint64_t offset = uint64_t{alloc.memory_offset_high()} << 32 |
                          alloc.memory_offset_low();
  const int64_t arena = plan.non_const_buffer_sizes()->Get(alloc.memory_id());
  if (arena < 0 || offset > static_cast<uint64_t>(arena) ||
      nbytes > static_cast<uint64_t>(arena) - offset) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: planned at offset %llu + "
                       "%llu bytes, beyond arena %u of %lld bytes",
                       name, index, static_cast<u64>(offset),
                       static_cast<u64>(nbytes), alloc.memory_id(),
                       static_cast<long long>(arena));
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
  if (const auto* alloc = tensor.allocation_info()) ETKIT_TRY(check_planned(index, *alloc, nbytes));
  return check_tensor_data(index, tensor, nbytes);
}

// Items are indices of Int values (boxed so symbolic sizes can change at
// run time), not the ints themselves.
Status MethodChecker::check_int_list(size_t index, const fb::IntList& list) const {
  const auto* items = list.items();
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

// Items are indices of Tensor values (or, in a Tensor?[], of None values).
Status MethodChecker::check_tensor_list(size_t index, const fb::EValue& value) const {
  const bool optional = value.val_type() == fb::KernelTypes::OptionalTensorList;
  const auto* items = optional ? value.val_as_OptionalTensorList()->items()
                               : value.val_as_TensorList()->items();
  if (items == nullptr) {
    return Ok{};
  }
  for (int32_t item : *items) {
    // Upstream's emitter writes a None item of a Tensor?[] as index -1
    // (and its runtime reads -1 or an index to a None value as None).
    if (optional && item == -1) continue;
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
    case fb::KernelTypes::IntList:
      return check_int_list(index, *value.val_as_IntList());
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
    case fb::KernelTypes::OptionalTensorList:
      return check_tensor_list(index, value);
  }
  return Error::make(ErrorCode::kMalformed,
                     "method '%s': values[%zu]: unknown value type %d", name,
                     index, static_cast<int>(value.val_type()));
}

}  // namespace etkit::detail
