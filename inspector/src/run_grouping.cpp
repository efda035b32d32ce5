#include "run_grouping.h"

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "etkit/inspector/block_workers.h"

namespace etkit::inspector {
namespace {

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

// Where each event of a run went while collating: its record and, for a
// profile event, which of the record's profiles it is (-1 for debug events,
// -1/-1 for events not collated).
struct Slot {
  int32_t record = -1;
  int32_t profile = -1;
};

// The instruction an event belongs to; false for events no table shows
// (allocations, run outputs).
bool instruction_of(const etdump::EventView& event, InstructionKey& key) {
  if (event.kind == etdump::EventKind::kProfile) {
    key = {event.profile.instruction_id, event.profile.chain_index, event.profile.delegate_debug_id_int,
           event.profile.delegate_debug_id_str};
    return true;
  }
  if (event.kind == etdump::EventKind::kDebug && !event.debug.is_output) {
    key = {event.debug.instruction_id, int32_t(event.debug.chain_index), event.debug.delegate_debug_id_int,
           event.debug.delegate_debug_id_str};
    return true;
  }
  return false;
}

// Reused storage of one worker's collation. `slots` says where each event
// of the last run collated went, which the next run, most often made of the
// same instructions in the same order, is checked against first.
struct Collation {
  std::unordered_map<InstructionKey, size_t, InstructionKeyHash> index_of;
  std::vector<InstructionRecord> records;
  size_t used = 0;
  std::vector<Slot> slots;
  std::vector<EventKey> keys;
  std::vector<Occurrence> occurrences;
};

void start_record(InstructionRecord& record, const InstructionKey& key) {
  record.key = key;
  record.profiles.clear();
  record.has_debug_name = false;
  record.debug_name = {};
}

// Adds `event` to `record`, noting in `slot` which profile it is.
void add_event(const etdump::EventView& event, InstructionRecord& record, Slot& slot) {
  if (event.kind == etdump::EventKind::kProfile) {
    const etdump::ProfileEventView& p = event.profile;
    slot.profile = int32_t(record.profiles.size());
    record.profiles.push_back({p.name, p.delegate_debug_id_int, p.delegate_debug_id_str, p.start_time, p.end_time});
  } else if (!record.has_debug_name) {
    record.debug_name = event.debug.name;
    record.has_debug_name = true;
  }
}

// Collates `run` as the last run was collated, when each of its events
// belongs to the instruction the last run's event at its place did (then
// first-seen order, and so every record, is the same); false otherwise,
// leaving `c` to be collated afresh.
bool collate_like_last(const etdump::RunBlock& run, Collation& c) {
  if (run.event_count() != c.slots.size()) return false;
  for (size_t r = 0; r < c.used; ++r) start_record(c.records[r], c.records[r].key);
  for (size_t e = 0; e < c.slots.size(); ++e) {
    const etdump::EventView event = run.event(e);
    InstructionKey key;
    const int32_t record = c.slots[e].record;
    if (!instruction_of(event, key)) {
      if (record >= 0) return false;
      continue;
    }
    if (record < 0 || !(c.records[size_t(record)].key == key)) return false;
    c.slots[e].profile = -1;
    add_event(event, c.records[size_t(record)], c.slots[e]);
  }
  return true;
}

// Collates a run's events by instruction, in first-seen order, into
// records[0, used), and where each event went into slots.
void collate_run(const etdump::RunBlock& run, Collation& c) {
  if (collate_like_last(run, c)) return;
  c.slots.assign(run.event_count(), Slot{});
  c.index_of.clear();
  c.used = 0;
  for (size_t e = 0; e < run.event_count(); ++e) {
    const etdump::EventView event = run.event(e);
    InstructionKey key;
    if (!instruction_of(event, key)) continue;
    auto [it, inserted] = c.index_of.try_emplace(key, c.used);
    if (inserted) {
      if (c.used == c.records.size()) c.records.emplace_back();
      start_record(c.records[c.used++], key);
    }
    c.slots[e].record = int32_t(it->second);
    add_event(event, c.records[it->second], c.slots[e]);
  }
}

// The key index of each event of a run from its collation slots: a record
// owns one key per profile (one key when it has none), in record order.
std::vector<int32_t> event_keys(const Collation& c) {
  std::vector<int32_t> base(c.used, 0);
  int32_t next = 0;
  for (size_t r = 0; r < c.used; ++r) {
    base[r] = next;
    next += int32_t(std::max<size_t>(1, c.records[r].profiles.size()));
  }
  std::vector<int32_t> keys(c.slots.size(), -1);
  for (size_t e = 0; e < c.slots.size(); ++e) {
    if (c.slots[e].record >= 0) keys[e] = base[size_t(c.slots[e].record)] + std::max(0, c.slots[e].profile);
  }
  return keys;
}

// One run's event keys and occurrences, in the order its records came.
void run_keys(Collation& c) {
  c.keys.clear();
  c.occurrences.clear();
  for (size_t r = 0; r < c.used; ++r) {
    const InstructionRecord& record = c.records[r];
    // Chain -1 marks method-level events (load, init, execute): their
    // instruction id field is meaningless, so they get none.
    const int32_t instruction = record.key.chain < 0 ? -1 : record.key.instruction;
    if (record.profiles.empty()) {
      // A value logged without a profile event of its own (a delegate's
      // fused node output, debug id 3 after a convolution timed as 1):
      // its row keeps the delegate id, as upstream's Inspector shows it.
      c.keys.push_back({instruction, record.key.delegate_int, false, {}, record.key.delegate_str, record.debug_name});
      c.occurrences.push_back({});
    }
    for (const ProfileRecord& p : record.profiles) {
      c.keys.push_back({instruction, p.delegate_int, true, p.name, p.delegate_str, record.debug_name});
      c.occurrences.push_back({p.start, p.end});
    }
  }
}

uint64_t keys_hash(const std::vector<EventKey>& keys) {
  uint64_t hash = keys.size();
  for (const EventKey& k : keys) {
    hash = mix(hash, InstructionKeyHash{}({k.instruction, 0, k.delegate_int, k.delegate_str}));
    hash = mix(mix(hash, hash_view(k.profile_name)), hash_view(k.debug_name) + k.has_profile);
  }
  return hash;
}

// The lookups of a grouping being built: key lists and groups by hash.
struct Index {
  std::unordered_map<uint64_t, std::vector<uint32_t>> key_sets;
  std::unordered_map<uint64_t, std::vector<size_t>> groups;
};

// The index of `keys` (with `hash`) among the grouping's key lists, added
// (copied) when new.
uint32_t find_or_add_key_set(Grouping& grouping, Index& index, const std::vector<EventKey>& keys, uint64_t hash) {
  std::vector<uint32_t>& candidates = index.key_sets[hash];
  for (uint32_t candidate : candidates) {
    if (grouping.key_sets[candidate] == keys) return candidate;
  }
  candidates.push_back(uint32_t(grouping.key_sets.size()));
  grouping.key_sets.push_back(keys);
  grouping.key_set_hashes.push_back(hash);
  return candidates.back();
}

uint64_t group_hash(std::string_view name, int32_t bundled, uint64_t keys) {
  return mix(mix(hash_view(name), uint64_t(uint32_t(bundled))), keys);
}

// The group of (name, bundled, key_set), added (empty) when new.
size_t find_or_add_group(Grouping& grouping, Index& index, std::string_view name, int32_t bundled,
                         uint32_t key_set) {
  const uint64_t hash = group_hash(name, bundled, grouping.key_set_hashes[key_set]);
  std::vector<size_t>& candidates = index.groups[hash];
  for (size_t candidate : candidates) {
    const Group& g = grouping.groups[candidate];
    if (g.key_set == key_set && g.bundled_input_index == bundled && g.name == name) return candidate;
  }
  candidates.push_back(grouping.groups.size());
  Group group;
  group.name = name;
  group.bundled_input_index = bundled;
  group.key_set = key_set;
  grouping.groups.push_back(std::move(group));
  return candidates.back();
}

// Run blocks [begin, end) grouped on the calling thread.
Grouping group_range(const etdump::ETDump& trace, size_t begin, size_t end, bool locate) {
  Grouping grouping;
  Index index;
  Collation c;
  uint32_t last_key_set = 0;
  for (size_t b = begin; b < end; ++b) {
    const etdump::RunBlock run = trace.block(b);
    collate_run(run, c);
    run_keys(c);
    // Most runs have the last run's keys: compared first, they need no hash.
    const bool as_last = !grouping.key_sets.empty() && grouping.key_sets[last_key_set] == c.keys;
    const uint32_t key_set = as_last ? last_key_set : find_or_add_key_set(grouping, index, c.keys, keys_hash(c.keys));
    last_key_set = key_set;
    Group& group = grouping.groups[find_or_add_group(grouping, index, run.name(), run.bundled_input_index(), key_set)];
    if (locate) {
      grouping.places.group.push_back(uint32_t(&group - grouping.groups.data()));
      grouping.places.run.push_back(uint32_t(group.runs));
      grouping.places.key.push_back(event_keys(c));
      group.run_blocks.push_back(uint32_t(b));
    }
    ++group.runs;
    group.occurrences.insert(group.occurrences.end(), c.occurrences.begin(), c.occurrences.end());
  }
  return grouping;
}

// Appends `part` (the run blocks after those of `total`) to `total`: its
// groups merge into equal ones already there, the others come after them in
// their own order, as one pass over all the blocks would have left them.
void merge_into(Grouping& total, Index& index, Grouping&& part) {
  std::vector<uint32_t> key_set_of(part.key_sets.size());
  for (size_t k = 0; k < part.key_sets.size(); ++k) {
    key_set_of[k] = find_or_add_key_set(total, index, part.key_sets[k], part.key_set_hashes[k]);
  }
  std::vector<uint32_t> group_of(part.groups.size()), runs_before(part.groups.size());
  for (size_t g = 0; g < part.groups.size(); ++g) {
    Group& from = part.groups[g];
    const size_t to = find_or_add_group(total, index, from.name, from.bundled_input_index, key_set_of[from.key_set]);
    Group& into = total.groups[to];
    group_of[g] = uint32_t(to);
    runs_before[g] = uint32_t(into.runs);
    into.runs += from.runs;
    into.run_blocks.insert(into.run_blocks.end(), from.run_blocks.begin(), from.run_blocks.end());
    if (into.occurrences.empty()) {
      into.occurrences = std::move(from.occurrences);
    } else {
      into.occurrences.insert(into.occurrences.end(), from.occurrences.begin(), from.occurrences.end());
    }
  }
  RunPlaces& places = total.places;
  for (size_t b = 0; b < part.places.group.size(); ++b) {
    const uint32_t g = part.places.group[b];
    places.group.push_back(group_of[g]);
    places.run.push_back(runs_before[g] + part.places.run[b]);
    places.key.push_back(std::move(part.places.key[b]));
  }
}

}  // namespace

Grouping group_runs(const etdump::ETDump& trace, bool locate, unsigned workers) {
  // Below this many run blocks per worker a thread costs more than it saves.
  constexpr size_t kMinBlocksPerWorker = 64;
  const size_t blocks = trace.block_count();
  const size_t wanted = workers != 0 ? workers : default_block_workers();
  const size_t parts = std::max<size_t>(1, std::min(wanted, blocks / kMinBlocksPerWorker));
  std::vector<Grouping> grouped(parts);
  std::vector<std::thread> threads;
  for (size_t p = 1; p < parts; ++p) {
    threads.emplace_back([&, p] { grouped[p] = group_range(trace, blocks * p / parts, blocks * (p + 1) / parts, locate); });
  }
  grouped[0] = group_range(trace, 0, blocks / parts, locate);
  for (std::thread& thread : threads) thread.join();
  if (parts == 1) return std::move(grouped[0]);
  Grouping total;
  Index index;
  for (Grouping& part : grouped) merge_into(total, index, std::move(part));
  return total;
}

}  // namespace etkit::inspector
