#include "etkit/inspector/event_blocks.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "etkit/etdump/etdump_reader.h"

namespace etkit::inspector {
namespace {

}  // namespace

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

// Identity of the instruction an event belongs to (upstream's
// InstructionEventSignature).
using InstructionKey = std::tuple<int32_t, int32_t, int32_t, std::string>;

// Identity of an event inside a run (upstream's EventSignature): the
// instruction, the profile event's name and delegate ids (absent for a
// debug-only instruction) and the first debug event's name.
struct EventKey {
  int32_t instruction = -1;
  bool has_profile = false;
  std::string profile_name;
  int32_t delegate_int = -1;
  std::string delegate_str;
  std::string debug_name;
  bool operator<(const EventKey& o) const {
    return std::tie(instruction, has_profile, profile_name, delegate_int, delegate_str, debug_name) <
           std::tie(o.instruction, o.has_profile, o.profile_name, o.delegate_int, o.delegate_str, o.debug_name);
  }
  bool operator==(const EventKey& o) const { return !(*this < o) && !(o < *this); }
};

struct Occurrence {
  uint64_t start = 0, end = 0;
  bool has_profile = false;
};

struct RunKey {
  std::string name;
  std::vector<EventKey> events;
  int32_t bundled_input_index = -1;
  bool operator<(const RunKey& o) const {
    return std::tie(name, events, bundled_input_index) < std::tie(o.name, o.events, o.bundled_input_index);
  }
};

struct Group {
  RunKey key;
  size_t runs = 0;
  std::vector<std::vector<Occurrence>> occurrences;  // per event signature
};

// Upstream's elapsed time, including its 32-bit wraparound rule.
double elapsed(uint64_t start, uint64_t end) {
  const uint64_t max32 = 0xffffffffull;
  if (start > end && start <= max32 && end <= max32) return double(max32 - start + end);
  return start > end ? 0.0 : double(end - start);
}

PerfData perf_of(std::vector<double> raw) {
  PerfData perf;
  perf.raw = raw;
  perf.p10 = percentile(raw, 10);
  perf.p50 = percentile(raw, 50);
  perf.p90 = percentile(raw, 90);
  perf.avg = std::accumulate(raw.begin(), raw.end(), 0.0) / double(raw.size());
  perf.min = *std::min_element(raw.begin(), raw.end());
  perf.max = *std::max_element(raw.begin(), raw.end());
  return perf;
}

}  // namespace

Result<TimeUnit> parse_time_unit(const std::string& text) {
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  if (text == "us") return TimeUnit::kMicroseconds;
  if (text == "ns") return TimeUnit::kNanoseconds;
  if (text == "cycles") return TimeUnit::kCycles;
  return Error::make(ErrorCode::kInvalidArgument, "time unit '%s' is not one of s, ms, us, ns, cycles",
                     text.c_str());
}

const char* to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSeconds: return "s";
    case TimeUnit::kMilliseconds: return "ms";
    case TimeUnit::kMicroseconds: return "us";
    case TimeUnit::kNanoseconds: return "ns";
    case TimeUnit::kCycles: return "cycles";
  }
  return "?";
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = q / 100.0 * double(values.size() - 1);
  const size_t lo = size_t(rank);
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - double(lo));
}

Result<std::vector<EventBlock>> event_blocks(const etdump::ETDump& trace, const EventBlockOptions& options) {
  if ((options.source == TimeUnit::kCycles) != (options.target == TimeUnit::kCycles)) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "for time in cycles both the source and the target unit must be cycles");
  }
  const double scale = nanoseconds_per(options.target) / nanoseconds_per(options.source);
  std::vector<Group> groups;
  std::map<RunKey, size_t> group_index;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock run = trace.block(b);
    // Collate by instruction, in first-seen order.
    std::vector<InstructionKey> order;
    std::map<InstructionKey, std::pair<std::vector<size_t>, std::string>> by_instruction;
    for (size_t e = 0; e < run.event_count(); ++e) {
      const etdump::EventView event = run.event(e);
      InstructionKey key;
      if (event.kind == etdump::EventKind::kProfile) {
        key = {event.profile.instruction_id, event.profile.chain_index, event.profile.delegate_debug_id_int,
               std::string(event.profile.delegate_debug_id_str)};
      } else if (event.kind == etdump::EventKind::kDebug) {
        if (event.debug.is_output) continue;  // run outputs are not events
        key = {event.debug.instruction_id, int32_t(event.debug.chain_index), event.debug.delegate_debug_id_int,
               std::string(event.debug.delegate_debug_id_str)};
      } else {
        continue;  // allocation events are not part of the tables
      }
      auto [it, inserted] = by_instruction.try_emplace(key);
      if (inserted) order.push_back(key);
      if (event.kind == etdump::EventKind::kProfile) {
        it->second.first.push_back(e);
      } else if (it->second.second.empty()) {
        it->second.second = std::string(event.debug.name);
      }
    }
    RunKey run_key{std::string(run.name()), {}, run.bundled_input_index()};
    std::vector<Occurrence> occurrences;
    for (const InstructionKey& key : order) {
      const auto& [profiles, debug_name] = by_instruction[key];
      // Chain -1 marks method-level events (load, init, execute): their
      // instruction id field is meaningless, so they get none.
      const int32_t instruction = std::get<1>(key) < 0 ? -1 : std::get<0>(key);
      if (profiles.empty()) {
        run_key.events.push_back({instruction, false, "", -1, "", debug_name});
        occurrences.push_back({});
        continue;
      }
      for (size_t e : profiles) {
        const etdump::ProfileEventView p = run.event(e).profile;
        run_key.events.push_back({instruction, true, std::string(p.name), p.delegate_debug_id_int,
                                  std::string(p.delegate_debug_id_str), debug_name});
        occurrences.push_back({p.start_time, p.end_time, true});
      }
    }
    auto [it, inserted] = group_index.try_emplace(run_key, groups.size());
    if (inserted) {
      groups.push_back({run_key, 0, std::vector<std::vector<Occurrence>>(run_key.events.size())});
    }
    Group& group = groups[it->second];
    ++group.runs;
    for (size_t k = 0; k < occurrences.size(); ++k) group.occurrences[k].push_back(occurrences[k]);
  }
  std::vector<EventBlock> blocks;
  for (const Group& group : groups) {
    EventBlock block;
    block.name = group.key.name;
    block.bundled_input_index = group.key.bundled_input_index;
    block.runs = group.runs;
    for (size_t k = 0; k < group.key.events.size(); ++k) {
      const EventKey& key = group.key.events[k];
      Event event;
      event.instruction_id = key.instruction;
      if (key.delegate_int != -1) event.delegate_debug_id_int = key.delegate_int;
      if (!key.delegate_str.empty()) event.delegate_debug_id_str = key.delegate_str;
      event.is_delegated_op = event.delegate_debug_id_int || event.delegate_debug_id_str;
      event.name = event.delegate_debug_id_int  ? std::to_string(*event.delegate_debug_id_int)
                   : event.delegate_debug_id_str ? *event.delegate_debug_id_str
                   : key.has_profile              ? key.profile_name
                                                  : key.debug_name;
      if (key.has_profile) {
        std::vector<double> raw;
        for (const Occurrence& o : group.occurrences[k]) {
          raw.push_back(elapsed(o.start, o.end) / scale);
          event.start_times.push_back(double(o.start) / scale);
        }
        event.perf_data = perf_of(std::move(raw));
      }
      block.events.push_back(std::move(event));
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

size_t annotate_backends(std::vector<EventBlock>& blocks, const MethodSummary& method) {
  size_t annotated = 0;
  for (EventBlock& block : blocks) {
    if (block.name != "Execute") continue;
    for (Event& event : block.events) {
      if (!event.is_delegated_op && event.name != "DELEGATE_CALL") continue;
      for (const InstructionSummary& instruction : method.instructions) {
        if (instruction.chain == 0 && instruction.index == event.instruction_id &&
            instruction.kind == "delegate") {
          event.delegate_backend_name = instruction.target;
          ++annotated;
        }
      }
    }
  }
  return annotated;
}

}  // namespace etkit::inspector
