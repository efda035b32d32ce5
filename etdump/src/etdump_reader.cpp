#include "etkit/etdump/etdump_reader.h"
#include "etkit/core/detail/flatbuffer_limits.h"

#include <algorithm>

#include "etdump_generated.h"
#include "etkit/core/file_data.h"
#include "trace_verification.h"

namespace etkit::etdump {
namespace fb = ::etdump;
namespace {

using u64 = unsigned long long;

// Same bound as the program reader: the flatbuffers Verifier asserts on
// buffers of 2 GiB or more.
using detail::kMaxFlatbufferSize;

std::string_view view(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->data(), s->size());
}

using detail::length;

DebugTensorView tensor_view(const fb::Tensor& tensor) {
  DebugTensorView view;
  view.scalar_type = static_cast<ScalarType>(tensor.scalar_type());
  if (tensor.sizes()) {
    view.sizes.assign(tensor.sizes()->begin(), tensor.sizes()->end());
  }
  if (tensor.strides()) {
    view.strides.assign(tensor.strides()->begin(), tensor.strides()->end());
  }
  view.offset = tensor.offset();
  return view;
}

void decode_value(const fb::Value* value, DebugEventView& out) {
  if (value == nullptr) {
    out.value_type = "null";
    return;
  }
  out.is_output = value->output() != nullptr && value->output()->bool_val();
  switch (value->val()) {
    case fb::ValueType::Int:
      out.value_type = "int";
      out.int_value = value->int_value() ? value->int_value()->int_val() : 0;
      break;
    case fb::ValueType::Bool:
      out.value_type = "bool";
      out.bool_value = value->bool_value() && value->bool_value()->bool_val();
      break;
    case fb::ValueType::Float:
      out.value_type = "float";
      out.double_value = value->float_value() ? value->float_value()->float_val() : 0;
      break;
    case fb::ValueType::Double:
      out.value_type = "double";
      out.double_value = value->double_value() ? value->double_value()->double_val() : 0;
      break;
    case fb::ValueType::Tensor:
      out.value_type = "tensor";
      if (value->tensor()) {
        out.tensors.push_back(tensor_view(*value->tensor()));
      }
      break;
    case fb::ValueType::TensorList:
      out.value_type = "tensor_list";
      if (value->tensor_list() && value->tensor_list()->tensors()) {
        for (const auto* tensor : *value->tensor_list()->tensors()) {
          out.tensors.push_back(tensor_view(*tensor));
        }
      }
      break;
    case fb::ValueType::String:
      out.value_type = "string";
      break;
    default:
      out.value_type = "null";
      break;
  }
}

}  // namespace

Result<Tensor> debug_tensor(const DebugTensorView& tensor, ByteSpan debug_buffer) {
  if (tensor.sizes.size() > static_cast<size_t>(kMaxRank) ||
      tensor.strides.size() != tensor.sizes.size()) {
    return Error::make(ErrorCode::kMalformed, "logged tensor has %zu sizes and %zu strides",
                       tensor.sizes.size(), tensor.strides.size());
  }
  if (!is_valid(tensor.scalar_type)) {
    return Error::make(ErrorCode::kMalformed, "logged tensor has an invalid scalar type");
  }
  // Dim order: dims by decreasing stride, which is how the strides arose.
  const size_t rank = tensor.sizes.size();
  uint8_t order[kMaxRank];
  for (size_t d = 0; d < rank; ++d) order[d] = static_cast<uint8_t>(d);
  std::stable_sort(order, order + rank, [&](uint8_t a, uint8_t b) {
    return tensor.strides[a] > tensor.strides[b];
  });
  ETKIT_ASSIGN_OR_RETURN(Tensor view, Tensor::make(tensor.scalar_type,
                                                   Span<const int64_t>(tensor.sizes.data(), rank),
                                                   Span<const uint8_t>(order, rank), nullptr, 0));
  for (size_t d = 0; d < rank; ++d) {
    if (view.stride(static_cast<int>(d)) != tensor.strides[d]) {
      return Error::make(ErrorCode::kUnsupported,
                         "logged tensor strides are not a dense layout of its sizes");
    }
  }
  const uint64_t nbytes = view.nbytes();
  if (nbytes == 0) {
    // An empty tensor has no bytes to store: upstream's runtime logs it
    // with offset -1, and its Inspector reads it as an empty tensor.
    return view;
  }
  if (tensor.offset < 0 || !debug_buffer.contains(static_cast<uint64_t>(tensor.offset), nbytes)) {
    return Error::make(ErrorCode::kOutOfRange,
                       "logged tensor at debug buffer offset %lld + %llu bytes lies outside "
                       "the %zu-byte buffer",
                       static_cast<long long>(tensor.offset),
                       static_cast<unsigned long long>(nbytes), debug_buffer.size);
  }
  view.set_data(const_cast<uint8_t*>(debug_buffer.data) + tensor.offset, nbytes);
  return view;
}

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::kProfile: return "profile";
    case EventKind::kAllocation: return "allocation";
    case EventKind::kDebug: return "debug";
  }
  return "unknown";
}

std::string_view RunBlock::name() const { return view(data_->name()); }
int32_t RunBlock::bundled_input_index() const { return data_->bundled_input_index(); }
size_t RunBlock::allocator_count() const { return length(data_->allocators()); }
std::string_view RunBlock::allocator_name(size_t index) const {
  return view(data_->allocators()->Get(static_cast<uint32_t>(index))->name());
}
size_t RunBlock::event_count() const { return length(data_->events()); }

EventKind RunBlock::event_kind(size_t index) const {
  const fb::Event* event = data_->events()->Get(static_cast<uint32_t>(index));
  if (event->profile_event() != nullptr) return EventKind::kProfile;
  if (event->allocation_event() != nullptr) return EventKind::kAllocation;
  return EventKind::kDebug;
}

EventView RunBlock::event(size_t index) const {
  const fb::Event* event = data_->events()->Get(static_cast<uint32_t>(index));
  EventView out;
  if (const auto* p = event->profile_event()) {
    out.kind = EventKind::kProfile;
    out.profile.name = view(p->name());
    out.profile.chain_index = p->chain_index();
    out.profile.instruction_id = p->instruction_id();
    out.profile.delegate_debug_id_int = p->delegate_debug_id_int();
    out.profile.delegate_debug_id_str = view(p->delegate_debug_id_str());
    if (const auto* metadata = p->delegate_debug_metadata()) {
      out.profile.delegate_debug_metadata = ByteSpan{metadata->data(), metadata->size()};
    }
    out.profile.start_time = p->start_time();
    out.profile.end_time = p->end_time();
  } else if (const auto* a = event->allocation_event()) {
    out.kind = EventKind::kAllocation;
    out.allocation.allocator_id = a->allocator_id();
    out.allocation.allocation_size = a->allocation_size();
  } else if (const auto* d = event->debug_event()) {
    out.kind = EventKind::kDebug;
    out.debug.name = view(d->name());
    out.debug.chain_index = d->chain_index();
    out.debug.instruction_id = d->instruction_id();
    out.debug.delegate_debug_id_int = d->delegate_debug_id_int();
    out.debug.delegate_debug_id_str = view(d->delegate_debug_id_str());
    decode_value(d->debug_entry(), out.debug);
  }
  return out;
}

uint64_t ETDump::first_start() const {
  bool any = false;
  uint64_t first = 0;
  for (size_t b = 0; b < block_count(); ++b) {
    const RunBlockStats stats = block(b).stats();
    if (stats.has_times && (!any || stats.first_start < first)) first = stats.first_start;
    any |= stats.has_times;
  }
  return first;
}

uint64_t elapsed_ticks(uint64_t start, uint64_t end) {
  constexpr uint64_t kMax32 = 0xffffffffull;
  if (start > end && start <= kMax32) return kMax32 - start + end;
  return start > end ? 0 : end - start;
}

RunBlockStats RunBlock::stats() const {
  RunBlockStats stats;
  for (size_t i = 0; i < event_count(); ++i) {
    const fb::Event* event = data_->events()->Get(static_cast<uint32_t>(i));
    if (const auto* p = event->profile_event()) {
      ++stats.profile_events;
      if (p->end_time() < p->start_time() && stats.reversed_events++ == 0) stats.first_reversed = i;
      if (!stats.has_times || p->start_time() < stats.first_start) {
        stats.first_start = p->start_time();
      }
      if (!stats.has_times || p->end_time() > stats.last_end) {
        stats.last_end = p->end_time();
      }
      stats.has_times = true;
    } else if (event->allocation_event() != nullptr) {
      ++stats.allocation_events;
    } else {
      ++stats.debug_events;
    }
  }
  return stats;
}

Result<ETDump> ETDump::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  return load(std::move(file), path);
}

namespace {

// The size prefix of an ED00 size-prefixed flatbuffer, checked against the
// file and the format's limit.
Result<uint64_t> size_prefix(ByteSpan bytes, const char* label) {
  if (bytes.size < 12) {
    return Error::make(ErrorCode::kTruncated,
                       "%s: %zu bytes is too short for an ETDump (needs a "
                       "4-byte size prefix and an 8-byte flatbuffer header)",
                       label, bytes.size);
  }
  if (!bytes.starts_with_at(8, "ED00", 4)) {
    if (bytes.data[8] == 'E' && bytes.data[9] == 'D') {
      return Error::make(ErrorCode::kUnsupported,
                         "%s: ETDump format '%.4s' (etkit reads ED00)", label,
                         reinterpret_cast<const char*>(bytes.data + 8));
    }
    return Error::make(ErrorCode::kMalformed,
                       "%s: not an ETDump: expected identifier 'ED00' at byte "
                       "8 of a size-prefixed flatbuffer",
                       label);
  }
  const uint64_t prefix = load_u32_le(bytes.data);
  if (prefix + 4 > bytes.size) {
    // Nothing of it can be read: a flatbuffer is written back to front, so
    // the table layouts every block and event share (written first) sit at
    // its end, the part a cut loses.
    return Error::make(ErrorCode::kTruncated,
                       "%s: size prefix says %llu bytes follow, the file has "
                       "%zu after it (a trace cut short: nothing of it can be "
                       "read, the layouts its tables share are at its end)",
                       label, static_cast<u64>(prefix), bytes.size - 4);
  }
  if (prefix + 4 > kMaxFlatbufferSize) {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: ETDump exceeds the format's 2 GiB limit", label);
  }
  return prefix;
}

}  // namespace

Result<ETDump> ETDump::load(std::shared_ptr<const FileData> owner,
                            std::string name) {
  const ByteSpan bytes = owner->bytes();
  const char* label = name.c_str();
  ETKIT_ASSIGN_OR_RETURN(const uint64_t prefix, size_prefix(bytes, label));
  // Trailing bytes past the prefixed size (padding some writers add) are
  // outside the trace and ignored.
  internal::VerifiedTrace verified = internal::verify_trace(bytes.data, prefix + 4, 4);
  if (verified.root == nullptr) {
    // A flatbuffer aligned from its own first byte, the prefix put in front
    // of it afterwards (upstream's serializer output saved with the
    // runtime's prefix): every 8-byte field sits at 4 mod 8 in the file.
    // Upstream reads it; verified from byte 4, it is read from a copy
    // whose byte 4 is 8-aligned, so every read stays aligned.
    auto copy = FileData::copy_of(ByteSpan{bytes.data + 4, static_cast<size_t>(prefix)}, name);
    verified = internal::verify_trace(copy->bytes().data, static_cast<size_t>(prefix), 0);
    if (verified.root == nullptr) {
      return Error::make(ErrorCode::kMalformed,
                         "%s: the ETDump flatbuffer (bytes 4..%llu) is corrupt: "
                         "a table, vector or string lies outside it or is "
                         "misaligned",
                         label, static_cast<u64>(prefix + 4));
    }
    owner = std::move(copy);
  }
  if (!verified.events.ok()) {
    return verified.events.error().with_context("%s", label);
  }
  const fb::ETDump* root = verified.root;
  ETDump trace;
  trace.owner_ = std::move(owner);
  trace.name_ = std::move(name);
  trace.size_ = prefix + 4;
  trace.root_ = root;
  return trace;
}

uint32_t ETDump::version() const { return root_->version(); }
size_t ETDump::block_count() const { return length(root_->run_data()); }
RunBlock ETDump::block(size_t index) const {
  return RunBlock(root_->run_data()->Get(static_cast<uint32_t>(index)));
}

}  // namespace etkit::etdump
