// etinspect diff-program OLD NEW: what changed between two programs (.pte,
// or the program inside a .bpte) and what it cost (inspector/program_diff.h);
// --fail-above BYTES exits 1 when the new file grew by more, for CI gates.

#include <CLI/CLI.hpp>
#include <limits>
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "json_text.h"
#include "etkit/core/file_data.h"
#include "etkit/inspector/program_diff.h"
#include "option_checks.h"
#include "program_loading.h"

namespace etkit::cli {
namespace {

struct DiffProgramOptions {
  std::string old_path, new_path;
  int64_t fail_above = -1;
  size_t top = 20;
  bool json = false;
};

struct Side {
  std::shared_ptr<const FileData> file;
  std::unique_ptr<LoadedProgram> loaded;
  ProgramSummary summary;
  inspector::SizePart size;
  std::vector<inspector::ProgramConstant> constants;
};

Result<Side> load_side(const std::string& path) {
  Side side;
  ETKIT_ASSIGN_OR_RETURN(side.loaded, load_program(path, {}));
  side.summary = summarize(*side.loaded->program);
  ETKIT_ASSIGN_OR_RETURN(side.file, FileData::load(path));
  ETKIT_ASSIGN_OR_RETURN(side.size, inspector::file_size_breakdown(side.file->bytes(), path));
  ETKIT_ASSIGN_OR_RETURN(side.constants, inspector::program_constants(side.file->bytes(), path));
  return side;
}

nlohmann::json count_json(const std::vector<inspector::CountChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : changes) out.push_back({{"name", c.name}, {"old", c.old_count}, {"new", c.new_count}});
  return out;
}

nlohmann::json to_json(const inspector::ProgramDiff& d, const DiffProgramOptions& options) {
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& m : d.methods) {
    methods.push_back({{"name", m.name}, {"old_instructions", m.old_instructions}, {"new_instructions", m.new_instructions},
                       {"operators", count_json(m.operators)}, {"delegate_calls", count_json(m.delegates)}});
  }
  nlohmann::json constants = nlohmann::json::array();
  for (const auto& c : d.constants) {
    constants.push_back({{"key", c.key}, {"status", c.status}, {"old_shape", c.old_shape}, {"new_shape", c.new_shape},
                         {"old_bytes", c.old_bytes}, {"new_bytes", c.new_bytes},
                         {"max_abs_change", std::isnan(c.max_abs_change) ? nlohmann::json() : nlohmann::json(c.max_abs_change)}});
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& s : d.sizes) sizes.push_back({{"category", s.category}, {"old_bytes", s.old_bytes}, {"new_bytes", s.new_bytes}});
  return {{"old", options.old_path}, {"new", options.new_path},
          {"old_file_bytes", d.old_file_bytes}, {"new_file_bytes", d.new_file_bytes},
          {"methods_added", d.methods_added}, {"methods_removed", d.methods_removed}, {"methods", methods},
          {"constants", constants}, {"constants_unchanged", d.constants_unchanged}, {"sizes", sizes}};
}

std::string signed_bytes(int64_t delta) { return fmt::format("{:+d}", delta); }

void print_text(const inspector::ProgramDiff& d, const DiffProgramOptions& options) {
  const int64_t delta = d.new_file_bytes - d.old_file_bytes;
  fmt::print("file: {} bytes -> {} bytes ({}, {:+.1f}%)\n", d.old_file_bytes, d.new_file_bytes, signed_bytes(delta),
             d.old_file_bytes > 0 ? 100.0 * double(delta) / double(d.old_file_bytes) : 0.0);
  for (const auto& name : d.methods_added) fmt::print("method added: {}\n", name);
  for (const auto& name : d.methods_removed) fmt::print("method removed: {}\n", name);
  for (const auto& m : d.methods) {
    fmt::print("method {}: {} -> {} instructions\n", m.name, m.old_instructions, m.new_instructions);
    for (const auto& c : m.delegates) fmt::print("  delegate calls to {}: {} -> {}\n", c.name, c.old_count, c.new_count);
    size_t shown = 0;
    for (const auto& c : m.operators) {
      if (shown++ == options.top) {
        fmt::print("  ... {} more operators (--top, --json)\n", m.operators.size() - options.top);
        break;
      }
      const char* what = c.new_count == 0 ? "removed" : c.old_count == 0 ? "added" : "calls";
      fmt::print("  {:<8} {} ({} -> {})\n", what, c.name, c.old_count, c.new_count);
    }
  }
  size_t changed = 0, added = 0, removed = 0, reshaped = 0;
  for (const auto& c : d.constants) {
    changed += c.status == "changed";
    added += c.status == "added";
    removed += c.status == "removed";
    reshaped += c.status == "reshaped";
  }
  fmt::print("constants: {} changed, {} reshaped, {} added, {} removed, {} unchanged\n", changed, reshaped, added,
             removed, d.constants_unchanged);
  size_t shown = 0;
  for (const auto& c : d.constants) {
    if (shown++ == options.top) {
      fmt::print("  ... {} more (--top, --json)\n", d.constants.size() - options.top);
      break;
    }
    const std::string shapes = c.status == "added" ? c.new_shape : c.status == "removed" ? c.old_shape
                               : c.status == "reshaped" ? c.old_shape + " -> " + c.new_shape : c.new_shape;
    fmt::print("  {:<8} {} {}{}\n", c.status, c.key, shapes,
               std::isnan(c.max_abs_change) ? std::string() : fmt::format(" max |change| {:.6g}", c.max_abs_change));
  }
  fmt::print("size by category (bytes):\n");
  for (const auto& s : d.sizes) {
    fmt::print("  {:<40} {:>12} -> {:>12}  {:>+12d}\n", s.category, s.old_bytes, s.new_bytes, s.new_bytes - s.old_bytes);
  }
}

int run_diff_program(const DiffProgramOptions& options) {
  Diagnostics diagnostics;
  auto old_side = load_side(options.old_path);
  if (!old_side.ok()) return diagnostics.fail(old_side.error());
  auto new_side = load_side(options.new_path);
  if (!new_side.ok()) return diagnostics.fail(new_side.error());
  const inspector::ProgramDiff d = inspector::diff_programs({&old_side->summary, &old_side->size, &old_side->constants},
                                                            {&new_side->summary, &new_side->size, &new_side->constants});
  if (options.json) {
    std::cout << json_text(to_json(d, options), 1) << "\n";
  } else {
    print_text(d, options);
  }
  const int64_t growth = d.new_file_bytes - d.old_file_bytes;
  if (options.fail_above >= 0 && growth > options.fail_above) {
    return diagnostics.check_failed(fmt::format("{} grew by {} bytes, more than --fail-above-bytes {}",
                                                options.new_path, growth, options.fail_above));
  }
  return kExitOk;
}

}  // namespace

void register_diff_program(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DiffProgramOptions>();
  CLI::App* command = app.add_subcommand(
      "diff-program", "What changed between two programs (methods, ops, delegation, constants) and the size it cost");
  command->add_option("old", options->old_path, "The old .pte (or .bpte)")->required();
  command->add_option("new", options->new_path, "The new .pte (or .bpte)")->required();
  command->add_option("--fail-above-bytes", options->fail_above, "Exit 1 when the new file is more than BYTES larger")
      ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  add_renamed_option(*command, "--fail-above", "--fail-above-bytes", "a size in bytes; diff's --fail-above is a percentage");
  command->add_option("--top", options->top, "Operators and constants listed per section (default 20)")
      ->check(whole_number(1));
  command->add_flag("--json", options->json, "Every change as JSON");
  command->callback([options, &context] { context.exit_code = run_diff_program(*options); });
}

}  // namespace etkit::cli
