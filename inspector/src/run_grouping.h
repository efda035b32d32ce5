#pragma once
// How GroupedEvents groups a trace's runs (inspector-internal): each run
// block's events collated by instruction into event keys (upstream's
// EventSignature), runs with the same name, bundled input index and keys
// merged into one group. A million-event trace is grouped on every core:
// contiguous ranges of run blocks apart, then merged in trace order.

#include <cstdint>
#include <string_view>
#include <vector>

#include "etkit/etdump/etdump_reader.h"

namespace etkit::inspector {

// Identity of an event inside a run: the instruction, the profile event's
// name and delegate ids (absent for a debug-only instruction) and the first
// debug event's name. Names are views into the trace, which outlives the
// grouping.
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
// Groups that differ only in name or bundled input index (a bundled
// program's test cases, one block per case) share one key list.
struct Group {
  std::string_view name;
  int32_t bundled_input_index = -1;
  uint32_t key_set = 0;     // index into Grouping::key_sets
  size_t runs = 0;
  std::vector<uint32_t> run_blocks;     // the trace's run block of each run (with places)
  std::vector<Occurrence> occurrences;  // run-major: runs x keys
};

// Where each run block and its events went, when asked for.
struct RunPlaces {
  std::vector<uint32_t> group;            // per run block
  std::vector<uint32_t> run;              // per run block: its run number in the group
  std::vector<std::vector<int32_t>> key;  // per run block, per event: key index or -1
};

struct Grouping {
  std::vector<Group> groups;
  std::vector<std::vector<EventKey>> key_sets;  // distinct key lists
  std::vector<uint64_t> key_set_hashes;
  RunPlaces places;  // empty unless located

  const std::vector<EventKey>& keys_of(const Group& group) const { return key_sets[group.key_set]; }
};

// Groups the runs of `trace`, on up to `workers` threads (0: the block
// workers' default); the same grouping, in the same order, for any count.
// With `locate`, records where every run block and event went.
Grouping group_runs(const etdump::ETDump& trace, bool locate, unsigned workers = 0);

}  // namespace etkit::inspector
