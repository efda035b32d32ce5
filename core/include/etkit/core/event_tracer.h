#pragma once
/// @file
/// The hooks the runtime calls at every instrumentation point. Event names
/// follow upstream's runtime so traces line up with upstream tools.
/// Implementations read their own clock; the runtime never does.
///
/// Name lifetimes: names passed to create_event_block, start_profiling,
/// start_profiling_delegate and track_allocator must stay valid until the
/// matching end_* call returns (the runtime passes string literals and names
/// owned by the loaded method). A tracer that keeps names longer copies
/// them (ETDumpGen keys a table by the pointer and checks every hit against
/// its own copy, since a method's names may be freed and their addresses
/// reused). Names a backend builds on the fly may be temporary.

#include <cstdint>

#include "etkit/core/byte_span.h"

namespace etkit {

class Value;

/// Opaque handle from a start_* call, passed back to the matching end_*.
struct EventTracerEntry {
  int64_t event_id = -1;
  int32_t chain_id = -1;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  const char* name = nullptr;
  uint64_t start_time = 0;
};

/// What a logged value is.
enum class LoggedValueKind : uint8_t {
  kProgramOutput,
  kIntermediateOutput,
};

class EventTracer {
 public:
  virtual ~EventTracer() = default;

  /// Starts a new block of events: "Execute" for each execute call.
  virtual void create_event_block(const char* name) = 0;

  /// Profiles a runtime step ("OPERATOR_CALL", "native_call_add.out",
  /// "DELEGATE_CALL", "Method::execute", …). Events are recorded when they
  /// end, so nested events come before their parent, as upstream's do.
  virtual EventTracerEntry start_profiling(const char* name, int32_t chain_id,
                                           int32_t instruction_id) = 0;
  virtual void end_profiling(EventTracerEntry entry) = 0;

  /// Delegate-internal events, identified by an int debug id (then `name`,
  /// if any, names the event) or, with id -1, by `name` as a string id.
  virtual EventTracerEntry start_profiling_delegate(const char* name,
                                                    int32_t delegate_debug_id_int) = 0;
  virtual void end_profiling_delegate(EventTracerEntry entry, ByteSpan metadata) = 0;
  /// A delegate event measured by the backend itself (post hoc), with its
  /// own start and end times in the tracer's units.
  virtual void log_profiling_delegate(const char* name, int32_t delegate_debug_id_int,
                                      uint64_t start_time, uint64_t end_time,
                                      ByteSpan metadata) = 0;

  /// Memory allocators and allocations made from them. track_allocator
  /// returns -1 when the tracer does not record allocations; the runtime
  /// passes that id on and track_allocation ignores it.
  virtual int32_t track_allocator(const char* name) = 0;
  virtual void track_allocation(int32_t allocator_id, uint64_t size) = 0;

  /// Whether the runtime should call log_value at all, per kind; lets the
  /// runtime skip the work when nothing is recorded.
  virtual bool wants_values(LoggedValueKind kind) const = 0;
  /// A program output, or one out argument of an instruction (one call per
  /// out argument, in schema order). `op_name` (stable for the method's
  /// lifetime) lets a tracer filter by operator; upstream's traces do not
  /// name value events.
  virtual void log_value(const Value& value, LoggedValueKind kind, int32_t chain_id,
                         int32_t instruction_id, const char* name) = 0;

  /// An output of a node inside a delegate, identified by the node's
  /// delegate debug id (as upstream's log_intermediate_output_delegate);
  /// logged when wants_values(kIntermediateOutput). Tracers that do not
  /// record delegate values keep this default.
  virtual void log_delegate_value(const Value& value, int32_t delegate_debug_id_int) {
    (void)value;
    (void)delegate_debug_id_int;
  }

  /// Marks the current block as run on bundled test case `index`.
  virtual void set_bundled_input_index(int32_t index) = 0;

  /// The instruction the runtime is executing, for delegate events.
  int32_t current_chain_id = -1;
  int32_t current_instruction_id = -1;
};

}  // namespace etkit
