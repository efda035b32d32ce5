#include "etkit/etrecord/etrecord.h"

#include <cstdlib>

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
  if (it == record->delegates_by_instruction.end()) return {};
  auto handles = it->second.handles_by_delegate_id.find(delegate_debug_id);
  return handles == it->second.handles_by_delegate_id.end() ? std::vector<int64_t>{}
                                                           : handles->second;
}

Result<Etrecord> Etrecord::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(std::shared_ptr<const FileData> file, FileData::load(path));
  return load(std::move(file), path);
}

Result<Etrecord> Etrecord::load(std::shared_ptr<const FileData> owner, std::string name) {
  const std::string path = name;
  ETKIT_ASSIGN_OR_RETURN(EtrecordArchive archive, EtrecordArchive::load(std::move(owner), std::move(name)));
  Etrecord record;
  record.archive_ = std::make_unique<EtrecordArchive>(std::move(archive));
  const EtrecordArchive& zip = *record.archive_;
  auto warn = [&](std::string text) { record.warnings_.push_back(path + ": " + std::move(text)); };

  // Edge graphs: one per method, or the single legacy entry for forward.
  for (const std::string& method : zip.methods()) {
    const std::string entry = zip.layout() == Layout::kLegacy
                                  ? std::string(kEdgeProgram)
                                  : std::string(kEdgeProgram) + "/" + method;
    Result<std::string> text = zip.read(entry);
    if (!text.ok()) {
      warn(text.error().message());
      continue;
    }
    std::vector<std::string> graph_warnings;
    Result<EdgeGraph> graph = parse_edge_graph(*text, entry, graph_warnings);
    for (auto& w : graph_warnings) warn(std::move(w));
    if (!graph.ok()) {
      warn(graph.error().message());
      continue;
    }
    MethodRecord& m = record.methods_[name_of(method)];
    m.graph = std::move(*graph);
    m.has_graph = true;
  }
  if (zip.layout() == Layout::kNoEdgeProgram) {
    warn("no edge_dialect_exported_program entry: ops, stack traces and modules are unknown");
  }

  auto read_json = [&](const char* entry, json& out) {
    Result<std::string> text = zip.read(entry);
    if (!text.ok()) {
      warn(std::string(entry) + " is missing: runtime events cannot be linked to graph nodes");
      return false;
    }
    out = json::parse(*text, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
      warn(std::string(entry) + " is not a JSON object; ignored");
      return false;
    }
    return true;
  };

  json handle_map;
  if (read_json("debug_handle_map", handle_map)) {
    for (const auto& [method, instructions] : handle_map.items()) {
      if (!instructions.is_object()) {
        warn("debug_handle_map[" + method + "] is not an object; ignored");
        continue;
      }
      MethodRecord& m = record.methods_[name_of(method)];
      for (const auto& [key, value] : instructions.items()) {
        int64_t instruction = 0;
        std::vector<int64_t> handles;
        if (!parse_int(key, instruction) || !parse_handles(value, handles)) {
          warn("debug_handle_map[" + method + "][" + key + "] = " + value.dump() +
               " is not instruction -> handles; ignored");
          continue;
        }
        m.handles_by_instruction[instruction] = std::move(handles);
      }
    }
  }

  json delegate_map;
  if (read_json("delegate_map", delegate_map)) {
    for (const auto& [method, instructions] : delegate_map.items()) {
      if (!instructions.is_object()) continue;
      MethodRecord& m = record.methods_[name_of(method)];
      for (const auto& [key, value] : instructions.items()) {
        int64_t instruction = 0;
        const json* map = value.is_object() && value.contains("delegate_map")
                              ? &value["delegate_map"] : nullptr;
        if (!parse_int(key, instruction) || map == nullptr || !map->is_object()) {
          warn("delegate_map[" + method + "][" + key + "] has no delegate_map object; ignored");
          continue;
        }
        DelegateMapping mapping;
        if (value.contains("name") && value["name"].is_string()) {
          mapping.backend = value["name"].get<std::string>();
        }
        for (const auto& [id, handles] : map->items()) {
          std::vector<int64_t> parsed;
          if (!parse_handles(handles, parsed)) {
            warn("delegate_map[" + method + "][" + key + "][" + id + "] is not a handle list");
            continue;
          }
          mapping.handles_by_delegate_id[id] = std::move(parsed);
        }
        m.delegates_by_instruction[instruction] = std::move(mapping);
      }
    }
  }

  // Records without map entries for a method (the corpus's old record has
  // "{}") are matched in graph order: the emitter writes one instruction
  // per call node. Said as a warning, since it is an inference.
  for (auto& [method, m] : record.methods_) {
    if (!m.has_graph || !m.handles_by_instruction.empty()) continue;
    int64_t instruction = 0;
    for (const GraphNode& node : m.graph.nodes) {
      if (node.debug_handle >= 0) m.handles_by_instruction[instruction++] = {node.debug_handle};
    }
    if (instruction > 0) {
      m.handles_inferred = true;
      warn("debug_handle_map has no entries for method '" + method +
           "'; instructions are matched to graph nodes in order");
    }
  }

  // Handles that point at no node of the graph are reported once per method.
  for (const auto& [method, m] : record.methods_) {
    if (!m.has_graph) continue;
    size_t dangling = 0;
    int64_t example = -1;
    for (const auto& [instruction, handles] : m.handles_by_instruction) {
      for (int64_t handle : handles) {
        if (m.graph.find(handle) == nullptr) {
          ++dangling;
          if (example < 0) example = handle;
        }
      }
    }
    if (dangling > 0) {
      warn("debug_handle_map[" + method + "] has " + std::to_string(dangling) +
           " handle(s) with no graph node (e.g. " + std::to_string(example) + ")");
    }
  }
  return record;
}

}  // namespace etkit::etrecord
