#include "etkit/inspector/program_diff_report.h"

#include <cmath>

namespace etkit::inspector {
namespace {

using report::Cell;

// Old and new counts of operators (or backends), one row each.
void count_table(report::Printer& out, std::string_view key, const std::vector<CountChange>& changes,
                 size_t text_rows) {
  std::vector<std::vector<Cell>> rows;
  for (const CountChange& c : changes) rows.push_back({Cell::of(c.name), Cell::of(c.old_count), Cell::of(c.new_count)});
  out.table(key, {{"name", 0}, {"old", 0}, {"new", 0}}, rows, text_rows);
}

void constants_table(report::Printer& out, const std::vector<ConstantChange>& constants, size_t text_rows) {
  std::vector<std::vector<Cell>> rows;
  const auto shape = [](const std::string& s) { return s.empty() ? Cell::empty() : Cell::of(s); };
  for (const ConstantChange& c : constants) {
    rows.push_back({Cell::of(c.status), Cell::of(c.key), shape(c.old_shape), shape(c.new_shape),
                    Cell::of(int64_t(c.old_bytes)), Cell::of(int64_t(c.new_bytes)),
                    std::isnan(c.max_abs_change) ? Cell::empty() : Cell::of(c.max_abs_change)});
  }
  out.table("constants",
            {{"status", 0}, {"key", 0}, {"old_shape", 0}, {"new_shape", 0}, {"old_bytes", 0}, {"new_bytes", 0},
             {"max_abs_change", -1}},
            rows, text_rows);
}

void sizes_table(report::Printer& out, const std::vector<SizeChange>& sizes) {
  std::vector<std::vector<Cell>> rows;
  for (const SizeChange& s : sizes) {
    rows.push_back({Cell::of(s.category), Cell::of(s.old_bytes), Cell::of(s.new_bytes),
                    Cell::of(s.new_bytes - s.old_bytes)});
  }
  out.table("sizes", {{"category", 0}, {"old_bytes", 0}, {"new_bytes", 0}, {"change", 0}}, rows);
}

}  // namespace

void print(report::Printer& out, const ProgramDiffReport& report) {
  const ProgramDiff& d = report.diff;
  out.begin_object("");
  out.field("old", report.old_path);
  out.field("new", report.new_path);
  out.field("old_file_bytes", d.old_file_bytes);
  out.field("new_file_bytes", d.new_file_bytes);
  out.field("file_change", d.new_file_bytes - d.old_file_bytes);
  out.string_list("methods_added", d.methods_added);
  out.string_list("methods_removed", d.methods_removed);
  out.begin_list("methods");
  for (const MethodChange& m : d.methods) {
    out.begin_object("");
    out.field("name", m.name);
    out.field("old_instructions", m.old_instructions);
    out.field("new_instructions", m.new_instructions);
    count_table(out, "operators", m.operators, report.text_rows);
    count_table(out, "delegate_calls", m.delegates, 0);
    out.end_object();
  }
  out.end_list();
  constants_table(out, d.constants, report.text_rows);
  out.field("constants_unchanged", uint64_t(d.constants_unchanged));
  sizes_table(out, d.sizes);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
