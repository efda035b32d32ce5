#include "etkit/inspector/gap_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <nlohmann/json.hpp>

#include "etkit/core/tensor_access.h"
#include "etkit/etrecord/edge_graph.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/npy.h"

namespace etkit::inspector {
namespace {

namespace fs = std::filesystem;

// <dir>/<key>.npy, with index.json's handle -> instruction map when present.
class FolderReference final : public ReferenceSource {
 public:
  FolderReference(std::string dir, std::map<int64_t, int32_t> index, size_t files)
      : dir_(std::move(dir)), index_(std::move(index)), files_(files) {}

  Result<std::optional<ReferenceValue>> find(int32_t instruction_id, const std::vector<int64_t>& handles,
                                             std::string& tried) const override {
    std::vector<int64_t> keys = handles;
    if (keys.empty()) keys = handles_of(instruction_id);
    if (keys.empty() && index_.empty()) keys.push_back(instruction_id);
    for (int64_t key : keys) {
      const std::string name = std::to_string(key) + ".npy";
      tried += (tried.empty() ? "" : ", ") + name;
      const std::string path = dir_ + "/" + name;
      if (!fs::exists(path)) continue;
      ETKIT_ASSIGN_OR_RETURN(NpyArray array, read_npy(path));
      ETKIT_ASSIGN_OR_RETURN(Tensor tensor, array.view());
      ReferenceValue value;
      value.sizes = array.shape;
      value.values.resize(size_t(tensor.numel()));
      for (int64_t i = 0; i < tensor.numel(); ++i) value.values[size_t(i)] = element_as_double(tensor, i);
      return std::optional<ReferenceValue>(std::move(value));
    }
    return std::optional<ReferenceValue>();
  }
  std::vector<int64_t> handles_of(int32_t instruction_id) const override {
    std::vector<int64_t> handles;
    for (const auto& [handle, instruction] : index_) {
      if (instruction == instruction_id) handles.push_back(handle);
    }
    return handles;
  }
  size_t size() const override { return files_; }

 private:
  std::string dir_;
  std::map<int64_t, int32_t> index_;
  size_t files_;
};

class TraceReference final : public ReferenceSource {
 public:
  explicit TraceReference(const std::vector<RecordedOutput>& outputs) {
    for (const RecordedOutput& output : outputs) {
      if (output.output_index == 0) by_instruction_[output.instruction_id] = {output.sizes, output.values};
    }
  }
  Result<std::optional<ReferenceValue>> find(int32_t instruction_id, const std::vector<int64_t>&,
                                             std::string& tried) const override {
    tried += (tried.empty() ? "" : ", ") + std::string("instruction ") + std::to_string(instruction_id);
    auto it = by_instruction_.find(instruction_id);
    if (it == by_instruction_.end()) return std::optional<ReferenceValue>();
    return std::optional<ReferenceValue>(it->second);
  }
  size_t size() const override { return by_instruction_.size(); }

 private:
  std::map<int32_t, ReferenceValue> by_instruction_;
};

// Values of [N, H, W, C] laid out as [N, C, H, W].
void nhwc_to_nchw(std::vector<int64_t>& sizes, std::vector<double>& values) {
  if (sizes.size() != 4) return;
  const int64_t n = sizes[0], h = sizes[1], w = sizes[2], c = sizes[3];
  if (n * h * w * c != int64_t(values.size())) return;
  std::vector<double> out(values.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        for (int64_t k = 0; k < c; ++k) {
          out[size_t(((b * c + k) * h + y) * w + x)] = values[size_t(((b * h + y) * w + x) * c + k)];
        }
      }
    }
  }
  values = std::move(out);
  sizes = {n, c, h, w};
}

// Debug handles of a recorded output: a delegate node's through the
// delegate map, an instruction's through the handle map.
std::vector<int64_t> output_handles(const RecordedOutput& output, const etrecord::Etrecord& record,
                                    const std::string& method) {
  if (output.delegate_debug_id >= 0) {
    return record.delegate_handles(method, output.instruction_id, std::to_string(output.delegate_debug_id));
  }
  return record.instruction_handles(method, output.instruction_id);
}

// The graph node of the last of `handles` the record knows (a fused op
// holds its last node's result).
const etrecord::GraphNode* last_node(const std::vector<int64_t>& handles, const etrecord::Etrecord& record,
                                     const std::string& method) {
  const etrecord::MethodRecord* graph = record.method(method);
  if (graph == nullptr) return nullptr;
  for (auto it = handles.rbegin(); it != handles.rend(); ++it) {
    if (const etrecord::GraphNode* node = graph->graph.find(*it)) return node;
  }
  return nullptr;
}

// The innermost module of a node below the model itself ("" for the root
// or none): where an op of one export is looked for in another.
std::string leaf_module(const etrecord::GraphNode& node) {
  return node.module_stack.size() > 1 ? node.module_stack.back().path : std::string();
}

// A node that computes a value of the model (not a quantize/dequantize
// pair's step or the pick of one output).
bool computes(const etrecord::GraphNode& node) {
  return node.target.rfind("quantized_decomposed.", 0) != 0 && node.target.find("getitem") == std::string::npos;
}

// An op a backend folds into the convolution or linear before it (the
// batch norm lowering to XNNPACK and PT2E quantization fold into the
// weights, the activation XNNPACK applies as the node's output clamp).
bool foldable(const etrecord::GraphNode& node) {
  for (const char* op : {"batch_norm", "hardtanh", "relu", "clamp"}) {
    if (node.target.find(op) != std::string::npos) return true;
  }
  return false;
}

bool folds_into(const etrecord::GraphNode& node) {
  for (const char* op : {"convolution", "linear", "addmm", "mm."}) {
    if (node.target.find(op) != std::string::npos) return true;
  }
  return false;
}

// For each convolution or linear of the reference followed by ops the
// compared program folded into it (its only user a batch norm, then
// perhaps an activation, that produced no value of their own in the
// compared run): the reference's value after the last of them, the one to
// compare the folded op's output with. `recorded` names the compared
// program's nodes that produced a value.
std::map<std::string, ReferenceValue> folded_successors(const etrecord::EdgeGraph& reference,
                                                        const std::set<std::string>& recorded,
                                                        const std::map<std::string, ReferenceValue>& by_name) {
  std::map<std::string, std::vector<const etrecord::GraphNode*>> users;
  for (const etrecord::GraphNode& node : reference.nodes) {
    for (const std::string& input : node.inputs) users[input].push_back(&node);
  }
  std::map<std::string, ReferenceValue> folded;
  for (const etrecord::GraphNode& op : reference.nodes) {
    if (!folds_into(op) || recorded.count(op.name) == 0) continue;
    const etrecord::GraphNode* last = &op;
    while (true) {
      auto next = users.find(last->name);
      if (next == users.end() || next->second.size() != 1) break;
      const etrecord::GraphNode* user = next->second.front();
      if (!foldable(*user) || recorded.count(user->name) || user->inputs.empty() || user->inputs.front() != last->name) {
        break;
      }
      last = user;
    }
    if (last == &op) continue;
    if (auto value = by_name.find(last->name); value != by_name.end()) folded[op.name] = value->second;
  }
  return folded;
}

class GraphReference final : public ReferenceSource {
 public:
  GraphReference(const std::vector<RecordedOutput>& outputs, const etrecord::Etrecord& reference_record,
                 const std::vector<RecordedOutput>& compared_outputs, const etrecord::Etrecord& record,
                 std::string method)
      : record_(record), method_(std::move(method)) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!is_compared_output(outputs, i)) continue;
      const RecordedOutput& output = outputs[i];
      const etrecord::GraphNode* node =
          last_node(output_handles(output, reference_record, method_), reference_record, method_);
      if (node == nullptr) continue;
      by_name_[node->name] = {output.sizes, output.values, output.nhwc};
      // Outputs come in execution order: a module's entry ends as its last op's value.
      if (const std::string module = leaf_module(*node); !module.empty()) {
        by_module_[module] = {output.sizes, output.values, output.nhwc};
      }
    }
    const etrecord::MethodRecord* compared = record.method(method_);
    const etrecord::MethodRecord* reference = reference_record.method(method_);
    if (compared != nullptr && reference != nullptr) {
      std::set<std::string> recorded;  // compared nodes that produced a value
      for (size_t i = 0; i < compared_outputs.size(); ++i) {
        if (!is_compared_output(compared_outputs, i)) continue;
        if (const etrecord::GraphNode* node =
                last_node(output_handles(compared_outputs[i], record, method_), record, method_)) {
          recorded.insert(node->name);
        }
      }
      folded_ = folded_successors(reference->graph, recorded, by_name_);
    }
    if (compared != nullptr) {
      for (const etrecord::GraphNode& node : compared->graph.nodes) {  // graph order: the last one stays
        if (const std::string module = leaf_module(node); !module.empty() && computes(node)) {
          module_result_[module] = node.name;
        }
      }
    }
  }
  Result<std::optional<ReferenceValue>> find(int32_t, const std::vector<int64_t>& handles,
                                             std::string& tried) const override {
    const etrecord::MethodRecord* graph = record_.method(method_);
    for (int64_t handle : handles) {
      const etrecord::GraphNode* node = graph ? graph->graph.find(handle) : nullptr;
      if (node == nullptr) continue;
      tried += (tried.empty() ? "" : ", ") + std::string("node ") + node->name;
      if (auto folded = folded_.find(node->name); folded != folded_.end()) {
        return std::optional<ReferenceValue>(folded->second);
      }
      if (auto it = by_name_.find(node->name); it != by_name_.end()) {
        return std::optional<ReferenceValue>(it->second);
      }
    }
    // No node of the same name, and the op is its leaf module's result (a
    // linear one export keeps whole and the other runs as a weight
    // transpose and an addmm): the reference's last value computed in the
    // same leaf module, the module's result there.
    for (int64_t handle : handles) {
      const etrecord::GraphNode* node = graph ? graph->graph.find(handle) : nullptr;
      if (node == nullptr) continue;
      const std::string module = leaf_module(*node);
      auto result = module_result_.find(module);
      if (result == module_result_.end() || result->second != node->name) continue;
      if (auto it = by_module_.find(module); it != by_module_.end()) {
        tried += ", module " + it->first;
        return std::optional<ReferenceValue>(it->second);
      }
    }
    return std::optional<ReferenceValue>();
  }
  size_t size() const override { return by_name_.size(); }

 private:
  const etrecord::Etrecord& record_;
  std::string method_;
  std::map<std::string, ReferenceValue> by_name_;
  std::map<std::string, ReferenceValue> by_module_;  // leaf module path -> its last value
  std::map<std::string, ReferenceValue> folded_;     // convolution -> value after the ops folded into it
  std::map<std::string, std::string> module_result_;  // leaf module -> its last computing node here
};

// Reads index.json: {"<handle>": {"instruction_id": N, ...}, ...}.
Result<std::map<int64_t, int32_t>> read_index(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json index = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!index.is_object()) {
    return Error::make(ErrorCode::kMalformed, "%s: not a JSON object of debug handles", path.c_str());
  }
  std::map<int64_t, int32_t> handles;
  for (const auto& [key, entry] : index.items()) {
    char* end = nullptr;
    const long long handle = std::strtoll(key.c_str(), &end, 10);
    const auto instruction = entry.is_object() ? entry.find("instruction_id") : entry.end();
    if (key.empty() || *end != '\0' || instruction == entry.end() || !instruction->is_number_integer()) {
      return Error::make(ErrorCode::kMalformed, "%s: entry '%s' is not a debug handle with an instruction_id",
                         path.c_str(), key.c_str());
    }
    handles[handle] = instruction->get<int32_t>();
  }
  return handles;
}

// Names, handles and source line of a row from the ETRecord, the
// reference's own index or the program.
void describe(GapRow& row, const RecordedOutput& output, const ReferenceSource& reference,
              const etrecord::Etrecord* record, const GapOptions& options) {
  row.instruction_id = output.instruction_id;
  row.sizes = output.sizes;
  if (output.instruction_id >= 0 && size_t(output.instruction_id) < options.instruction_ops.size()) {
    row.op = options.instruction_ops[size_t(output.instruction_id)];
  }
  row.delegate_debug_id = output.delegate_debug_id;
  if (record == nullptr) {
    row.handles = output.delegate_debug_id >= 0 ? std::vector<int64_t>{}
                                                : reference.handles_of(output.instruction_id);
    return;
  }
  row.handles = output_handles(output, *record, options.method);
  if (const etrecord::MethodRecord* method = record->method(options.method)) {
    for (int64_t handle : row.handles) {
      if (const etrecord::GraphNode* node = method->graph.find(handle)) {
        row.op = node->target;
        row.source = etrecord::innermost_source_line(node->stack_trace);
        break;
      }
    }
  }
  if (const etrecord::GraphNode* node = last_node(row.handles, *record, options.method)) row.node = node->name;
}

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// Compares one row with its reference value.
Status compare(GapRow& row, const RecordedOutput& output, const ReferenceSource& reference,
               const GapOptions& options) {
  std::string tried;
  // An instruction that fuses several reference ops writes the last one's
  // result: its handle is looked for first.
  const std::vector<int64_t> last_first(row.handles.rbegin(), row.handles.rend());
  ETKIT_ASSIGN_OR_RETURN(std::optional<ReferenceValue> value,
                         reference.find(output.instruction_id, last_first, tried));
  if (!value) {
    row.status = GapStatus::kNoReference;
    row.detail = tried;
    return Ok{};
  }
  // Delegates keep activations NHWC; references of the graph are NCHW.
  std::vector<int64_t> sizes = output.sizes;
  std::vector<double> values = output.values;
  if (output.nhwc) nhwc_to_nchw(sizes, values);
  if (value->nhwc) nhwc_to_nchw(value->sizes, value->values);
  if (value->values.size() != values.size() || (output.nhwc && sizes != value->sizes)) {
    row.status = GapStatus::kShapeMismatch;
    row.detail = "reference " + sizes_text(value->sizes);
    return Ok{};
  }
  if (output.nhwc) row.detail = "NHWC compared as NCHW";
  if (!output.decoded.empty()) row.detail += (row.detail.empty() ? "" : "; ") + output.decoded;
  row.metrics = compare_values(values, value->values);
  if (options.keep_values) {
    row.actual_sizes = sizes;
    row.actual_values = std::move(values);
    row.reference_values = std::move(value->values);
    row.reference_sizes = std::move(value->sizes);
  }
  if (std::isinf(row.metrics.snr_db) && row.metrics.snr_db > 0) {
    row.relative_error = 0;
  } else if (row.metrics.max_abs_reference > 0) {
    row.relative_error = std::pow(10.0, -row.metrics.snr_db / 20.0);
  }
  if (output.quantum > 0) {
    row.quantum = output.quantum;
    row.error_quanta = row.metrics.max_abs / output.quantum;
  }
  row.status = GapStatus::kOk;  // judged by judge()
  return Ok{};
}

}  // namespace

const char* to_string(GapStatus status) {
  switch (status) {
    case GapStatus::kOk: return "ok";
    case GapStatus::kDiverged: return "diverged";
    case GapStatus::kShapeMismatch: return "shape mismatch";
    case GapStatus::kNoReference: return "no reference";
    case GapStatus::kFolded: return "compared later";
  }
  return "?";
}

Result<std::unique_ptr<ReferenceSource>> folder_reference(const std::string& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    return Error::make(ErrorCode::kNotFound, "%s: no such reference folder", dir.c_str());
  }
  std::map<int64_t, int32_t> index;
  const std::string index_path = dir + "/index.json";
  if (fs::exists(index_path, error)) {
    ETKIT_ASSIGN_OR_RETURN(index, read_index(index_path));
  }
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string stem = entry.path().stem().string();
    char* end = nullptr;
    std::strtoll(stem.c_str(), &end, 10);
    files += entry.path().extension() == ".npy" && !stem.empty() && *end == '\0';
  }
  return std::unique_ptr<ReferenceSource>(new FolderReference(dir, std::move(index), files));
}

std::unique_ptr<ReferenceSource> trace_reference(const std::vector<RecordedOutput>& outputs) {
  return std::make_unique<TraceReference>(outputs);
}

bool is_compared_output(const std::vector<RecordedOutput>& outputs, size_t i) {
  const RecordedOutput& output = outputs[i];
  if (output.delegate_debug_id < 0) return output.output_index == 0;  // a reference holds an op's first output
  return i + 1 == outputs.size() || outputs[i + 1].instruction_id != output.instruction_id ||
         outputs[i + 1].delegate_debug_id != output.delegate_debug_id;
}

std::unique_ptr<ReferenceSource> graph_reference(const std::vector<RecordedOutput>& outputs,
                                                 const etrecord::Etrecord& reference_record,
                                                 const std::vector<RecordedOutput>& compared_outputs,
                                                 const etrecord::Etrecord& record, const std::string& method) {
  return std::make_unique<GraphReference>(outputs, reference_record, compared_outputs, record, method);
}

namespace {

// The largest relative error among `name`'s graph inputs, looking through
// nodes without a compared row; graph inputs and constants count 0.
using NodesByName = std::map<std::string, const etrecord::GraphNode*>;

double inherited_error(const std::string& name, const NodesByName& nodes,
                       const std::map<std::string, double>& compared, std::map<std::string, double>& memo,
                       int depth) {
  auto known = memo.find(name);
  if (known != memo.end()) return known->second;
  double worst = 0;
  auto node = nodes.find(name);
  if (node != nodes.end() && depth < 256) {
    for (const std::string& input : node->second->inputs) {
      auto row = compared.find(input);
      const double error = row != compared.end() ? row->second
                                                 : inherited_error(input, nodes, compared, memo, depth + 1);
      worst = std::max(worst, error);
    }
  }
  memo[name] = worst;
  return worst;
}

// Fills error_growth and largest_growth from the graph's edges.
void error_growth(GapReport& report, const etrecord::Etrecord& record, const std::string& method) {
  const etrecord::MethodRecord* graph = record.method(method);
  if (graph == nullptr) return;
  std::map<std::string, double> compared;
  for (const GapRow& row : report.rows) {
    if (!row.node.empty() && std::isfinite(row.relative_error)) compared[row.node] = row.relative_error;
  }
  NodesByName nodes;
  for (const etrecord::GraphNode& node : graph->graph.nodes) nodes[node.name] = &node;
  std::map<std::string, double> memo;
  double largest = 0;
  for (size_t r = 0; r < report.rows.size(); ++r) {
    GapRow& row = report.rows[r];
    if (row.node.empty() || !std::isfinite(row.relative_error)) continue;
    row.error_growth = row.relative_error - inherited_error(row.node, nodes, compared, memo, 0);
    if (row.error_growth > largest) largest = row.error_growth, report.largest_growth = r;
  }
}

// For each row, the row where its op's result is complete: the last row of
// each of its debug handles. Delegate nodes' rows and instructions' rows
// fold apart: a delegate call's own output holds every handle of its nodes.
std::vector<size_t> completing_rows(const std::vector<GapRow>& rows) {
  std::map<std::pair<bool, int64_t>, size_t> last_row;
  for (size_t r = 0; r < rows.size(); ++r) {
    const bool inside = rows[r].delegate_debug_id >= 0;
    for (int64_t handle : rows[r].handles) last_row[{inside, handle}] = r;
  }
  std::vector<size_t> completed_at(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    size_t later = r;
    const bool inside = rows[r].delegate_debug_id >= 0;
    for (int64_t handle : rows[r].handles) later = std::max(later, last_row[{inside, handle}]);
    completed_at[r] = later;
  }
  return completed_at;
}

// Refuses a reference of another program: mostly other shapes (instruction
// ids of two programs name unrelated ops, and the few rows that happen to
// match in shape would decide the verdict), or nothing compared.
Status check_comparable(const GapReport& report, const ReferenceSource& reference, bool has_record) {
  if (report.shape_mismatches > report.compared) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "the reference does not match this trace: %zu of the %zu outputs with a reference have another "
                       "shape than it (%zu compared)%s",
                       report.shape_mismatches, report.shape_mismatches + report.compared, report.compared,
                       has_record ? "" : "; outputs are matched by instruction id: to compare two programs, pass "
                                         "--etrecord and --reference-etrecord (matched by graph node)");
  }
  if (report.compared == 0) {
    return Error::make(ErrorCode::kNotFound,
                       "nothing to compare: none of the %zu recorded outputs has a reference (%zu reference values%s)",
                       report.rows.size(), reference.size(),
                       has_record ? "" : "; an ETRecord maps instructions to debug handles");
  }
  return Ok{};
}

}  // namespace

Result<GapReport> numeric_gap(const std::vector<RecordedOutput>& outputs, const ReferenceSource& reference,
                              const etrecord::Etrecord* record, const GapOptions& options) {
  GapReport report;
  std::vector<const RecordedOutput*> compared_outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!is_compared_output(outputs, i)) continue;
    GapRow row;
    describe(row, outputs[i], reference, record, options);
    report.rows.push_back(std::move(row));
    compared_outputs.push_back(&outputs[i]);
  }
  const std::vector<size_t> completed_at = completing_rows(report.rows);
  for (size_t r = 0; r < report.rows.size(); ++r) {
    GapRow& row = report.rows[r];
    if (completed_at[r] > r) {
      row.status = GapStatus::kFolded;
      row.detail = "compared at instruction " + std::to_string(report.rows[completed_at[r]].instruction_id);
      continue;
    }
    ETKIT_TRY(compare(row, *compared_outputs[r], reference, options));
    if (row.status == GapStatus::kNoReference) {
      ++report.missing;
      continue;
    }
    // Another shape is another layout or another value (a delegate's entry
    // transpose, references of another program): not comparable, so no
    // divergence; the count is reported.
    if (row.status == GapStatus::kShapeMismatch) {
      ++report.shape_mismatches;
      continue;
    }
    ++report.compared;
  }
  judge(report, options);
  if (record != nullptr) error_growth(report, *record, options.method);
  ETKIT_TRY(check_comparable(report, reference, record != nullptr));
  return report;
}

void judge(GapReport& report, const GapOptions& options) {
  report.first_divergence.reset();
  for (size_t r = 0; r < report.rows.size(); ++r) {
    GapRow& row = report.rows[r];
    if (row.status != GapStatus::kOk && row.status != GapStatus::kDiverged) continue;
    const bool in_quanta = options.quanta > 0 && row.quantum > 0;
    const double bound = in_quanta ? options.quanta * row.quantum
                                   : options.atol + options.rtol * row.metrics.max_abs_reference;
    row.status = row.metrics.max_abs <= bound ? GapStatus::kOk : GapStatus::kDiverged;  // NaN diverges
    if (row.status == GapStatus::kDiverged && !report.first_divergence) report.first_divergence = r;
  }
}

std::vector<std::string> instruction_ops(const MethodSummary& method) {
  std::vector<std::string> ops;
  for (const InstructionSummary& instruction : method.instructions) {
    if (instruction.chain != 0) continue;
    if (size_t(instruction.index) >= ops.size()) ops.resize(size_t(instruction.index) + 1);
    ops[size_t(instruction.index)] = instruction.target;
  }
  return ops;
}

}  // namespace etkit::inspector
