#include "etkit/inspector/gap_report.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  if (record == nullptr) {
    row.handles = reference.handles_of(output.instruction_id);
    return;
  }
  row.handles = record->instruction_handles(options.method, output.instruction_id);
  if (const etrecord::MethodRecord* method = record->method(options.method)) {
    for (int64_t handle : row.handles) {
      if (const etrecord::GraphNode* node = method->graph.find(handle)) {
        row.op = node->target;
        row.source = etrecord::innermost_source_line(node->stack_trace);
        break;
      }
    }
  }
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
  if (value->values.size() != output.values.size()) {
    row.status = GapStatus::kShapeMismatch;
    row.detail = "reference " + sizes_text(value->sizes);
    return Ok{};
  }
  row.metrics = compare_values(output.values, value->values);
  const bool diverged =
      !(row.metrics.max_abs <= options.atol + options.rtol * row.metrics.max_abs_reference);
  row.status = diverged ? GapStatus::kDiverged : GapStatus::kOk;
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

Result<GapReport> numeric_gap(const std::vector<RecordedOutput>& outputs, const ReferenceSource& reference,
                              const etrecord::Etrecord* record, const GapOptions& options) {
  GapReport report;
  std::vector<const RecordedOutput*> compared_outputs;
  for (const RecordedOutput& output : outputs) {
    if (output.output_index != 0) continue;  // a reference holds an op's first output
    GapRow row;
    describe(row, output, reference, record, options);
    report.rows.push_back(std::move(row));
    compared_outputs.push_back(&output);
  }
  // The last row of each debug handle is where its op's result is complete.
  std::map<int64_t, size_t> last_row;
  for (size_t r = 0; r < report.rows.size(); ++r) {
    for (int64_t handle : report.rows[r].handles) last_row[handle] = r;
  }
  for (size_t r = 0; r < report.rows.size(); ++r) {
    GapRow& row = report.rows[r];
    size_t later = r;
    for (int64_t handle : row.handles) later = std::max(later, last_row[handle]);
    if (later > r) {
      row.status = GapStatus::kFolded;
      row.detail = "compared at instruction " + std::to_string(report.rows[later].instruction_id);
      continue;
    }
    ETKIT_TRY(compare(row, *compared_outputs[r], reference, options));
    if (row.status == GapStatus::kNoReference) {
      ++report.missing;
      continue;
    }
    ++report.compared;
    if (row.status != GapStatus::kOk && !report.first_divergence) report.first_divergence = r;
  }
  if (report.compared == 0) {
    return Error::make(ErrorCode::kNotFound,
                       "nothing to compare: none of the %zu recorded outputs has a reference (%zu reference values%s)",
                       report.rows.size(), reference.size(),
                       record == nullptr ? "; an ETRecord maps instructions to debug handles" : "");
  }
  return report;
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
