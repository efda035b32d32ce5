// Method load, part one: the values table, planned memory and constants.

#include <algorithm>
#include <cstring>
#include <new>

#include "etkit/core/flat_tensor.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "bool_bytes.h"
#include "method_state.h"
#include "program_generated.h"

namespace etkit::detail {
namespace fb = executorch_flatbuffer;
namespace {

constexpr std::align_val_t kArenaAlignment{64};

using detail::length;

Status prepare_arenas(const fb::ExecutionPlan& plan, const MethodOptions& options,
                      MethodState& state) {
  const size_t count = length(plan.non_const_buffer_sizes());
  state.arenas.assign(count, Span<uint8_t>());
  // Check every size the method would allocate before allocating any: a
  // corrupted size is bad input, not an out-of-memory condition.
  uint64_t total = 0;
  for (size_t id = 1; id < count; ++id) {
    if (id < options.arenas.size() && options.arenas[id].data() != nullptr) continue;
    const uint64_t size = plan.non_const_buffer_sizes()->Get(id);
    // No machine addresses 2^48 bytes (256 TiB).
    if (size >= (uint64_t(1) << 48)) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': memory arena %zu asks for %llu bytes, more than any machine "
                         "has (a corrupted plan)",
                         state.name.c_str(), id, (unsigned long long)size);
    }
    total += size;
    if (options.available_memory != 0 && total > options.available_memory) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "method '%s': memory arena %zu asks for %llu bytes, which with the arenas "
                         "before it (%llu bytes in all) is more than this machine's %zu bytes of memory",
                         state.name.c_str(), id, (unsigned long long)size, (unsigned long long)total,
                         options.available_memory);
    }
  }
  for (size_t id = 1; id < count; ++id) {
    const auto size = static_cast<size_t>(plan.non_const_buffer_sizes()->Get(id));
    if (id < options.arenas.size() && options.arenas[id].data() != nullptr) {
      if (options.arenas[id].size() < size) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "method '%s': caller arena %zu has %zu bytes, the plan "
                           "needs %zu",
                           state.name.c_str(), id, options.arenas[id].size(), size);
      }
      state.arenas[id] = options.arenas[id];
      continue;
    }
    auto memory = allocate_owned(state, size);
    if (!memory.ok()) {
      return memory.error().with_context("memory arena %zu", id);
    }
    // Zeroed, so that a tensor read before any instruction writes it (a
    // buffer's initial state) reads the same every run, and bools read 0.
    std::memset(memory->data(), 0, size);
    state.arenas[id] = *memory;
  }
  return Ok{};
}

// The bytes of a constant tensor, wherever the program keeps them.
Result<ByteSpan> constant_data(const Program& program, const fb::Tensor& tensor,
                               const MethodOptions& options, const char* method,
                               size_t index, size_t nbytes) {
  const fb::Program& root = *program.flatbuffer();
  const auto* extra = tensor.extra_tensor_info();
  if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    const std::string key = extra->fully_qualified_name()->str();
    for (const FlatTensor* file : options.data_files) {
      const NamedTensorData* entry = file->find(key);
      if (entry == nullptr) {
        continue;
      }
      if (entry->data.size < nbytes) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': values[%zu]: external constant '%s' in %s has "
                           "%zu bytes, the tensor needs %zu",
                           method, index, key.c_str(), file->name().c_str(),
                           entry->data.size, nbytes);
      }
      if (entry->has_layout &&
          entry->scalar_type != static_cast<ScalarType>(tensor.scalar_type())) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': values[%zu]: external constant '%s' is %s in "
                           "%s, the program expects %s",
                           method, index, key.c_str(), to_string(entry->scalar_type),
                           file->name().c_str(),
                           to_string(static_cast<ScalarType>(tensor.scalar_type())));
      }
      return entry->data;
    }
    return Error::make(ErrorCode::kNotFound,
                       "method '%s': values[%zu]: external constant '%s' is not in any "
                       "data file (%zu given; pass its .ptd with --data)",
                       method, index, key.c_str(), options.data_files.size());
  }
  const uint32_t buffer = tensor.data_buffer_idx();
  if (length(root.constant_buffer()) > 0) {
    const auto* storage = root.constant_buffer()->Get(buffer)->storage();
    // Verified to hold the tensor's bytes: absent only for a tensor of none.
    if (storage == nullptr) return ByteSpan{};
    return ByteSpan{storage->data(), storage->size()};
  }
  const auto* constants = root.constant_segment();
  const ByteSpan segment = program.segment(constants->segment_index());
  const uint64_t offset = constants->offsets()->Get(buffer);
  return segment.sub(offset, segment.size - offset);
}

// A planned tensor that also names data is a mutable buffer with an
// initial state (a KV cache, a running statistic): its bytes are copied
// into its planned place once, at load, from the program's mutable data
// segment (data_buffer_idx indexes its offsets) or, for an external one,
// from a data file by fully qualified name, as upstream's runtime does.
// Later executions keep whatever the program writes there.
Status load_initial_state(const Program& program, const fb::Tensor& tensor, const MethodOptions& options,
                          MethodState& state, size_t index, Tensor& out) {
  const auto* extra = tensor.extra_tensor_info();
  const bool external = extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL;
  const uint32_t buffer = tensor.data_buffer_idx();
  if (!external && buffer == 0) return Ok{};
  const size_t nbytes = out.nbytes();
  ByteSpan data;
  if (external) {
    ETKIT_ASSIGN_OR_RETURN(data, constant_data(program, tensor, options, state.name.c_str(), index, nbytes));
  } else {
    // Table and index were verified at program load.
    const fb::Program& root = *program.flatbuffer();
    const uint64_t table = extra != nullptr ? extra->mutable_data_segments_idx() : 0;
    const auto* sub = root.mutable_data_segments()->Get(static_cast<uint32_t>(table));
    const ByteSpan segment = program.segment(sub->segment_index());
    const uint64_t offset = sub->offsets()->Get(buffer);
    if (offset > segment.size || segment.size - offset < nbytes) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: initial state of %zu bytes at offset %llu of segment %u runs "
                         "past its %zu bytes",
                         state.name.c_str(), index, nbytes, (unsigned long long)offset, sub->segment_index(),
                         segment.size);
    }
    data = segment.sub(offset, nbytes);
  }
  if (out.scalar_type() == ScalarType::kBool) {
    const int64_t bad = first_non_bool_byte(data.data, nbytes);
    if (bad >= 0) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: initial bool element %lld holds %u; bools are 0 or 1",
                         state.name.c_str(), index, static_cast<long long>(bad), unsigned{data.data[bad]});
    }
  }
  std::memcpy(out.data(), data.data, nbytes);
  state.initial_states.emplace_back(index, ByteSpan{data.data, nbytes});
  return Ok{};
}

// Kernels read a tensor's elements as their type: a data pointer that is not
// a multiple of the element's alignment is undefined behaviour on the host
// and a fault on cores without unaligned loads (Cortex-M's VLDR). A valid
// program never has one (planners and serializers align to 16); refuse it.
Status check_aligned(const Tensor& tensor, const MethodState& state, size_t index, const char* what) {
  const size_t alignment = std::min<size_t>(element_size(tensor.scalar_type()), 8);
  const auto address = reinterpret_cast<uintptr_t>(tensor.data());
  if (tensor.nbytes() > 0 && alignment > 1 && address % alignment != 0) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': values[%zu]: %s %s data is not %zu-byte aligned (address %% %zu = %zu)",
                       state.name.c_str(), index, what, to_string(tensor.scalar_type()), alignment, alignment,
                       size_t(address % alignment));
  }
  return Ok{};
}

// A constant's bytes (in the program or a data file) as the tensor's data.
Status bind_constant(const Program& program, const fb::Tensor& tensor, const MethodOptions& options,
                     MethodState& state, size_t index, Tensor& out) {
  const size_t nbytes = out.nbytes();
  ETKIT_ASSIGN_OR_RETURN(const ByteSpan data,
                         constant_data(program, tensor, options, state.name.c_str(), index, nbytes));
  if (out.scalar_type() == ScalarType::kBool) {
    const int64_t bad = first_non_bool_byte(data.data, nbytes);
    if (bad >= 0) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': values[%zu]: constant bool element %lld holds %u; "
                         "bools are 0 or 1",
                         state.name.c_str(), index, static_cast<long long>(bad),
                         unsigned{data.data[bad]});
    }
  }
  // Constants are read-only; kernels only ever read their inputs.
  out.set_data(const_cast<uint8_t*>(data.data), nbytes);
  return check_aligned(out, state, index, "constant");
}

Status make_tensor(const Program& program, const fb::Tensor& tensor,
                   const MethodOptions& options, MethodState& state, size_t index,
                   Tensor& out) {
  const auto type = static_cast<ScalarType>(tensor.scalar_type());
  int64_t sizes[kMaxRank];
  uint8_t order[kMaxRank];
  const size_t rank = length(tensor.sizes());
  if (rank > static_cast<size_t>(kMaxRank)) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s': values[%zu]: rank %zu exceeds etkit's limit %d",
                       state.name.c_str(), index, rank, kMaxRank);
  }
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = tensor.sizes()->Get(d);
    order[d] = length(tensor.dim_order()) == rank ? tensor.dim_order()->Get(d)
                                                  : static_cast<uint8_t>(d);
  }
  if (tensor.shape_dynamism() == fb::TensorShapeDynamism::DYNAMIC_UNBOUND) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s': values[%zu]: tensors of unbounded dynamic shape "
                       "are not supported",
                       state.name.c_str(), index);
  }
  auto made = Tensor::make(type, Span<const int64_t>(sizes, rank),
                           Span<const uint8_t>(order, rank), nullptr, 0);
  if (!made.ok()) {
    return made.error().with_context("method '%s': values[%zu]", state.name.c_str(), index);
  }
  out = *made;
  const size_t nbytes = out.nbytes();
  if (const auto* alloc = tensor.allocation_info()) {
    const uint64_t offset =
        uint64_t{alloc->memory_offset_high()} << 32 | alloc->memory_offset_low();
    // Bounds were verified against non_const_buffer_sizes at program load.
    out.set_data(state.arenas[alloc->memory_id()].data() + offset, nbytes);
    ETKIT_TRY(check_aligned(out, state, index, "planned"));
    return load_initial_state(program, tensor, options, state, index, out);
  }
  const auto* extra = tensor.extra_tensor_info();
  const bool external =
      extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL;
  if (tensor.data_buffer_idx() > 0 || external) {
    return bind_constant(program, tensor, options, state, index, out);
  }
  return Ok{};
}

Status make_list(const fb::EValue& value, MethodState& state, size_t index) {
  switch (value.val_type()) {
    case fb::KernelTypes::IntList: {
      const auto* items = value.val_as_IntList()->items();
      const size_t start = state.boxed_ints.size();
      for (size_t i = 0; i < length(items); ++i) {
        state.boxed_ints.push_back(&state.values[static_cast<size_t>(items->Get(i))]);
      }
      state.values[index] = Value::from_int_list(
          Span<Value* const>(state.boxed_ints.data() + start, length(items)));
      return Ok{};
    }
    case fb::KernelTypes::TensorList:
    case fb::KernelTypes::OptionalTensorList: {
      const bool optional = value.val_type() == fb::KernelTypes::OptionalTensorList;
      const auto* items = optional ? value.val_as_OptionalTensorList()->items()
                                   : value.val_as_TensorList()->items();
      const size_t start = state.tensor_lists.size();
      for (size_t i = 0; i < length(items); ++i) {
        const int32_t at = items->Get(i);
        if (optional && at == -1) {  // None, as upstream's emitter writes it
          state.tensor_lists.push_back(nullptr);
          continue;
        }
        Value& item = state.values[static_cast<size_t>(at)];
        state.tensor_lists.push_back(item.is_tensor() ? &item.unchecked_tensor() : nullptr);
      }
      state.values[index] = Value::from_tensor_list(
          Span<Tensor* const>(state.tensor_lists.data() + start, length(items)), optional);
      return Ok{};
    }
    case fb::KernelTypes::BoolList: {
      const auto* items = value.val_as_BoolList()->items();
      const size_t start = state.bool_lists.size();
      for (size_t i = 0; i < length(items); ++i) {
        state.bool_lists.push_back(items->Get(i) ? 1 : 0);
      }
      state.values[index] = Value::from_bool_list(
          Span<const uint8_t>(state.bool_lists.data() + start, length(items)));
      return Ok{};
    }
    default:
      return Ok{};
  }
}

// Reserves list storage up front so spans into it stay valid.
void reserve_lists(const fb::ExecutionPlan& plan, MethodState& state) {
  size_t ints = 0, tensors = 0, bools = 0, tensor_values = 0;
  for (const auto* value : *plan.values()) {
    switch (value->val_type()) {
      case fb::KernelTypes::Tensor: ++tensor_values; break;
      case fb::KernelTypes::IntList: ints += length(value->val_as_IntList()->items()); break;
      case fb::KernelTypes::BoolList: bools += length(value->val_as_BoolList()->items()); break;
      case fb::KernelTypes::TensorList:
        tensors += length(value->val_as_TensorList()->items());
        break;
      case fb::KernelTypes::OptionalTensorList:
        tensors += length(value->val_as_OptionalTensorList()->items());
        break;
      default: break;
    }
  }
  state.tensors.reserve(tensor_values);
  state.boxed_ints.reserve(ints);
  state.tensor_lists.reserve(tensors);
  state.bool_lists.reserve(bools);
}

}  // namespace

void AlignedFree::operator()(uint8_t* p) const { ::operator delete(p, kArenaAlignment); }

Result<Span<uint8_t>> allocate_owned(MethodState& state, size_t size) {
  if (state.memory_limit != 0 &&
      (size > state.memory_limit || state.owned_bytes > state.memory_limit - size)) {
    return Error::make(ErrorCode::kOutOfMemory,
                       "method '%s': needs %zu more bytes with %zu allocated, over the "
                       "memory limit of %zu",
                       state.name.c_str(), size, state.owned_bytes, state.memory_limit);
  }
  auto* memory = static_cast<uint8_t*>(
      ::operator new(size == 0 ? 1 : size, kArenaAlignment, std::nothrow));
  if (memory == nullptr) {
    return Error::make(ErrorCode::kOutOfMemory, "method '%s': cannot allocate %zu bytes",
                       state.name.c_str(), size);
  }
  state.owned_arenas.emplace_back(memory);
  state.owned_bytes += size;
  return Span<uint8_t>(memory, size);
}

Status load_values(const Program& program, const MethodOptions& options, MethodState& state) {
  const fb::ExecutionPlan& plan = *state.plan;
  ETKIT_TRY(prepare_arenas(plan, options, state));
  const size_t count = length(plan.values());
  state.values.assign(count, Value());
  if (count == 0) {
    return Ok{};
  }
  reserve_lists(plan, state);
  // Scalars and tensors first: lists refer to them by index.
  for (size_t i = 0; i < count; ++i) {
    const fb::EValue& value = *plan.values()->Get(i);
    switch (value.val_type()) {
      case fb::KernelTypes::Int:
        state.values[i] = Value::from_int(value.val_as_Int()->int_val());
        break;
      case fb::KernelTypes::Double:
        state.values[i] = Value::from_double(value.val_as_Double()->double_val());
        break;
      case fb::KernelTypes::Bool:
        state.values[i] = Value::from_bool(value.val_as_Bool()->bool_val());
        break;
      case fb::KernelTypes::String: {
        const auto* s = value.val_as_String()->string_val();
        state.values[i] = Value::from_string(s ? std::string_view(s->data(), s->size())
                                               : std::string_view());
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = value.val_as_DoubleList()->items();
        state.values[i] = Value::from_double_list(
            Span<const double>(items ? items->data() : nullptr, length(items)));
        break;
      }
      case fb::KernelTypes::Tensor: {
        state.tensors.emplace_back();
        Tensor& tensor = state.tensors.back();
        ETKIT_TRY(make_tensor(program, *value.val_as_Tensor(), options, state, i, tensor));
        state.values[i] = Value::from_tensor(&tensor);
        break;
      }
      default:
        break;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    ETKIT_TRY(make_list(*plan.values()->Get(i), state, i));
  }
  return Ok{};
}

}  // namespace etkit::detail
