#pragma once
/// @file
/// ETDumpGen: the runtime's event tracer that produces ETDump traces.
///
/// During runs it only appends fixed-size records to memory reserved up
/// front (no allocation, no I/O unless a file sink is chosen for tensor
/// data), so tracing distorts the timings it measures as little as
/// possible. The flatbuffer is built afterwards by serialize()/write().
/// When the reserved memory is full, further events are counted as dropped
/// and the trace records the count instead of failing.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/event_tracer.h"
#include "etkit/core/result.h"
#include "etkit/core/span.h"

namespace etkit::etdump {

/// Which values the tracer records (upstream's EventTracerDebugLogLevel).
enum class DebugLevel {
  kNone,
  kProgramOutputs,        ///< each execute's outputs
  kIntermediateOutputs,   ///< every instruction's output, and the outputs
};

/// Parses "none", "outputs" or "intermediates".
Result<DebugLevel> parse_debug_level(const std::string& text);

/// A clock: returns ticks; `ns_per_tick` converts them to nanoseconds.
/// Traces always store nanoseconds: ticks are converted when the trace is
/// written. Device integrations plug in a cycle counter and its period.
struct TickSource {
  uint64_t (*now)(void* context) = nullptr;
  void* context = nullptr;
  double ns_per_tick = 1.0;
};

/// A monotonic nanosecond clock (clock_gettime; ratio 1).
TickSource monotonic_ns_clock();
/// The default: the invariant time stamp counter, calibrated against the
/// monotonic clock once per process, where the CPU has one; otherwise
/// monotonic_ns_clock().
TickSource default_clock();

struct ETDumpGenOptions {
  size_t event_capacity = 1 << 16;     ///< events recorded before dropping
  size_t block_capacity = 1 << 12;     ///< run blocks before dropping
  size_t string_pool_bytes = 1 << 20;  ///< interned event names, delegate ids
  TickSource clock = default_clock();
  DebugLevel debug_level = DebugLevel::kNone;
  /// Only intermediate outputs of operators whose name contains this text
  /// are recorded ("*" wildcards allowed); empty records all.
  std::string op_filter;
  /// Only intermediate outputs of instructions in [first, last] (-1: open).
  int64_t first_instruction = -1;
  int64_t last_instruction = -1;
  /// Record the runtime's allocators and allocations. Off by default, as
  /// upstream's runners have it: upstream's Python Inspector cannot read a
  /// trace that holds any allocation event.
  bool track_allocations = false;
  /// Tensor data goes here (caller memory, 64-byte aligned entries)…
  Span<uint8_t> debug_buffer;
  /// …or, when set, is written through to this file as it is logged.
  std::FILE* debug_file = nullptr;
};

/// Totals of what was recorded and what did not fit.
struct ETDumpGenStats {
  size_t blocks = 0;
  size_t events = 0;
  size_t dropped_events = 0;
  size_t dropped_blocks = 0;
  size_t dropped_values = 0;  ///< tensor data that did not fit the buffer
  size_t debug_bytes = 0;     ///< bytes of tensor data written
  size_t intermediate_values = 0;  ///< intermediate outputs recorded (after filters)
};

class ETDumpGen final : public EventTracer {
 public:
  explicit ETDumpGen(ETDumpGenOptions options = {});
  ~ETDumpGen() override;

  /// Grows the event capacity; call between runs, never during one.
  void reserve_events(size_t capacity);

  // EventTracer
  void create_event_block(const char* name) override;
  EventTracerEntry start_profiling(const char* name, int32_t chain_id,
                                   int32_t instruction_id) override;
  void end_profiling(EventTracerEntry entry) override;
  EventTracerEntry start_profiling_delegate(const char* name,
                                            int32_t delegate_debug_id_int) override;
  void end_profiling_delegate(EventTracerEntry entry, ByteSpan metadata) override;
  void log_profiling_delegate(const char* name, int32_t delegate_debug_id_int,
                              uint64_t start_time, uint64_t end_time, ByteSpan metadata) override;
  int32_t track_allocator(const char* name) override;
  void track_allocation(int32_t allocator_id, uint64_t size) override;
  bool wants_values(LoggedValueKind kind) const override;
  void log_value(const Value& value, LoggedValueKind kind, int32_t chain_id,
                 int32_t instruction_id, const char* name) override;
  void log_delegate_value(const Value& value, int32_t delegate_debug_id_int) override;
  void set_bundled_input_index(int32_t index) override;
  /// Renames the current run block (a runner tags its warm-up executes
  /// "Warmup", see etkit/inspector/event_blocks.h). Not during execute().
  void rename_block(const char* name);

  /// Current time in clock ticks (for backends' post-hoc events, which
  /// pass ticks to log_profiling_delegate).
  uint64_t now() const;

  ETDumpGenStats stats() const;
  /// Builds the size-prefixed ETDump ("ED00") flatbuffer of everything
  /// recorded so far. Host-side; allocates.
  Result<std::vector<uint8_t>> serialize() const;
  /// serialize() to `path`.
  Status write(const std::string& path) const;
  /// Bytes of tensor data logged into the caller's debug buffer.
  size_t debug_buffer_used() const;

  struct Record;  // internal, in etdump_gen.cpp
  struct State;

 private:
  void append_value(const Value& value, LoggedValueKind kind, int32_t chain_id,
                    int32_t instruction_id, int32_t delegate_debug_id_int);
  ETDumpGenOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace etkit::etdump
