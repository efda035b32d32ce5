#pragma once
// The rows of `etinspect table`: a row is an event of an event block; its
// cells as upstream's print_data_tabular shows them, as aligned text, CSV
// or TSV lines, or a JSON object with upstream's dataframe keys.

#include <charconv>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_table.h"
#include "etkit/inspector/event_text.h"
#include "etkit/inspector/numeric_gap.h"
#include "fixed_text.h"

namespace etkit::cli {

using inspector::DebugOutputs;
using inspector::debug_data_text;
using inspector::decimals_for;
using inspector::module_text;
using inspector::op_types_text;
using inspector::source_text;

/// How cells are written: optional columns and number precision.
struct CellFormat {
  bool bundled_case = false;            ///< a bundled_input_index column after the block name
  bool source = false;                  ///< module and source (--source)
  bool full_paths = false;              ///< source paths whole instead of folder/file:line
  const DebugOutputs* debug = nullptr;  ///< debug_data (--debug-buffer)
  /// Fixed decimals of the statistics: the digits the source unit resolves
  /// in the target unit (ns -> ms: 6), so columns line up without noise.
  int decimals = 6;
};

/// Whether column `index` of the text table holds numbers (right-aligned).
bool numeric_column(size_t index, const CellFormat& format);

/// A row: an event of a block.
using Row = inspector::EventRef;

inline constexpr const char* kStatColumns[] = {"p10", "p50", "p90", "avg", "min", "max"};

/// Statistic number `index` of kStatColumns.
inline double stat(const inspector::PerfData& p, size_t index) {
  const double values[] = {p.p10, p.p50, p.p90, p.avg, p.min, p.max};
  return values[index];
}

// Calls emit(column, text) for each cell but the statistics, and
// stat(column, value) for those (or emit(column, "") without timings), in
// column order, without building a string per cell where it can (numbers
// go through a stack buffer).
template <typename Emit, typename Stat>
void for_each_cell(const Row& row, const CellFormat& format, Emit&& emit, Stat&& stat_cell) {
  const inspector::Event& e = *row.event;
  size_t column = 0;
  emit(column++, std::string_view(row.block->name));
  if (format.bundled_case) {
    char text[16];
    const int32_t index = row.block->bundled_input_index;
    const auto written = std::to_chars(text, text + sizeof(text), index);
    emit(column++, index < 0 ? std::string_view() : std::string_view(text, size_t(written.ptr - text)));
  }
  emit(column++, std::string_view(e.name));
  for (size_t stat_column = 0; stat_column < std::size(kStatColumns); ++stat_column) {
    if (e.perf_data) stat_cell(column++, stat(*e.perf_data, stat_column));
    else emit(column++, std::string_view());
  }
  if (e.op_types.empty()) emit(column++, std::string_view("[]"));
  else emit(column++, std::string_view(op_types_text(e)));
  emit(column++, std::string_view(e.is_delegated_op ? "True" : "False"));
  emit(column++, std::string_view(e.delegate_backend_name));
  if (format.source) {
    emit(column++, std::string_view(module_text(e)));
    emit(column++, std::string_view(source_text(e, format.full_paths)));
  }
  if (format.debug != nullptr) emit(column++, std::string_view(debug_data_text(e, *format.debug)));
}

/// A statistic as its cell shows it: fixed, `decimals` digits after the
/// point. Equal values in a row (all six, when a block has one run) are
/// formatted once.
class StatText {
 public:
  explicit StatText(int decimals) : decimals_(decimals) {}
  std::string_view operator()(double value) {
    if (!have_text_ || std::memcmp(&value, &formatted_, sizeof(value)) != 0) {
      length_ = fixed_text(value, decimals_, text_, sizeof(text_));
      formatted_ = value;
      have_text_ = true;
    }
    return std::string_view(text_, length_);
  }

 private:
  int decimals_;
  // Room for any double in fixed notation (DBL_MAX has 309 digits before
  // the point) with the decimals any unit pair asks for.
  char text_[352];
  size_t length_ = 0;
  double formatted_ = 0;
  bool have_text_ = false;
};

/// Calls emit(column, text) for every cell of the row, statistics formatted.
template <typename Emit>
void for_each_cell(const Row& row, const CellFormat& format, Emit&& emit) {
  StatText stat_text(format.decimals);
  for_each_cell(row, format, emit, [&](size_t column, double value) { emit(column, stat_text(value)); });
}

/// The cells of a row as strings (for sorted output, which keeps rows).
std::vector<std::string> cells(const Row& row, const CellFormat& format);

// Output goes through one large buffer: a million rows through iostreams
// would dominate the command's time.
class Output {
 public:
  ~Output() { flush(); }
  void add(std::string_view text) {
    buffer_ += text;
    if (buffer_.size() > (1u << 20)) flush();
  }
  void flush() {
    std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
    buffer_.clear();
  }

 private:
  std::string buffer_;
};

/// A CSV/TSV cell, quoted when it holds the separator or a quote.
void append_separated_cell(std::string& line, std::string_view cell, char separator);
std::string separated_line(const std::vector<std::string>& cells, char separator);
/// The row as one JSON object with upstream's dataframe keys.
nlohmann::ordered_json json_item(const Row& row, const DebugOutputs& debug);

}  // namespace etkit::cli
