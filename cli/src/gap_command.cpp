// etinspect gap ETDUMP --debug-buffer B --reference DIR|ETDUMP2: numeric gap
// per instruction between the runtime's intermediate outputs and a
// reference, in execution order, with the first divergence called out.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.h"
#include "diagnostics.h"
#include "record_loading.h"
#include "etkit/core/file_data.h"
#include "etkit/core/tensor_access.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/npy.h"
#include "etkit/inspector/numeric_gap.h"

namespace etkit::cli {
namespace {

struct GapOptions {
  std::string etdump;
  std::string debug_buffer;
  std::string reference;
  std::string reference_debug_buffer;
  std::string etrecord;
  std::string method = "forward";
  double atol = 1e-5;
  double rtol = 1e-4;
  bool json = false;
};

struct GapRow {
  int32_t instruction_id = -1;
  std::string op;
  std::vector<int64_t> handles;
  std::vector<int64_t> sizes;
  std::string status;  ///< "ok", "diverged", "no reference", "shape mismatch ..."
  inspector::GapMetrics metrics;
  std::string source;
};

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// Reference values of a directory of .npy files: named by debug handle when
// an ETRecord maps instructions to handles, else by instruction id.
struct DirectoryReference {
  std::string dir;
  Result<inspector::NpyArray> find(const std::vector<int64_t>& keys, std::string& tried) const {
    for (int64_t key : keys) {
      const std::string path = dir + "/" + std::to_string(key) + ".npy";
      tried += (tried.empty() ? "" : ", ") + std::to_string(key) + ".npy";
      if (std::filesystem::exists(path)) return inspector::read_npy(path);
    }
    return Error::make(ErrorCode::kNotFound, "none of %s", tried.c_str());
  }
};

Result<std::vector<double>> npy_values(inspector::NpyArray& array) {
  ETKIT_ASSIGN_OR_RETURN(Tensor tensor, array.view());
  std::vector<double> values(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) values[size_t(i)] = element_as_double(tensor, i);
  return values;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", v);
  return text;
}

nlohmann::ordered_json json_number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? nlohmann::ordered_json("nan") : nlohmann::ordered_json(v > 0 ? "inf" : "-inf");
}

int run_gap(const GapOptions& options) {
  Diagnostics diagnostics;
  auto trace = etdump::ETDump::load_file(options.etdump);
  if (!trace.ok()) return diagnostics.fail(trace.error());
  auto buffer = FileData::load(options.debug_buffer);
  if (!buffer.ok()) return diagnostics.fail(buffer.error());
  auto outputs = inspector::recorded_outputs(*trace, (*buffer)->bytes());
  if (!outputs.ok()) return diagnostics.fail(outputs.error().with_context("%s", options.debug_buffer.c_str()));
  if (outputs->empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kNotFound,
                            "%s has no intermediate outputs; record them with etinspect run --debug-level "
                            "intermediates --debug-buffer FILE",
                            options.etdump.c_str()));
  }
  std::optional<etrecord::Etrecord> record;
  if (!options.etrecord.empty()) {
    auto loaded = load_etrecord(options.etrecord, options.method, diagnostics);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    record.emplace(std::move(*loaded));
  }

  // The reference: a folder of .npy, or a second trace with its buffer.
  const bool reference_is_dir = std::filesystem::is_directory(options.reference);
  std::map<int32_t, inspector::RecordedOutput> reference_outputs;
  std::shared_ptr<const FileData> reference_buffer;
  if (!reference_is_dir) {
    auto reference_trace = etdump::ETDump::load_file(options.reference);
    if (!reference_trace.ok()) {
      return diagnostics.fail(reference_trace.error().with_context("--reference is neither a folder nor a trace"));
    }
    if (options.reference_debug_buffer.empty()) {
      return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument,
                              "--reference %s is a trace: give its --reference-debug-buffer",
                              options.reference.c_str()));
    }
    auto loaded = FileData::load(options.reference_debug_buffer);
    if (!loaded.ok()) return diagnostics.fail(loaded.error());
    reference_buffer = *loaded;
    auto recorded = inspector::recorded_outputs(*reference_trace, reference_buffer->bytes());
    if (!recorded.ok()) return diagnostics.fail(recorded.error().with_context("%s", options.reference_debug_buffer.c_str()));
    for (auto& output : *recorded) {
      if (output.output_index == 0) reference_outputs[output.instruction_id] = std::move(output);
    }
  }
  const DirectoryReference directory{options.reference};

  std::vector<GapRow> rows;
  int first_divergence = -1;
  size_t missing = 0;
  for (const inspector::RecordedOutput& output : *outputs) {
    // An op's first output is the one its reference holds (a max-pool's
    // values, not its indices).
    if (output.output_index != 0) continue;
    GapRow row;
    row.instruction_id = output.instruction_id;
    row.op = output.name;
    row.sizes = output.sizes;
    if (record) {
      row.handles = record->instruction_handles(options.method, output.instruction_id);
      if (const etrecord::MethodRecord* m = record->method(options.method)) {
        for (int64_t handle : row.handles) {
          if (const etrecord::GraphNode* node = m->graph.find(handle)) {
            row.op = node->target;
            row.source = etrecord::innermost_source_line(node->stack_trace);
            break;
          }
        }
      }
    }
    std::vector<double> reference;
    std::vector<int64_t> reference_sizes;
    if (reference_is_dir) {
      std::vector<int64_t> keys = record ? row.handles : std::vector<int64_t>{output.instruction_id};
      std::string tried;
      auto array = directory.find(keys, tried);
      if (!array.ok() && array.error().code() != ErrorCode::kNotFound) {
        return diagnostics.fail(array.error());  // a reference that exists but cannot be read
      }
      if (!array.ok()) {
        row.status = keys.empty() ? "no debug handle" : "no reference (" + tried + ")";
        ++missing;
        rows.push_back(std::move(row));
        continue;
      }
      auto values = npy_values(*array);
      if (!values.ok()) return diagnostics.fail(values.error());
      reference = std::move(*values);
      reference_sizes = array->shape;
    } else {
      auto it = reference_outputs.find(output.instruction_id);
      if (it == reference_outputs.end()) {
        row.status = "no reference";
        ++missing;
        rows.push_back(std::move(row));
        continue;
      }
      reference = it->second.values;
      reference_sizes = it->second.sizes;
    }
    if (reference.size() != output.values.size()) {
      row.status = "shape mismatch: reference " + sizes_text(reference_sizes);
      if (first_divergence < 0) first_divergence = static_cast<int>(rows.size());
      rows.push_back(std::move(row));
      continue;
    }
    row.metrics = inspector::compare_values(output.values, reference);
    const bool diverged = !(row.metrics.max_abs <= options.atol + options.rtol * row.metrics.max_abs_reference);
    row.status = diverged ? "diverged" : "ok";
    if (diverged && first_divergence < 0) first_divergence = static_cast<int>(rows.size());
    rows.push_back(std::move(row));
  }

  if (options.json) {
    nlohmann::ordered_json out;
    out["atol"] = options.atol;
    out["rtol"] = options.rtol;
    out["first_divergence"] = first_divergence < 0 ? nlohmann::ordered_json(nullptr)
                                                   : nlohmann::ordered_json(rows[size_t(first_divergence)].instruction_id);
    out["missing_references"] = missing;
    out["rows"] = nlohmann::ordered_json::array();
    for (const GapRow& row : rows) {
      out["rows"].push_back({{"instruction_id", row.instruction_id},
                             {"op", row.op},
                             {"debug_handles", row.handles},
                             {"sizes", row.sizes},
                             {"status", row.status},
                             {"mse", json_number(row.metrics.mse)},
                             {"l1", json_number(row.metrics.l1)},
                             {"snr_db", json_number(row.metrics.snr_db)},
                             {"cosine", json_number(row.metrics.cosine)},
                             {"max_abs", json_number(row.metrics.max_abs)},
                             {"source", row.source}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("%5s  %-44s %-18s %10s %10s %9s %9s %10s  %s\n", "instr", "op", "sizes", "mse", "l1", "snr_db",
                "cosine", "max_abs", "status");
    for (size_t i = 0; i < rows.size(); ++i) {
      const GapRow& row = rows[i];
      const bool compared = row.status == "ok" || row.status == "diverged";
      std::printf("%5d  %-44s %-18s %10s %10s %9s %9s %10s  %s%s%s\n", row.instruction_id, row.op.c_str(),
                  sizes_text(row.sizes).c_str(), compared ? number(row.metrics.mse).c_str() : "",
                  compared ? number(row.metrics.l1).c_str() : "", compared ? number(row.metrics.snr_db).c_str() : "",
                  compared ? number(row.metrics.cosine).c_str() : "", compared ? number(row.metrics.max_abs).c_str() : "",
                  row.status.c_str(), row.source.empty() ? "" : "  ", row.source.c_str());
    }
    if (first_divergence >= 0) {
      const GapRow& row = rows[size_t(first_divergence)];
      std::printf("\nfirst divergence: instruction %d (%s)%s%s\n", row.instruction_id, row.op.c_str(),
                  row.source.empty() ? "" : " at ", row.source.c_str());
    } else {
      std::printf("\nno divergence over %zu outputs (max abs error <= %g + %g * max |reference|)\n",
                  rows.size() - missing, options.atol, options.rtol);
    }
  }
  if (missing > 0) diagnostics.warning(std::to_string(missing) + " output(s) had no reference value");
  diagnostics.flush();
  return first_divergence >= 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void register_gap(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<GapOptions>();
  CLI::App* command = app.add_subcommand("gap", "Numeric gap per op between intermediate outputs and a reference");
  command->add_option("etdump", options->etdump, ".etdp trace recorded with --debug-level intermediates")->required();
  command->add_option("--debug-buffer", options->debug_buffer, "The trace's debug buffer")->required();
  command->add_option("--reference", options->reference,
                      "Folder of .npy (named by debug handle with --etrecord, else by instruction id) or a second .etdp")
      ->required();
  command->add_option("--reference-debug-buffer", options->reference_debug_buffer,
                      "Debug buffer of a reference trace");
  command->add_option("--etrecord", options->etrecord, "ETRecord: debug handles, op names, source lines");
  command->add_option("--method", options->method, "The traced method (default forward)");
  command->add_option("--atol", options->atol, "Divergence: max abs error above atol + rtol * max |ref| (1e-5)");
  command->add_option("--rtol", options->rtol, "See --atol (1e-4)");
  command->add_flag("--json", options->json, "JSON report");
  command->callback([options, &context] { context.exit_code = run_gap(*options); });
}

}  // namespace etkit::cli
