#pragma once
// What `etinspect memory` reports: a program's methods' planned memory
// (memory_plan.h), or the allocations a trace recorded, printed as text or
// JSON by one function each.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/memory_plan.h"
#include "etkit/report/printer.h"

namespace etkit::inspector {

struct ProgramMemoryReport {
  std::string program;
  std::vector<MethodMemory> methods;
  size_t top = 0;  ///< the largest tensors listed per method; 0 for all
};

/// {program, methods: [{name, instructions, arenas: [{id, size,
/// peak_live_bytes, peak_step, utilization, best_fit_bytes}], tensors:
/// [{value, arena, offset, bytes, first, last, dtype, sizes, producer,
/// consumers, state}] largest first, errors}]}.
void print(report::Printer& out, const ProgramMemoryReport& memory);

/// One allocator's allocation events in one phase ("load": the trace's
/// Default block; "runs": the others).
struct AllocatorTotals {
  std::string phase, allocator;
  uint64_t total = 0, count = 0, largest = 0;
};

struct TraceMemoryReport {
  std::string trace;
  std::vector<AllocatorTotals> allocators;  ///< by phase, then allocator name
};

/// The trace's allocation events summed by phase and allocator; empty when
/// it recorded none.
TraceMemoryReport trace_allocations(const etdump::ETDump& trace, std::string name);

/// {trace, allocators: [{phase, allocator, total, count, largest}]}.
void print(report::Printer& out, const TraceMemoryReport& memory);

}  // namespace etkit::inspector
