#include "table_rows.h"

#include <algorithm>

namespace etkit::cli {
namespace {

// An intermediate output as JSON: its shape and statistics, and the values
// themselves when there are few (a table row is no place for megabytes).
nlohmann::ordered_json debug_value(const inspector::RecordedOutput& output) {
  constexpr size_t kMaxInlineValues = 64;
  nlohmann::ordered_json value;
  value["dtype"] = to_string(output.dtype);
  value["sizes"] = output.sizes;
  value["numel"] = output.values.size();
  if (!output.values.empty()) {
    const inspector::TensorStats stats = inspector::tensor_stats(output.values);
    value["min"] = stats.min;
    value["max"] = stats.max;
    value["mean"] = stats.mean;
  }
  if (output.values.size() <= kMaxInlineValues) value["values"] = output.values;
  return value;
}

}  // namespace

bool numeric_column(size_t index, const CellFormat& format) {
  const size_t first_stat = format.bundled_case ? 3 : 2;
  return (format.bundled_case && index == 1) || (index >= first_stat && index < first_stat + std::size(kStatColumns));
}

std::vector<std::string> cells(const Row& row, const CellFormat& format) {
  std::vector<std::string> out;
  out.reserve(15);
  for_each_cell(row, format, [&](size_t, std::string_view text) { out.emplace_back(text); });
  return out;
}

// A CSV/TSV cell, quoted when it holds the separator or a quote.
void append_separated_cell(std::string& line, std::string_view cell, char separator) {
  if (cell.find(separator) == std::string_view::npos && cell.find('"') == std::string_view::npos) {
    line += cell;
    return;
  }
  line += '"';
  for (char c : cell) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

std::string separated_line(const std::vector<std::string>& cells, char separator) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += separator;
    append_separated_cell(line, cells[i], separator);
  }
  return line + "\n";
}

nlohmann::ordered_json json_item(const Row& row, const DebugOutputs& debug) {
  {
    const inspector::Event& e = *row.event;
    nlohmann::ordered_json item;
    item["event_block_name"] = row.block->name;
    item["event_name"] = e.name;
    item["raw"] = e.perf_data ? nlohmann::ordered_json(e.perf_data->raw) : nlohmann::ordered_json(nullptr);
    for (size_t i = 0; i < std::size(kStatColumns); ++i) {
      item[kStatColumns[i]] = e.perf_data ? nlohmann::ordered_json(stat(*e.perf_data, i)) : nlohmann::ordered_json(nullptr);
    }
    item["op_types"] = e.op_types;
    if (e.delegate_debug_id_int) item["delegate_debug_identifier"] = *e.delegate_debug_id_int;
    else if (e.delegate_debug_id_str) item["delegate_debug_identifier"] = *e.delegate_debug_id_str;
    else item["delegate_debug_identifier"] = nullptr;
    item["debug_handles"] = e.debug_handles;
    item["stack_traces"] = nlohmann::ordered_json::object();
    for (const auto& [node, trace] : e.stack_traces) item["stack_traces"][node] = trace;
    item["module_hierarchy"] = nlohmann::ordered_json::object();
    for (const auto& [node, stack] : e.module_hierarchy) {
      // As upstream's nn_module_stack: key -> [qualified path, type].
      nlohmann::ordered_json frames = nlohmann::ordered_json::object();
      for (const auto& frame : stack) frames[frame.key] = {frame.path, frame.type};
      item["module_hierarchy"][node] = frames;
    }
    item["is_delegated_op"] = e.is_delegated_op;
    item["delegate_backend_name"] = e.delegate_backend_name.empty() ? nlohmann::ordered_json(nullptr)
                                                                    : nlohmann::ordered_json(e.delegate_backend_name);
    item["debug_data"] = nlohmann::ordered_json::array();
    if (const auto* outputs = inspector::outputs_of(e, debug)) {
      for (const inspector::RecordedOutput& output : *outputs) item["debug_data"].push_back(debug_value(output));
    }
    item["start_time"] = e.start_times;
    return item;
  }
}

}  // namespace etkit::cli
