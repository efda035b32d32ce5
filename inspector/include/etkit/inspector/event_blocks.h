#pragma once
/// @file
/// Event blocks from an ETDump, grouped the way upstream's Inspector groups
/// them: each run's events collate by instruction (and delegate id), runs
/// with the same signature (name, event signatures, bundled input index)
/// merge into one block, and every event carries the durations of all its
/// runs with p10/p50/p90/avg/min/max statistics.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/core/result.h"
#include "etkit/etrecord/edge_graph.h"

namespace etkit::etdump {
class ETDump;
}

namespace etkit::inspector {

/// Time units for durations (upstream's TimeScale).
/// Units in kTimeUnitNames' order.
enum class TimeUnit { kSeconds, kMilliseconds, kMicroseconds, kNanoseconds, kCycles };

/// The units' names, as options and parse_time_unit spell them.
inline constexpr const char* kTimeUnitNames[] = {"s", "ms", "us", "ns", "cycles"};
/// A unit from its name (one of kTimeUnitNames).
Result<TimeUnit> parse_time_unit(const std::string& text);
const char* to_string(TimeUnit unit);
/// Nanoseconds in one unit (1 for cycles, which only convert to cycles).
double nanoseconds_per(TimeUnit unit);

/// Durations and their statistics, in the target unit.
struct PerfData {
  std::vector<double> raw;
  double p10 = 0, p50 = 0, p90 = 0, avg = 0, min = 0, max = 0;
};

/// The statistic of an event's runs a report adds up or compares (`diff
/// --stat`, `modules --stat`): the median resists an outlier run, the
/// average is upstream's (find_total_for_module), the minimum the best case.
enum class Stat { kMin, kP50, kAvg };
Result<Stat> parse_stat(const std::string& text);  ///< "min", "p50", "avg"
const char* to_string(Stat stat);
/// That statistic of `perf`.
double stat_value(const PerfData& perf, Stat stat);

/// NumPy's default (linear) percentile of `values`.
double percentile(std::vector<double> values, double q);

struct Event {
  std::string name;  ///< the delegate debug id for delegated events
  std::optional<PerfData> perf_data;
  int32_t instruction_id = -1;
  std::optional<int64_t> delegate_debug_id_int;
  std::optional<std::string> delegate_debug_id_str;
  bool is_delegated_op = false;
  std::string delegate_backend_name;
  std::vector<std::string> op_types;
  std::vector<double> start_times;  ///< per run, target unit
  // Filled by link_etrecord (source_links.h); empty without an ETRecord.
  std::vector<int64_t> debug_handles;
  std::vector<std::pair<std::string, std::string>> stack_traces;  ///< node name -> trace
  std::vector<std::pair<std::string, std::vector<etrecord::ModuleFrame>>> module_hierarchy;
};

struct EventBlock {
  std::string name;
  int32_t bundled_input_index = -1;
  size_t runs = 0;
  std::vector<Event> events;
};

/// The name runners give the run blocks of warm-up executes (`run
/// --warmup`): upstream's Inspector groups them apart from "Execute", and
/// etkit's statistics leave them out unless include_warmup.
inline constexpr const char* kWarmupBlockName = "Warmup";

/// The run blocks of `etinspect generate`'s steps, one run per execute:
/// prefill and decode apart (upstream's Inspector would average them into
/// one "Execute" block).
inline constexpr const char* kPrefillBlockName = "Prefill";
inline constexpr const char* kDecodeBlockName = "Decode";

struct EventBlockOptions {
  TimeUnit source = TimeUnit::kNanoseconds;
  TimeUnit target = TimeUnit::kMilliseconds;
  /// Unit of delegate-internal events' timestamps when a backend logs in
  /// its own (upstream's delegate_time_scale_converter); unset: `source`.
  std::optional<TimeUnit> delegate_source;
  /// Remember where every event of the trace lands (GroupedEvents::place),
  /// for views that go from a drawn event to its table row and back; costs
  /// 4 bytes per event.
  bool locate_events = false;
  /// Keep the "Warmup" blocks (left out by default: warm-ups are not what
  /// a latency statistic is about).
  bool include_warmup = false;
  /// The device clock's rate when timestamps are its cycles (a
  /// microcontroller's cycle counter): with `source` cycles, the target may
  /// then be a time unit. 0: cycles convert only to cycles (as upstream).
  double cycles_per_second = 0;
  /// Threads that group the runs (contiguous ranges of run blocks, merged
  /// in trace order: the same blocks for any count); 0: the block workers'
  /// default (etkit/inspector/block_workers.h).
  unsigned grouping_workers = 0;
};

/// Where an event of the trace landed: its block, which of the block's runs
/// it belongs to, and its index in the block's events.
struct EventPlace {
  size_t block = 0;
  size_t run = 0;
  size_t event = 0;
};

/// Both units from their names, as the CLI's --source-time-unit and
/// --time-unit give them.
Result<EventBlockOptions> parse_time_units(const std::string& source, const std::string& target);

/// Builds the blocks. Fails when exactly one of source and target is
/// cycles (as upstream).
Result<std::vector<EventBlock>> event_blocks(const etdump::ETDump& trace,
                                             const EventBlockOptions& options = {});

/// The grouping behind event_blocks(), kept compact (names are views into
/// the trace, timestamps 16 bytes per event and run) so that a caller can
/// materialize one block at a time, print it and drop it: traces of
/// millions of events then need little more memory than the trace itself.
/// The trace must outlive this object.
class GroupedEvents {
 public:
  static Result<GroupedEvents> build(const etdump::ETDump& trace, const EventBlockOptions& options = {});
  ~GroupedEvents();
  GroupedEvents(GroupedEvents&&) noexcept;
  GroupedEvents& operator=(GroupedEvents&&) noexcept;

  size_t block_count() const;
  /// How many events block `index` has (its width: each run has them all).
  size_t event_count(size_t index) const;
  /// Block `index` as event_blocks() returns it.
  EventBlock block(size_t index) const;
  /// The same, written over `block` so its storage is reused.
  void block_into(size_t index, EventBlock& block) const;
  /// Where event `trace_event` of the trace's run block `run_block` landed;
  /// nullopt for events no table shows (allocations, run outputs), and
  /// unless built with `locate_events`.
  std::optional<EventPlace> place(size_t run_block, size_t trace_event) const;
  /// The trace's run block holding run `run` of block `block` (with
  /// `locate_events`).
  std::optional<size_t> run_block(size_t block, size_t run) const;

 private:
  struct State;
  explicit GroupedEvents(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// The name every view gives a trace event: its own name, or for a
/// delegate's event the operator name it carries beside an integer id
/// (etkit's XNNPACK events), else its id (upstream's carry one or the other).
/// (Python's Inspector names delegated events by id, as upstream's does.)
std::string event_display_name(std::string_view name, int64_t delegate_int, std::string_view delegate_str);

/// Names the backend of delegated events and DELEGATE_CALL events of
/// "Execute" blocks from the program's instructions (chain 0 of `method`).
/// Returns how many events were annotated.
size_t annotate_backends(std::vector<EventBlock>& blocks, const MethodSummary& method);
/// The same for one block.
size_t annotate_backends(EventBlock& block, const MethodSummary& method);
/// The same for one event of an "Execute" block; true when annotated.
bool annotate_backend(Event& event, const MethodSummary& method);

}  // namespace etkit::inspector
