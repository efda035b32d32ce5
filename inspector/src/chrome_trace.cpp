#include "etkit/inspector/chrome_trace.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/edge_graph.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/source_links.h"

namespace etkit::inspector {
namespace {

using Json = nlohmann::ordered_json;

// Ticks of `source` as microseconds: a division by an exact power of ten
// (or a product, for coarser units) rounds once, so 12345 ns prints 12.345.
double to_microseconds(uint64_t ticks, TimeUnit source) {
  const double ns_per_tick = source == TimeUnit::kCycles ? 1.0 : nanoseconds_per(source);
  if (ns_per_tick >= 1000) return double(ticks) * (ns_per_tick / 1000);
  return double(ticks) / (1000 / ns_per_tick);
}

// What the program and the ETRecord say of an event: the args shared by
// every occurrence of one instruction (and delegate id).
Json model_args(const etdump::ProfileEventView& p, bool delegated, const std::string& name,
                const ChromeTraceOptions& options) {
  Json args = Json::object();
  if (p.chain_index < 0) return args;  // method-level events belong to no instruction
  Event event;
  event.name = name;
  event.instruction_id = p.instruction_id;
  event.is_delegated_op = delegated;
  if (p.delegate_debug_id_int != -1) event.delegate_debug_id_int = p.delegate_debug_id_int;
  if (!p.delegate_debug_id_str.empty()) event.delegate_debug_id_str = std::string(p.delegate_debug_id_str);
  if (options.program_method != nullptr) {
    for (const InstructionSummary& i : options.program_method->instructions) {
      if (i.chain == 0 && i.index == p.instruction_id && i.kind != "delegate") args["op"] = i.target;
    }
    if (annotate_backend(event, *options.program_method)) args["delegate_backend_name"] = event.delegate_backend_name;
  }
  if (options.record != nullptr) {
    link_event(event, *options.record, options.method);
    if (!event.debug_handles.empty()) args["debug_handles"] = event.debug_handles;
    if (!event.op_types.empty()) args["op_types"] = event.op_types;
    if (!event.module_hierarchy.empty()) args["module"] = innermost_module(event.module_hierarchy.front().second);
    if (!event.stack_traces.empty()) {
      const std::string line = etrecord::innermost_source_line(event.stack_traces.front().second);
      if (!line.empty()) args["source"] = line;
    }
  }
  return args;
}

const char* category(bool delegated, const std::string& name) {
  if (delegated) return "delegate";
  return name == "OPERATOR_CALL" || name.rfind("native_call_", 0) == 0 ? "operator" : "runtime";
}

}  // namespace

ChromeTrace chrome_trace(const etdump::ETDump& trace, const ChromeTraceOptions& options) {
  ChromeTrace result;
  result.blocks = trace.block_count();
  result.tracks = options.track_per_block ? trace.block_count() : 1;
  const uint64_t origin = trace.first_start();
  Json events = Json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", options.method}}}});
  if (!options.track_per_block) {
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_name"}, {"args", {{"name", "runs"}}}});
  }
  std::map<std::tuple<int32_t, int32_t, std::string>, Json> args_cache;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    const int tid = options.track_per_block ? int(b) + 1 : 1;
    if (options.track_per_block) {
      const std::string name = std::string(block.name()) + " #" + std::to_string(b);
      events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
      events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", b}}}});
    }
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kProfile) continue;
      const etdump::ProfileEventView& p = event.profile;
      const bool delegated = p.delegate_debug_id_int != -1 || !p.delegate_debug_id_str.empty();
      const std::string name = !delegated ? std::string(p.name)
                               : p.delegate_debug_id_str.empty() ? std::to_string(p.delegate_debug_id_int)
                                                                 : std::string(p.delegate_debug_id_str);
      const auto key = std::make_tuple(p.chain_index < 0 ? -1 : p.instruction_id, p.delegate_debug_id_int, name);
      auto cached = args_cache.find(key);
      if (cached == args_cache.end()) cached = args_cache.emplace(key, model_args(p, delegated, name, options)).first;
      Json args = {{"block", std::string(block.name())}, {"block_index", b}, {"instruction_id", p.instruction_id}};
      if (block.bundled_input_index() >= 0) args["bundled_input_index"] = block.bundled_input_index();
      if (delegated) args["delegate_debug_identifier"] = name;
      for (const auto& [k, v] : cached->second.items()) args[k] = v;
      const uint64_t start = p.start_time >= origin ? p.start_time - origin : 0;
      const uint64_t duration = etdump::elapsed_ticks(p.start_time, p.end_time);
      events.push_back({{"ph", "X"},
                        {"pid", 1},
                        {"tid", tid},
                        {"name", name},
                        {"cat", category(delegated, name)},
                        {"ts", to_microseconds(start, options.source)},
                        {"dur", to_microseconds(duration, options.source)},
                        {"args", args}});
      ++result.events;
    }
  }
  const Json root = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  result.json = root.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  return result;
}

}  // namespace etkit::inspector
