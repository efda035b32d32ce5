#include "etkit/inspector/memory_report.h"

#include <algorithm>
#include <map>

namespace etkit::inspector {
namespace {

using report::Cell;

Cell optional_step(const std::optional<size_t>& step) { return step ? Cell::of(int64_t(*step)) : Cell::empty(); }

void print_arenas(report::Printer& out, const MethodMemory& memory) {
  std::vector<std::vector<Cell>> arenas;
  for (const ArenaUse& a : memory.arenas) {
    arenas.push_back({Cell::of(int64_t(a.id)), Cell::of(int64_t(a.size)), Cell::of(int64_t(a.peak_live_bytes)),
                      Cell::of(int64_t(a.peak_step)), Cell::of(a.utilization), Cell::of(int64_t(a.best_fit_bytes))});
  }
  out.table("arenas", {{"id"}, {"size"}, {"peak_live_bytes"}, {"peak_step"}, {"utilization", 3}, {"best_fit_bytes"}},
            arenas);
}

// Largest first: the tensors worth looking at.
void print_tensors(report::Printer& out, const MethodMemory& memory, size_t top) {
  std::vector<const TensorLifetime*> tensors;
  for (const auto& t : memory.tensors) tensors.push_back(&t);
  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const auto* a, const auto* b) { return a->planned.bytes > b->planned.bytes; });
  if (top > 0 && tensors.size() > top) tensors.resize(top);
  std::vector<std::vector<Cell>> rows;
  for (const TensorLifetime* t : tensors) {
    const std::vector<int64_t> sizes(t->planned.tensor.sizes.begin(), t->planned.tensor.sizes.end());
    rows.push_back({Cell::of(int64_t(t->planned.value)), Cell::of(int64_t(t->planned.arena)),
                    Cell::of(int64_t(t->planned.offset)), Cell::of(int64_t(t->planned.bytes)), optional_step(t->first),
                    optional_step(t->last), Cell::of(to_string(t->planned.tensor.scalar_type)), Cell::of(sizes),
                    t->producer ? Cell::of(*t->producer) : Cell::empty(), Cell::of(t->consumers),
                    Cell::of(t->planned.initial_state ? "mutable buffer" : "")});
  }
  out.table("tensors", {{"value"}, {"arena"}, {"offset"}, {"bytes"}, {"first"}, {"last"}, {"dtype"}, {"sizes"},
                        {"producer"}, {"consumers"}, {"state"}},
            rows);
}

}  // namespace

void print(report::Printer& out, const ProgramMemoryReport& memory) {
  out.begin_object("");
  out.field("program", memory.program);
  out.begin_list("methods");
  for (const MethodMemory& method : memory.methods) {
    out.begin_object("");
    out.field("name", method.name);
    out.field("instructions", uint64_t(method.instructions));
    print_arenas(out, method);
    print_tensors(out, method, memory.top);
    out.string_list("errors", method.errors);
    out.end_object();
  }
  out.end_list();
  out.end_object();
  out.finish();
}

TraceMemoryReport trace_allocations(const etdump::ETDump& trace, std::string name) {
  std::map<std::pair<std::string, std::string>, AllocatorTotals> totals;  // by (phase, allocator)
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    const std::string phase = block.name() == "Default" ? "load" : "runs";
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kAllocation) continue;
      const size_t id = size_t(std::max(event.allocation.allocator_id, 0));
      const std::string allocator =
          id < block.allocator_count() ? std::string(block.allocator_name(id)) : "allocator " + std::to_string(id);
      AllocatorTotals& t = totals[{phase, allocator}];
      t.phase = phase;
      t.allocator = allocator;
      t.total += event.allocation.allocation_size;
      ++t.count;
      t.largest = std::max(t.largest, event.allocation.allocation_size);
    }
  }
  TraceMemoryReport allocations{std::move(name), {}};
  for (auto& [key, t] : totals) allocations.allocators.push_back(std::move(t));
  return allocations;
}

void print(report::Printer& out, const TraceMemoryReport& memory) {
  std::vector<std::vector<Cell>> rows;
  for (const AllocatorTotals& t : memory.allocators) {
    rows.push_back({Cell::of(t.phase), Cell::of(t.allocator), Cell::of(int64_t(t.total)), Cell::of(int64_t(t.count)),
                    Cell::of(int64_t(t.largest))});
  }
  out.begin_object("");
  out.field("trace", memory.trace);
  out.table("allocators", {{"phase"}, {"allocator"}, {"total"}, {"count"}, {"largest"}}, rows);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
