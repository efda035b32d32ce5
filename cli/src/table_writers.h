#pragma once
// The formats of `etinspect table`: aligned text and markdown, CSV/TSV and
// JSON, for rows in trace order (streamed from a TableSource) or sorted
// (all rows at once).

#include <string>
#include <vector>

#include "table_rows.h"
#include "table_source.h"

namespace etkit::cli {

struct TableLayout {
  std::string format = "text";  ///< text, markdown, csv, tsv, json
  std::vector<std::string> header;
  CellFormat cells;
  const DebugOutputs* debug = nullptr;  ///< for JSON's debug_data
};

/// Streams every row of `source` in trace order.
void write_streamed(TableSource& source, const TableLayout& layout, Output& out);
/// Writes `rows` (already sorted and cut to --top).
void write_rows(const std::vector<Row>& rows, const TableLayout& layout, Output& out);

}  // namespace etkit::cli
