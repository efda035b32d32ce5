#include "etkit/etdump/etdump_gen.h"

#include <chrono>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif
#include <cstring>

#include "etdump_gen_state.h"
#include "etkit/core/value.h"

namespace etkit::etdump {
namespace {

constexpr size_t kInternSlots = 4096;      // power of two
constexpr size_t kAllocatorCapacity = 1024;
constexpr size_t kDebugAlignment = 64;     // as upstream aligns logged tensors

#if defined(__x86_64__)
uint64_t tsc_now(void*) { return __rdtsc(); }

// The time stamp counter is a cheap clock (~10 ns to read vs ~27 ns for
// clock_gettime on this kind of VM) when it is invariant: constant rate,
// running in every power state (CPUID 0x80000007, EDX bit 8).
bool has_invariant_tsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // GCC declares it unsigned, clang int: compared as unsigned either way.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000, nullptr)) < 0x80000007u) return false;
  __cpuid(0x80000007, eax, ebx, ecx, edx);
  return (edx >> 8) & 1u;
}

// Nanoseconds per TSC tick, measured against the monotonic clock over 5 ms.
double calibrate_tsc() {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const uint64_t c0 = __rdtsc();
  while (clock::now() - t0 < std::chrono::milliseconds(5)) {
  }
  const auto t1 = clock::now();
  const uint64_t c1 = __rdtsc();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(c1 - c0);
}
#endif

uint64_t monotonic_now(void*) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Minimal glob: '*' matches any run; no other metacharacters.
bool glob_match(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') {
    for (const char* t = text;; ++t) {
      if (glob_match(pattern + 1, t)) return true;
      if (*t == '\0') return false;
    }
  }
  return *text != '\0' && *pattern == *text && glob_match(pattern + 1, text + 1);
}

}  // namespace

Result<DebugLevel> parse_debug_level(const std::string& text) {
  if (text == "none") return DebugLevel::kNone;
  if (text == "outputs") return DebugLevel::kProgramOutputs;
  if (text == "intermediates") return DebugLevel::kIntermediateOutputs;
  return Error::make(ErrorCode::kInvalidArgument,
                     "debug level '%s' is not one of none, outputs, intermediates", text.c_str());
}

TickSource monotonic_ns_clock() {
  TickSource clock;
  clock.now = &monotonic_now;
  return clock;
}

TickSource default_clock() {
#if defined(__x86_64__)
  static const double ns_per_tick = has_invariant_tsc() ? calibrate_tsc() : 0.0;
  if (ns_per_tick > 0) {
    TickSource clock;
    clock.now = &tsc_now;
    clock.ns_per_tick = ns_per_tick;
    return clock;
  }
#endif
  return monotonic_ns_clock();
}

ETDumpGen::ETDumpGen(ETDumpGenOptions options)
    : options_(std::move(options)), state_(std::make_unique<State>()) {
  if (options_.clock.now == nullptr) options_.clock = default_clock();
  state_->records.resize(options_.event_capacity);
  state_->blocks.reserve(options_.block_capacity);
  state_->tensors.reserve(options_.event_capacity + 16);
  state_->pool.resize(options_.string_pool_bytes);
  state_->intern_keys.assign(kInternSlots, nullptr);
  state_->intern_values.assign(kInternSlots, PooledString());
  state_->allocators.reserve(kAllocatorCapacity);
}

ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::reserve_events(size_t capacity) {
  if (capacity > state_->records.size()) state_->records.resize(capacity);
  // Tensor records (about 280 bytes each) only when values are logged: a
  // profiling-only trace of many runs must fit a board's arena.
  if (options_.debug_level != DebugLevel::kNone) state_->tensors.reserve(capacity + 16);
  options_.event_capacity = capacity;
}

namespace {

PooledString pool_copy(ETDumpGen::State& s, const char* text, size_t length) {
  if (text == nullptr || length == 0) return {};
  if (length > s.pool.size() - s.pool_used) {
    ++s.dropped_strings;
    return {};
  }
  std::memcpy(s.pool.data() + s.pool_used, text, length);
  PooledString out{static_cast<uint32_t>(s.pool_used), static_cast<uint32_t>(length)};
  s.pool_used += length;
  return out;
}

PooledString intern(ETDumpGen::State& s, const char* name) {
  if (name == nullptr) return {};
  size_t slot = (reinterpret_cast<uintptr_t>(name) >> 3) * 0x9E3779B97F4A7C15ull >> 52;
  for (size_t probe = 0; probe < 8; ++probe, slot = (slot + 1) & (kInternSlots - 1)) {
    slot &= kInternSlots - 1;
    // A hit is checked against the pooled bytes: a name freed with its
    // method may leave its address to another name.
    if (s.intern_keys[slot] == name) {
      const PooledString pooled = s.intern_values[slot];
      // strncmp stops at the end of a shorter name before name[length] is read.
      if (std::strncmp(name, s.pool.data() + pooled.offset, pooled.length) == 0 && name[pooled.length] == '\0') {
        return pooled;
      }
      s.intern_values[slot] = pool_copy(s, name, std::strlen(name));
      return s.intern_values[slot];
    }
    if (s.intern_keys[slot] == nullptr) {
      s.intern_keys[slot] = name;
      s.intern_values[slot] = pool_copy(s, name, std::strlen(name));
      return s.intern_values[slot];
    }
  }
  return pool_copy(s, name, std::strlen(name));  // table crowded: copy
}

// Reads the clock, inlining the time stamp counter when it is the clock
// (the common case) instead of calling through the TickSource.
inline uint64_t read_clock(const TickSource& clock) {
#if defined(__x86_64__)
  if (clock.now == &tsc_now) return __rdtsc();
#endif
  return clock.now(clock.context);
}

}  // namespace

uint64_t ETDumpGen::now() const { return read_clock(options_.clock); }

void ETDumpGen::create_event_block(const char* name) {
  State& s = *state_;
  if (s.blocks.size() == s.blocks.capacity()) {
    ++s.dropped_blocks;
    return;
  }
  BlockRecord block;
  block.name = intern(s, name);
  block.first_event = s.record_count;
  s.blocks.push_back(block);
}

namespace {

// The block events go to, creating upstream's "Default" block for events
// recorded before any create_event_block (program and method loading).
BlockRecord* current_block(ETDumpGen& gen, ETDumpGen::State& s) {
  if (s.blocks.empty()) gen.create_event_block("Default");
  return s.blocks.empty() ? nullptr : &s.blocks.back();
}

// The next free record, not cleared: profile events set every field the
// writer reads for them, which saves clearing 88 bytes per event.
ETDumpGen::Record* next_record(ETDumpGen& gen, ETDumpGen::State& s) {
  BlockRecord* block = current_block(gen, s);
  if (block == nullptr) {
    ++s.dropped_events;
    return nullptr;
  }
  if (s.record_count == s.records.size()) {
    ++s.dropped_events;
    ++block->dropped_events;
    return nullptr;
  }
  ++block->event_count;
  return &s.records[s.record_count++];
}

ETDumpGen::Record* append(ETDumpGen& gen, ETDumpGen::State& s) {
  ETDumpGen::Record* record = next_record(gen, s);
  if (record != nullptr) *record = ETDumpGen::Record();
  return record;
}

}  // namespace

EventTracerEntry ETDumpGen::start_profiling(const char* name, int32_t chain_id,
                                            int32_t instruction_id) {
  EventTracerEntry entry;
  entry.name = name;
  entry.chain_id = chain_id;
  entry.instruction_id = instruction_id;
  entry.start_time = read_clock(options_.clock);
  return entry;
}

void ETDumpGen::end_profiling(EventTracerEntry entry) {
  const uint64_t end = read_clock(options_.clock);
  Record* record = next_record(*this, *state_);
  if (record == nullptr) return;
  record->kind = RecordKind::kProfile;
  record->value_kind = ValueKind::kNull;
  record->is_output = false;
  record->name = intern(*state_, entry.name);
  record->chain = entry.chain_id;
  record->instruction = entry.instruction_id;
  record->delegate_int = -1;
  record->delegate_str = {};
  record->metadata = {};
  record->start = entry.start_time;
  record->end = end;
  record->tensor_count = 0;
}

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name, int32_t delegate_debug_id_int) {
  EventTracerEntry entry;
  entry.name = name;
  entry.chain_id = current_chain_id;
  entry.instruction_id = current_instruction_id;
  entry.delegate_debug_id_int = delegate_debug_id_int;
  entry.start_time = read_clock(options_.clock);
  return entry;
}

void ETDumpGen::end_profiling_delegate(EventTracerEntry entry, ByteSpan metadata) {
  const uint64_t end = read_clock(options_.clock);
  log_profiling_delegate(entry.name, entry.delegate_debug_id_int, entry.start_time, end, metadata);
}

void ETDumpGen::log_profiling_delegate(const char* name, int32_t delegate_debug_id_int,
                                       uint64_t start_time, uint64_t end_time, ByteSpan metadata) {
  Record* record = append(*this, *state_);
  if (record == nullptr) return;
  record->kind = RecordKind::kProfile;
  record->chain = current_chain_id;
  record->instruction = current_instruction_id;
  record->delegate_int = delegate_debug_id_int;
  // With an int id, `name` names the event (an operator name); without
  // one, `name` is the string id (which a backend may build on the fly, so
  // it is copied). Upstream's runtime writes one or the other.
  record->name = {};
  record->delegate_str = {};
  if (name != nullptr && delegate_debug_id_int != -1) {
    record->name = intern(*state_, name);
  } else if (name != nullptr) {
    record->delegate_str = pool_copy(*state_, name, std::strlen(name));
  }
  record->metadata = pool_copy(*state_, reinterpret_cast<const char*>(metadata.data), metadata.size);
  record->start = start_time;
  record->end = end_time;
}

int32_t ETDumpGen::track_allocator(const char* name) {
  if (!options_.track_allocations) return -1;  // then track_allocation records nothing
  State& s = *state_;
  BlockRecord* block = current_block(*this, s);
  if (block == nullptr || s.allocators.size() == s.allocators.capacity()) return -1;
  // Ids count within the block, as the block's allocator list is indexed.
  int32_t id = 0;
  const size_t block_index = s.blocks.size() - 1;
  for (const auto& allocator : s.allocators) id += allocator.block == block_index;
  s.allocators.push_back({block_index, intern(s, name)});
  return id;
}

void ETDumpGen::track_allocation(int32_t allocator_id, uint64_t size) {
  if (allocator_id < 0) return;
  Record* record = append(*this, *state_);
  if (record == nullptr) return;
  record->kind = RecordKind::kAllocation;
  record->start = static_cast<uint64_t>(allocator_id);
  record->end = size;
}

bool ETDumpGen::wants_values(LoggedValueKind kind) const {
  switch (options_.debug_level) {
    case DebugLevel::kNone: return false;
    case DebugLevel::kProgramOutputs: return kind == LoggedValueKind::kProgramOutput;
    case DebugLevel::kIntermediateOutputs: return true;
  }
  return false;
}

namespace {

// Copies a tensor's bytes to the debug buffer (or file) at a 64-byte
// aligned offset and records its shape; offset -1 when it does not fit.
void log_tensor(const ETDumpGenOptions& options, ETDumpGen::State& s, const Tensor& t) {
  if (s.tensors.size() == s.tensors.capacity()) {
    ++s.dropped_values;
    return;
  }
  TensorRecord record;
  record.dtype = t.scalar_type();
  record.rank = static_cast<uint8_t>(t.dim());
  for (int d = 0; d < t.dim(); ++d) {
    record.sizes[d] = t.size(d);
    record.strides[d] = t.stride(d);
  }
  const size_t nbytes = t.nbytes();
  const size_t aligned = (s.debug_used + kDebugAlignment - 1) & ~(kDebugAlignment - 1);
  if (nbytes > 0 && t.data() == nullptr) {
    // A value with a shape but no bytes behind it (a malformed program's
    // unplanned tensor): its shape is recorded, its data dropped.
    ++s.dropped_values;
  } else if (options.debug_file != nullptr) {
    static const char zeros[kDebugAlignment] = {};
    const bool ok = std::fwrite(zeros, 1, aligned - s.debug_used, options.debug_file) ==
                        aligned - s.debug_used &&
                    (nbytes == 0 || std::fwrite(t.data(), 1, nbytes, options.debug_file) == nbytes);
    if (ok) {
      record.offset = static_cast<int64_t>(aligned);
      s.debug_used = aligned + nbytes;
    } else {
      ++s.dropped_values;
    }
  } else if (aligned <= options.debug_buffer.size() &&
             nbytes <= options.debug_buffer.size() - aligned) {
    if (nbytes > 0) std::memcpy(options.debug_buffer.data() + aligned, t.data(), nbytes);
    record.offset = static_cast<int64_t>(aligned);
    s.debug_used = aligned + nbytes;
  } else {
    ++s.dropped_values;
  }
  s.tensors.push_back(record);
}

// Intermediate values are kept only for instructions in the options' range.
bool outside_instruction_range(const ETDumpGenOptions& options, int32_t instruction_id) {
  return (options.first_instruction >= 0 && instruction_id < options.first_instruction) ||
         (options.last_instruction >= 0 && instruction_id > options.last_instruction);
}

}  // namespace

void ETDumpGen::log_value(const Value& value, LoggedValueKind kind, int32_t chain_id,
                          int32_t instruction_id, const char* name) {
  if (!wants_values(kind)) return;
  if (kind == LoggedValueKind::kIntermediateOutput) {
    if (outside_instruction_range(options_, instruction_id)) return;
    if (!options_.op_filter.empty()) {
      const char* pattern = options_.op_filter.c_str();
      const bool has_wildcard = std::strchr(pattern, '*') != nullptr;
      const bool matches = has_wildcard ? glob_match(pattern, name ? name : "")
                                        : (name && std::strstr(name, pattern) != nullptr);
      if (!matches) return;
    }
  }
  append_value(value, kind, chain_id, instruction_id, -1);
}

void ETDumpGen::log_delegate_value(const Value& value, int32_t delegate_debug_id_int) {
  if (!wants_values(LoggedValueKind::kIntermediateOutput)) return;
  const int32_t instruction_id = current_instruction_id;
  if (outside_instruction_range(options_, instruction_id)) return;
  append_value(value, LoggedValueKind::kIntermediateOutput, current_chain_id, instruction_id,
               delegate_debug_id_int);
}

void ETDumpGen::append_value(const Value& value, LoggedValueKind kind, int32_t chain_id,
                             int32_t instruction_id, int32_t delegate_debug_id_int) {
  State& s = *state_;
  Record* record = append(*this, s);
  if (record == nullptr) return;
  record->kind = RecordKind::kDebug;
  if (kind == LoggedValueKind::kIntermediateOutput) ++s.intermediate_values;
  // Unnamed, as upstream's runtime logs values: the instruction id ties the
  // event to its op, and a name would make upstream's Inspector show it as
  // an event of its own.
  record->name = {};
  record->chain = chain_id;
  record->instruction = instruction_id;
  record->delegate_int = delegate_debug_id_int;
  record->is_output = kind == LoggedValueKind::kProgramOutput;
  record->tensor_first = static_cast<uint32_t>(s.tensors.size());
  switch (value.tag()) {
    case ValueTag::kTensor:
      record->value_kind = ValueKind::kTensor;
      log_tensor(options_, s, value.unchecked_tensor());
      break;
    case ValueTag::kTensorList:
      record->value_kind = ValueKind::kTensorList;
      for (Tensor* t : value.tensor_list()) log_tensor(options_, s, *t);
      break;
    case ValueTag::kInt:
      record->value_kind = ValueKind::kInt;
      record->int_value = value.unchecked_int();
      break;
    case ValueTag::kDouble:
      record->value_kind = ValueKind::kDouble;
      record->double_value = value.unchecked_double();
      break;
    case ValueTag::kBool:
      record->value_kind = ValueKind::kBool;
      record->int_value = value.unchecked_bool();
      break;
    default:
      record->value_kind = ValueKind::kNull;
      break;
  }
  record->tensor_count = static_cast<uint32_t>(s.tensors.size()) - record->tensor_first;
}

void ETDumpGen::rename_block(const char* name) {
  BlockRecord* block = current_block(*this, *state_);
  if (block != nullptr) block->name = intern(*state_, name);
}

void ETDumpGen::set_bundled_input_index(int32_t index) {
  BlockRecord* block = current_block(*this, *state_);
  if (block != nullptr) block->bundled_input_index = index;
}

ETDumpGenStats ETDumpGen::stats() const {
  ETDumpGenStats stats;
  stats.blocks = state_->blocks.size();
  stats.events = state_->record_count;
  stats.dropped_events = state_->dropped_events;
  stats.dropped_blocks = state_->dropped_blocks;
  stats.dropped_values = state_->dropped_values;
  stats.debug_bytes = state_->debug_used;
  stats.intermediate_values = state_->intermediate_values;
  return stats;
}

size_t ETDumpGen::debug_buffer_used() const { return state_->debug_used; }

}  // namespace etkit::etdump
