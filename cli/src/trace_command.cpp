// etinspect trace ETDUMP -o trace.json: the trace in Chrome's Trace Event
// Format (Perfetto, chrome://tracing): complete events nested by time, one
// track per run block or all runs on one track.

#include <CLI/CLI.hpp>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "record_loading.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/source_links.h"
#include "program_loading.h"

namespace etkit::cli {
namespace {

struct TraceOptions {
  std::string etdump;
  std::string output;
  std::string layout = "blocks";
  std::string source_unit = "ns";
  std::string program;
  std::string method = "forward";
  std::string etrecord;
};

// Graph-node details of an event's debug handles, as trace event args.
void add_source_args(const etrecord::Etrecord& record, const std::string& method,
                     const std::vector<int64_t>& handles, nlohmann::ordered_json& args) {
  if (handles.empty()) return;
  args["debug_handles"] = handles;
  const etrecord::MethodRecord* m = record.method(method);
  if (m == nullptr) return;
  nlohmann::ordered_json op_types = nlohmann::ordered_json::array();
  for (int64_t handle : handles) {
    const etrecord::GraphNode* node = m->graph.find(handle);
    if (node == nullptr) continue;
    op_types.push_back(node->target);
    if (!args.contains("module") && !node->module_stack.empty()) {
      args["module"] = inspector::innermost_module(node->module_stack);
    }
    if (!args.contains("source")) {
      const std::string line = etrecord::innermost_source_line(node->stack_trace);
      if (!line.empty()) args["source"] = line;
    }
  }
  if (!op_types.empty()) args["op_types"] = op_types;
}

int run_trace(const TraceOptions& options) {
  Diagnostics diagnostics;
  auto unit = inspector::parse_time_unit(options.source_unit);
  if (!unit.ok()) return diagnostics.fail(unit.error());
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  std::map<int32_t, std::string> backends;  // DelegateCall instruction -> backend id
  std::map<int32_t, std::string> operators;  // KernelCall instruction -> operator
  if (!options.program.empty()) {
    auto loaded = load_program(options.program, {});
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    for (const MethodSummary& method : summarize(*(*loaded)->program).methods) {
      if (method.name != options.method) continue;
      for (const InstructionSummary& i : method.instructions) {
        if (i.chain != 0) continue;
        (i.kind == "delegate" ? backends : operators)[i.index] = i.target;
      }
    }
  }
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    record.emplace(std::move(*loaded));
  }
  const double scale = inspector::nanoseconds_per(*unit) / 1000.0;  // to microseconds (cycles shown as ns)
  // Timestamps relative to the earliest event keep the numbers readable.
  uint64_t origin = UINT64_MAX;
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etdump::RunBlock block = trace->block(b);
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind == etdump::EventKind::kProfile) origin = std::min(origin, event.profile.start_time);
    }
  }
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", options.method}}}});
  const bool per_block = options.layout == "blocks";
  if (!per_block) {
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_name"}, {"args", {{"name", "runs"}}}});
  }
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etdump::RunBlock block = trace->block(b);
    const int tid = per_block ? int(b) + 1 : 1;
    if (per_block) {
      const std::string name = std::string(block.name()) + " #" + std::to_string(b);
      events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
      events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", b}}}});
    }
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kProfile) continue;
      const etdump::ProfileEventView& p = event.profile;
      const bool delegated = p.delegate_debug_id_int != -1 || !p.delegate_debug_id_str.empty();
      std::string name = delegated ? (p.delegate_debug_id_str.empty() ? std::to_string(p.delegate_debug_id_int)
                                                                     : std::string(p.delegate_debug_id_str))
                                   : std::string(p.name);
      nlohmann::ordered_json args = {{"block", std::string(block.name())}, {"block_index", b},
                                     {"instruction_id", p.instruction_id}};
      if (block.bundled_input_index() >= 0) args["bundled_input_index"] = block.bundled_input_index();
      if (delegated) args["delegate_debug_identifier"] = name;
      if (auto it = operators.find(p.instruction_id); it != operators.end() && p.chain_index >= 0) {
        args["op"] = it->second;
      }
      if (auto it = backends.find(p.instruction_id); it != backends.end() && (delegated || name == "DELEGATE_CALL")) {
        args["delegate_backend_name"] = it->second;
      }
      if (record && p.chain_index >= 0) {
        add_source_args(*record, options.method,
                        delegated ? record->delegate_handles(options.method, p.instruction_id, name)
                                  : record->instruction_handles(options.method, p.instruction_id),
                        args);
      }
      const double start = double(p.start_time - origin) * scale;
      const double duration = p.end_time >= p.start_time ? double(p.end_time - p.start_time) * scale : 0.0;
      events.push_back({{"ph", "X"},
                        {"pid", 1},
                        {"tid", tid},
                        {"name", name},
                        {"cat", delegated ? "delegate" : (name == "OPERATOR_CALL" || name.rfind("native_call_", 0) == 0) ? "operator" : "runtime"},
                        {"ts", start},
                        {"dur", duration},
                        {"args", args}});
    }
  }
  nlohmann::ordered_json root = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  std::ofstream out(options.output);
  out << root.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return diagnostics.fail(Error::make(ErrorCode::kIo, "%s: cannot write", options.output.c_str()));
  return kExitOk;
}

}  // namespace

void register_trace(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<TraceOptions>();
  CLI::App* command = app.add_subcommand("trace", "Export a trace in Chrome Trace Event Format (Perfetto)");
  command->add_option("etdump", options->etdump, ".etdp trace")->required();
  command->add_option("-o,--output", options->output, "Output .json")->required();
  command->add_option("--layout", options->layout, "blocks (a track per run block) or sequence (one track)")
      ->check(CLI::IsMember({"blocks", "sequence"}));
  command->add_option("--source-time-unit", options->source_unit, "Unit of the trace's timestamps (default ns)")
      ->check(CLI::IsMember({"s", "ms", "us", "ns", "cycles"}));
  command->add_option("--program", options->program, "The traced program, for op and backend names");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--etrecord", options->etrecord, "ETRecord: debug handles, op types, module and source line");
  command->callback([options, &context] { context.exit_code = run_trace(*options); });
}

}  // namespace etkit::cli
