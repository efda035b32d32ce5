#include "etkit/inspector/event_blocks.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "etkit/etdump/etdump_reader.h"
#include "run_grouping.h"

namespace etkit::inspector {

double nanoseconds_per(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSeconds: return 1e9;
    case TimeUnit::kMilliseconds: return 1e6;
    case TimeUnit::kMicroseconds: return 1e3;
    case TimeUnit::kNanoseconds: return 1;
    case TimeUnit::kCycles: return 1;
  }
  return 1;
}

namespace {

// event_display_name written over `out` (its storage reused: a block is
// materialized over the last one's events).
void display_name_into(std::string& out, std::string_view name, int64_t delegate_int, std::string_view delegate_str) {
  if (delegate_int != -1 && name.empty()) {
    out = std::to_string(delegate_int);
    return;
  }
  const std::string_view text = delegate_int == -1 && !delegate_str.empty() ? delegate_str : name;
  // Most often the name already there: the last block's event at this place.
  if (std::string_view(out) != text) out.assign(text);
}

// Upstream's elapsed time, including its 32-bit wraparound rule.
double elapsed(uint64_t start, uint64_t end) { return double(etdump::elapsed_ticks(start, end)); }

// NumPy's linear percentile on already sorted values.
double sorted_percentile(const std::vector<double>& sorted, double q) {
  const double rank = q / 100.0 * double(sorted.size() - 1);
  const size_t lo = size_t(rank);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - double(lo));
}

// Fills `perf` from its raw durations; `scratch` is reused for sorting.
void compute_stats(PerfData& perf, std::vector<double>& scratch) {
  if (perf.raw.size() == 1) {  // a block per run (a bundled program's cases): nothing to sort
    perf.p10 = perf.p50 = perf.p90 = perf.avg = perf.min = perf.max = perf.raw[0];
    return;
  }
  scratch.assign(perf.raw.begin(), perf.raw.end());
  std::sort(scratch.begin(), scratch.end());
  perf.p10 = sorted_percentile(scratch, 10);
  perf.p50 = sorted_percentile(scratch, 50);
  perf.p90 = sorted_percentile(scratch, 90);
  perf.avg = std::accumulate(perf.raw.begin(), perf.raw.end(), 0.0) / double(perf.raw.size());
  perf.min = scratch.front();
  perf.max = scratch.back();
}

// Writes the block of `group` into `block`, reusing its storage: callers
// that walk millions of events one block at a time then allocate almost
// nothing per block.
void materialize_into(const Grouping& grouping, const Group& group, double scale, double delegate_scale,
                      EventBlock& block) {
  static thread_local std::vector<double> scratch;
  block.name.assign(group.name);
  block.bundled_input_index = group.bundled_input_index;
  block.runs = group.runs;
  const std::vector<EventKey>& keys = grouping.keys_of(group);
  const size_t width = keys.size();
  block.events.resize(width);
  for (size_t k = 0; k < width; ++k) {
    const EventKey& key = keys[k];
    Event& event = block.events[k];
    event.instruction_id = key.instruction;
    event.delegate_debug_id_int.reset();
    event.delegate_debug_id_str.reset();
    if (key.delegate_int != -1) event.delegate_debug_id_int = key.delegate_int;
    if (!key.delegate_str.empty()) event.delegate_debug_id_str = std::string(key.delegate_str);
    event.is_delegated_op = event.delegate_debug_id_int || event.delegate_debug_id_str;
    // A delegate's value logged without a profile event of its own goes by its id.
    const bool by_id = key.delegate_int != -1 || !key.delegate_str.empty();
    display_name_into(event.name, key.has_profile ? key.profile_name : by_id ? std::string_view() : key.debug_name,
                      key.delegate_int, key.delegate_str);
    event.delegate_backend_name.clear();
    event.op_types.clear();
    event.debug_handles.clear();
    event.stack_traces.clear();
    event.module_hierarchy.clear();
    event.start_times.clear();
    if (!key.has_profile) {
      event.perf_data.reset();
      continue;
    }
    if (!event.perf_data) event.perf_data.emplace();
    PerfData& perf = *event.perf_data;
    perf.raw.clear();
    const double event_scale = event.is_delegated_op ? delegate_scale : scale;
    for (size_t run = 0; run < group.runs; ++run) {
      const Occurrence& o = group.occurrences[run * width + k];
      perf.raw.push_back(elapsed(o.start, o.end) / event_scale);
      event.start_times.push_back(double(o.start) / event_scale);
    }
    compute_stats(perf, scratch);
  }
}

// Divisor from `source` ticks to target units; cycles become time at a
// known clock rate (`cycles_per_second` > 0).
Result<double> scale_of(TimeUnit source, TimeUnit target, double cycles_per_second) {
  if (source == TimeUnit::kCycles && target != TimeUnit::kCycles && cycles_per_second > 0) {
    return nanoseconds_per(target) / (1e9 / cycles_per_second);
  }
  if ((source == TimeUnit::kCycles) != (target == TimeUnit::kCycles)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "for time in cycles both the source and the target unit must be cycles (or give the "
                       "device's clock rate to read cycles as time)");
  }
  return nanoseconds_per(target) / nanoseconds_per(source);
}

}  // namespace

Result<TimeUnit> parse_time_unit(const std::string& text) {
  // kTimeUnitNames in TimeUnit's order.
  for (size_t i = 0; i < std::size(kTimeUnitNames); ++i) {
    if (text == kTimeUnitNames[i]) return static_cast<TimeUnit>(i);
  }
  std::string names;
  for (const char* name : kTimeUnitNames) names += (names.empty() ? "" : ", ") + std::string(name);
  return Error::make(ErrorCode::kInvalidArgument, "time unit '%s' is not one of %s", text.c_str(), names.c_str());
}

std::string event_display_name(std::string_view name, int64_t delegate_int, std::string_view delegate_str) {
  std::string text;
  display_name_into(text, name, delegate_int, delegate_str);
  return text;
}

Result<EventBlockOptions> parse_time_units(const std::string& source, const std::string& target) {
  EventBlockOptions options;
  ETKIT_ASSIGN_OR_RETURN(options.source, parse_time_unit(source));
  ETKIT_ASSIGN_OR_RETURN(options.target, parse_time_unit(target));
  return options;
}

const char* to_string(TimeUnit unit) {
  const size_t index = static_cast<size_t>(unit);
  return index < std::size(kTimeUnitNames) ? kTimeUnitNames[index] : "?";
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, q);
}

struct GroupedEvents::State {
  Grouping grouping;  // its places empty unless options.locate_events
  double scale = 1;
  double delegate_scale = 1;
};

GroupedEvents::GroupedEvents(std::unique_ptr<State> state) : state_(std::move(state)) {}
GroupedEvents::~GroupedEvents() = default;
GroupedEvents::GroupedEvents(GroupedEvents&&) noexcept = default;
GroupedEvents& GroupedEvents::operator=(GroupedEvents&&) noexcept = default;

namespace {

// Removes the groups of warm-up runs; their runs' events no longer land in
// any block.
void drop_warmup_groups(Grouping& grouping) {
  std::vector<Group>& groups = grouping.groups;
  RunPlaces& places = grouping.places;
  std::vector<int64_t> new_index(groups.size(), -1);
  std::vector<Group> kept;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].name == std::string_view(kWarmupBlockName)) continue;
    new_index[g] = int64_t(kept.size());
    kept.push_back(std::move(groups[g]));
  }
  const bool dropped = kept.size() != groups.size();
  groups = std::move(kept);
  if (!dropped) return;
  for (size_t b = 0; b < places.group.size(); ++b) {
    const int64_t moved = new_index[places.group[b]];
    if (moved >= 0) {
      places.group[b] = uint32_t(moved);
    } else {
      std::fill(places.key[b].begin(), places.key[b].end(), -1);
    }
  }
}

}  // namespace

Result<GroupedEvents> GroupedEvents::build(const etdump::ETDump& trace, const EventBlockOptions& options) {
  auto state = std::make_unique<State>();
  ETKIT_ASSIGN_OR_RETURN(state->scale, scale_of(options.source, options.target, options.cycles_per_second));
  ETKIT_ASSIGN_OR_RETURN(state->delegate_scale, scale_of(options.delegate_source.value_or(options.source),
                                                         options.target, options.cycles_per_second));
  state->grouping = group_runs(trace, options.locate_events, options.grouping_workers);
  if (!options.include_warmup) drop_warmup_groups(state->grouping);
  return GroupedEvents(std::move(state));
}

size_t GroupedEvents::block_count() const { return state_->grouping.groups.size(); }

size_t GroupedEvents::event_count(size_t index) const {
  const Grouping& grouping = state_->grouping;
  return grouping.keys_of(grouping.groups.at(index)).size();
}

std::optional<EventPlace> GroupedEvents::place(size_t run_block, size_t trace_event) const {
  const RunPlaces& places = state_->grouping.places;
  if (run_block >= places.key.size() || trace_event >= places.key[run_block].size()) return std::nullopt;
  const int32_t key = places.key[run_block][trace_event];
  if (key < 0) return std::nullopt;
  return EventPlace{places.group[run_block], places.run[run_block], size_t(key)};
}

std::optional<size_t> GroupedEvents::run_block(size_t block, size_t run) const {
  const std::vector<Group>& groups = state_->grouping.groups;
  if (block >= groups.size() || run >= groups[block].run_blocks.size()) return std::nullopt;
  return groups[block].run_blocks[run];
}

EventBlock GroupedEvents::block(size_t index) const {
  EventBlock block;
  materialize_into(state_->grouping, state_->grouping.groups[index], state_->scale, state_->delegate_scale, block);
  return block;
}

void GroupedEvents::block_into(size_t index, EventBlock& block) const {
  materialize_into(state_->grouping, state_->grouping.groups[index], state_->scale, state_->delegate_scale, block);
}

Result<std::vector<EventBlock>> event_blocks(const etdump::ETDump& trace, const EventBlockOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(GroupedEvents grouped, GroupedEvents::build(trace, options));
  std::vector<EventBlock> blocks;
  blocks.reserve(grouped.block_count());
  for (size_t i = 0; i < grouped.block_count(); ++i) blocks.push_back(grouped.block(i));
  return blocks;
}

bool annotate_backend(Event& event, const MethodSummary& method) {
  if (!event.is_delegated_op && event.name != "DELEGATE_CALL") return false;
  for (const InstructionSummary& instruction : method.instructions) {
    if (instruction.chain == 0 && instruction.index == event.instruction_id && instruction.kind == "delegate") {
      event.delegate_backend_name = instruction.target;
      return true;
    }
  }
  return false;
}

size_t annotate_backends(EventBlock& block, const MethodSummary& method) {
  if (block.name != "Execute") return 0;
  size_t annotated = 0;
  for (Event& event : block.events) annotated += annotate_backend(event, method);
  return annotated;
}

size_t annotate_backends(std::vector<EventBlock>& blocks, const MethodSummary& method) {
  size_t annotated = 0;
  for (EventBlock& block : blocks) annotated += annotate_backends(block, method);
  return annotated;
}

Result<Stat> parse_stat(const std::string& text) {
  if (text == "min") return Stat::kMin;
  if (text == "p50") return Stat::kP50;
  if (text == "avg") return Stat::kAvg;
  return Error::make(ErrorCode::kInvalidArgument, "statistic '%s' is not one of min, p50, avg", text.c_str());
}

const char* to_string(Stat stat) {
  switch (stat) {
    case Stat::kMin: return "min";
    case Stat::kP50: return "p50";
    case Stat::kAvg: return "avg";
  }
  return "p50";
}

double stat_value(const PerfData& perf, Stat stat) {
  switch (stat) {
    case Stat::kMin: return perf.min;
    case Stat::kP50: return perf.p50;
    case Stat::kAvg: return perf.avg;
  }
  return perf.p50;
}

}  // namespace etkit::inspector
