#include "etkit/inspector/event_blocks.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "etkit/etdump/etdump_reader.h"

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

// Identity of an event inside a run (upstream's EventSignature): the
// instruction, the profile event's name and delegate ids (absent for a
// debug-only instruction) and the first debug event's name. Names are views
// into the trace, which outlives the grouping.
struct EventKey {
  int32_t instruction = -1;
  int32_t delegate_int = -1;
  bool has_profile = false;
  std::string_view profile_name;
  std::string_view delegate_str;
  std::string_view debug_name;
  bool operator==(const EventKey& o) const {
    return instruction == o.instruction && delegate_int == o.delegate_int && has_profile == o.has_profile &&
           profile_name == o.profile_name && delegate_str == o.delegate_str && debug_name == o.debug_name;
  }
};

struct Occurrence {
  uint64_t start = 0, end = 0;
};

// Runs with equal signatures (name, bundled input index, event keys) merge.
struct Group {
  std::string_view name;
  int32_t bundled_input_index = -1;
  size_t runs = 0;
  std::vector<uint32_t> run_blocks;  // the trace's run block of each run
  std::vector<EventKey> keys;
  std::vector<Occurrence> occurrences;  // run-major: runs x keys
};

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

uint64_t hash_view(std::string_view text) { return std::hash<std::string_view>{}(text); }

// Identity of the instruction an event belongs to (upstream's
// InstructionEventSignature), and what the run recorded for it.
struct InstructionKey {
  int32_t instruction, chain, delegate_int;
  std::string_view delegate_str;
  bool operator==(const InstructionKey& o) const {
    return instruction == o.instruction && chain == o.chain && delegate_int == o.delegate_int &&
           delegate_str == o.delegate_str;
  }
};
struct InstructionKeyHash {
  size_t operator()(const InstructionKey& k) const {
    return mix(mix(mix(uint64_t(uint32_t(k.instruction)), uint64_t(uint32_t(k.chain))), uint64_t(uint32_t(k.delegate_int))),
               hash_view(k.delegate_str));
  }
};
struct ProfileRecord {
  std::string_view name;
  int32_t delegate_int;
  std::string_view delegate_str;
  uint64_t start, end;
};
struct InstructionRecord {
  InstructionKey key;
  std::vector<ProfileRecord> profiles;
  std::string_view debug_name;
  bool has_debug_name = false;
};

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
  scratch.assign(perf.raw.begin(), perf.raw.end());
  std::sort(scratch.begin(), scratch.end());
  perf.p10 = sorted_percentile(scratch, 10);
  perf.p50 = sorted_percentile(scratch, 50);
  perf.p90 = sorted_percentile(scratch, 90);
  perf.avg = std::accumulate(perf.raw.begin(), perf.raw.end(), 0.0) / double(perf.raw.size());
  perf.min = scratch.front();
  perf.max = scratch.back();
}

// Where each event of a run went while collating: its record and, for a
// profile event, which of the record's profiles it is (-1 for debug events,
// -1/-1 for events not collated).
struct Slot {
  int32_t record = -1;
  int32_t profile = -1;
};

// Collates a run's events by instruction, in first-seen order, into
// records[0, returned count); `index_of` and `records` are reused storage.
// With `slots`, records where each event went.
size_t collate_run(const etdump::RunBlock& run,
                   std::unordered_map<InstructionKey, size_t, InstructionKeyHash>& index_of,
                   std::vector<InstructionRecord>& records, std::vector<Slot>* slots) {
  if (slots != nullptr) slots->assign(run.event_count(), Slot{});
  index_of.clear();
  size_t used = 0;
  for (size_t e = 0; e < run.event_count(); ++e) {
    const etdump::EventView event = run.event(e);
    InstructionKey key;
    if (event.kind == etdump::EventKind::kProfile) {
      key = {event.profile.instruction_id, event.profile.chain_index, event.profile.delegate_debug_id_int,
             event.profile.delegate_debug_id_str};
    } else if (event.kind == etdump::EventKind::kDebug) {
      if (event.debug.is_output) continue;  // run outputs are not events
      key = {event.debug.instruction_id, int32_t(event.debug.chain_index), event.debug.delegate_debug_id_int,
             event.debug.delegate_debug_id_str};
    } else {
      continue;  // allocation events are not part of the tables
    }
    auto [it, inserted] = index_of.try_emplace(key, used);
    if (inserted) {
      if (used == records.size()) records.emplace_back();
      InstructionRecord& record = records[used++];
      record.key = key;
      record.profiles.clear();
      record.has_debug_name = false;
      record.debug_name = {};
    }
    InstructionRecord& record = records[it->second];
    if (slots != nullptr) (*slots)[e].record = int32_t(it->second);
    if (event.kind == etdump::EventKind::kProfile) {
      const etdump::ProfileEventView& p = event.profile;
      if (slots != nullptr) (*slots)[e].profile = int32_t(record.profiles.size());
      record.profiles.push_back({p.name, p.delegate_debug_id_int, p.delegate_debug_id_str, p.start_time, p.end_time});
    } else if (!record.has_debug_name) {
      record.debug_name = event.debug.name;
      record.has_debug_name = true;
    }
  }
  return used;
}

// Where each run block and its events went, when asked for.
struct RunPlaces {
  std::vector<uint32_t> group;            // per run block
  std::vector<uint32_t> run;              // per run block: its run number in the group
  std::vector<std::vector<int32_t>> key;  // per run block, per event: key index or -1
};

// The key index of each event of a run from its collation slots: a record
// owns one key per profile (one key when it has none), in record order.
std::vector<int32_t> event_keys(const std::vector<Slot>& slots, const std::vector<InstructionRecord>& records,
                                size_t used) {
  std::vector<int32_t> base(used, 0);
  int32_t next = 0;
  for (size_t r = 0; r < used; ++r) {
    base[r] = next;
    next += int32_t(std::max<size_t>(1, records[r].profiles.size()));
  }
  std::vector<int32_t> keys(slots.size(), -1);
  for (size_t e = 0; e < slots.size(); ++e) {
    if (slots[e].record >= 0) keys[e] = base[size_t(slots[e].record)] + std::max(0, slots[e].profile);
  }
  return keys;
}

// One run's event keys and occurrences, in the order its records came.
void run_keys(const std::vector<InstructionRecord>& records, size_t used, std::vector<EventKey>& keys,
              std::vector<Occurrence>& occurrences) {
  keys.clear();
  occurrences.clear();
  for (size_t r = 0; r < used; ++r) {
    const InstructionRecord& record = records[r];
    // Chain -1 marks method-level events (load, init, execute): their
    // instruction id field is meaningless, so they get none.
    const int32_t instruction = record.key.chain < 0 ? -1 : record.key.instruction;
    if (record.profiles.empty()) {
      // A value logged without a profile event of its own (a delegate's
      // fused node output, debug id 3 after a convolution timed as 1):
      // its row keeps the delegate id, as upstream's Inspector shows it.
      keys.push_back({instruction, record.key.delegate_int, false, {}, record.key.delegate_str, record.debug_name});
      occurrences.push_back({});
    }
    for (const ProfileRecord& p : record.profiles) {
      keys.push_back({instruction, p.delegate_int, true, p.name, p.delegate_str, record.debug_name});
      occurrences.push_back({p.start, p.end});
    }
  }
}

// Groups the runs of a trace; the views point into `trace`. With `places`,
// records where every run block and event went.
std::vector<Group> group_runs(const etdump::ETDump& trace, RunPlaces* places) {
  std::vector<Group> groups;
  std::unordered_map<uint64_t, std::vector<size_t>> groups_by_hash;
  std::unordered_map<InstructionKey, size_t, InstructionKeyHash> index_of;
  std::vector<InstructionRecord> records;  // reused across runs
  std::vector<EventKey> keys;
  std::vector<Occurrence> occurrences;
  std::vector<Slot> slots;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock run = trace.block(b);
    const size_t used = collate_run(run, index_of, records, places != nullptr ? &slots : nullptr);
    run_keys(records, used, keys, occurrences);
    const std::string_view name = run.name();
    const int32_t bundled = run.bundled_input_index();
    uint64_t hash = mix(hash_view(name), uint64_t(uint32_t(bundled)));
    for (const EventKey& k : keys) {
      hash = mix(hash, InstructionKeyHash{}({k.instruction, 0, k.delegate_int, k.delegate_str}));
      hash = mix(mix(hash, hash_view(k.profile_name)), hash_view(k.debug_name) + k.has_profile);
    }
    std::vector<size_t>& candidates = groups_by_hash[hash];
    Group* group = nullptr;
    for (size_t index : candidates) {
      Group& g = groups[index];
      if (g.name == name && g.bundled_input_index == bundled && g.keys == keys) {
        group = &g;
        break;
      }
    }
    if (group == nullptr) {
      candidates.push_back(groups.size());
      groups.push_back({name, bundled, 0, {}, keys, {}});
      group = &groups.back();
    }
    if (places != nullptr) {
      places->group.push_back(uint32_t(group - groups.data()));
      places->run.push_back(uint32_t(group->runs));
      places->key.push_back(event_keys(slots, records, used));
      group->run_blocks.push_back(uint32_t(b));
    }
    ++group->runs;
    group->occurrences.insert(group->occurrences.end(), occurrences.begin(), occurrences.end());
  }
  return groups;
}

// Writes the block of `group` into `block`, reusing its storage: callers
// that walk millions of events one block at a time then allocate almost
// nothing per block.
void materialize_into(const Group& group, double scale, double delegate_scale, EventBlock& block) {
  static thread_local std::vector<double> scratch;
  block.name.assign(group.name);
  block.bundled_input_index = group.bundled_input_index;
  block.runs = group.runs;
  const size_t width = group.keys.size();
  block.events.resize(width);
  for (size_t k = 0; k < width; ++k) {
    const EventKey& key = group.keys[k];
    Event& event = block.events[k];
    event.instruction_id = key.instruction;
    event.delegate_debug_id_int.reset();
    event.delegate_debug_id_str.reset();
    if (key.delegate_int != -1) event.delegate_debug_id_int = key.delegate_int;
    if (!key.delegate_str.empty()) event.delegate_debug_id_str = std::string(key.delegate_str);
    event.is_delegated_op = event.delegate_debug_id_int || event.delegate_debug_id_str;
    // A delegate's value logged without a profile event of its own goes by its id.
    const bool by_id = key.delegate_int != -1 || !key.delegate_str.empty();
    event.name = event_display_name(key.has_profile ? key.profile_name : by_id ? std::string_view() : key.debug_name,
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
  if (delegate_int != -1) return name.empty() ? std::to_string(delegate_int) : std::string(name);
  if (!delegate_str.empty()) return std::string(delegate_str);
  return std::string(name);
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
  std::vector<Group> groups;
  RunPlaces places;  // empty unless options.locate_events
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
void drop_warmup_groups(std::vector<Group>& groups, RunPlaces& places) {
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
  state->groups = group_runs(trace, options.locate_events ? &state->places : nullptr);
  if (!options.include_warmup) drop_warmup_groups(state->groups, state->places);
  return GroupedEvents(std::move(state));
}

size_t GroupedEvents::block_count() const { return state_->groups.size(); }

size_t GroupedEvents::event_count(size_t index) const { return state_->groups.at(index).keys.size(); }

std::optional<EventPlace> GroupedEvents::place(size_t run_block, size_t trace_event) const {
  const RunPlaces& places = state_->places;
  if (run_block >= places.key.size() || trace_event >= places.key[run_block].size()) return std::nullopt;
  const int32_t key = places.key[run_block][trace_event];
  if (key < 0) return std::nullopt;
  return EventPlace{places.group[run_block], places.run[run_block], size_t(key)};
}

std::optional<size_t> GroupedEvents::run_block(size_t block, size_t run) const {
  if (block >= state_->groups.size() || run >= state_->groups[block].run_blocks.size()) return std::nullopt;
  return state_->groups[block].run_blocks[run];
}

EventBlock GroupedEvents::block(size_t index) const {
  EventBlock block;
  materialize_into(state_->groups[index], state_->scale, state_->delegate_scale, block);
  return block;
}

void GroupedEvents::block_into(size_t index, EventBlock& block) const {
  materialize_into(state_->groups[index], state_->scale, state_->delegate_scale, block);
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
