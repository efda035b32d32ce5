#include "table_writers.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "column_widths.h"
#include "etkit/report/json_text.h"

namespace etkit::cli {
namespace {

bool aligned(const TableLayout& layout) { return layout.format == "text" || layout.format == "markdown"; }
char separator(const TableLayout& layout) { return layout.format == "csv" ? ',' : '\t'; }

std::vector<size_t> header_widths(const TableLayout& layout) {
  std::vector<size_t> width(layout.header.size(), layout.format == "markdown" ? 3 : 0);
  for (size_t i = 0; i < layout.header.size(); ++i) width[i] = std::max(width[i], layout.header[i].size());
  return width;
}

// The aligned formats' one rule: cells padded to their column's width,
// numbers right-aligned, text left-aligned with the last column unpadded
// (but in markdown), between cells two spaces or markdown's " | ". Rows are
// written straight into a block's text: a million rows of small appends
// were a third of the table's time.
class AlignedRowWriter {
 public:
  AlignedRowWriter(const TableLayout& layout, std::vector<size_t> width)
      : markdown_(layout.format == "markdown"), cells_(layout.cells), width_(std::move(width)) {
    for (size_t i = 0; i < width_.size(); ++i) {
      numeric_.push_back(numeric_column(i, cells_));
      row_bytes_ += width_[i] + 3;
    }
  }

  const std::vector<size_t>& widths() const { return width_; }

  void append(std::string& text, const Row& row) const {
    append_cells(text, [&](const auto& emit) { for_each_cell(row, cells_, emit); });
  }
  /// A row of given cells: the header and markdown's rule.
  void append(std::string& text, const std::vector<std::string>& cells) const {
    append_cells(text, [&](const auto& emit) {
      for (size_t i = 0; i < cells.size(); ++i) emit(i, std::string_view(cells[i]));
    });
  }

 private:
  // visit(emit) calls emit(column, text) for each cell in column order.
  template <typename Visit>
  void append_cells(std::string& text, const Visit& visit) const {
    const size_t start = text.size();
    const size_t last = width_.size() - 1;
    size_t at = start;
    // Room for a cell, its padding and a separator, grown when a cell is
    // wider than its column was measured.
    auto room = [&](size_t bytes) {
      if (at + bytes > text.size()) text.resize(at + std::max(bytes, row_bytes_));
      return text.data() + at;
    };
    auto put = [&](std::string_view piece) {
      std::memcpy(room(piece.size()), piece.data(), piece.size());
      at += piece.size();
    };
    auto pad = [&](size_t count) {
      std::memset(room(count), ' ', count);
      at += count;
    };
    if (markdown_) put("| ");
    visit([&](size_t i, std::string_view cell) {
      const bool right = numeric_[i];
      const size_t padding = width_[i] > cell.size() ? width_[i] - cell.size() : 0;
      if (right) pad(padding);
      put(cell);
      if (!right && (i != last || markdown_)) pad(padding);
      if (i != last) put(markdown_ ? " | " : "  ");
    });
    if (markdown_) {
      put(" |");
    } else {
      while (at > start && text[at - 1] == ' ') --at;
    }
    put("\n");
    text.resize(at);
  }

  bool markdown_;
  const CellFormat& cells_;
  std::vector<size_t> width_;
  std::vector<bool> numeric_;
  size_t row_bytes_ = 8;  ///< a row's length when no cell is wider than measured
};

// The header, and markdown's rule under it.
void write_header(const TableLayout& layout, const AlignedRowWriter& writer, Output& out) {
  std::string text;
  writer.append(text, layout.header);
  if (layout.format == "markdown") {
    std::vector<std::string> rule;
    for (size_t w : writer.widths()) rule.push_back(std::string(w, '-'));
    writer.append(text, rule);
  }
  out.add(text);
}

void write_aligned_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  ColumnWidths widths(header_widths(layout), layout.cells);
  source.widen(widths);
  const AlignedRowWriter writer(layout, widths.widths());
  write_header(layout, writer, out);
  source.write_rows(out, [&writer](std::string& text, const Row& row) { writer.append(text, row); });
}

}  // namespace

void write_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  if (layout.format == "json") {
    out.add("[");
    bool first = true;
    source.for_each_row([&](const Row& row) {
      out.add(first ? "\n" : ",\n");
      first = false;
      out.add(report::json_text(json_item(row, *layout.debug)));
    });
    out.add(first ? "]\n" : "\n]\n");
  } else if (aligned(layout)) {
    write_aligned_streamed(source, layout, out);
  } else {
    const char sep = separator(layout);
    out.add(separated_line(layout.header, sep));
    source.write_rows(out, [&](std::string& text, const Row& row) {
      for_each_cell(row, layout.cells, [&](size_t i, std::string_view cell) {
        if (i) text += sep;
        append_separated_cell(text, cell, sep);
      });
      text += '\n';
    });
  }
}

void write_rows(const std::vector<Row>& rows, const TableLayout& layout, Output& out) {
  if (layout.format == "json") {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (const Row& row : rows) items.push_back(json_item(row, *layout.debug));
    out.add(report::json_text(items) + "\n");
  } else if (aligned(layout)) {
    ColumnWidths widths(header_widths(layout), layout.cells);
    for (const Row& row : rows) widths.add(row);
    const AlignedRowWriter writer(layout, widths.widths());
    write_header(layout, writer, out);
    std::string text;
    for (const Row& row : rows) {
      text.clear();
      writer.append(text, row);
      out.add(text);
    }
  } else {
    out.add(separated_line(layout.header, separator(layout)));
    for (const Row& row : rows) out.add(separated_line(cells(row, layout.cells), separator(layout)));
  }
}

}  // namespace etkit::cli
