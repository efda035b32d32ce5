#include "etkit/etrecord/etrecord.h"

#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "etkit/core/file_data.h"

namespace etkit::etrecord {
namespace {

using nlohmann::json;

constexpr const char* kEdgeProgram = "edge_dialect_exported_program";

bool parse_int(const std::string& text, int64_t& value) {
  char* end = nullptr;
  const long long parsed = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size()) return false;
  value = parsed;
  return true;
}

// A handle list: upstream writes lists, older records a single int.
bool parse_handles(const json& value, std::vector<int64_t>& handles) {
  if (value.is_number_integer()) {
    handles.push_back(value.get<int64_t>());
    return true;
  }
  if (!value.is_array()) return false;
  for (const json& item : value) {
    if (!item.is_number_integer()) return false;
    handles.push_back(item.get<int64_t>());
  }
  return true;
}

std::string name_of(const std::string& method) { return method.empty() ? "forward" : method; }

// What loading gathers before it becomes an Etrecord; damaged entries add
// warnings and are skipped.
struct Loaded {
  std::string path;
  std::map<std::string, MethodRecord> methods;
  std::vector<std::string> warnings;
  void warn(std::string text) { warnings.push_back(path + ": " + std::move(text)); }
};

// Edge graphs: one per method, or the single legacy entry for forward.
void load_graphs(const EtrecordArchive& zip, Loaded& loaded) {
  for (const std::string& method : zip.methods()) {
    const std::string entry = zip.layout() == Layout::kLegacy ? std::string(kEdgeProgram)
                                                              : std::string(kEdgeProgram) + "/" + method;
    Result<std::string> text = zip.read(entry);
    if (!text.ok()) {
      loaded.warn(text.error().message());
      continue;
    }
    std::vector<std::string> graph_warnings;
    Result<EdgeGraph> graph = parse_edge_graph(*text, entry, graph_warnings);
    for (auto& w : graph_warnings) loaded.warn(std::move(w));
    if (!graph.ok()) {
      loaded.warn(graph.error().message());
      continue;
    }
    MethodRecord& m = loaded.methods[name_of(method)];
    m.graph = std::move(*graph);
    m.has_graph = true;
  }
  if (zip.layout() == Layout::kNoEdgeProgram) {
    loaded.warn("no edge_dialect_exported_program entry: ops, stack traces and modules are unknown");
  }
}

// A JSON object entry of the archive, or a warning.
bool read_json(const EtrecordArchive& zip, const char* entry, json& out, Loaded& loaded) {
  Result<std::string> text = zip.read(entry);
  if (!text.ok()) {
    loaded.warn(std::string(entry) + " is missing: runtime events cannot be linked to graph nodes");
    return false;
  }
  out = json::parse(*text, nullptr, false);
  if (out.is_discarded() || !out.is_object()) {
    loaded.warn(std::string(entry) + " is not a JSON object; ignored");
    return false;
  }
  return true;
}

// debug_handle_map: method -> instruction -> handles.
void load_handle_map(const EtrecordArchive& zip, Loaded& loaded) {
  json handle_map;
  if (!read_json(zip, "debug_handle_map", handle_map, loaded)) return;
  for (const auto& [method, instructions] : handle_map.items()) {
    if (!instructions.is_object()) {
      loaded.warn("debug_handle_map[" + method + "] is not an object; ignored");
      continue;
    }
    MethodRecord& m = loaded.methods[name_of(method)];
    for (const auto& [key, value] : instructions.items()) {
      int64_t instruction = 0;
      std::vector<int64_t> handles;
      if (!parse_int(key, instruction) || !parse_handles(value, handles)) {
        loaded.warn("debug_handle_map[" + method + "][" + key + "] = " + value.dump() +
                    " is not instruction -> handles; ignored");
        continue;
      }
      m.handles_by_instruction[instruction] = std::move(handles);
    }
  }
}

// instruction_id_to_num_outs_map: method -> instruction -> output count.
// Optional (records before upstream added it have none): no warning.
void load_output_counts(const EtrecordArchive& zip, Loaded& loaded) {
  Result<std::string> text = zip.read("instruction_id_to_num_outs_map");
  if (!text.ok()) return;
  const json counts = json::parse(*text, nullptr, false);
  if (counts.is_discarded() || !counts.is_object()) {
    loaded.warn("instruction_id_to_num_outs_map is not a JSON object; ignored");
    return;
  }
  for (const auto& [method, instructions] : counts.items()) {
    if (!instructions.is_object()) continue;
    MethodRecord& m = loaded.methods[name_of(method)];
    for (const auto& [key, value] : instructions.items()) {
      int64_t instruction = 0;
      if (!parse_int(key, instruction) || !value.is_number_integer() || value.get<int64_t>() < 0) {
        loaded.warn("instruction_id_to_num_outs_map[" + method + "][" + key + "] = " + value.dump() +
                    " is not instruction -> output count; ignored");
        continue;
      }
      m.outputs_by_instruction[instruction] = value.get<int64_t>();
    }
  }
}

// One delegate_map entry: {"name": backend, "delegate_map": {id: handles}}.
std::optional<DelegateMapping> delegate_mapping(const json& value, const std::string& where, Loaded& loaded) {
  const json* map = value.is_object() && value.contains("delegate_map") ? &value["delegate_map"] : nullptr;
  if (map == nullptr || !map->is_object()) {
    loaded.warn(where + " has no delegate_map object; ignored");
    return std::nullopt;
  }
  DelegateMapping mapping;
  if (value.contains("name") && value["name"].is_string()) mapping.backend = value["name"].get<std::string>();
  for (const auto& [id, handles] : map->items()) {
    std::vector<int64_t> parsed;
    if (!parse_handles(handles, parsed)) {
      loaded.warn(where + "[" + id + "] is not a handle list");
      continue;
    }
    mapping.handles_by_delegate_id[id] = std::move(parsed);
  }
  return mapping;
}

// delegate_map: method -> delegate instruction -> delegate ids -> handles.
void load_delegate_map(const EtrecordArchive& zip, Loaded& loaded) {
  json delegate_map;
  if (!read_json(zip, "delegate_map", delegate_map, loaded)) return;
  for (const auto& [method, instructions] : delegate_map.items()) {
    if (!instructions.is_object()) continue;
    MethodRecord& m = loaded.methods[name_of(method)];
    for (const auto& [key, value] : instructions.items()) {
      const std::string where = "delegate_map[" + method + "][" + key + "]";
      int64_t instruction = 0;
      if (!parse_int(key, instruction)) {
        loaded.warn(where + " is not keyed by an instruction; ignored");
        continue;
      }
      if (auto mapping = delegate_mapping(value, where, loaded)) m.delegates_by_instruction[instruction] = std::move(*mapping);
    }
  }
}

// Records without map entries for a method (the corpus's old record has
// "{}") are matched in graph order: the emitter writes one instruction per
// call node. Said as a warning, since it is an inference.
void infer_handles_in_graph_order(Loaded& loaded) {
  for (auto& [method, m] : loaded.methods) {
    if (!m.has_graph || !m.handles_by_instruction.empty()) continue;
    int64_t instruction = 0;
    for (const GraphNode& node : m.graph.nodes) {
      if (node.debug_handle >= 0) m.handles_by_instruction[instruction++] = {node.debug_handle};
    }
    if (instruction > 0) {
      m.handles_inferred = true;
      loaded.warn("debug_handle_map has no entries for method '" + method +
                  "'; instructions are matched to graph nodes in order");
    }
  }
}

// Handles that point at no node of the graph, once per method.
void report_dangling_handles(Loaded& loaded) {
  for (const auto& [method, m] : loaded.methods) {
    if (!m.has_graph) continue;
    size_t dangling = 0;
    int64_t example = -1;
    for (const auto& [instruction, handles] : m.handles_by_instruction) {
      for (int64_t handle : handles) {
        if (m.graph.find(handle) != nullptr) continue;
        ++dangling;
        if (example < 0) example = handle;
      }
    }
    if (dangling > 0) {
      loaded.warn("debug_handle_map[" + method + "] has " + std::to_string(dangling) +
                  " handle(s) with no graph node (e.g. " + std::to_string(example) + ")");
    }
  }
}

}  // namespace


const MethodRecord* Etrecord::method(const std::string& name) const {
  auto it = methods_.find(name);
  return it == methods_.end() ? nullptr : &it->second;
}

std::vector<int64_t> Etrecord::instruction_handles(const std::string& method_name,
                                                   int64_t instruction_id) const {
  const MethodRecord* record = method(method_name);
  if (record == nullptr) return {};
  auto it = record->handles_by_instruction.find(instruction_id);
  return it == record->handles_by_instruction.end() ? std::vector<int64_t>{} : it->second;
}

std::vector<int64_t> Etrecord::delegate_handles(const std::string& method_name,
                                                int64_t instruction_id,
                                                const std::string& delegate_debug_id) const {
  const MethodRecord* record = method(method_name);
  if (record == nullptr) return {};
  auto it = record->delegates_by_instruction.find(instruction_id);
  if (it != record->delegates_by_instruction.end()) {
    auto handles = it->second.handles_by_delegate_id.find(delegate_debug_id);
    if (handles != it->second.handles_by_delegate_id.end()) return handles->second;
  }
  char* end = nullptr;
  const long long id = std::strtoll(delegate_debug_id.c_str(), &end, 10);
  if (delegate_debug_id.empty() || *end != '\0' || id < 0) return {};
  return {int64_t(id)};
}

Result<Etrecord> Etrecord::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(std::shared_ptr<const FileData> file, FileData::load(path));
  return load(std::move(file), path);
}

Result<Etrecord> Etrecord::load(std::shared_ptr<const FileData> owner, std::string name) {
  Loaded loaded;
  loaded.path = name;
  ETKIT_ASSIGN_OR_RETURN(EtrecordArchive archive, EtrecordArchive::load(std::move(owner), std::move(name)));
  load_graphs(archive, loaded);
  load_handle_map(archive, loaded);
  load_delegate_map(archive, loaded);
  load_output_counts(archive, loaded);
  infer_handles_in_graph_order(loaded);
  report_dangling_handles(loaded);
  Etrecord record;
  record.archive_ = std::make_unique<EtrecordArchive>(std::move(archive));
  record.methods_ = std::move(loaded.methods);
  record.warnings_ = std::move(loaded.warnings);
  return record;
}

}  // namespace etkit::etrecord
